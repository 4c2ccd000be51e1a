"""``sevenplane``: the book's 7 planes (book 7.4, listings 7.23-7.25), relative to the player to move.

| plane | meaning |
|---|---|
| 0, 1, 2 | own stones whose string has 1, 2, >= 3 liberties |
| 3, 4, 5 | opponent stones whose string has 1, 2, >= 3 liberties |
| 6 | empty points where a play would violate (situational super)ko |
"""

from __future__ import annotations

import numpy as np

from dlgo.encoders import kernels as K
from dlgo.encoders.base import Encoder
from dlgo.encoders.features import BoardAnalysis
from dlgo.goboard import GameState

__all__ = ["SevenPlaneEncoder", "create"]


class SevenPlaneEncoder(Encoder):
    num_planes = 7
    history_moves = 1  # the ko plane depends on the last capture

    def name(self) -> str:
        return "sevenplane"

    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        a = BoardAnalysis(game_state)
        K.stone_liberty_planes(a.colors, a.w, a.color, a.libs, 3, out)
        a.mark_ko(out, 6)


def create(board_size: int | tuple[int, int]) -> SevenPlaneEncoder:
    return SevenPlaneEncoder(board_size)
