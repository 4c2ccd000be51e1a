"""Komi for a network that was trained at one komi only.

A network whose training games all had the same komi never learned what its komi plane means:
the shipped 9x9 network (every game at komi 7) moves its score by 1.1 points between komi 0 and
komi 14 where the count moves by 14, and its int8 form, calibrated on komi 7 alone, does not move
at all above komi 7. Asked at komi 7.5 it answers as at komi 7, so Black's 7-point win still
looks like a win, and the analysis' ``scoreLead`` ignores whatever komi the user sets.

``KomiShift`` evaluates such a network at the komi it knows (its card's ``trained_komi``) and
moves its answers by the difference, as a count would: the score head's margin by the komi
difference (for the player to move: less komi for Black is more margin), the value through the
logistic of win rate against margin that the score scale describes (``score_scale``). At the
trained komi nothing changes. A network trained at several komi (the self-play loop varies it per
game) reads its komi plane and is left as it is.
"""

from __future__ import annotations

import math

import numpy as np

from dlgo.encoders.zero import KOMI_SCALE

__all__ = [
    "KomiShift",
    "komi_of_planes",
    "with_komi",
    "trained_komi_after",
    "SCALE_PER_SIDE",
    "score_scale",
    "BLACK_TO_MOVE_PLANE",
    "KOMI_PLANE",
]

# The zero encoder's planes this reads (dlgo.encoders.zero): all ones where Black is to move; the
# komi from the player to move's view (+komi for White, -komi for Black) / KOMI_SCALE.
BLACK_TO_MOVE_PLANE = 13
KOMI_PLANE = 14

# Points per unit of a win rate's log-odds, per board side: measured on this project's networks
# (docs/analysis.md, "Scores without a score head"): 1.4 on 9x9, 2.9 on 19x19.
SCALE_PER_SIDE = 0.155

_VALUE_CLIP = 1.0 - 1e-6  # a value of exactly +-1 has no logit


def score_scale(rows: int, cols: int) -> float:
    """Points per unit of log-odds of the win rate on a ``rows`` x ``cols`` board: a game's
    margin spreads with the board's side."""
    return SCALE_PER_SIDE * math.sqrt(rows * cols)


def komi_of_planes(x: np.ndarray) -> np.ndarray:
    """The komi of each position of zero-encoder planes ``[n, rows, cols, planes]`` (the game's
    komi, whoever is to move), to the nearest hundredth: float16 planes, as the replay buffer
    keeps them, are up to 0.004 points off."""
    black = x[:, 0, 0, BLACK_TO_MOVE_PLANE] > 0.5
    komi_seen = x[:, 0, 0, KOMI_PLANE].astype(np.float64) * KOMI_SCALE  # +komi White, -komi Black
    return np.round(np.where(black, -komi_seen, komi_seen), 2)


def with_komi(x: np.ndarray, komi: float | np.ndarray) -> np.ndarray:
    """A copy of zero-encoder planes ``[n, rows, cols, planes]`` with each position's komi plane
    set to ``komi`` (one for all, or one per position), seen from its player to move."""
    sign = np.where(x[:, 0, 0, BLACK_TO_MOVE_PLANE] > 0.5, -1.0, 1.0)
    out = x.copy()
    out[..., KOMI_PLANE] = (sign * np.asarray(komi, dtype=np.float64) / KOMI_SCALE).astype(x.dtype)[:, None, None]
    return out


def trained_komi_after(init_komi: float | None, planes: np.ndarray) -> float | None:
    """The one komi a network knows after training on ``planes``: its init network's, while every
    position trained on has it too; None once a game of another komi comes in."""
    if init_komi is None or len(planes) == 0:
        return init_komi
    return init_komi if bool(np.all(komi_of_planes(planes) == init_komi)) else None


class KomiShift:
    """Evaluate at ``trained_komi`` and move value and score to each position's own komi.

    ``prepare`` takes zero-encoder planes ``[n, rows, cols, planes]`` and returns a copy with the
    komi plane set to the trained komi, and the points each player to move gains at its real komi
    over the trained one; ``apply`` moves the network's raw answers by those points.
    """

    def __init__(self, trained_komi: float) -> None:
        self.trained_komi = float(trained_komi)

    def prepare(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # the player to move gains what komi the game has less than the trained (Black) or more (White)
        sign = np.where(x[:, 0, 0, BLACK_TO_MOVE_PLANE] > 0.5, -1.0, 1.0)
        gain = sign * (komi_of_planes(x) - self.trained_komi)
        if not np.any(gain):
            return x, gain
        return with_komi(x, self.trained_komi), gain

    @staticmethod
    def apply(
        by_head: dict[str, np.ndarray], gain: np.ndarray, dims: tuple[int, int], score_points: float
    ) -> dict[str, np.ndarray]:
        """``by_head`` with value and score moved by ``gain`` points each (``score_points``: the
        points of one unit of the raw score head)."""
        if not np.any(gain):
            return by_head
        out = dict(by_head)
        if "score" in out:
            score = out["score"]
            out["score"] = (score + (gain / score_points).reshape(-1, *([1] * (score.ndim - 1)))).astype(score.dtype)
        if "value" in out:
            value = out["value"]
            v = np.clip(value.astype(np.float64), -_VALUE_CLIP, _VALUE_CLIP)
            logit = np.log1p(v) - np.log1p(-v)  # the win rate's log-odds: p = (1 + v) / 2
            logit += (gain / score_scale(*dims)).reshape(-1, *([1] * (value.ndim - 1)))
            out["value"] = np.tanh(logit / 2).astype(value.dtype)
        return out
