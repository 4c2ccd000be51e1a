"""Can our compiled playouts read the komi to half a point at the end of a 9x9 game?

    .venv/bin/python experiments/playout_komi_probe.py runs/gnugo1-v800/results.jsonl \\
        runs/gnugo1-v3200/results.jsonl runs/gnugo1-v800-settled/results.jsonl

The 9x9 network's value ignores the komi (docs/strength.md, 2026-12-07), so Black at komi 7.5
plays for what is a jigo at 7. A leaf value that mixed in playouts (AlphaGo's rollouts, book
chapter 13), which count by area with the game's own komi, would read it, if the playouts
counted that finely. For every game counted by GNU Go, positions 3 to 14 moves before its end
(every third), whose true area margin D (Black's) the count gives: the playouts' win rate for
Black at komi D - 0.5 (Black wins by half a point) and D + 0.5 (loses by half a point). A count
that reads half a point gives a gap near 1; the network's value gives about 0.01 (its gap of 0.02
on the -1..1 scale). Also the static count the dead-stone estimate makes (each point to the side
owning it in most of ``--count-playouts`` playouts) against D.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dlgo.goboard import GameState
from dlgo.match.record import load_records, replay
from dlgo.playout import estimate_ownership, kernel


def late_positions(paths: list[str]) -> list[tuple[GameState, float]]:
    """(position, Black's true area margin) for the late positions of GNU Go-counted games."""
    found = []
    for path in map(Path, paths):
        for record in load_records(path).values():
            counted = (record.scoring or {}).get("gnugo_result")
            if record.reason != "score" or not counted or counted[0] not in "BW":
                continue
            margin = float(counted[2:]) * (1 if counted[0] == "B" else -1) + record.komi
            state, moves = replay(record)
            end = len(moves)
            for turn, (player, move) in enumerate(moves):
                if end - 14 <= turn <= end - 3 and (end - turn) % 3 == 0:
                    found.append((state, margin))
                state = state.play_as(player, move)
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", help="results.jsonl files of dlgo-duel matches with GNU Go's count")
    p.add_argument("--playouts", type=int, default=64, help="playouts per position and komi")
    p.add_argument("--count-playouts", type=int, default=400, help="playouts of the static count")
    args = p.parse_args(argv)
    kernel.seed(1)
    positions = late_positions(args.results)
    gaps, both, errors = [], [], []
    for state, margin in positions:
        wins = estimate_ownership(state.with_komi(margin - 0.5), args.playouts, fast=True).black_win_rate
        loses = estimate_ownership(state.with_komi(margin + 0.5), args.playouts, fast=True).black_win_rate
        gaps.append(wins - loses)
        both.append(wins > 0.5 > loses)
        own = estimate_ownership(state, args.count_playouts, fast=True).values
        errors.append(float(np.sign(np.round(own, 6)).sum()) - margin)
    errors_array = np.abs(np.array(errors))
    print(f"{len(positions)} positions, 3 to 14 moves before the end of GNU Go-counted games")
    print(f"playouts ({args.playouts}): win-rate gap between half a point for and against: {np.mean(gaps):.3f}")
    print(f"  both half points called right: {np.mean(both):.1%}")
    print(
        f"static count ({args.count_playouts} playouts) against the true margin: mean error "
        f"{np.mean(errors):+.2f}, mean absolute {errors_array.mean():.2f}, exact {np.mean(errors_array < 0.5):.1%}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
