"""Handicap stones: GNU Go's fixed placement and a free placement for any number of stones.

Both return points; ``handicap_game`` turns them into a game where all of them are Black's and
White moves first (the book's GTP frontend alternated colours: docs/book-differences.md, 3).
"""

from __future__ import annotations

from collections.abc import Iterable

from dlgo.goboard import Board, GameState
from dlgo.gotypes import Player, Point

__all__ = [
    "max_fixed_handicap",
    "fixed_handicap_points",
    "free_handicap_points",
    "handicap_game",
    "handicap_compensation",
    "handicap_stone_count",
    "COMPENSATION_RULES",
]

COMPENSATION_RULES = ("chinese", "aga", "none")


def handicap_compensation(stones: int, rule: str = "chinese") -> float:
    """Points White gets for ``stones`` handicap stones in an area count, on top of komi.

    Area rules count Black's handicap stones as area although White never got the moves they
    stand for: Chinese rules (and GNU Go's ``--chinese-rules``, KGS) give White one point per
    stone, AGA rules one fewer.
    """
    if rule not in COMPENSATION_RULES:
        raise ValueError(f"handicap compensation must be one of {', '.join(COMPENSATION_RULES)}")
    if stones < 2 or rule == "none":
        return 0.0
    return float(stones if rule == "chinese" else stones - 1)


def handicap_stone_count(setup: Iterable[Player], movers: Iterable[Player]) -> int:
    """KataGo's count of handicap stones, from the colours of the setup stones and of the moves
    in order: Black's setup stones plus Black's moves before White's first (a controller may play
    the stones as moves: gtp2ogs does for OGS's fixed handicap), when White has no setup stone;
    0 when that is one stone or none."""
    setup = list(setup)
    if any(player is Player.white for player in setup):
        return 0
    count = len(setup)
    for player in movers:
        if player is not Player.black:
            break
        count += 1
    return count if count >= 2 else 0


def max_fixed_handicap(size: int) -> int:
    """2-9 on odd boards from 9x9, 2-4 on even boards and on 7x7, none below 7x7."""
    if size < 7:
        return 0
    if size % 2 == 0 or size == 7:
        return 4
    return 9


def fixed_handicap_points(size: int, stones: int) -> list[Point]:
    """GNU Go's fixed handicap layout, top row first (the order GNU Go answers in)."""
    if stones < 2 or stones > max_fixed_handicap(size):
        raise ValueError(f"invalid number of stones: {stones} on {size}x{size}")
    edge = 3 if size > 11 else 2  # zero-based distance of the star points from the edge
    lo, hi, mid = edge + 1, size - edge, (size + 1) // 2
    points = [Point(hi, hi), Point(lo, lo)]  # 2: upper right, lower left
    if stones >= 3:
        points.append(Point(hi, lo))  # upper left
    if stones >= 4:
        points.append(Point(lo, hi))  # lower right
    if stones >= 6:
        points += [Point(mid, lo), Point(mid, hi)]  # left and right middle
    if stones >= 8:
        points += [Point(hi, mid), Point(lo, mid)]  # top and bottom middle
    if stones in (5, 7, 9):
        points.append(Point(mid, mid))
    return sorted(points, key=lambda p: (-p.row, p.col))


def free_handicap_points(size: int, stones: int) -> list[Point]:
    """Good points for ``stones`` free handicap stones on a square board.

    The fixed layout where it exists, then points on the 3rd/4th lines and centre that are as
    far as possible from stones already chosen (GTP allows up to size*size - 1 stones).
    """
    if stones < 2 or stones > size * size - 1:
        raise ValueError(f"invalid number of stones: {stones} on {size}x{size}")
    fixed = min(stones, max_fixed_handicap(size), 9)
    chosen = fixed_handicap_points(size, fixed) if fixed >= 2 else []
    line = 3 if size > 11 else (2 if size >= 7 else 1)

    def preference(p: Point) -> tuple:
        dist = min((abs(p.row - q.row) + abs(p.col - q.col) for q in chosen), default=2 * size)
        edge = min(p.row, p.col, size + 1 - p.row, size + 1 - p.col)
        return (dist, -abs(edge - line - 1), -p.row, -p.col)

    taken = set(chosen)
    while len(chosen) < stones:
        best = max(
            (Point(r, c) for r in range(1, size + 1) for c in range(1, size + 1) if Point(r, c) not in taken),
            key=preference,
        )
        chosen.append(best)
        taken.add(best)
    return chosen


def handicap_game(size: int | tuple[int, int], points: list[Point], komi: float = 0.5) -> GameState:
    """A new game with ``points`` as Black's handicap stones and White to move."""
    rows, cols = (size, size) if isinstance(size, int) else size
    board = Board(rows, cols)
    for p in points:
        if not board.is_on_grid(p) or board.get(p) is not None:
            raise ValueError(f"bad handicap point {p}")
        board.place_stone(Player.black, p)
    return GameState.from_position(board, Player.white, komi)
