"""Self-play games that start from a corner position instead of the empty board.

    state = corner_start(agent.evaluator, 9, 7.0, rng)

Life-and-death problems set up with AB/AW are sparse boards whose one fight is local, a kind
of position that self-play from the empty board never reaches, so the network answered them
with opening points (docs/strength.md). A corner start is such a position. A handful of moves
are drawn from the network's own policy, restricted to one corner box of 4 to 6 points a side,
sometimes two in a row by one colour as a tenuki would leave them. The history is then dropped
(a set-up position, like a problem's AB/AW), and either side is to move. The game is played
from there as any other, so its positions teach local fights on an open board. KataGo starts a
share of its self-play games from varied positions for the same reason.
"""

from __future__ import annotations

import numpy as np

from dlgo.agent.helpers import is_point_an_eye
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point

__all__ = ["corner_start", "corner_box"]

BOX_SIDES = (4, 6)  # a corner box's side, in points, at least and at most
MOVES = (5, 14)  # moves drawn into the box, at least and at most
DOUBLE_MOVE = 0.2  # chance that a move's player also plays the next one (a tenuki elsewhere)


def corner_box(size: int, rng: np.random.Generator) -> list[Point]:
    """The points of a random corner box of ``BOX_SIDES`` points a side (at most half the board and one)."""
    high = max(2, min(BOX_SIDES[1], size // 2 + 1))
    low = min(BOX_SIDES[0], high)
    rows, cols = (int(rng.integers(low, high + 1)) for _ in range(2))
    top, left = bool(rng.integers(2)), bool(rng.integers(2))
    row_range = range(size - rows + 1, size + 1) if top else range(1, rows + 1)
    col_range = range(size - cols + 1, size + 1) if left else range(1, cols + 1)
    return [Point(r, c) for r in row_range for c in col_range]


def corner_start(evaluator, size: int, komi: float, rng: np.random.Generator) -> GameState:
    """A set-up position: moves drawn from ``evaluator``'s policy (``evaluate([state])``) inside
    one corner box, the rest of the board empty, no history, a random side to move."""
    box = corner_box(size, rng)
    indices = np.array([(p.row - 1) * size + p.col - 1 for p in box])
    state = GameState.new_game(size, komi=komi)
    for _ in range(int(rng.integers(MOVES[0], MOVES[1] + 1))):
        legal = np.array(
            [state.is_valid_move(Move.play(p)) and not is_point_an_eye(state.board, p, state.next_player) for p in box]
        )
        if not legal.any():
            break
        policy, _ = evaluator.evaluate([state])
        weights = np.asarray(policy[0], np.float64)[indices] * legal
        weights = weights / weights.sum() if weights.sum() > 0 else legal / legal.sum()
        point = box[int(rng.choice(len(box), p=weights))]
        mover = state.next_player
        state = state.apply_move(Move.play(point))
        if rng.random() < DOUBLE_MOVE:
            state = GameState(state.board, mover, state, None, komi)  # the same colour again
    player = Player.black if rng.random() < 0.5 else Player.white
    return GameState(state.board, player, None, None, komi)
