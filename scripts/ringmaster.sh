#!/usr/bin/env bash
# Run gomill's ringmaster (0.8.3, Python 2.7 only) on a control file, e.g. the engine against GNU Go:
#
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl run      # play the games (resumable)
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl show     # results so far
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl report   # write the .report file
#   scripts/ringmaster.sh configs/ringmaster/engine_vs_gnugo_9x9.ctl reset    # forget all results
#   scripts/ringmaster.sh --python /usr/bin/python2.7 FILE.ctl run -j 2      # pick the interpreter
#   scripts/ringmaster.sh --setup                                             # only find Python 2.7 and install gomill
#
# Everything after the options goes to ringmaster unchanged (see `ringmaster --help`).
# Python 2.7 is taken from --python, else $PYTHON2, else pyenv's 2.7.x (2.7.18 first), else python2.7 or
# python2 on PATH. gomill 0.8.3 is installed with that interpreter's pip into .gomill/ in the repository
# (git-ignored), once.
# The control files in configs/ringmaster/ read DLGO_ROOT (exported here as the repository root),
# DLGO_PYTHON, DLGO_CONFIG, DLGO_VISITS, DLGO_GAMES, GNUGO and GNUGO_LEVEL from the environment;
# `run` keeps the match settings it used for the later `show` and `report` (see the control files).
#
# Exit status: ringmaster's own, or 2 for a usage error, 3 when no Python 2.7 was found, 4 when gomill
# could not be installed (no pip for that Python, or no network).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gomill_dir="$root/.gomill"
gomill_version="0.8.3"

usage() {
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

python2=""
setup_only=0
while [ $# -gt 0 ]; do
    case "$1" in
        --python)
            [ $# -ge 2 ] || { echo "ringmaster.sh: --python needs a path" >&2; exit 2; }
            python2="$2"
            shift 2
            ;;
        --python=*)
            python2="${1#--python=}"
            shift
            ;;
        --setup)
            setup_only=1
            shift
            ;;
        -h | --help)
            usage
            exit 0
            ;;
        *)
            break
            ;;
    esac
done

if [ "$setup_only" = 0 ] && [ $# -eq 0 ]; then
    usage
    exit 2
fi

is_python27() {
    [ -n "$1" ] && "$1" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (2, 7) else 1)' >/dev/null 2>&1
}

find_python27() {
    local candidate version
    if [ -n "$python2" ]; then
        if is_python27 "$python2"; then echo "$python2"; return 0; fi
        echo "ringmaster.sh: --python $python2 is not a working Python 2.7" >&2
        return 1
    fi
    if [ -n "${PYTHON2:-}" ]; then
        if is_python27 "$PYTHON2"; then echo "$PYTHON2"; return 0; fi
        echo "ringmaster.sh: PYTHON2=$PYTHON2 is not a working Python 2.7" >&2
        return 1
    fi
    if command -v pyenv >/dev/null 2>&1; then
        for version in 2.7.18 $(pyenv versions --bare 2>/dev/null | grep -E '^2\.7(\.[0-9]+)?$' | sort -rV); do
            candidate="$(PYENV_VERSION="$version" pyenv which python2.7 2>/dev/null || true)"
            if is_python27 "$candidate"; then echo "$candidate"; return 0; fi
        done
    fi
    for candidate in python2.7 python2; do
        candidate="$(command -v "$candidate" 2>/dev/null || true)"
        if is_python27 "$candidate"; then echo "$candidate"; return 0; fi
    done
    return 1
}

if ! python2="$(find_python27)"; then
    cat >&2 <<'EOF'
ringmaster.sh: no Python 2.7 found. gomill's ringmaster (0.8.3, its last release) runs on Python 2.7 only.
Give one with --python PATH or PYTHON2=PATH, or install one, e.g. with pyenv:
    pyenv install 2.7.18
EOF
    exit 3
fi

# Install gomill into .gomill/ with that interpreter's pip, unless it is already there.
if ! PYTHONPATH="$gomill_dir" "$python2" -c "import gomill, sys; sys.exit(0 if gomill.__version__ == '$gomill_version' else 1)" >/dev/null 2>&1; then
    echo "ringmaster.sh: installing gomill $gomill_version into $gomill_dir with $python2" >&2
    if ! "$python2" -m pip --version >/dev/null 2>&1; then
        echo "ringmaster.sh: $python2 has no pip; install it (e.g. $python2 -m ensurepip) and retry" >&2
        exit 4
    fi
    rm -rf "$gomill_dir"
    if ! "$python2" -m pip install --disable-pip-version-check --no-warn-script-location --quiet \
            --target "$gomill_dir" "gomill==$gomill_version" >&2; then
        rm -rf "$gomill_dir"
        echo "ringmaster.sh: could not install gomill $gomill_version with $python2 -m pip (no network?)" >&2
        exit 4
    fi
fi

if [ "$setup_only" = 1 ]; then
    echo "$python2"
    exit 0
fi

# GNU Go lives in /usr/games on Debian, which is often not on PATH.
export PATH="$PATH:/usr/games:/usr/local/games"
export DLGO_ROOT="${DLGO_ROOT:-$root}"
export PYTHONPATH="$gomill_dir"
exec "$python2" -c 'import sys; sys.argv[0] = "ringmaster"; from gomill import ringmaster_command_line; ringmaster_command_line.main()' "$@"
