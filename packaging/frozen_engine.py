"""The frozen engine's entry point (PyInstaller, ``packaging/dlgo-gtp.spec``): ``dlgo-gtp``.

numba compiles the engine's kernels on the first start on a machine (machine code is made for
its CPU; about 40 s on 2 cores, the engine answering quick moves meanwhile, or ahead with
``dlgo-gtp --prepare``) and caches them, as in a Python install: beside the kernels' sources in
the folder when it is writable, else in ``~/.cache/numba`` (``NUMBA_CACHE_DIR`` chooses another).
"""

import sys

if __name__ == "__main__":
    from gtp_engine.__main__ import main

    sys.exit(main())
