"""``python -m dlgo.rl``: see ``dlgo.rl.cli``."""

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # worker processes inherit it: no TensorFlow banners

from dlgo.rl.cli import main  # noqa: E402

sys.exit(main())
