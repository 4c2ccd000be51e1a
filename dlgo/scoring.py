"""Area scoring with komi (book 2.2.3, algorithm after the book's repo), with dead stones.

``compute_game_result`` is the book's Tromp-Taylor style count: every stone on the board is
alive, each empty region bordered by one colour only is that colour's territory, the rest is
dame. Pass ``dead_stones`` to count a finished game the way players agree on it: dead stones
are taken off first (they become the capturer's area).

Like the book's ``scoring`` module it does not import :mod:`dlgo.goboard` (goboard imports it for
``GameState.winner``): it reads a board through its padded arrays (:class:`CountableBoard`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from dlgo.geometry import BLACK, EMPTY, WHITE, Geometry
from dlgo.gotypes import Player, Point

__all__ = [
    "Territory",
    "GameResult",
    "CountableBoard",
    "CountableState",
    "evaluate_territory",
    "compute_game_result",
    "area_ownership",
]


class CountableBoard(Protocol):
    """What counting needs of a board (``dlgo.goboard.Board`` is one)."""

    @property
    def geometry(self) -> Geometry: ...

    @property
    def padded_colors(self) -> bytes: ...


class CountableState(Protocol):
    """What counting needs of a game state (``dlgo.goboard.GameState`` is one)."""

    @property
    def board(self) -> CountableBoard: ...

    @property
    def komi(self) -> float: ...


class Territory:
    """Points of an evaluated board, by category (book's names)."""

    def __init__(self, territory_map: dict[Point, str]) -> None:
        self.num_black_territory = 0
        self.num_white_territory = 0
        self.num_black_stones = 0
        self.num_white_stones = 0
        self.num_dame = 0
        self.dame_points: list[Point] = []
        for point, status in territory_map.items():
            if status == "black":
                self.num_black_stones += 1
            elif status == "white":
                self.num_white_stones += 1
            elif status == "territory_b":
                self.num_black_territory += 1
            elif status == "territory_w":
                self.num_white_territory += 1
            else:
                self.num_dame += 1
                self.dame_points.append(point)


@dataclass(frozen=True)
class GameResult:
    b: float
    w: float
    komi: float

    @property
    def winner(self) -> Player | None:
        """None for jigo (possible with integer komi)."""
        diff = self.b - (self.w + self.komi)
        if diff > 0:
            return Player.black
        if diff < 0:
            return Player.white
        return None

    @property
    def winning_margin(self) -> float:
        return abs(self.b - (self.w + self.komi))

    def __str__(self) -> str:
        w = self.w + self.komi
        if self.b > w:
            return f"B+{self.b - w:g}"
        if w > self.b:
            return f"W+{w - self.b:g}"
        return "0"


def area_ownership(board: CountableBoard, dead_stones: Iterable[Point] = ()) -> list[int]:
    """Owner of every padded point after removing ``dead_stones``: 1 black, 2 white, 0 dame."""
    geo = board.geometry
    colors = list(board.padded_colors)
    for p in dead_stones:
        colors[geo.index(p)] = EMPTY
    owner = [0] * geo.padded_size
    seen = [False] * geo.padded_size
    for start in geo.on_board:
        c = colors[start]
        if c != EMPTY:
            owner[start] = c
            continue
        if seen[start]:
            continue
        region = [start]
        seen[start] = True
        borders = 0  # bit 1: black, bit 2: white
        i = 0
        while i < len(region):
            p = region[i]
            i += 1
            for n in geo.neighbors[p]:
                cn = colors[n]
                if cn == EMPTY:
                    if not seen[n]:
                        seen[n] = True
                        region.append(n)
                else:
                    borders |= cn
        region_owner = borders if borders in (BLACK, WHITE) else 0
        for p in region:
            owner[p] = region_owner
    return owner


def evaluate_territory(board: CountableBoard, dead_stones: Iterable[Point] = ()) -> Territory:
    dead = set(dead_stones)
    geo = board.geometry
    colors = board.padded_colors
    owner = area_ownership(board, dead)
    status_map: dict[Point, str] = {}
    for idx in geo.on_board:
        c = colors[idx]
        point = geo.points[idx]
        if c != EMPTY and point not in dead:
            status_map[point] = "black" if c == BLACK else "white"
        elif owner[idx] == BLACK:
            status_map[point] = "territory_b"
        elif owner[idx] == WHITE:
            status_map[point] = "territory_w"
        else:
            status_map[point] = "dame"
    return Territory(status_map)


def compute_game_result(game_state: CountableState, dead_stones: Iterable[Point] = ()) -> GameResult:
    t = evaluate_territory(game_state.board, dead_stones)
    return GameResult(
        t.num_black_territory + t.num_black_stones,
        t.num_white_territory + t.num_white_stones,
        komi=game_state.komi,
    )
