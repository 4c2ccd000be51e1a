#!/usr/bin/env bash
# Quick start: set up (first run only) and start the GTP engine on stdin/stdout with the default
# config. Extra arguments go to the engine, e.g. --config configs/mcts.toml --set mcts.rounds=5000
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_env.sh"
cd "$root"
exec .venv/bin/python -m gtp_engine "$@"
