"""The networks of book chapters 10-12, on the book's trunks from ``dlgo.networks``.

Each chapter puts its own heads on a convolutional trunk:

- ``policy_network``: trunk -> Dense(points, softmax) "policy" (book 10.2; 9.3.3 used ``large``);
- ``q_network``: the two-input network of book 11.2.1: the board through the trunk, the one-hot
  action through a dense layer, both concatenated -> Dense -> tanh "value" (the move's expected
  reward);
- ``actor_critic_network``: one trunk, a softmax "policy" head and a tanh "value" head (book 12.2);
- ``value_network``: trunk -> Dense -> tanh "value" (+-1 targets; the book's repo trained a
  {0,1} target against a tanh head, a mismatch we avoid).

``trunk`` is ``small``, ``medium`` or ``large`` (the book's layers, ``dlgo.networks``), or
``tiny``: two small convolutions and a dense layer, for the 9x9 demonstrations on a CPU, or
``conv``: four 3x3 convolutions and no dense layer; its policy is a 1x1 convolution per point,
as in AlphaGo's policy network (book 13.1), so a pattern learned on one point (a capture, an
escape) holds on every point, where a dense layer must learn each point apart. Heads that need
one vector (the values, the Q network's action input) flatten the planes first.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dlgo.networks import TRUNKS

if TYPE_CHECKING:
    import keras

    from dlgo.encoders import Encoder

__all__ = ["RL_TRUNKS", "trunk_layers", "policy_network", "q_network", "actor_critic_network", "value_network"]

RL_TRUNKS = ("tiny", "conv", *TRUNKS)


def trunk_layers(trunk: str, input_shape: tuple[int, int, int], width: int = 32) -> list:
    """The trunk's layers after its ``Input``, ending in a dense hidden layer."""
    import importlib

    from keras import layers

    if trunk == "conv":
        return [layers.Conv2D(width, 3, padding="same", activation="relu") for _ in range(4)]
    if trunk == "tiny":
        return [
            layers.Conv2D(width, 3, padding="same", activation="relu"),
            layers.Conv2D(width, 3, padding="same", activation="relu"),
            layers.Flatten(),
            layers.Dense(4 * width, activation="relu"),
        ]
    if trunk not in TRUNKS:
        raise ValueError(f"unknown trunk {trunk!r}; known: {', '.join(RL_TRUNKS)}")
    return importlib.import_module(f"dlgo.networks.{trunk}").layers(input_shape)[1:]


def _trunk(trunk: str, encoder: Encoder, width: int) -> tuple[keras.KerasTensor, keras.KerasTensor]:
    import keras

    board = keras.Input(shape=encoder.shape(), name="board")
    x = board
    for layer in trunk_layers(trunk, encoder.shape(), width):
        x = layer(x)
    return board, x


def _vector(x: keras.KerasTensor, width: int) -> keras.KerasTensor:
    """A dense hidden vector from the trunk (flattened planes of the ``conv`` trunk)."""
    import keras

    if len(x.shape) == 4:
        x = keras.layers.Flatten()(x)
        x = keras.layers.Dense(4 * width, activation="relu")(x)
    return x


def _policy_head(x: keras.KerasTensor, encoder: Encoder) -> keras.KerasTensor:
    """Softmax over the points: a 1x1 convolution on planes, a dense layer on a vector."""
    import keras

    if len(x.shape) == 4:
        logits = keras.layers.Flatten()(keras.layers.Conv2D(1, 1)(x))
        return keras.layers.Softmax(name="policy")(logits)
    return keras.layers.Dense(encoder.num_points(), activation="softmax", name="policy")(x)


def policy_network(encoder: Encoder, trunk: str = "tiny", width: int = 32) -> keras.Model:
    """Board -> move probabilities over the points (the PolicyAgent's network, book 10.2)."""
    import keras

    board, x = _trunk(trunk, encoder, width)
    return keras.Model(board, _policy_head(x, encoder), name=f"pg_{trunk}_{encoder.name()}")


def q_network(encoder: Encoder, trunk: str = "tiny", width: int = 32) -> keras.Model:
    """(board, one-hot action) -> the action's value in [-1, 1] (book listing 11.4)."""
    import keras

    board, x = _trunk(trunk, encoder, width)
    x = _vector(x, width)
    action = keras.Input(shape=(encoder.num_points(),), name="action")
    board_and_action = keras.layers.Concatenate()([action, x])
    hidden = keras.layers.Dense(256 if trunk != "tiny" else 4 * width, activation="relu")(board_and_action)
    value = keras.layers.Dense(1, activation="tanh", name="value")(hidden)
    return keras.Model(inputs=[board, action], outputs=value, name=f"q_{trunk}_{encoder.name()}")


def actor_critic_network(encoder: Encoder, trunk: str = "tiny", width: int = 32) -> keras.Model:
    """Board -> (policy softmax, value tanh) from one trunk (book listing 12.4)."""
    import keras

    board, x = _trunk(trunk, encoder, width)
    if len(x.shape) == 4:
        policy = _policy_head(x, encoder)
    else:
        policy_hidden = keras.layers.Dense(4 * width, activation="relu")(x)
        policy = keras.layers.Dense(encoder.num_points(), activation="softmax", name="policy")(policy_hidden)
    value_hidden = keras.layers.Dense(4 * width, activation="relu")(
        keras.layers.Flatten()(x) if len(x.shape) == 4 else x
    )
    value = keras.layers.Dense(1, activation="tanh", name="value")(value_hidden)
    return keras.Model(board, [policy, value], name=f"ac_{trunk}_{encoder.name()}")


def value_network(encoder: Encoder, trunk: str = "tiny", width: int = 32) -> keras.Model:
    """Board -> expected result for the player to move, in [-1, 1] (tanh, +-1 targets)."""
    import keras

    board, x = _trunk(trunk, encoder, width)
    value = keras.layers.Dense(1, activation="tanh", name="value")(_vector(x, width))
    return keras.Model(board, value, name=f"value_{trunk}_{encoder.name()}")
