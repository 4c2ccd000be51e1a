"""The learner: trains the network on the replay window (book 14.4; Silver et al. 2017, Methods).

Loss: cross-entropy of the policy against the search's visit distribution plus
``value_weight`` x the mean squared error of the value against the game result (L2 on the
weights comes from the network's own regularisers). Each step draws a random batch from the
window, every position in a random one of the 8 symmetries.

The learner has its own checkpoint, ``trainer.keras`` (weights and optimizer state, so momentum
and the step count survive a restart); it keeps training across generations whether or not the
gate accepts its candidates, as AlphaGo Zero's learner did. Only the candidate for the gate
(``candidate.keras`` + card) is an inference model.

Only ``keras`` APIs: the same code trains with ``KERAS_BACKEND`` tensorflow, jax or torch.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.zero.experience import ReplayBuffer, augmented_batch, window_size

__all__ = ["TrainerSettings", "train_candidate", "learning_rate"]


@dataclass(frozen=True)
class TrainerSettings:
    batch_size: int = 256
    steps_per_iteration: int = 300
    optimizer: str = "sgd"
    lr: float = 0.01
    lr_drops: tuple[tuple[int, float], ...] = ()  # (from iteration, rate)
    momentum: float = 0.9
    value_weight: float = 1.0
    window_start: int = 20_000
    window_growth: int = 10_000
    window_max: int = 250_000
    min_positions: int = 2_000
    augment: bool = True
    clipnorm: float = 10.0


def learning_rate(settings: TrainerSettings, iteration: int) -> float:
    """The rate for ``iteration``: ``lr`` then each ``(iteration, rate)`` drop once reached."""
    rate = settings.lr
    for start, value in sorted(settings.lr_drops):
        if iteration >= start:
            rate = value
    return rate


def _compile(model: Any, settings: TrainerSettings, rate: float) -> None:
    import keras

    from dlgo.train.optimizers import _output_names, make_optimizer

    policy_name, value_name = _output_names(model)
    model.compile(
        optimizer=make_optimizer(settings.optimizer, rate, settings.momentum, settings.clipnorm),
        loss={policy_name: keras.losses.CategoricalCrossentropy(), value_name: keras.losses.MeanSquaredError()},
        loss_weights={policy_name: 1.0, value_name: float(settings.value_weight)},
    )


def _load_learner(checkpoint: Path, init_model: Path, settings: TrainerSettings, rate: float) -> Any:
    import keras

    import dlgo.networks  # noqa: F401  (registers custom objects)

    if checkpoint.exists():
        model = keras.saving.load_model(checkpoint, compile=True)
        model.optimizer.learning_rate.assign(rate)
        return model
    model = keras.saving.load_model(init_model, compile=False)
    _compile(model, settings, rate)
    return model


def train_candidate(
    replay: ReplayBuffer,
    iteration: int,
    checkpoint: str | os.PathLike,
    init_model: str | os.PathLike,
    candidate: str | os.PathLike,
    settings: TrainerSettings,
    seed: int,
    card_fields: dict[str, Any] | None = None,
    progress: bool = True,
) -> dict[str, float]:
    """Train ``steps_per_iteration`` steps on the window after ``iteration``'s games, then write
    the learner checkpoint and the candidate; returns the mean losses of the steps."""
    from dlgo.inference import save_model

    checkpoint, candidate = Path(checkpoint), Path(candidate)
    rate = learning_rate(settings, iteration)
    model = _load_learner(checkpoint, Path(init_model), settings, rate)
    window = replay.window(
        window_size(iteration, settings.window_start, settings.window_growth, settings.window_max),
        up_to_iteration=iteration,
    )
    rng = np.random.default_rng(seed)
    started = time.monotonic()
    totals = np.zeros(3)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=settings.steps_per_iteration, desc=f"train it {iteration}", unit="step", leave=False)
    for _ in range(settings.steps_per_iteration):
        x, p, z = augmented_batch(window, settings.batch_size, rng, settings.augment)
        out = model.train_on_batch(x, [p, z], return_dict=True)
        losses = _losses(out)
        totals += losses
        if bar is not None:
            bar.update(1)
            bar.set_postfix(policy=f"{losses[1]:.3f}", value=f"{losses[2]:.3f}")
    if bar is not None:
        bar.close()
    mean = totals / max(1, settings.steps_per_iteration)
    metrics = {
        "loss": float(mean[0]),
        "policy_loss": float(mean[1]),
        "value_loss": float(mean[2]),
        "lr": rate,
        "window": len(window),
        "steps": settings.steps_per_iteration,
        "seconds": round(time.monotonic() - started, 1),
    }
    from dlgo.inference.files import card_of

    base = card_of(init_model)
    fields = dict(card_fields or {})
    fields.setdefault("network", base.network)
    save_model(model, candidate, "zero", [int(window.states.shape[1])], **fields)
    tmp = checkpoint.with_name(checkpoint.stem + ".tmp.keras")
    model.save(tmp)
    os.replace(tmp, checkpoint)
    return metrics


def _losses(out: dict[str, Any]) -> np.ndarray:
    """(total, policy, value) from ``train_on_batch``'s dict, whatever the backend names them."""
    total = float(out.get("loss", 0.0))
    policy = value = 0.0
    for k, v in out.items():
        if k.endswith("_loss") and "policy" in k:
            policy = float(v)
        elif k.endswith("_loss") and "value" in k:
            value = float(v)
    return np.array([total, policy, value])
