"""Write the calibration games: self-play of the shipped Zero networks (book 14.3) at a few visits
per move, so that int8 calibration sees positions the engine itself reaches.

    python -m dlgo.zero.calibration_games weights/zero-9x9.keras 9 16 --seed 1
    python -m dlgo.zero.calibration_games weights/zero-19x19.keras 19 6 --seed 1

Writes ``game-<size>x<size>-<n>.sgf`` into ``dlgo/inference/calibration/``, where
``dlgo.inference.quantize`` reads them. It lives here, not in the inference layer, because it
needs the search, which the inference layer does not import.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from dlgo.search.zero_agent import ZeroAgent
from dlgo.zero.selfplay import SelfPlaySettings, play_game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("size", type=int)
    parser.add_argument("games", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--visits", type=int, default=16)
    args = parser.parse_args()
    points = args.size * args.size
    # Many sampled opening moves and a move cap: varied positions from opening to late middle game.
    settings = SelfPlaySettings(
        board_size=args.size,
        full_visits=args.visits,
        fast_visits=max(1, args.visits // 2),
        temperature_moves=points // 4,
        max_moves=points * 3 // 4,
        resign_threshold=-0.95,
    )
    agent = ZeroAgent.from_model(args.model, board_size=args.size, seed=args.seed, threads=1, self_play=True)
    rng = np.random.default_rng(args.seed)
    folder = Path(__file__).resolve().parent.parent / "inference" / "calibration"
    for n in range(args.games):
        game = play_game(agent, settings, rng, resign_allowed=True)
        path = folder / f"game-{args.size}x{args.size}-{n + 1:02d}.sgf"
        path.write_text(game.sgf)
        print(path.name, game.summary()["moves"], game.result, f"{game.seconds:.0f}s", flush=True)


if __name__ == "__main__":
    main()
