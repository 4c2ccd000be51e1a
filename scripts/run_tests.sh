#!/usr/bin/env bash
# Set up everything the tests need (GNU Go, the venv with test extras) and run lint + tests.
# Extra arguments go to pytest, e.g. scripts/run_tests.sh -m slow
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ]; then
    echo "installing GNU Go (Debian package gnugo)" >&2
    sudo_cmd=""
    if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq gnugo >&2
fi
export PATH="$PATH:/usr/games"
scripts/setup_env.sh test
.venv/bin/ruff check .
.venv/bin/python -m pytest -q "$@"
