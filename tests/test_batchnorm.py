"""Precise batch-norm statistics (``dlgo.networks.batchnorm``)."""

from __future__ import annotations

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.networks.batchnorm import recalibrate_batch_norm  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402


def _planes(rng: np.random.Generator, n: int) -> np.ndarray:
    return (rng.random((n, 9, 9, 16)) > 0.6).astype(np.float32)


def _value(model, x: np.ndarray, training: bool) -> np.ndarray:
    return np.asarray(keras.ops.convert_to_numpy(model(x, training=training)[1])).reshape(-1)


def test_stale_statistics_are_replaced_by_the_batches_own():
    keras.utils.set_random_seed(3)
    model = zero_model(16, blocks=2, filters=8)
    norms = [layer for layer in model.layers if isinstance(layer, keras.layers.BatchNormalization)]
    for layer in norms:  # statistics of some other network: inference no longer matches training
        layer.moving_mean.assign(np.full(layer.moving_mean.shape, 0.7, np.float32))
        layer.moving_variance.assign(np.full(layer.moving_variance.shape, 3.0, np.float32))
    rng = np.random.default_rng(0)
    x = _planes(rng, 512)
    batch_mode = _value(model, x, training=True)
    assert np.abs(_value(model, x, training=False) - batch_mode).mean() > 0.05

    used = recalibrate_batch_norm(model, (_planes(rng, 256) for _ in range(16)))
    assert used == 16
    assert np.abs(_value(model, x, training=False) - batch_mode).mean() < 0.02
    assert all(layer.momentum == 0.99 for layer in norms)
    stem = model.get_layer("stem_bn")  # the first layer's mean: the batches' mean of its inputs
    conv = keras.Model(model.input, model.get_layer(stem.name).input)
    inputs = np.concatenate([np.asarray(conv(_planes(np.random.default_rng(9), 256))) for _ in range(2)])
    assert np.allclose(np.asarray(stem.moving_mean), inputs.mean(axis=(0, 1, 2)), atol=0.05)
