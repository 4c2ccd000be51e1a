"""Basic types of the game: players and points (book 3.1)."""

from __future__ import annotations

import enum
from typing import NamedTuple


class Player(enum.Enum):
    black = 1
    white = 2

    @property
    def other(self) -> Player:
        return Player.black if self is Player.white else Player.white


class Point(NamedTuple):
    """An intersection; ``row`` 1 is the bottom line, ``col`` 1 is column A."""

    row: int
    col: int

    def neighbors(self) -> list[Point]:
        return [
            Point(self.row - 1, self.col),
            Point(self.row + 1, self.col),
            Point(self.row, self.col - 1),
            Point(self.row, self.col + 1),
        ]
