"""Scores where the network has no score head, and the spread of a final score.

KataGo's networks predict the final score (and its spread) directly; dlgo's Zero networks with
KataGo's auxiliary heads do too (``scoreLead`` is then the search's mean of the tree's scores).
An agent without a score head (MCTS with random rollouts, a network with only policy and value)
gets its scores from random playouts and its win rates:

- ``playout_estimate``: random playouts from the position, counted by area (the rollouts of
  book chapter 4): the mean final owner of each point (ownership) and the mean and standard
  deviation of the final score;
- ``lead_from_winrate``: a logistic fit of win rate against score. If the final margin is
  logistic around the lead ``L`` with scale ``s``, the win rate is ``1 / (1 + exp(-L / s))``, so
  a win rate ``p`` means a lead of ``s * ln(p / (1 - p))``. The scale grows with the board's
  side, ``s = 0.155 * sqrt(rows * cols)``: 1.4 points on 9x9, 2.9 on 19x19, measured here (the
  9x9 network's score head against the logit of its win rate in its own games, 819 positions:
  slope 1.4; the 19x19 network's win rates against the final margins of 25 counted 9-dan
  games, maximum likelihood: 3.0). The random playouts' own spread is no scale for this: on an
  open 19x19 board it is some 40 points, which turned every point of win rate into points.

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
from dlgo.inference.komi import SCALE_PER_SIDE, score_scale
from dlgo.playout import board_array, kernel

__all__ = [
    "PlayoutEstimate",
    "playout_estimate",
    "lead_from_winrate",
    "score_scale",
    "SCALE_PER_SIDE",
    "stdev_from_ownership",
]

_WINRATE_CLIP = 1e-3  # a win rate of 0 or 1 means a large lead, not an infinite one


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


def lead_from_winrate(winrate: float, rows: int, cols: int) -> float:
    """The lead (points, the same side's view) a win rate means on this board: the logistic of
    the module docstring with ``score_scale``. A 50% move leads by 0; the win rate is clipped to
    [0.001, 0.999], so an estimated lead stays within about 6.9 scales (20 points on 19x19)."""
    p = min(1.0 - _WINRATE_CLIP, max(_WINRATE_CLIP, float(winrate)))
    return score_scale(rows, cols) * math.log(p / (1.0 - p))


def stdev_from_ownership(ownership: np.ndarray) -> float:
    own = np.clip(np.asarray(ownership, dtype=np.float64), -1.0, 1.0)
    return float(math.sqrt(max(0.0, float(np.sum(1.0 - own * own)))))
