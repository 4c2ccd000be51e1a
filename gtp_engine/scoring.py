"""Counting for the engine: dead stones, the area score and whether neutral points are left.

Dead stones come from dlgo's Monte Carlo estimate with its static two-eye check
(:mod:`dlgo.deadstones`). One estimate per position (cached), so ``final_score`` and
``final_status_list`` always agree with each other.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from dlgo.goboard import EMPTY, GameState
from dlgo.gotypes import Player, Point
from dlgo.scoring import GameResult, area_ownership, compute_game_result

if TYPE_CHECKING:
    from dlgo.deadstones import GroupStatus

__all__ = ["Count", "count", "has_neutral_points"]


@dataclass(frozen=True)
class Count:
    status: GroupStatus  # dlgo.deadstones.GroupStatus
    result: GameResult

    def dead_stones(self) -> list[Point]:
        return self.status.dead_stones()

    def dead_of(self, player: Player, state: GameState) -> list[list[Point]]:
        return [g for g in self.status.dead if state.board.get(g[0]) is player]

    def wins(self, player: Player) -> bool:
        return self.result.winner is player


_CACHE: OrderedDict[tuple, Count] = OrderedDict()
_CACHE_SIZE = 64


def count(state: GameState, playouts: int, seed: int | None = 1) -> Count:
    """Dead-stone estimate and the area result with dead stones removed (cached per position)."""
    key = (
        state.board.zobrist_hash(),
        state.board.num_rows,
        state.board.num_cols,
        state.next_player,
        state.ko_point,
        float(state.komi),
        playouts,
        seed,
    )
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    from dlgo.deadstones import estimate_status  # compiled playouts: loaded on first use

    status = estimate_status(state, playouts, seed)
    result = compute_game_result(state, status.dead_stones())
    value = Count(status, result)
    _CACHE[key] = value
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return value


def has_neutral_points(state: GameState, counted: Count) -> bool:
    """Is there an empty point nobody owns once dead stones are off, outside seki?

    Under area scoring such a point (dame) is still worth filling, so the game is not over.
    Liberties of seki strings are neutral by nature and do not count.
    """
    board = state.board
    geo = board._geo
    owner = area_ownership(board, counted.dead_stones())
    seki_libs: set[int] = set()
    for group in counted.status.seki:
        string = board.get_go_string(group[0])
        if string is not None:
            seki_libs |= string._libs
    for idx in geo.on_board:
        if board._colors[idx] == EMPTY and owner[idx] == 0 and idx not in seki_libs:
            return True
    return False
