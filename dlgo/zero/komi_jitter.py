"""Komi varied after the game: one counted game teaches the value at many komis.

A network trained on games of one komi learns to ignore the komi plane. The shipped 9x9 network,
fine-tuned on 9x9 games at komi 7 only, gives the same value at komi 6.5, 7, 7.5 and 8; and at
komi 7 a third of its counted self-play positions end in jigo (a value target of 0), which at
komi 7.5, the komi OGS servers and the stand-in play, are losses for Black. So as Black it steers
into lines it takes for even and loses by half a point.

A game counted to the end knows its score for every komi: the position's score (the area lead
with komi, for the player to move) moves by exactly what the komi moves in the mover's favour, and
the result is its sign. KataGo varies komi while it plays (Wu 2019, "komi randomization"); this
varies it when training, on counted rows only (``aux_mask`` 1): each draws a shift ``m`` in half
points from ``[-max_shift, max_shift]`` in the player to move's favour, and then

- the komi plane gains ``m / KOMI_SCALE`` (the zero encoder stores komi that way, signed for the
  player to move),
- the score target gains ``m``, and the value target becomes its sign (0 for jigo),
- the search's root Q, learnt at the old komi, is dropped (NaN) where ``m`` is not 0.

Rows of games that ended by resignation keep their komi and targets.
"""

from __future__ import annotations

import numpy as np

from dlgo.encoders.zero import KOMI_SCALE, PLANES
from dlgo.zero.experience import TrainingBatch

__all__ = ["KOMI_PLANE", "komi_jittered"]

KOMI_PLANE = PLANES.index("komi")


def komi_jittered(batch: TrainingBatch, max_shift: float, rng: np.random.Generator) -> TrainingBatch:
    """``batch`` with each counted row's komi moved by a random multiple of 0.5 points up to
    ``max_shift`` either way (module doc); other rows unchanged."""
    if max_shift <= 0:
        return batch
    steps = int(max_shift * 2)
    counted = batch.aux_mask > 0
    shift = np.where(counted, rng.integers(-steps, steps + 1, size=len(batch.x)) / 2.0, 0.0).astype(np.float32)
    moved = shift != 0
    if not moved.any():
        return batch
    x = batch.x.copy()
    on_board = x[moved, :, :, PLANES.index("on_board")] > 0
    x[moved, :, :, KOMI_PLANE] += np.where(on_board, shift[moved, None, None] / KOMI_SCALE, 0.0)
    score = batch.score + shift
    value = np.where(counted, np.sign(score), batch.value).astype(batch.value.dtype)
    root_values = np.where(moved, np.nan, batch.root_values).astype(batch.root_values.dtype)
    return batch._replace(x=x, score=score, value=value, root_values=root_values)
