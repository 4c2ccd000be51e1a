"""``oneplane``: one plane, +1 for a stone of the player to move, -1 for the opponent's, 0 empty
(book 6.1, listings 6.3-6.4)."""

from __future__ import annotations

import numpy as np

from dlgo.encoders.base import Encoder
from dlgo.encoders.features import on_board, padded_colors
from dlgo.goboard import GameState

__all__ = ["OnePlaneEncoder", "create"]

# colour code (0 empty, 1 black, 2 white, 3 border) -> value, for black / white to move
_VALUES = {
    1: np.array([0, 1, -1, 0], dtype=np.float32),
    2: np.array([0, -1, 1, 0], dtype=np.float32),
}


class OnePlaneEncoder(Encoder):
    num_planes = 1

    def name(self) -> str:
        return "oneplane"

    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        colors = on_board(padded_colors(game_state), self.board_height, self.board_width)
        out[:, :, 0] = _VALUES[game_state.next_player.value][colors]


def create(board_size: int | tuple[int, int]) -> OnePlaneEncoder:
    return OnePlaneEncoder(board_size)
