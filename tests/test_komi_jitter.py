"""Komi varied after the game (dlgo.zero.komi_jitter): the komi plane, the score and the result move
together on counted rows, and nothing moves on the others."""

from __future__ import annotations

import numpy as np

from dlgo.encoders.zero import KOMI_SCALE, PLANES, ZeroEncoder
from dlgo.goboard import GameState
from dlgo.zero.experience import TrainingBatch
from dlgo.zero.komi_jitter import KOMI_PLANE, komi_jittered


def _batch(rows: int, counted: np.ndarray, score: np.ndarray) -> TrainingBatch:
    encoder = ZeroEncoder(9)
    state = GameState.new_game(9, komi=7.0)  # Black to move: the plane holds -7 / 15
    x = np.repeat(encoder.encode(state)[None].astype(np.float32), rows, axis=0)
    return TrainingBatch(
        x=x,
        policy=np.full((rows, 82), 1 / 82, np.float32),
        value=np.sign(score).astype(np.float32),
        ownership=np.zeros((rows, 81), np.float32),
        score=score.astype(np.float32),
        aux_mask=counted.astype(np.float32),
        root_values=np.full(rows, 0.25, np.float32),
    )


def test_the_komi_plane_score_and_result_move_together_on_counted_rows():
    rows = 400
    counted = np.arange(rows) % 2 == 0
    batch = _batch(rows, counted, np.zeros(rows))  # every game a jigo at its own komi
    out = komi_jittered(batch, 1.5, np.random.default_rng(3))
    plane = out.x[:, 4, 4, KOMI_PLANE]
    shift = (plane - batch.x[:, 4, 4, KOMI_PLANE]) * KOMI_SCALE  # in the mover's favour
    np.testing.assert_allclose(out.score, shift, atol=1e-4)
    np.testing.assert_array_equal(out.value, np.sign(shift))
    # every point of the board carries the new komi, and only the komi plane changed
    assert np.allclose(out.x[..., KOMI_PLANE], plane[:, None, None], atol=1e-6)
    others = [i for i in range(len(PLANES)) if i != KOMI_PLANE]
    np.testing.assert_array_equal(out.x[..., others], batch.x[..., others])
    # shifts are half points up to 1.5 either way, both signs and none drawn
    halves = shift[counted] * 2
    np.testing.assert_allclose(halves, np.round(halves), atol=1e-3)
    assert set(np.round(halves).astype(int)) == set(range(-3, 4))
    # a resigned game's rows keep their komi, score, result and root Q
    assert not shift[~counted].any() and (out.value[~counted] == 0).all()
    assert (out.root_values[~counted] == 0.25).all()
    # the root Q, learnt at the old komi, is dropped where the komi moved
    moved = shift != 0
    assert np.isnan(out.root_values[moved]).all() and (out.root_values[counted & ~moved] == 0.25).all()


def test_a_win_by_more_than_the_shift_stays_a_win_and_zero_is_off():
    batch = _batch(50, np.ones(50, bool), np.full(50, 3.5))
    out = komi_jittered(batch, 1.5, np.random.default_rng(0))
    assert (out.value == 1).all() and (out.score >= 2.0).all() and (out.score <= 5.0).all()
    assert komi_jittered(batch, 0.0, np.random.default_rng(0)) is batch
