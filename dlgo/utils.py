"""Text helpers: coordinates and board printing (book 3.4), with the correct column letters."""

from __future__ import annotations

from dlgo.goboard import Board, Move
from dlgo.gotypes import Player, Point

# The book's text printed "ABCDEFGHIJKLMNPQRST" (book 3.4; docs/book-differences.md, 1); Go skips I, not O.
COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
STONE_TO_CHAR = {None: " . ", Player.black: " x ", Player.white: " o "}


def coords_from_point(point: Point) -> str:
    return f"{COLS[point.col - 1]}{point.row}"


def point_from_coords(coords: str) -> Point:
    """``"C3"`` -> Point(3, 3); case-insensitive; raises ValueError on anything else."""
    text = coords.strip().upper()
    if len(text) < 2 or text[0] not in COLS or not text[1:].isdigit():
        raise ValueError(f"not a vertex: {coords!r}")
    return Point(row=int(text[1:]), col=COLS.index(text[0]) + 1)


def move_to_text(move: Move) -> str:
    if move.is_pass:
        return "pass"
    if move.is_resign:
        return "resign"
    return coords_from_point(move.point)


def print_move(player: Player, move: Move) -> None:
    if move.is_pass:
        text = "passes"
    elif move.is_resign:
        text = "resigns"
    else:
        text = coords_from_point(move.point)
    print(f"{player} {text}")


def board_to_text(board: Board) -> str:
    lines = []
    for row in range(board.num_rows, 0, -1):
        bump = " " if row <= 9 else ""
        cells = "".join(STONE_TO_CHAR[board.get(Point(row, col))] for col in range(1, board.num_cols + 1))
        lines.append(f"{bump}{row} {cells}")
    lines.append("    " + "  ".join(COLS[: board.num_cols]))
    return "\n".join(lines)


def print_board(board: Board) -> None:
    print(board_to_text(board))
