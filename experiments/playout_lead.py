"""The playout count's lead along recorded games: how far an unfinished board's estimate is from
the result (docs/strength.md, 2026-12-06 evening: on 19x19 it is no judge for resigning).

    python experiments/playout_lead.py runs/server-clock-19/results.jsonl --every 20 --playouts 400

For each game of a ``dlgo-duel`` results file, every ``--every`` moves: Black's lead by the mean
final owner of each point over ``--playouts`` playouts (``dlgo.deadstones.ownership_values``,
the count's fast policy), minus komi.
"""

from __future__ import annotations

import argparse
import json

from dlgo.deadstones import ownership_values
from dlgo.goboard import GameState, Move
from dlgo.utils import point_from_coords


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", help="a dlgo-duel results.jsonl")
    parser.add_argument("--every", type=int, default=20, help="moves between estimates")
    parser.add_argument("--playouts", type=int, default=400)
    args = parser.parse_args()
    with open(args.results) as f:
        records = [json.loads(line) for line in f if line.strip()]
    for record in records:
        print(f"game {record['index']}: {record['black']} (B) - {record['white']} (W), {record['result']}")
        state = GameState.new_game(record["size"], record["komi"])
        for number, (_, vertex) in enumerate(record["moves"], 1):
            if vertex == "resign":
                break
            state = state.apply_move(Move.pass_turn() if vertex == "pass" else Move.play(point_from_coords(vertex)))
            if number % args.every == 0:
                lead = float(ownership_values(state, args.playouts, "fast").sum()) - record["komi"]
                print(f"  move {number}: Black {lead:+.1f} by the playouts")


if __name__ == "__main__":
    main()
