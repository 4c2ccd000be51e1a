"""Precise batch-norm statistics (``dlgo.networks.batchnorm``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.networks.batchnorm import recalibrate_batch_norm  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


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


def test_the_recalibration_experiment_scores_before_and_after_and_saves_a_loadable_network(tmp_path):
    """``experiments/bn_recalibrate.py`` (docs/zero-training.md), run as the docs run it."""
    import json
    import subprocess
    import sys

    from dlgo.inference import load_model, save_model
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

    rng = np.random.default_rng(1)
    replay = ReplayBuffer(tmp_path / "replay")
    for iteration in range(4):
        n = 40
        policies = rng.random((n, 82)).astype(np.float32)
        rewards = rng.choice([-1.0, 1.0], n).astype(np.float32)
        replay.add(
            ZeroExperienceBuffer(_planes(rng, n), policies / policies.sum(1, keepdims=True), rewards), iteration, 0
        )
    keras.utils.set_random_seed(5)
    model = zero_model(16, blocks=1, filters=8)
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.moving_mean.assign(np.full(layer.moving_mean.shape, 0.5, np.float32))
    save_model(model, tmp_path / "net.keras", "zero", [9], notes="test net")
    out = tmp_path / "recal.keras"

    def run(*args: str) -> subprocess.CompletedProcess:
        script = ROOT / "experiments" / "bn_recalibrate.py"
        return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, cwd=ROOT)

    done = run("--model", str(tmp_path / "net.keras"), "--replay", str(tmp_path / "replay"), "--batches", "8",
               "--out", str(out))  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["before"]["positions"] == report["after"]["positions"] == 80
    assert report["before"]["mean_result"] == report["after"]["mean_result"]
    assert report["after"]["value_mse"] != report["before"]["value_mse"]
    loaded = load_model(out)
    assert loaded.card.notes.startswith("test net") and "bn_recalibrate" in loaded.card.notes
    missing = run("--model", str(tmp_path / "nothing.keras"), "--replay", str(tmp_path / "replay"))
    assert missing.returncode != 0 and "nothing.keras: model file not found" in missing.stderr
