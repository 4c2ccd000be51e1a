"""Network factories (book chapters 6, 7, 13, 14) in Keras 3, channels-last.

Every factory uses only ``keras`` (no ``tf.*``), so the same code runs under ``KERAS_BACKEND``
``tensorflow`` (the default here), ``jax`` or ``torch``. Inputs are the encoders' channels-last
planes ``(rows, cols, planes)``.

- ``small``, ``medium``, ``large`` (book 7.3): ``layers(input_shape)`` lists ending in a dense
  hidden layer; ``move_predictor(name, encoder)`` adds the softmax over the board points.
- ``chapter6``: the book's 9x9 MLP and CNNs (6.3-6.7), exact parameter counts.
- ``alphago``: AlphaGo policy (13 conv layers, 192 filters) and value networks (book 13.1).
- ``rollout``: AlphaGo's fast rollout policy, one linear 5x5 convolution (book 13.2).
- ``zero``: residual network with batch norm, a convolutional policy head with pass and a
  globally pooled tanh value head; input ``(None, None, planes)`` so one network plays every
  board size.

The one network registry: ``NETWORKS`` names every network training, the Zero loop and the
benchmarks build, and ``build_network(name, encoder, blocks, filters)`` builds a fresh one.

This package module itself imports nothing heavy; the factories import Keras when called.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

    from dlgo.encoders import Encoder

__all__ = ["TRUNKS", "NETWORKS", "NetworkType", "build_network", "network_names", "move_predictor"]

TRUNKS = ("small", "medium", "large")


@dataclass(frozen=True)
class NetworkType:
    """A registered network: ``build(encoder, blocks, filters, size_independent)`` makes a fresh
    one for ``encoder``'s planes (``blocks`` and ``filters`` where the network has them)."""

    name: str
    doc: str
    encoder: str  # the encoder it usually reads
    build: Callable[[Encoder, int, int, bool], keras.Model]
    supervised: bool = True  # trained by ``python -m dlgo.train supervised`` (policy over moves)


def _zero(encoder: Encoder, blocks: int, filters: int, size_independent: bool) -> keras.Model:
    from dlgo.networks.zero import zero_model

    if encoder.num_moves() != encoder.num_points() + 1:
        raise ValueError(f"the zero network has a pass output; encoder {encoder.name()!r} has no pass index")
    size = None if size_independent else encoder.board_width
    return zero_model(encoder.num_planes, blocks=blocks, filters=filters, board_size=size)


def _book_zero(encoder: Encoder, blocks: int, filters: int, size_independent: bool) -> keras.Model:
    from dlgo.networks.zero import book_zero_model

    return book_zero_model(encoder.num_planes, encoder.board_width)


def _trunk(name: str) -> Callable[[Encoder, int, int, bool], keras.Model]:
    return lambda encoder, blocks, filters, size_independent: move_predictor(name, encoder)


def _alphago_policy(encoder: Encoder, blocks: int, filters: int, size_independent: bool) -> keras.Model:
    from dlgo.networks.alphago import policy_network

    return policy_network(encoder.shape(), num_filters=filters)


def _rollout(encoder: Encoder, blocks: int, filters: int, size_independent: bool) -> keras.Model:
    from dlgo.networks.rollout import rollout_network

    if encoder.name() != "sevenplane":
        raise ValueError("the rollout policy reads the sevenplane encoder (the compiled rollouts compute its planes)")
    return rollout_network(encoder.shape())


def _alphago_value(encoder: Encoder, blocks: int, filters: int, size_independent: bool) -> keras.Model:
    from dlgo.networks.alphago import value_network

    return value_network(encoder.shape(), num_filters=filters)


NETWORKS: dict[str, NetworkType] = {
    network.name: network
    for network in (
        NetworkType("zero", "residual policy (with pass) + value network, any board size (book 14.3)", "zero", _zero),
        NetworkType("small", "the book's small move predictor (7.3)", "sevenplane", _trunk("small")),
        NetworkType("medium", "the book's medium move predictor (7.3)", "sevenplane", _trunk("medium")),
        NetworkType("large", "the book's large move predictor (7.3)", "sevenplane", _trunk("large")),
        NetworkType("alphago", "AlphaGo's policy network, 13 conv layers (book 13.1)", "alphago", _alphago_policy),
        NetworkType("rollout", "AlphaGo's fast rollout policy, linear patterns (book 13.2)", "sevenplane", _rollout),
        NetworkType(
            "alphago-value", "AlphaGo's value network (book 13.1)", "alphago_value", _alphago_value, supervised=False
        ),
        NetworkType("book-zero", "the book's fixed-size Zero network (14.3)", "zero", _book_zero, supervised=False),
    )
}


def network_names(supervised: bool | None = None) -> list[str]:
    """Registered network names (``supervised``: only those supervised training builds, or the others)."""
    return [n for n, t in NETWORKS.items() if supervised is None or t.supervised == supervised]


def build_network(
    name: str, encoder: Encoder, blocks: int = 6, filters: int = 64, size_independent: bool = True
) -> keras.Model:
    """A fresh network ``name`` for ``encoder``'s planes."""
    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; known: {', '.join(NETWORKS)}")
    return NETWORKS[name].build(encoder, blocks, filters, size_independent)


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
