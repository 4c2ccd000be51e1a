"""What a 9x9 Zero network believes about the opening at several komis: its value (as a win
rate) for Black on the empty board and for White after Black's tengen (E5).

    python experiments/value_by_komi.py weights/zero-9x9.keras weights/zero-9x9-loop/zero-9x9.keras

A network whose komi plane means something moves with the komi; one trained on lopsided
self-play shows it here (docs/strength.md, 2026-11-27).
"""

from __future__ import annotations

import argparse

import numpy as np

from dlgo.encoders import get_encoder_by_name
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.inference import load_model

KOMIS = (7.0, 4.0, 0.0)


def opening_win_rates(model_path: str, komis: tuple[float, ...] = KOMIS) -> dict[float, tuple[float, float]]:
    """For each komi: (Black's win rate on the empty board, White's after Black's E5)."""
    encoder = get_encoder_by_name("zero", 9)
    model = load_model(model_path).model
    rates = {}
    for komi in komis:
        empty = GameState.new_game(9, komi=komi)
        tengen = empty.apply_move(Move.play(Point(5, 5)))
        planes = np.stack([encoder.encode(empty), encoder.encode(tengen)]).astype(np.float32)
        value = np.asarray(model(planes, training=False)[1], dtype=np.float64).reshape(-1)
        black_empty, white_after = (value + 1.0) / 2.0  # the value is for the player to move
        rates[komi] = (float(black_empty), float(white_after))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", help="9x9 Zero networks (.keras with their cards)")
    args = parser.parse_args(argv)
    for path in args.models:
        rates = opening_win_rates(path)
        cells = [f"komi {k:g}: Black {b:.0%} on the empty board, White {w:.0%} after E5" for k, (b, w) in rates.items()]
        print(f"{path}\n  " + "\n  ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
