"""Learning-rate schedules evaluated from the optimizer's step counter inside the train step.

A schedule object (not a callback that assigns the rate) is what works on every Keras backend:
under JAX the optimizer's variables live outside the model during an epoch, so a rate assigned
by a callback mid-epoch would be lost. The step counter is saved with the optimizer, so a resumed
run continues on the same curve. ``total_steps`` may be changed before the train function is
built (a resumed run with more epochs stretches the rest of the curve).

- ``cosine``: linear warm-up, then half a cosine from ``lr`` down to ``lr_min``.
- ``step``: warm-up, then ``lr`` divided by 10 at 50% and again at 75% of the steps
  (the classic ResNet/AlphaGo Zero staircase).
- ``constant``: warm-up, then ``lr``.
"""

from __future__ import annotations

import math

import keras
from keras import ops

__all__ = ["WarmupSchedule", "SCHEDULES", "lr_at"]

SCHEDULES = ("cosine", "step", "constant")


def lr_at(step: float, kind: str, lr: float, lr_min: float, total_steps: int, warmup_steps: int) -> float:
    """The rate at ``step`` in plain Python (for logs and tests; the schedule computes the same)."""
    if warmup_steps > 0 and step < warmup_steps:
        return lr * (step + 1) / warmup_steps
    span = max(1, total_steps - warmup_steps)
    progress = min(1.0, max(0.0, (step - warmup_steps) / span))
    if kind == "cosine":
        return lr_min + 0.5 * (lr - lr_min) * (1 + math.cos(math.pi * progress))
    if kind == "step":
        return lr * (0.01 if progress >= 0.75 else 0.1 if progress >= 0.5 else 1.0)
    return lr


@keras.saving.register_keras_serializable(package="dlgo")
class WarmupSchedule(keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, kind: str, lr: float, total_steps: int, warmup_steps: int = 0, lr_min: float = 0.0) -> None:
        if kind not in SCHEDULES:
            raise ValueError(f"unknown schedule {kind!r}; known: {', '.join(SCHEDULES)}")
        self.kind = kind
        self.lr = float(lr)
        self.total_steps = int(total_steps)
        self.warmup_steps = int(warmup_steps)
        self.lr_min = float(lr_min)

    def __call__(self, step):
        step = ops.cast(step, "float32")
        lr = self.lr
        warm = max(1, self.warmup_steps)
        span = float(max(1, self.total_steps - self.warmup_steps))
        progress = ops.clip((step - self.warmup_steps) / span, 0.0, 1.0)
        if self.kind == "cosine":
            after = self.lr_min + 0.5 * (lr - self.lr_min) * (1.0 + ops.cos(math.pi * progress))
        elif self.kind == "step":
            after = ops.where(progress >= 0.75, lr * 0.01, ops.where(progress >= 0.5, lr * 0.1, lr))
        else:
            after = ops.ones_like(progress) * lr
        if self.warmup_steps <= 0:
            return after
        return ops.where(step < self.warmup_steps, lr * (step + 1.0) / warm, after)

    def get_config(self) -> dict:
        return {
            "kind": self.kind,
            "lr": self.lr,
            "total_steps": self.total_steps,
            "warmup_steps": self.warmup_steps,
            "lr_min": self.lr_min,
        }
