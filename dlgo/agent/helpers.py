"""Eye rule used by bots so they never fill their own eyes (book listing 3.15)."""

from __future__ import annotations

from collections.abc import Sequence

from dlgo.goboard import Board, Geometry
from dlgo.gotypes import Player, Point

__all__ = ["is_point_an_eye", "is_eye_at_index"]


def is_point_an_eye(board: Board, point: Point, color: Player) -> bool:
    if board.get(point) is not None or not board.is_on_grid(point):
        return False
    geo = board.geometry
    return is_eye_at_index(board.padded_colors, geo, geo.index(point), color.value)


def is_eye_at_index(colors: Sequence[int], geo: Geometry, idx: int, color: int) -> bool:
    """Whether padded index ``idx`` is an eye of ``color`` (a point code) on the board whose point
    codes by padded index are ``colors`` (``Board.padded_colors``): ``is_point_an_eye`` for code
    that works on padded indices. Strict eye: all neighbours ours; diagonals all ours at the edge,
    3 of 4 inside."""
    if colors[idx] != 0:
        return False
    for n in geo.neighbors[idx]:
        if colors[n] != color:
            return False
    friendly = sum(1 for d in geo.diagonals[idx] if colors[d] == color)
    off_board = geo.off_board_diagonals[idx]
    if off_board > 0:
        return off_board + friendly == 4
    return friendly >= 3
