"""``python -m dlgo.rl``: see ``dlgo.rl.cli``."""

import sys

from dlgo.rl.cli import main

sys.exit(main())
