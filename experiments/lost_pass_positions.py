"""Positions where a player passed first into a count it then lost, as SGF openings.

    .venv/bin/python experiments/lost_pass_positions.py runs/MATCH/*/results.jsonl \\
        --player dlgo-default --out runs/lost-pass-openings

For every counted game of ``--player`` that it lost after passing before its opponent, where
our own count (``dlgo.deadstones``, 400 playouts, the pass rule's) called the position lost
too, writes the position just before that pass (the player to move) as an SGF. The files start a
``dlgo-duel --openings`` match that plays those endgames out again: the measure of a rule that
played on instead of passing there (``pass.play_on_when_losing_by`` of commit dd2d408: 0 of 16
endgames won against Pachi, so not kept; docs/strength.md, 2026-11-29).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dlgo.deadstones import count
from dlgo.match.record import load_records, replay
from dlgo.sgf import write_game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.jsonl files of dlgo-duel matches")
    p.add_argument("--player", required=True, help="the label of the player whose passes are looked at")
    p.add_argument("--out", required=True, help="folder for the SGF files")
    p.add_argument("--playouts", type=int, default=400, help="playouts of our count")
    args = p.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    found = 0
    for path in map(Path, args.results):
        for record in load_records(path).values():
            colour = record.colour_of(args.player)
            if colour is None or record.reason != "score" or record.winner == colour or len(record.moves) < 3:
                continue
            (first, m1), (_, m2) = record.moves[-2], record.moves[-1]
            if first != colour or m1 != "pass" or m2 != "pass" or record.moves[-3][1] == "pass":
                continue  # not a pass before the opponent's
            start, moves = replay(record)
            state = start
            for player, move in moves[:-2]:
                state = state.play_as(player, move)
            ours = count(state, args.playouts)
            if not ours.wins(state.next_player.other):
                continue  # our count did not call it lost: not what the pass rule is about
            name = f"{path.parent.parent.name}-{path.parent.name}-game{record.index + 1:04d}.sgf"
            text = write_game(
                moves[:-2],
                start,
                black_name=record.black,
                white_name=record.white,
                result=record.result,
                komi=record.komi,
            )
            (out / name).write_text(text, encoding="utf-8")
            found += 1
            print(
                f"{name}: {args.player} ({colour}) passed at move {len(moves) - 1}; "
                f"the game {record.result}, our count {ours.result}"
            )
    print(f"{found} positions in {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
