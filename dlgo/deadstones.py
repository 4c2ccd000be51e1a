"""Dead-stone estimate from Monte Carlo ownership, for counting finished games.

Random playouts (eye rule, compiled kernel) are run from the position, half with each player
to move first so neither side gets a free tempo. A string whose points end up the opponent's
more often than its own is dead, unless a static two-eye check (``dlgo.eyes``) shows it lives.
Strings that survive with liberties only in neutral points
shared with the opponent are reported as seki.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dlgo.eyes import refine_dead
from dlgo.goboard import BLACK, EMPTY, WHITE, GameState, GoString
from dlgo.gotypes import Player, Point
from dlgo.playout import board_array, kernel
from dlgo.scoring import GameResult, area_ownership, compute_game_result

__all__ = ["GroupStatus", "estimate_status", "final_result", "ownership_values"]


def ownership_values(game_state: GameState, num_playouts: int = 400) -> np.ndarray:
    """Mean final owner per padded point, +1 black / -1 white, both players moving first in turn."""
    board = game_state.board
    colors = board_array(game_state)
    w = board._geo.width
    max_moves = 3 * board.num_rows * board.num_cols + 50
    half = max(1, num_playouts // 2)
    komi = float(game_state.komi)
    to_move = game_state.next_player.value
    _, _, _, own_a = kernel.playouts(colors, w, to_move, game_state.ko_point, komi, half, max_moves)
    _, _, _, own_b = kernel.playouts(colors, w, 3 - to_move, 0, komi, half, max_moves)
    return (own_a + own_b) / 2.0


@dataclass
class GroupStatus:
    alive: list[list[Point]]
    dead: list[list[Point]]
    seki: list[list[Point]]

    def dead_stones(self) -> list[Point]:
        return [p for group in self.dead for p in group]


def _strings(game_state: GameState) -> list[GoString]:
    board = game_state.board
    seen: set[int] = set()
    out = []
    for idx in board._geo.on_board:
        s = board._strings[idx]
        if s is not None and id(s) not in seen:
            seen.add(id(s))
            out.append(s)
    return out


def estimate_status(game_state: GameState, num_playouts: int = 400, seed: int | None = None) -> GroupStatus:
    """Alive, dead and seki strings (each a sorted list of points), strings in board order.

    ``seed`` makes the estimate repeatable; it reseeds the shared playout generator.
    """
    if seed is not None:
        kernel.seed(seed)
    own = ownership_values(game_state, num_playouts)
    board = game_state.board
    strings = _strings(game_state)
    by_ownership = []
    for s in strings:
        sign = 1.0 if s.color is Player.black else -1.0
        if sign * float(np.mean([own[i] for i in s._stones])) < 0.0:
            by_ownership.extend(board._geo.points[i] for i in s._stones)
    # Playouts fill small eyes and misread shared eye space: a static two-eye check corrects them.
    dead_points = refine_dead(game_state, by_ownership)
    dead_set = set(dead_points)
    dead_strings = []
    alive_strings = []
    for s in strings:
        (dead_strings if board._geo.points[next(iter(s._stones))] in dead_set else alive_strings).append(s)
    owner = area_ownership(board, dead_points)
    seki = []
    alive = []
    for s in alive_strings:
        libs = s._libs
        neutral = all(owner[i] == 0 for i in libs)
        shared = any(
            board._colors[n] == (WHITE if s.color is Player.black else BLACK)
            for i in libs
            for n in board._geo.neighbors[i]
            if board._colors[i] == EMPTY
        )
        (seki if libs and neutral and shared else alive).append(s)

    def pts(group: list[GoString]) -> list[list[Point]]:
        return [sorted(s.stones) for s in group]

    return GroupStatus(alive=pts(alive), dead=pts(dead_strings), seki=pts(seki))


def final_result(game_state: GameState, num_playouts: int = 400, seed: int | None = None) -> GameResult:
    """Area count with komi after removing the stones the estimate calls dead."""
    status = estimate_status(game_state, num_playouts, seed)
    return compute_game_result(game_state, status.dead_stones())
