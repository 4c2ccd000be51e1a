#!/usr/bin/env bash
# Put the dlgo engine on OGS (online-go.com) through gtp2ogs 9.x. Step by step: docs/ogs.md.
#
#   OGS_API_KEY=... scripts/run_ogs.sh [--config FILE] [--check] [gtp2ogs options, e.g. --beta]
#   scripts/run_ogs.sh --rehearse [--config FILE]      (no key: one local game, nothing leaves the machine)
#
# Needs Node.js 18+ and gtp2ogs (npm install -g gtp2ogs), the engine installed
# (scripts/setup_env.sh), and the bot's API key in the environment variable OGS_API_KEY: the key
# goes into a private temporary copy of the config (mode 600, removed on exit), never into a file
# in the repo and never onto a command line (where `ps` would show it).
#   --config FILE  gtp2ogs config (default configs/ogs/gtp2ogs.json5)
#   --check        check everything, start the engine once, and stop before connecting
#   --rehearse     play one 9x9 game through gtp2ogs and this config against GNU Go on a local
#                  stand-in for the OGS server (python -m dlgo_ogs); print the result and the record
# Other arguments go to gtp2ogs (--beta: the beta server; -v: more log). Every check runs and each
# problem is one line (the API key is one of them), then exit status 2 if there was any.
# GTP2OGS=PATH runs another gtp2ogs than the one on PATH (a command, or its dist/gtp2ogs.js).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

die() {
    echo "run_ogs: $*" >&2
    exit 2
}

config="configs/ogs/gtp2ogs.json5"
check_only=0
rehearse=0
passthrough=()
while [ $# -gt 0 ]; do
    case "$1" in
        --config)
            [ $# -ge 2 ] || die "--config needs a file"
            config="$2"
            shift 2
            ;;
        --check)
            check_only=1
            shift
            ;;
        --rehearse)
            rehearse=1
            shift
            ;;
        -h | --help)
            sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
            exit 0
            ;;
        *)
            passthrough+=("$1")
            shift
            ;;
    esac
done

# Every check runs, whatever the others found, and each problem is one line: an operator can
# prepare the whole set-up (and check it) before a moderator has made the account a bot and the
# API key exists.
problems=()
problem() {
    echo "run_ogs: $*" >&2
    problems+=("$1")
}

[ -f "$config" ] || problem "config not found: $config"
if [ "$rehearse" = 0 ] && [ -z "${OGS_API_KEY:-}" ]; then
    problem "OGS_API_KEY is not set: export it with your bot's API key (on OGS, as the bot's owner: the bot's profile page, 'Generate API key'); it is never stored in the repo"
fi
have_node=0
if ! command -v node >/dev/null 2>&1; then
    problem "Node.js not found: install Node.js 18 or newer (Debian/Ubuntu: apt-get install nodejs npm)"
else
    node_major="$(node -e 'process.stdout.write(process.versions.node.split(".")[0])')"
    if [ "$node_major" -ge 18 ]; then
        have_node=1
    else
        problem "Node.js $(node --version) is too old for gtp2ogs 9.x: install Node.js 18 or newer"
    fi
fi
# gtp2ogs: the one on PATH, or GTP2OGS (a command, or the .js file node runs).
gtp2ogs_cmd=("${GTP2OGS:-gtp2ogs}")
gtp2ogs_path="$(command -v "${gtp2ogs_cmd[0]}" 2>/dev/null || true)"
if [[ "${gtp2ogs_cmd[0]}" == *.js && -f "${gtp2ogs_cmd[0]}" ]]; then
    gtp2ogs_path="${gtp2ogs_cmd[0]}"
    gtp2ogs_cmd=(node "$gtp2ogs_path")
fi
if [ -z "$gtp2ogs_path" ]; then
    problem "gtp2ogs not found: npm install -g gtp2ogs (version 9.x), then make sure npm's global bin folder is on PATH"
elif [ "$have_node" = 1 ]; then
    # gtp2ogs's version, from the package.json above its executable.
    gtp2ogs_version="unknown"
    dir="$(dirname "$(readlink -f "$gtp2ogs_path")")"
    for _ in 1 2 3; do
        if [ -f "$dir/package.json" ]; then
            gtp2ogs_version="$(node -e 'const p = require(process.argv[1]); process.stdout.write(p.name === "gtp2ogs" ? p.version : "unknown")' "$dir/package.json" 2>/dev/null || echo unknown)"
            break
        fi
        dir="$(dirname "$dir")"
    done
    case "$gtp2ogs_version" in
        9.*) ;;
        *) echo "run_ogs: warning: gtp2ogs version $gtp2ogs_version; this config is written for 9.x" >&2 ;;
    esac
    echo "run_ogs: gtp2ogs $gtp2ogs_version OK, config $config" >&2
fi

# The engine: the project's virtualenv first.
if [ -x "$root/.venv/bin/dlgo-gtp" ]; then
    export PATH="$root/.venv/bin:$PATH"
