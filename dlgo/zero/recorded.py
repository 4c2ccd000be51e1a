"""The positions of a recorded game (a match's, an archive's) as Zero training rows: the move
played as a one-hot policy target, the result for each mover, and where the game was counted,
the count's ownership and score (``dlgo.zero.teacher``, ``dlgo.zero.counted``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dlgo.goboard import Move
from dlgo.zero.experience import ZeroExperienceBuffer
from dlgo.zero.selfplay import movers_aux_targets

__all__ = ["move_target", "recorded_experience"]


def move_target(encoder: Any, move: Move) -> np.ndarray:
    """``move`` as a one-hot row over the encoder's moves (the pass last)."""
    target = np.zeros(encoder.num_moves(), dtype=np.float32)
    target[encoder.num_moves() - 1 if move.is_pass else encoder.encode_move(move)] = 1.0
    return target


def recorded_experience(
    encoder: Any,
    planes: list[np.ndarray],
    policies: list[np.ndarray],
    movers: list[int],
    winner: int,
    counted: tuple[np.ndarray, float] | None,
) -> ZeroExperienceBuffer:
    """The rows of a game's positions: their ``planes`` and ``policies``, ``movers`` (+1 Black to
    move, -1 White), the ``winner`` (+1 Black, -1 White, 0 a draw) and ``counted``, Black's view of
    the final count (``dlgo.zero.selfplay.final_targets``; None: not counted, aux mask 0). Nobody's
    search is recorded: the root values are unknown (NaN)."""
    ownership, score, mask = movers_aux_targets(movers, counted, encoder.num_points())
    return ZeroExperienceBuffer(
        np.array(planes, dtype=np.float16).reshape(-1, *encoder.shape()),
        np.array(policies, dtype=np.float32).reshape(-1, encoder.num_moves()),
        np.array([winner * m for m in movers], dtype=np.float32),
        ownership=ownership,
        score=score,
        aux_mask=mask,
        root_values=np.full(len(movers), np.nan, dtype=np.float32),
    )
