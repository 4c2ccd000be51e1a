"""``simple``: 11 planes in absolute colours (book 7.4; repo ``simple.py``).

| plane | meaning |
|---|---|
| 0-3 | black stones whose string has 1, 2, 3, >= 4 liberties |
| 4-7 | white stones whose string has 1, 2, 3, >= 4 liberties |
| 8 | all ones if black is to move |
| 9 | all ones if white is to move |
| 10 | empty points where a play would violate (situational super)ko |
"""

from __future__ import annotations

import numpy as np

from dlgo.encoders import kernels as K
from dlgo.encoders.base import Encoder
from dlgo.encoders.features import BoardAnalysis
from dlgo.goboard import BLACK, GameState

__all__ = ["SimpleEncoder", "create"]


class SimpleEncoder(Encoder):
    num_planes = 11
    history_moves = 1

    def name(self) -> str:
        return "simple"

    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        a = BoardAnalysis(game_state)
        K.stone_liberty_planes(a.colors, a.w, BLACK, a.libs, 4, out)
        out[:, :, 8 if a.color == BLACK else 9] = 1.0
        a.mark_ko(out, 10)


def create(board_size: int | tuple[int, int]) -> SimpleEncoder:
    return SimpleEncoder(board_size)
