"""The fast rollout policy (book 13.2): a linear softmax over local patterns, channels-last.

AlphaGo's rollout policy was a linear model over small local patterns, about a thousand times
cheaper than its policy network. Here it is one ``k x k`` convolution (no activation) over the
book's ``sevenplane`` input (own and opponent stones by 1, 2, >= 3 liberties, ko), flattened to
a softmax over the points: the score of a point is a weighted sum of the pattern around it.
Being linear, it is read by ``dlgo.alphago.trained_rollout`` inside the compiled rollouts.
"""

from __future__ import annotations

__all__ = ["rollout_network"]


def rollout_network(input_shape: tuple = (19, 19, 7), kernel_size: int = 5):
    import keras
    from keras.layers import Conv2D, Flatten, Softmax

    if kernel_size % 2 != 1:
        raise ValueError("the pattern size must be odd")
    inputs = keras.Input(shape=input_shape, name="planes")
    x = Conv2D(1, kernel_size, padding="same", name="patterns")(inputs)
    outputs = Softmax(name="policy")(Flatten()(x))
    return keras.Model(inputs, outputs, name="rollout_policy")
