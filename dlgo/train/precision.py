"""Training on a time budget and in mixed precision: the pieces ``dlgo.train.supervised`` uses.

- ``StepTimer``: seconds per step of an epoch (the first step, which compiles, timed apart), so
  ``--fit-to-time`` can size the learning-rate curve to the minutes given;
- ``restored_dtype_policy``: Keras' global dtype policy put back after a run that changed it;
- ``float32_copy``: a network trained under ``mixed_bfloat16`` rebuilt in float32 with the same
  weights, the model file every machine (CPU inference, ONNX export) loads.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

__all__ = ["StepTimer", "float32_copy", "restored_dtype_policy"]


class StepTimer:
    """Seconds per training step after the first (which carries the compilation) of one epoch."""

    def __init__(self) -> None:
        self.first_batch_seconds = 0.0
        self.step_seconds = 0.0
        self._began = self._mark = 0.0
        self._marked_at = 0

    def as_callback(self) -> keras.callbacks.Callback:
        import keras

        return keras.callbacks.LambdaCallback(
            on_train_begin=lambda logs=None: self._begin(),
            on_train_batch_end=lambda batch, logs=None: self._batch(batch),
        )

    def _begin(self) -> None:
        self._began = time.monotonic()

    def _batch(self, batch: int) -> None:
        now = time.monotonic()
        if batch == 0:
            self.first_batch_seconds = now - self._began
            self._mark, self._marked_at = now, 0
        elif batch > self._marked_at:
            self.step_seconds = (now - self._mark) / (batch - self._marked_at)


def float32_copy(model, mixed_precision: bool, network: str, encoder, blocks: int, filters: int):
    """The trained weights in a float32 network (a plain clone when training was float32)."""
    import keras

    if not mixed_precision:
        # from the architecture alone: Keras 3.15's clone_model copies the compiled optimizer, whose
        # state would then be saved with the network (36 MB instead of 12 for the 10x128)
        clone = model.__class__.from_config(model.get_config())
    else:
        from dlgo.networks import build_network

        policy = keras.config.dtype_policy()
        keras.mixed_precision.set_global_policy("float32")
        try:
            clone = build_network(network, encoder, blocks, filters)
        finally:
            keras.mixed_precision.set_global_policy(policy)
    clone.set_weights(model.get_weights())
    return clone


@contextlib.contextmanager
def restored_dtype_policy() -> Iterator[None]:
    """Put Keras' global dtype policy back on exit (Keras is not imported here: data workers
    start before it loads)."""
    loaded = sys.modules.get("keras")
    before = loaded.config.dtype_policy() if loaded is not None else None
    try:
        yield
    finally:
        loaded = sys.modules.get("keras")
        if loaded is not None:
            loaded.config.set_dtype_policy(before or "float32")
