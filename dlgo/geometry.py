"""The padded grid a board lives on: point codes and index tables for one board size.

A board is a flat array over its grid with one border ring of off-board cells, so neighbours
are index arithmetic. This module knows nothing about stones or games, so the rules core
(:mod:`dlgo.goboard`), counting (:mod:`dlgo.scoring`) and the compiled kernels can all stand on it
without importing each other.
"""

from __future__ import annotations

import functools

from dlgo.gotypes import Point

__all__ = ["EMPTY", "BLACK", "WHITE", "BORDER", "MIN_SIZE", "MAX_SIZE", "Geometry", "geometry"]

# Point codes in a padded colour array; BLACK and WHITE equal ``Player.black.value`` / ``.white.value``.
EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
MIN_SIZE, MAX_SIZE = 2, 25


class Geometry:
    """Index tables for one board size, shared by every board of that size (treat as read-only)."""

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.width = w = num_cols + 2
        self.padded_size = (num_rows + 2) * w
        self.template = [BORDER] * self.padded_size
        self.points: list[Point | None] = [None] * self.padded_size
        self.on_board: list[int] = []
        for r in range(1, num_rows + 1):
            for c in range(1, num_cols + 1):
                idx = r * w + c
                self.template[idx] = EMPTY
                self.points[idx] = Point(r, c)
                self.on_board.append(idx)
        # Only on-board neighbours / diagonals, so loops never see the border.
        self.neighbors: list[tuple[int, ...]] = [()] * self.padded_size
        self.diagonals: list[tuple[int, ...]] = [()] * self.padded_size
        self.off_board_diagonals = [0] * self.padded_size
        for idx in self.on_board:
            self.neighbors[idx] = tuple(n for n in (idx - w, idx + w, idx - 1, idx + 1) if self.template[n] == EMPTY)
            diags = [d for d in (idx - w - 1, idx - w + 1, idx + w - 1, idx + w + 1)]
            self.diagonals[idx] = tuple(d for d in diags if self.template[d] == EMPTY)
            self.off_board_diagonals[idx] = 4 - len(self.diagonals[idx])

    def index(self, point: Point) -> int:
        return point.row * self.width + point.col

    def is_on_grid(self, point: Point) -> bool:
        return 1 <= point.row <= self.num_rows and 1 <= point.col <= self.num_cols


@functools.cache
def geometry(num_rows: int, num_cols: int) -> Geometry:
    """The shared tables for a ``num_rows`` x ``num_cols`` board (ValueError outside 2..25)."""
    if not (MIN_SIZE <= num_rows <= MAX_SIZE and MIN_SIZE <= num_cols <= MAX_SIZE):
        raise ValueError(f"board size {num_rows}x{num_cols} outside {MIN_SIZE}..{MAX_SIZE}")
    return Geometry(num_rows, num_cols)
