"""KataGo's ``thisHash`` and ``symHash`` of a position (docs/Analysis_Engine.md, rootInfo).

``thisHash`` differs, with overwhelming probability, between any two (board, player to move,
simple-ko ban) combinations; ``symHash`` is the same for positions that are symmetric images of
each other (the least of the images' hashes). Both are 32 hex digits, as KataGo's. They are
hashes of their own (not KataGo's values): equal positions give equal strings in one engine.
"""

from __future__ import annotations

import hashlib

import numpy as np

from dlgo.goboard import GameState

__all__ = ["position_hashes"]

_KO = 3  # the simple-ko ban marked on its point, so that symmetries move it with the stones


def _grid(state: GameState) -> np.ndarray:
    board = state.board
    rows, cols = board.num_rows, board.num_cols
    padded = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    if state.ko_point:
        padded[state.ko_point] = _KO
    return padded.reshape(rows + 2, cols + 2)[1:-1, 1:-1]


def _digest(grid: np.ndarray, player: int) -> str:
    shape = np.array(grid.shape, dtype=np.int16).tobytes()
    return hashlib.md5(shape + bytes([player]) + np.ascontiguousarray(grid).tobytes()).hexdigest().upper()


def _images(grid: np.ndarray) -> list[np.ndarray]:
    """The board's symmetric images that keep its shape (8 on a square board, 4 otherwise)."""
    turns = (0, 1, 2, 3) if grid.shape[0] == grid.shape[1] else (0, 2)
    out = []
    for k in turns:
        turned = np.rot90(grid, k)
        out += [turned, turned[:, ::-1]]
    return out


def position_hashes(state: GameState) -> tuple[str, str]:
    """(thisHash, symHash) of the position and the player to move."""
    grid = _grid(state)
    player = state.next_player.value
    this = _digest(grid, player)
    return this, min(_digest(image, player) for image in _images(grid))
