"""Positions where a player resigned, as SGF openings: would the game have been lost?

    .venv/bin/python experiments/resigned_positions.py runs/gnugo1-v800/results.jsonl \\
        --player dlgo-default --out runs/resigned

For every game ``--player`` lost by resigning, writes the position it resigned in (the player to
move) as an SGF, into ``OUT/after-pass/`` when the opponent's last move was a pass (the count
the resignation read could no longer change) and into ``OUT/mid-game/`` otherwise. The folders
start ``dlgo-duel --openings`` matches that play those games on with ``resign.enabled=false``
(or another threshold): each pair of games swaps colours, so half of them show the resigning
side played on. Prints one line per position.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dlgo.match.record import load_records, replay
from dlgo.sgf import write_game


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.jsonl files of dlgo-duel matches")
    p.add_argument("--player", required=True, help="the label of the player whose resignations are looked at")
    p.add_argument("--out", required=True, help="folder for the SGF files (after-pass/, mid-game/)")
    args = p.parse_args(argv)
    found = 0
    for path in map(Path, args.results):
        for record in load_records(path).values():
            colour = record.colour_of(args.player)
            if colour is None or record.reason != "resign" or record.winner == colour or not record.moves:
                continue
            start, moves = replay(record)
            kind = "after-pass" if record.moves[-1][1] == "pass" else "mid-game"
            folder = Path(args.out) / kind
            folder.mkdir(parents=True, exist_ok=True)
            name = f"{path.parent.name}-game{record.index + 1:04d}.sgf"
            text = write_game(
                moves, start, black_name=record.black, white_name=record.white, result=record.result, komi=record.komi
            )
            (folder / name).write_text(text, encoding="utf-8")
            found += 1
            print(f"{kind}/{name}: {args.player} ({colour}) resigned after move {len(moves)}, {record.result}")
    print(f"{found} positions in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
