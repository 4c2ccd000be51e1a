"""Random playouts from a ``GameState``, run by the compiled kernel in ``dlgo.playout.kernel``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dlgo.goboard import GameState
from dlgo.gotypes import Player, Point
from dlgo.playout import kernel

__all__ = ["board_array", "random_playout", "estimate_ownership", "Ownership", "seed"]

_WINNER = (None, Player.black, Player.white)


def seed(value: int) -> None:
    kernel.seed(value)


def board_array(game_state: GameState) -> np.ndarray:
    """The padded point codes as a writable int8 array (the kernels' board)."""
    return np.frombuffer(game_state.board.padded_colors, dtype=np.int8).copy()


def _max_moves(game_state: GameState) -> int:
    board = game_state.board
    return 3 * board.num_rows * board.num_cols + 50


def random_playout(game_state: GameState) -> Player | None:
    """Winner of one random playout from ``game_state`` (None for jigo)."""
    board = game_state.board
    winner, _ = kernel.playout(
        board_array(game_state),
        board.geometry.width,
        game_state.next_player.value,
        game_state.ko_point,
        float(game_state.komi),
        _max_moves(game_state),
    )
    return _WINNER[winner]


@dataclass
class Ownership:
    """Mean final owner of each point over many playouts (+1 black, -1 white)."""

    black_win_rate: float
    num_playouts: int
    values: np.ndarray  # padded-index array, as in ``dlgo.goboard``
    num_rows: int
    num_cols: int

    def at(self, point: Point) -> float:
        return float(self.values[point.row * (self.num_cols + 2) + point.col])

    def grid(self) -> np.ndarray:
        """Rows from the top (row ``num_rows``) down, columns A.. right, like a printed board."""
        w = self.num_cols + 2
        full = self.values.reshape(self.num_rows + 2, w)
        return full[self.num_rows : 0 : -1, 1 : self.num_cols + 1].copy()


def estimate_ownership(game_state: GameState, num_playouts: int = 200, fast: bool = False) -> Ownership:
    """Ownership and Black's win rate over ``num_playouts`` playouts from ``game_state`` at its
    komi: random ones, or with ``fast`` the dead-stone count's (``dlgo.playout.tactics``)."""
    board = game_state.board
    black, white, _, own = kernel.playouts(
        board_array(game_state),
        board.geometry.width,
        game_state.next_player.value,
        game_state.ko_point,
        float(game_state.komi),
        num_playouts,
        _max_moves(game_state),
        fast,  # always passed, never defaulted, so every caller shares one compiled kernel
    )
    decided = max(1, num_playouts)
    return Ownership(
        (black + 0.5 * (num_playouts - black - white)) / decided, num_playouts, own, board.num_rows, board.num_cols
    )
