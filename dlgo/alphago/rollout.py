"""Fast rollouts for AlphaGo-style search: the compiled playout kernel with a cheap preference.

AlphaGo's rollout policy was a tiny linear model over local patterns, about 1000 times
cheaper than its policy network; the book's code runs a whole network per rollout move, far too
slow on a CPU. Here a rollout is a compiled playout (``dlgo.playout.kernel``: random legal
moves that do not fill one's own eye, simple ko, area count at the end) with the two most
valuable local rules of classic playout policies, tried before the random move:

1. **capture**: an opponent string next to the last move is in atari: take it;
2. **save**: an own string next to the last move is in atari: capture a string in atari that
   touches it, else extend at its liberty when that gives it room (at least two empty
   neighbours of the liberty);

and the random move is never a self-atari of a string bigger than a nakade (six stones or more).

A rollout that hits ``max_moves`` before two passes counts as undecided (0), as in the book.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.goboard import GameState
from dlgo.playout.kernel import area_winner, play_out, work_arrays

__all__ = ["rollout", "rollout_value", "POLICIES"]

POLICIES = ("fast", "random")


@njit(cache=True, nogil=True)  # nogil: rollouts in the evaluator thread run beside the tree work
def rollout(colors_in, w, to_move, ko, last, komi, max_moves, fast):
    """Play one rollout; returns the winner (1 black, 2 white, 0 jigo or undecided)."""
    n = colors_in.shape[0]
    colors = colors_in.copy()
    head, nxt, libs, size, empties, epos = work_arrays(n)
    _, finished = play_out(colors, w, to_move, ko, last, max_moves, fast, head, nxt, libs, size, empties, epos)
    if not finished:
        return 0
    return area_winner(colors, w, np.empty(n, np.int8), komi)


def rollout_value(state: GameState, max_moves: int | None = None, policy: str = "fast", count: int = 1) -> float:
    """Mean rollout result from ``state`` for its player to move: +1 win, -1 loss, 0 undecided."""
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    last = state.last_move
    last_idx = board.geometry.index(last.point) if last is not None and last.is_play else 0
    limit = max_moves if max_moves is not None else 3 * board.num_rows * board.num_cols + 50
    me = state.next_player.value
    total = 0
    for _ in range(count):
        winner = rollout(
            colors, board.geometry.width, me, state.ko_point, last_idx, float(state.komi), limit, policy == "fast"
        )
        if winner:
            total += 1 if winner == me else -1
    return total / count
