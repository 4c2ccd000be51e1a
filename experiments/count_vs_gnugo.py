"""Our count against GNU Go's on the last positions of matches GNU Go counted.

    .venv/bin/python experiments/count_vs_gnugo.py runs/*/results.jsonl runs/*/*/results.jsonl

``dlgo-duel`` asks GNU Go for its ``final_score`` of every game it counts. This replays each such
game (ended by two passes) to its last position and counts it with the engine's count
(``dlgo.deadstones.count``, 1,000 playouts as ``final_score``'s), then prints how often both name
the same winner and each game where they do not. Run it at two commits to see what a change of
the count does to the games already played.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dlgo.deadstones import count
from dlgo.gotypes import Player
from dlgo.match.record import load_records, replay


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.jsonl files of dlgo-duel matches")
    p.add_argument("--playouts", type=int, default=1000)
    args = p.parse_args(argv)
    games = agree = 0
    for path in sorted(set(args.results)):
        for record in load_records(Path(path)).values():
            counted = (record.scoring or {}).get("gnugo_result") or ""
            if record.reason != "score" or counted[:1] not in ("B", "W"):
                continue
            state, moves = replay(record)
            for player, move in moves:
                state = state.play_as(player, move)
            ours = count(state, args.playouts).result
            winner = {Player.black: "B", Player.white: "W"}.get(ours.winner, "0")
            games += 1
            if winner == counted[0]:
                agree += 1
            else:
                print(f"{path} game {record.index}: GNU Go {counted}, ours {ours}")
    print(f"{games} games counted by GNU Go; our count names the same winner in {agree}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
