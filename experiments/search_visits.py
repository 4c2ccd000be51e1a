"""Visits behind each of our engine's moves in a match, from its logs: what pondering (or any
other change that keeps more of the tree) buys at the same clock.

    .venv/bin/python experiments/search_visits.py runs/ponder-on/*/ runs/ponder-off/*/

A match folder of ``dlgo.match.duel`` keeps each player's stderr in ``logs/``; run our engine
with ``--engine-set log.level=info`` and every ``genmove`` line ends with the root's visits when
the move was chosen (``...; N visits in S s``): the visits searched for the move plus those
kept from the tree before it (the previous move's subtree, or the pondered one). Quick moves
(no search) are left out. Prints one JSON object per folder: moves, the mean and median root
visits, the mean seconds, and the same by phase of the game (moves 1-20, 21-40, 41+ of the game).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from pathlib import Path

GENMOVE = re.compile(r"genmove \w+ -> \S+ in ([\d.]+) s .*; (\d+) visits in ([\d.]+) s\s*$")
PHASES = {"moves 1-20": (1, 20), "moves 21-40": (21, 40), "moves 41+": (41, 10**6)}


def move_visits(log: Path) -> list[tuple[int, int, float]]:
    """(our move's index in the log, root visits, seconds) of each searched genmove."""
    rows = []
    index = 0
    for line in log.read_text(errors="replace").splitlines():
        if " genmove " not in line:
            continue
        index += 1
        match = GENMOVE.search(line)
        if match:
            rows.append((index, int(match.group(2)), float(match.group(1))))
    return rows


def summary(rows: list[tuple[int, int, float]]) -> dict[str, float]:
    visits = [v for _, v, _ in rows]
    return {
        "moves": len(rows),
        "mean_visits": round(statistics.fmean(visits), 1) if visits else 0.0,
        "median_visits": statistics.median(visits) if visits else 0,
        "mean_seconds": round(statistics.fmean(s for _, _, s in rows), 3) if rows else 0.0,
    }


def folder_report(folder: Path, engine: str) -> dict[str, object]:
    rows: list[tuple[int, int, float]] = []
    for log in sorted((folder / "logs").glob(f"game-*-{engine}*.log")):
        # our n-th move is the game's move 2n-1 (Black) or 2n (White)
        white = "-W-" in log.name
        rows += [(2 * i - (0 if white else 1), v, s) for i, v, s in move_visits(log)]
    by_phase = {name: summary([r for r in rows if lo <= r[0] <= hi]) for name, (lo, hi) in PHASES.items()}
    return {"folder": str(folder), **summary(rows), "by_phase": by_phase}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folders", nargs="+", type=Path, help="match folders of dlgo.match.duel (with logs/)")
    p.add_argument("--engine", default="dlgo", help="the start of our engine's label in the log names")
    args = p.parse_args(argv)
    for folder in args.folders:
        print(json.dumps(folder_report(folder, args.engine)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
