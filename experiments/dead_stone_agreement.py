"""How often our count agrees with GNU Go's on GNU Go's own finished games.

    .venv/bin/python experiments/dead_stone_agreement.py --games 150 -- \\
        --config configs/engine/default.toml --set scoring.dead_stones=playouts
    .venv/bin/python experiments/dead_stone_agreement.py --games 150 -- \\
        --config configs/engine/zero-9x9.toml --set zero.model=weights/NET.keras --set scoring.dead_stones=network

GNU Go (level 1, Chinese rules, or Japanese with ``--rules japanese``: both then count territory
and prisoners) plays itself to two passes, one game per seed; every move is replayed into the
engine (started with the arguments after ``--``); then both answer ``final_score`` and
``final_status_list dead``. A game agrees when both answers are the same.
Prints one JSON object: games, agreeing games, the rate, and each disagreement (seed, both
scores, both dead-stone lists). ``tests/test_gtp_gnugo.py`` checks the first 10 seeds with
playouts; the README gives its figures, with ``dead_stones=playouts`` 145 of 150 (2026-12-05).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from dlgo.match.gtp_client import GtpProcess
from dlgo.match.players import find_gnugo

ROOT = Path(__file__).resolve().parents[1]


def self_play(gnugo: GtpProcess, engine: GtpProcess, seed: int, size: int, komi: float) -> int:
    """One GNU Go game to two passes, replayed into ``engine``; the number of moves."""
    for gtp in (gnugo, engine):
        gtp.send(f"boardsize {size}")
        gtp.send("clear_board")
        gtp.send(f"komi {komi}")
    gnugo.send(f"set_random_seed {seed}")
    colour, passes, moves = "black", 0, 0
    while passes < 2 and moves < 3 * size * size:
        vertex = gnugo.send(f"genmove {colour}", timeout=None)
        if vertex.lower() == "resign":
            break
        engine.send(f"play {colour} {vertex}")
        moves += 1
        passes = passes + 1 if vertex.lower() == "pass" else 0
        colour = "white" if colour == "black" else "black"
    return moves


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument(
        "--rules",
        choices=("chinese", "japanese"),
        default="chinese",
        help="both count by these rules (GNU Go --japanese-rules; ours kgs-rules japanese)",
    )
    parser.add_argument("engine_args", nargs="*", help="after --: the engine's arguments (--config, --set)")
    args = parser.parse_args(argv)
    path = find_gnugo()
    if path is None:
        parser.error("GNU Go not found (apt-get install gnugo)")
    gnugo = GtpProcess([path, "--mode", "gtp", f"--{args.rules}-rules", "--level", "1"], label="GNU Go")
    engine = GtpProcess([sys.executable, "-m", "gtp_engine", *args.engine_args], label="dlgo", cwd=ROOT)
    gnugo.start()
    engine.start()
    engine.send(f"kgs-rules {args.rules}")
    agree, disagreements = 0, []
    try:
        for seed in range(args.first_seed, args.first_seed + args.games):
            self_play(gnugo, engine, seed, args.size, args.komi)
            ours, theirs = engine.send("final_score", timeout=None), gnugo.send("final_score", timeout=None)
            dead_ours = sorted(engine.send("final_status_list dead", timeout=None).split())
            dead_theirs = sorted(v.upper() for v in gnugo.send("final_status_list dead", timeout=None).split())
            same = (ours, dead_ours) == (theirs, dead_theirs)
            agree += same
            if not same:
                disagreements.append({"seed": seed, "ours": [ours, dead_ours], "gnugo": [theirs, dead_theirs]})
            print(f"seed {seed}: {'agree' if same else 'differ'} ({agree} agree so far)", file=sys.stderr)
    finally:
        engine.close()
        gnugo.close()
    games = args.games
    report = {"games": games, "rules": args.rules, "agree": agree, "rate": round(agree / games, 3) if games else None}
    print(json.dumps({**report, "engine_args": args.engine_args, "disagreements": disagreements}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
