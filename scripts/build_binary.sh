#!/usr/bin/env bash
# Build the engine as one self-contained folder, dist/dlgo-gtp/ (run dist/dlgo-gtp/dlgo-gtp: no
# Python needed on the machine), and its tarball dist/dlgo-gtp-VERSION-linux-ARCH.tar.gz.
# It freezes a play-only install of this checkout (no training extras) with PyInstaller, in
# build/binary/venv. numba's kernels are compiled on the first start on each machine and cached
# in ~/.cache/dlgo/numba (`dlgo-gtp --prepare` once does it ahead). docs/ogs.md, "One binary".
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
python="${PYTHON:-python3}"
work="build/binary"
mkdir -p "$work" dist
if [ ! -x "$work/venv/bin/python" ]; then
    "$python" -m venv "$work/venv" >&2
fi
"$work/venv/bin/python" -m pip install --quiet --upgrade pip >&2
# A copy of the tree, so the install resolves dlgo/shipped's links and builds nothing in place.
"$work/venv/bin/python" -m pip install --quiet --force-reinstall --no-deps . >&2
"$work/venv/bin/python" -m pip install --quiet . "pyinstaller>=6.0" >&2
rm -rf build/lib  # setuptools' in-tree build folder
"$work/venv/bin/python" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath "$work/pyinstaller" packaging/dlgo-gtp.spec >&2
version="$("$work/venv/bin/python" -c 'import dlgo; print(dlgo.__version__)')"
tarball="dist/dlgo-gtp-$version-linux-$(uname -m).tar.gz"
tar -C dist -czf "$tarball" dlgo-gtp
echo "built dist/dlgo-gtp/dlgo-gtp ($(du -sh dist/dlgo-gtp | cut -f1)) and $tarball ($(du -h "$tarball" | cut -f1))" >&2
