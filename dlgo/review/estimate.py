"""A score lead estimated from a win rate, for agents whose searches give no score.

The shipped 19x19 and 13x13 networks have no score head and MCTS has none either, yet a review
counts mistakes in points (KaTrain's points lost). Such a review reads the win rate as a lead
through a logistic: if the final margin is logistic around the lead ``L`` with scale ``s``, the
win rate is ``1 / (1 + exp(-L / s))``, so a win rate ``p`` means a lead of ``s * ln(p / (1 - p))``
(50% is an even game; every factor ``e`` in the odds is ``s`` points).

The scale grows with the board's side (a game's margin spreads with the number of points still
open, which grows with the board): ``s = SCALE_PER_SIDE * sqrt(rows * cols)``, 1.4 points on 9x9,
2.0 on 13x13 and 2.9 on 19x19. Measured here:

- 9x9: the shipped ``zero-9x9`` network has a score head; in its own games (48 visits a move,
  819 positions) its score lead over the logit of its win rate has a slope of 1.4 points
  (least squares through 0; median ratio 1.36);
- 19x19: the shipped ``zero-19x19`` network (no score head) on 25 counted 9-dan games (tom9d,
  moves 100 on, 304 positions, 24 visits): the final margins fit a logistic around
  ``s * logit(win rate)`` best (maximum likelihood) at ``s`` = 3.0 points.

Win rates are clipped to [0.001, 0.999], so an estimated lead stays within about 6.9 scales (20
points on 19x19, 10 on 9x9): past that the game is decided and points no longer show. The
estimate is a convention for ranking moves, not a count: a review that uses it says so.
"""

from __future__ import annotations

import math

__all__ = ["SCALE_PER_SIDE", "WINRATE_CLIP", "score_scale", "lead_from_winrate"]

SCALE_PER_SIDE = 0.155
WINRATE_CLIP = 0.001


def score_scale(rows: int, cols: int) -> float:
    """Points per unit of log-odds of the win rate on a ``rows`` x ``cols`` board."""
    return SCALE_PER_SIDE * math.sqrt(rows * cols)


def lead_from_winrate(winrate: float, rows: int, cols: int) -> float:
    """The lead (points, the same player's view) that ``winrate`` means on this board."""
    p = min(1.0 - WINRATE_CLIP, max(WINRATE_CLIP, float(winrate)))
    return score_scale(rows, cols) * math.log(p / (1.0 - p))
