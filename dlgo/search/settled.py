"""The count a network's ownership head implies, believed where it settles the game.

A value head trained at one komi does not read the komi plane: the shipped 9x9 network gives a
late jigo at komi 7 the same win rate at komi 6.5 and 7.5, where the count makes it a sure loss
for one side; and a value head can misjudge a finished-looking position that the count decides
(a win rate of 80-90% in a game the count calls lost by two points). The ownership head sees the
board point by point, and the count needs nothing else: every point it gives one side with at
least ``threshold`` counts for that side, every other point is unsure. When the mover wins with
every unsure point going the other way, the leaf is a sure win (+1); when it loses with every
unsure point its own, a sure loss (-1): the count settles it, as a finished game's count settles
a terminal node (book 14.2). Anywhere else the value head's answer stands.

The margin counts by area (Chinese rules: stones and territory, the komi added for White), as the
value head and the search's finished games do. ``experiments/settled_count_check.py`` measures
how often the verdict comes and how often it is wrong, on counted games held out.
"""

from __future__ import annotations

import numpy as np

__all__ = ["settled_values", "mover_komi"]


def mover_komi(komi: float, white_to_move: np.ndarray) -> np.ndarray:
    """The komi from the view of each leaf's player to move: +komi for White, -komi for Black."""
    return np.where(white_to_move, komi, -komi).astype(np.float64)


def settled_values(
    values: np.ndarray, ownership: np.ndarray, komi_for_mover: np.ndarray, threshold: float
) -> np.ndarray:
    """``values`` (the mover's, ``[n]``) with each leaf the count settles set to +1 or -1.

    ``ownership``: ``[n, points]`` in [-1, 1], +1 the mover's; ``komi_for_mover``: ``[n]``
    (:func:`mover_komi`); ``threshold`` in (0, 1]: the ownership a point needs to count for a
    side. A threshold of 0 turns the rule off.
    """
    if threshold <= 0 or len(values) == 0:
        return values
    sure = np.abs(ownership) >= threshold
    margin = np.where(sure, np.sign(ownership), 0.0).sum(axis=1) + komi_for_mover
    unsure = (~sure).sum(axis=1)
    out = np.array(values, dtype=np.float64, copy=True)
    out[margin - unsure > 0] = 1.0
    out[margin + unsure < 0] = -1.0
    return out.astype(values.dtype, copy=False)
