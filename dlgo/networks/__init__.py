"""Network factories (book chapters 6, 7, 13, 14) in Keras 3, channels-last.

Every factory uses only ``keras`` (no ``tf.*``), so the same code runs under ``KERAS_BACKEND``
``tensorflow`` (the default here), ``jax`` or ``torch``. Inputs are the encoders' channels-last
planes ``(rows, cols, planes)``.

- ``small``, ``medium``, ``large`` (book 7.3): ``layers(input_shape)`` lists ending in a dense
  hidden layer; ``move_predictor(name, encoder)`` adds the softmax over the board points.
- ``chapter6``: the book's 9x9 MLP and CNNs (6.3-6.7), exact parameter counts.
- ``alphago``: AlphaGo policy (13 conv layers, 192 filters) and value networks (book 13.1).
- ``zero``: residual network with batch norm, a convolutional policy head with pass and a
  globally pooled tanh value head; input ``(None, None, planes)`` so one network plays every
  board size.

This package module itself imports nothing heavy; the factories import Keras when called.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

    from dlgo.encoders import Encoder

__all__ = ["TRUNKS", "move_predictor"]

TRUNKS = ("small", "medium", "large")


def move_predictor(name: str, encoder: Encoder, optimizer: str | None = None) -> keras.Model:
    """The book's move-prediction model: a trunk from ``TRUNKS`` plus ``Dense(num_points, softmax)``.

    Compiled with categorical cross-entropy when ``optimizer`` is given (the book used "sgd" and
    later "adagrad"/"adadelta", 7.5).
    """
    import keras

    if name not in TRUNKS:
        raise ValueError(f"unknown network {name!r}; known: {', '.join(TRUNKS)}")
    trunk = importlib.import_module(f"dlgo.networks.{name}")
    model = keras.Sequential(
        [*trunk.layers(encoder.shape()), keras.layers.Dense(encoder.num_points(), activation="softmax", name="policy")],
        name=f"{name}_{encoder.name()}",
    )
    if optimizer is not None:
        model.compile(loss="categorical_crossentropy", optimizer=optimizer, metrics=["accuracy"])
    return model
