"""A string of stones (book 3.5: the ``GoString``): connected stones of one colour with their
liberties, immutable so that board copies share their strings."""

from __future__ import annotations

from dlgo.geometry import Geometry
from dlgo.gotypes import Player, Point

__all__ = ["GoString"]


class GoString:
    """A chain of connected stones of one colour with its liberties (immutable, book 3.5).

    Stones and liberties are kept as padded indices (``stone_indices``, ``liberty_indices``, for
    code that works on the board's padded arrays); ``stones`` and ``liberties`` give Points.
    """

    __slots__ = ("color", "_stones", "_libs", "_geo")

    def __init__(self, color: Player, stones: frozenset[int], liberties: frozenset[int], geo: Geometry):
        self.color = color
        self._stones = stones
        self._libs = liberties
        self._geo = geo

    def without_liberty(self, idx: int) -> GoString:
        return GoString(self.color, self._stones, self._libs - {idx}, self._geo)

    def with_liberty(self, idx: int) -> GoString:
        return GoString(self.color, self._stones, self._libs | {idx}, self._geo)

    def merged_with(self, other: GoString) -> GoString:
        assert other.color == self.color
        stones = self._stones | other._stones
        return GoString(self.color, stones, (self._libs | other._libs) - stones, self._geo)

    @property
    def stone_indices(self) -> frozenset[int]:
        """The stones as padded indices of the board (``Board.geometry``); no copy, as the set is immutable."""
        return self._stones

    @property
    def liberty_indices(self) -> frozenset[int]:
        """The liberties as padded indices of the board (``Board.geometry``); no copy, as the set is immutable."""
        return self._libs

    @property
    def stones(self) -> frozenset[Point]:
        return frozenset(self._geo.points[i] for i in self._stones)

    @property
    def liberties(self) -> frozenset[Point]:
        return frozenset(self._geo.points[i] for i in self._libs)

    @property
    def num_liberties(self) -> int:
        return len(self._libs)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GoString)
            and self.color == other.color
            and self._stones == other._stones
            and self._libs == other._libs
        )

    def __hash__(self) -> int:
        return hash((self.color, self._stones))

    def __repr__(self) -> str:
        return f"GoString({self.color.name}, stones={sorted(self.stones)}, libs={len(self._libs)})"
