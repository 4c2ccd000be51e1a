#!/usr/bin/env bash
# What a bot operator's install costs: build the wheel of this checkout, install it (with the
# extras named, e.g. "train,web", or none) into a fresh venv outside the checkout from the pip
# cache, and print the wheel's size, the install's wall time and the venv's size on disk.
# Usage: scripts/measure_install.sh [extras]   (docs/performance.md, "Installing to play")
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
extras="${1:-}"
python="${PYTHON:-python3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" -m pip wheel --quiet --no-deps -w "$work/wheel" "$root" >&2
wheel="$(ls "$work"/wheel/*.whl)"
"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip >&2
start=$(date +%s.%N)
"$work/venv/bin/python" -m pip install --quiet "$wheel${extras:+[$extras]}" >&2
end=$(date +%s.%N)
cd "$work"
has_tf=$("$work/venv/bin/python" -c 'import importlib.util as u; print(u.find_spec("tensorflow") is not None)')
printf 'wheel: %s, %s\n' "$(basename "$wheel")" "$(du -h "$wheel" | cut -f1)"
printf 'extras: %s\n' "${extras:-none}"
printf 'install: %.1f s\n' "$(echo "$end - $start" | bc)"
printf 'venv: %s\n' "$(du -sh "$work/venv" | cut -f1)"
# What the project brings, without the venv's own pip and setuptools (pipx shares one pip).
site="$(ls -d "$work"/venv/lib/python3*/site-packages)"
printf 'installed packages (without pip, setuptools): %s\n' "$(du -sh --exclude='pip' --exclude='pip-*' \
    --exclude='setuptools' --exclude='setuptools-*' --exclude='pkg_resources' --exclude='_distutils_hack' "$site" | cut -f1)"
printf 'tensorflow installed: %s\n' "$has_tf"
