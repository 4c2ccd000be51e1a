#!/usr/bin/env bash
# Does a change keep the engine's moves? The same seeded 9x9 self-play game (60 genmoves at a
# fixed 150 visits, one search thread, seed 5) from this checkout and from REVISION (a git
# worktree in a temporary folder), compared answer by answer: a refactor must print "same moves".
# The first game in a fresh folder compiles the kernels into their cache, and its moves can
# differ from a warm engine's (seen with REVISION alone, run twice), so each side plays the game
# twice and the second game counts.
#
#   scripts/same_moves.sh 3661c2e
set -euo pipefail
rev=${1:?usage: scripts/same_moves.sh REVISION}
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$root/.venv/bin/python}
old=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$old" >/dev/null 2>&1 || rm -rf "$old"' EXIT
git -C "$root" worktree add --detach --force "$old" "$rev" >/dev/null 2>&1

moves() (  # a subshell: the cd stays inside
    cd "$1"
    { echo "boardsize 9"; echo "clear_board"; echo "komi 7"
      for _ in $(seq 1 30); do echo "genmove b"; echo "genmove w"; done
      echo "final_score"; echo quit; } |
        "$python" -m gtp_engine --config configs/engine/default.toml --set size.9.zero.rounds=150 \
            --set time.default_seconds=0 --set engine.ponder=false --set size.9.zero.threads=1 \
            --set size.9.zero.seed=5 2>/dev/null | grep '^=' | tr '\n' ' '
)
moves "$old" >/dev/null
before=$(moves "$old")
moves "$root" >/dev/null
after=$(moves "$root")
echo "$rev:      $before"
echo "checkout: $after"
if [ "$before" = "$after" ]; then echo "same moves"; else echo "the moves differ"; exit 1; fi
