"""Scores where the network has no score head, and the spread of a final score.

KataGo's networks predict the final score (and its spread) directly; dlgo's Zero networks with
KataGo's auxiliary heads do too (``scoreLead`` is then the search's mean of the tree's scores).
An agent without a score head (MCTS with random rollouts, a network with only policy and value)
gets its scores from random playouts and its win rates:

- ``playout_estimate``: random playouts from the position, counted by area (the rollouts of
  book chapter 4): the mean final owner of each point (ownership) and the mean and standard
  deviation of the final score;
- ``lead_from_winrate``: a logistic fit of win rate against score. If the final score is
  logistic around the lead with the playouts' spread ``s`` (a logistic of scale ``s * sqrt(3) /
  pi`` has that standard deviation), a win rate ``p`` means a lead of ``scale * ln(p / (1 - p))``.
  So a 50% move leads by 0, and the lead of a win rate shrinks as the game settles and the
  playouts' spread with it.

``stdev_from_ownership`` gives KataGo's ``scoreStdev`` from an ownership map: each point ends
+1 or -1 with mean ``o``, variance ``1 - o^2``; the spread of the count of independent points is
``sqrt(sum(1 - o^2))`` (points are correlated, strings live or die together: like KataGo's own
figure, a rough guide).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.playout import board_array, kernel

__all__ = ["PlayoutEstimate", "playout_estimate", "lead_from_winrate", "stdev_from_ownership", "LOGISTIC_SCALE"]

LOGISTIC_SCALE = math.sqrt(3.0) / math.pi  # a logistic's scale per unit of standard deviation
_WINRATE_CLIP = 1e-4  # a win rate of 0 or 1 means a large lead, not an infinite one


@dataclass
class PlayoutEstimate:
    """``ownership``: mean final owner per point, rows from the top, +1 Black; ``lead``: Black's
    mean final area score less komi; ``stdev``: its standard deviation over the playouts."""

    ownership: np.ndarray
    lead: float
    stdev: float
    playouts: int


def playout_estimate(state: GameState, playouts: int) -> PlayoutEstimate:
    """``playouts`` random games from ``state`` (``dlgo.playout.kernel``), each counted by area."""
    board = state.board
    rows, cols = board.num_rows, board.num_cols
    colors_in = board_array(state)
    w = cols + 2
    n = len(colors_in)
    work = kernel.work_arrays(n)
    owner = np.empty(n, np.int8)
    owned = np.zeros(n, np.float64)
    scores = np.empty(max(1, playouts), np.float64)
    to_move = state.next_player.value
    limit = 3 * rows * cols + 50
    for i in range(playouts):
        colors = colors_in.copy()
        kernel.play_out(colors, w, to_move, state.ko_point, 0, limit, False, *work)
        scores[i] = kernel.area_owner(colors, w, owner) - state.komi
        owned += (owner == Player.black.value).astype(np.float64) - (owner == Player.white.value)
    count = max(1, playouts)
    grid = (owned / count).reshape(rows + 2, w)[rows:0:-1, 1 : cols + 1].copy()
    sample = scores[:playouts] if playouts else np.zeros(1)
    return PlayoutEstimate(grid, float(sample.mean()), float(sample.std()), playouts)


def lead_from_winrate(winrate: float, stdev: float) -> float:
    """The lead (points, the same side's view) a win rate means when the final score spreads
    with ``stdev``: the logistic fit of the module docstring."""
    p = min(1.0 - _WINRATE_CLIP, max(_WINRATE_CLIP, winrate))
    return max(0.5, stdev) * LOGISTIC_SCALE * math.log(p / (1.0 - p))


def stdev_from_ownership(ownership: np.ndarray) -> float:
    own = np.clip(np.asarray(ownership, dtype=np.float64), -1.0, 1.0)
    return float(math.sqrt(max(0.0, float(np.sum(1.0 - own * own)))))