fi
if ! command -v dlgo-gtp >/dev/null 2>&1; then
    problem "dlgo-gtp not found: run scripts/setup_env.sh (or pip install -e .) first"
elif [ -f "$config" ]; then
    # Start the bot's command from the config once, to fail here rather than in the first game.
    command_json="$(sed -n 's/^[[:space:]]*command:[[:space:]]*\(\[.*\]\),\{0,1\}[[:space:]]*$/\1/p' "$config" | head -n 1)"
    split_json='import json, sys
for a in json.loads(sys.argv[1]): sys.stdout.write(a + "\0")'
    if [ -z "$command_json" ]; then
        echo "run_ogs: warning: could not read bot.command from $config; not checking the engine" >&2
    elif ! mapfile -d '' bot_cmd < <(python3 -c "$split_json" "$command_json" 2>/dev/null) || [ "${#bot_cmd[@]}" = 0 ]; then
        problem "bot.command in $config is not a JSON list of strings: $command_json"
    else
        answer="$(printf 'protocol_version\nname\nquit\n' | timeout 120 "${bot_cmd[@]}" 2>/dev/null | head -n 1 || true)"
        if [ "$answer" = "= 2" ]; then
            echo "run_ogs: engine OK: ${bot_cmd[*]}" >&2
        else
            problem "the bot command does not answer GTP: ${bot_cmd[*]} (run it by hand to see why)"
        fi
    fi
fi

# The rehearsal's stand-in server and referee: the venv's Python with websockets, and GNU Go.
python="$root/.venv/bin/python"
[ -x "$python" ] || python="python3"
if [ "$rehearse" = 1 ]; then
    if ! "$python" -c 'import websockets' >/dev/null 2>&1; then
        problem "the rehearsal needs the Python package websockets: $python -m pip install 'websockets>=12'"
    fi
    if ! command -v gnugo >/dev/null 2>&1 && [ ! -x /usr/games/gnugo ]; then
        problem "the rehearsal plays GNU Go: sudo apt-get install gnugo"
    fi
fi

if [ "${#problems[@]}" -gt 0 ]; then
    echo "run_ogs: ${#problems[@]} problem(s) above; not connecting" >&2
    exit 2
fi
if [ "$check_only" = 1 ]; then
    echo "run_ogs: --check: all set, not connecting" >&2
    exit 0
fi

if [ "$rehearse" = 1 ]; then
    # One game on 127.0.0.1 (python -m dlgo_ogs, docs/ogs.md "Rehearse before going live"): the
    # stand-in starts gtp2ogs with this config, a local --server and a throw-away key.
    gnugo="$(command -v gnugo || echo /usr/games/gnugo)"
    out="runs/ogs-rehearsal/$(date +%Y%m%d-%H%M%S)"
    echo "run_ogs: rehearsal: one 9x9 game against GNU Go on a local stand-in for OGS; nothing leaves the machine" >&2
    status=0
    "$python" -m dlgo_ogs --gtp2ogs "$(printf '%q ' "${gtp2ogs_cmd[@]}")" --games 1 --size 9 \
        --clock byoyomi:60:10:3 --opponent "$gnugo --mode gtp --level 1 --chinese-rules" \
        --referee "$gnugo --mode gtp --level 0 --chinese-rules" --timeout 1800 --out "$out" \
        -- --config "$config" "${passthrough[@]}" || status=$?
    if [ "$status" = 0 ]; then
        echo "run_ogs: rehearsal passed: the record is $out/game-1001.sgf (summary $out/summary.json, gtp2ogs's log $out/gtp2ogs.log)" >&2
    else
        echo "run_ogs: rehearsal FAILED (exit status $status): see $out/summary.json and $out/gtp2ogs.log" >&2
    fi
    exit "$status"
fi

# A private copy of the config with the API key added after the opening brace.
umask 077
tmp="$(mktemp "${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/gtp2ogs-XXXXXX.json5")"
child=""
cleanup() {
    rm -f "$tmp"
}
trap cleanup EXIT
trap 'if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null || true; fi' INT TERM
key_json="$(node -e 'process.stdout.write(JSON.stringify(process.env.OGS_API_KEY))')"
# (ENVIRON, not awk -v, which would undo the JSON escapes.)
KEY_JSON="$key_json" awk '!done && /^[[:space:]]*\{/ { print; print "    apikey: " ENVIRON["KEY_JSON"] ","; done = 1; next } { print }' \
    "$config" >"$tmp"
grep -q '^    apikey: ' "$tmp" || die "no opening { found in $config"

echo "run_ogs: connecting; Ctrl-C (or SIGTERM) stops the bot" >&2
"${gtp2ogs_cmd[@]}" --config "$tmp" "${passthrough[@]}" &
child=$!
status=0
wait "$child" || status=$?
# A signal interrupts `wait`: wait again for gtp2ogs to finish its own shutdown.
if kill -0 "$child" 2>/dev/null; then
    wait "$child" || status=$?
fi
exit "$status"
