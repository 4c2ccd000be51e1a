"""Players and points of tic-tac-toe (book 4.2).

Distinct from ``dlgo.gotypes``: the players here are ``x`` and ``o``, and x moves first.
"""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["Player", "Point"]


class Player(enum.Enum):
    x = 1
    o = 2

    @property
    def other(self) -> Player:
        return Player.x if self is Player.o else Player.o


class Point(NamedTuple):
    """A cell; ``row`` and ``col`` run from 1 to 3."""

    row: int
    col: int
