#!/usr/bin/env bash
# Create .venv (Python 3.11+) and install the project into it; all output goes to stderr so
# that scripts which start the engine keep stdout for GTP. Usage: scripts/setup_env.sh [extras]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
extras="${1:-}"
python="${PYTHON:-python3}"
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: Python 3.11 or newer is needed (set PYTHON=/path/to/python3.11)" >&2
    exit 1
fi
# A .venv that `venv` left without pip (python3-venv was missing) is made again.
if [ -x .venv/bin/python ] && ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    rm -rf .venv
fi
if [ ! -x .venv/bin/python ]; then
    if ! "$python" -c 'import ensurepip, venv' 2>/dev/null; then
        echo "error: $python has no venv/ensurepip: on Debian/Ubuntu, sudo apt-get install python3-venv" >&2
        exit 1
    fi
    "$python" -m venv .venv >&2
fi
stamp=".venv/.installed${extras:+-$extras}"
# Reinstall only when the metadata changed since the last install.
if [ ! -f "$stamp" ] || [ setup.cfg -nt "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip >&2
    .venv/bin/python -m pip install --quiet -e ".${extras:+[$extras]}" >&2
    touch "$stamp"
fi
# What a game would otherwise wait for, made once here (`python -m gtp_engine --prepare`, about a
# minute and a half on 2 cores): the int8 models of the networks the engine configs play on the int8 runtime
# (zero.runtime), and every agent built and warmed up once, so that numba's compiled kernels are in
# their cache (without it the first engine start compiles them for half a minute and plays quick
# moves meanwhile). Made again when a network, a config, the calibration games or the code changed
# (numba recompiles a changed source file). A failure is one warning and is not retried at every
# start: the engine then makes what is missing in the background at start-up, or plays fp32.
prepared_stamp=".venv/.prepared${extras:+-$extras}"
changed() {
    find weights configs/engine dlgo/inference/calibration \( -name '*.keras' -o -name '*.toml' -o -name '*.sgf' \) \
        -newer "$prepared_stamp" -print -quit
    find dlgo gtp_engine -name '*.py' -newer "$prepared_stamp" -print -quit
}
if [ ! -f "$prepared_stamp" ] || [ -n "$(changed)" ]; then
    : >.venv/.prepare.log
    # A play-only environment (no extras: scripts/run_engine.sh) prepares the configs that play
    # without the training stack, those the package ships (dlgo/shipped); the others need [train].
    configs=(configs/engine/*.toml)
    if [ -z "$extras" ]; then configs=(dlgo/shipped/configs/engine/*.toml); fi
    for config in "${configs[@]}"; do
        TF_CPP_MIN_LOG_LEVEL=2 .venv/bin/python -m gtp_engine --config "$config" --prepare \
            >/dev/null 2>>.venv/.prepare.log || failed="$config"
    done
    if [ -n "${failed:-}" ]; then
        echo "warning: $failed: not all prepared ($(grep -- '--prepare' .venv/.prepare.log | tail -n 1)); the engine makes what is missing at start-up or plays fp32" >&2
    fi
    touch "$prepared_stamp"
fi
