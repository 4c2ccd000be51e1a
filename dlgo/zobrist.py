"""Zobrist hashing (book 3.5), generated per board size from a fixed seed.

The book printed a fixed table for 19x19 only (and its generator script had a bug: docs/book-differences.md, 2).
Here every board size gets its own table, drawn from a seeded generator so hashes are stable
across runs and machines. Two codes per point (black, white stone); the empty board hashes to 0,
as in the book. A separate code marks "white to move" for situational superko.
"""

from __future__ import annotations

import functools
import random

from dlgo.gotypes import Player, Point

EMPTY_BOARD = 0
_SEED = 20190101


class ZobristTable:
    """Codes for one board size, indexed by the padded point index used by ``dlgo.goboard``."""

    __slots__ = ("num_rows", "num_cols", "stone", "white_to_move")

    def __init__(self, num_rows: int, num_cols: int) -> None:
        self.num_rows = num_rows
        self.num_cols = num_cols
        rng = random.Random(_SEED * 1000 + num_rows * 31 + num_cols)
        padded = (num_rows + 2) * (num_cols + 2)
        # stone[color][idx]; color 1 = black, 2 = white (index 0 unused, kept for direct lookup).
        self.stone: list[list[int]] = [
            [0] * padded,
            [rng.getrandbits(64) for _ in range(padded)],
            [rng.getrandbits(64) for _ in range(padded)],
        ]
        self.white_to_move = rng.getrandbits(64)

    def code(self, point: Point, player: Player) -> int:
        idx = point.row * (self.num_cols + 2) + point.col
        return self.stone[player.value][idx]


@functools.cache
def zobrist_table(num_rows: int, num_cols: int) -> ZobristTable:
    return ZobristTable(num_rows, num_cols)


def hash_code(num_rows: int = 19, num_cols: int = 19) -> dict[tuple[Point, Player], int]:
    """The book's ``HASH_CODE`` mapping (point, player) -> code, for readers who want it."""
    table = zobrist_table(num_rows, num_cols)
    return {
        (Point(r, c), p): table.code(Point(r, c), p)
        for r in range(1, num_rows + 1)
        for c in range(1, num_cols + 1)
        for p in (Player.black, Player.white)
    }
