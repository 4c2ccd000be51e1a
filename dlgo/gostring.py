"""A string of stones (book 3.5: the ``GoString``): connected stones of one colour with their
liberties, immutable so that board copies share their strings."""

from __future__ import annotations

from dlgo.geometry import Geometry
from dlgo.gotypes import Player, Point

__all__ = ["GoString"]


class GoString:
    """A chain of connected stones of one colour with its liberties (immutable, book 3.5).

    ``stone_indices`` and ``liberty_indices``: the stones and the liberties as padded indices of
    the board (``Board.geometry``), for code that works on the board's padded arrays; read them,
    never assign them (plain attributes, not properties: the board reads them in its inner loops).
    ``stones`` and ``liberties`` give Points.
    """

    __slots__ = ("color", "stone_indices", "liberty_indices", "_geo")

    def __init__(self, color: Player, stones: frozenset[int], liberties: frozenset[int], geo: Geometry):
        self.color = color
        self.stone_indices = stones
        self.liberty_indices = liberties
        self._geo = geo

    def without_liberty(self, idx: int) -> GoString:
        return GoString(self.color, self.stone_indices, self.liberty_indices - {idx}, self._geo)

    def with_liberty(self, idx: int) -> GoString:
        return GoString(self.color, self.stone_indices, self.liberty_indices | {idx}, self._geo)

    def merged_with(self, other: GoString) -> GoString:
        assert other.color == self.color
        stones = self.stone_indices | other.stone_indices
        return GoString(self.color, stones, (self.liberty_indices | other.liberty_indices) - stones, self._geo)

    @property
    def stones(self) -> frozenset[Point]:
        return frozenset(self._geo.points[i] for i in self.stone_indices)

    @property
    def liberties(self) -> frozenset[Point]:
        return frozenset(self._geo.points[i] for i in self.liberty_indices)

    @property
    def num_liberties(self) -> int:
        return len(self.liberty_indices)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GoString)
            and self.color == other.color
            and self.stone_indices == other.stone_indices
            and self.liberty_indices == other.liberty_indices
        )

    def __hash__(self) -> int:
        return hash((self.color, self.stone_indices))

    def __repr__(self) -> str:
        return f"GoString({self.color.name}, stones={sorted(self.stones)}, libs={len(self.liberty_indices)})"
