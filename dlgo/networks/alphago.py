"""AlphaGo networks (book 13.1.1, listings 13.1-13.3), channels-last.

- ``policy_network``: 12 convolutions with ``same`` padding and ReLU (the first 5x5, the next
  eleven 3x3, 192 filters), then layer 13: one 1x1 filter, flattened, softmax over the points.
  The book's code built only 11 ReLU layers before the output (docs/book-differences.md, 12); this follows its
  text. Being fully convolutional it accepts ``input_shape=(None, None, 48)``.
- ``value_network``: the same 12 layers, then Conv 192 3x3 ReLU, Conv 1 1x1 (linear here, ReLU in
  the book: docs/book-differences.md, 22), flatten, Dense 256 ReLU, Dense 1 tanh (16 layers; input
  49 planes: the ``alphago_value`` encoder).
"""

from __future__ import annotations

__all__ = ["alphago_model", "policy_network", "value_network"]


def _trunk(x, num_filters: int, first_kernel_size: int, other_kernel_size: int):
    from keras.layers import Conv2D

    x = Conv2D(num_filters, first_kernel_size, padding="same", activation="relu", name="conv1")(x)
    for i in range(2, 13):
        x = Conv2D(num_filters, other_kernel_size, padding="same", activation="relu", name=f"conv{i}")(x)
    return x


def alphago_model(
    input_shape: tuple,
    is_policy_net: bool = False,
    num_filters: int = 192,
    first_kernel_size: int = 5,
    other_kernel_size: int = 3,
):
    """The book's factory (listing 13.1): policy or value network."""
    import keras
    from keras.layers import Conv2D, Dense, Flatten, Softmax

    inputs = keras.Input(shape=input_shape, name="planes")
    x = _trunk(inputs, num_filters, first_kernel_size, other_kernel_size)
    if is_policy_net:
        x = Conv2D(1, 1, padding="same", name="conv13")(x)
        outputs = Softmax(name="policy")(Flatten()(x))
        return keras.Model(inputs, outputs, name="alphago_policy")
    x = Conv2D(num_filters, other_kernel_size, padding="same", activation="relu", name="conv13")(x)
    # The book's conv14 is a ReLU with one filter: when that one channel goes dark the whole head
    # is constant (docs/book-differences.md, 22). Linear keeps the layer and its parameters.
    x = Conv2D(1, 1, padding="same", name="conv14")(x)
    x = Dense(256, activation="relu", name="dense15")(Flatten()(x))
    outputs = Dense(1, activation="tanh", name="value")(x)
    return keras.Model(inputs, outputs, name="alphago_value")


def policy_network(input_shape: tuple = (19, 19, 48), num_filters: int = 192):
    return alphago_model(input_shape, is_policy_net=True, num_filters=num_filters)


def value_network(input_shape: tuple = (19, 19, 49), num_filters: int = 192):
    return alphago_model(input_shape, is_policy_net=False, num_filters=num_filters)
