#!/usr/bin/env bash
# Keep a self-play run's games in the repository, so that the data for the value, ownership and
# score heads grows from one working session to the next (runs/ does not survive a new machine).
#
#   scripts/archive_selfplay.sh runs/zero-19x19 selfplay/19x19
#
# The run's replay chunks are copied into ARCHIVE/<run id>/, where the run id is made once per
# run folder (its creation time, kept in RUN/archive-id): a loop restarted in a fresh runs/ numbers
# its games from 0 again, and its chunks land in a folder of their own instead of over older ones.
# Chunks already archived are left as they are. Each folder is a replay folder that
# `python -m dlgo.zero.teacher split` reads (give each its own --iteration-offset).
set -euo pipefail
run=${1:?usage: $0 RUN_FOLDER ARCHIVE_FOLDER}
archive=${2:?usage: $0 RUN_FOLDER ARCHIVE_FOLDER}
[[ -d "$run/replay" ]] || { echo "$run/replay: no replay folder (not a dlgo.zero.loop run)" >&2; exit 1; }
if [[ ! -s "$run/archive-id" ]]; then
    date -u +%Y%m%d-%H%M%S > "$run/archive-id"
fi
target="$archive/$(cat "$run/archive-id")"
mkdir -p "$target"
before=$(find "$target" -name '*.npz' | wc -l)
cp -n "$run"/replay/it*-t*-n*.npz "$target"/ 2>/dev/null || true
after=$(find "$target" -name '*.npz' | wc -l)
echo "archived $((after - before)) new chunks ($after in all) in $target ($(du -sh "$target" | cut -f1))"
