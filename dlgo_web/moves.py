"""Moves as the page and the book's endpoint write them, and illegal moves explained to a player.

Vertices are GTP's (book 8.2's ``point_from_coords``): a column letter without ``I``, then the
row from the bottom, ``D4``; ``pass`` and ``resign`` are moves too.
"""

from __future__ import annotations

import re

from dlgo.goboard import Move
from dlgo.gotypes import Point
from dlgo.utils import COLS

__all__ = ["MoveTextError", "parse_move", "explain_illegal"]

_VERTEX = re.compile(r"([A-Za-z])(\d{1,2})")


class MoveTextError(ValueError):
    """Text that is no move on this board; the message says why."""


def parse_move(text: object, rows: int, cols: int) -> Move:
    """``D4`` / ``d4`` / ``pass`` / ``resign`` -> Move; ``MoveTextError`` for anything else."""
    if not isinstance(text, str):
        raise MoveTextError(f"a move is text like 'D4' or 'pass', not {type(text).__name__}")
    word = text.strip().lower()
    if word == "pass":
        return Move.pass_turn()
    if word == "resign":
        return Move.resign()
    m = _VERTEX.fullmatch(word)
    if m is None or m.group(1).upper() == "I":
        raise MoveTextError(
            f"{text[:20]!r} is not a move: write a column letter (no I) and a row, like 'D4', or 'pass'"
        )
    col, row = COLS.index(m.group(1).upper()) + 1, int(m.group(2))
    if not (1 <= row <= rows and 1 <= col <= cols):
        raise MoveTextError(f"{text.strip().upper()} is off the {cols}x{rows} board")
    return Move.play(Point(row, col))


# GameState.illegal_reason's words -> what a player reads
_EXPLAINED = {
    "the point is occupied": "{v} is occupied: a stone is already there.",
    "suicide": "{v} would be suicide: the stone (and its string) would have no liberty and capture nothing.",
    "ko (retakes at once)": (
        "{v} retakes the ko at once, which the ko rule forbids: play elsewhere first (a ko threat), "
        "then you may take back."
    ),
    "superko (repeats an earlier position)": "{v} would repeat an earlier position (superko): play elsewhere.",
}


def explain_illegal(reason: str, vertex: str) -> str:
    """A sentence for a player from ``GameState.illegal_reason``'s ``reason``."""
    template = _EXPLAINED.get(reason)
    vertex = vertex.strip().upper()
    return template.format(v=vertex) if template else f"{vertex} is not allowed: {reason}."
