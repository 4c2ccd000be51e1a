#!/usr/bin/env bash
# Quick start: set up (first run only) and start the GTP engine on stdin/stdout with the default
# config, configs/engine/default.toml (Zero search on the shipped networks for 9x9, 13x13 and 19x19,
# MCTS on other sizes). Extra arguments go to the engine, e.g. --set time.default_seconds=2, or
# --config configs/engine/mcts.toml to play another config.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup_env.sh"
cd "$root"
config=(--config "$root/configs/engine/default.toml")
for arg in "$@"; do
    case "$arg" in
        --config | --config=*) config=() ;;
    esac
done
exec .venv/bin/python -m gtp_engine ${config[@]+"${config[@]}"} "$@"
