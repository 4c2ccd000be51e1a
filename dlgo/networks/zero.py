"""AlphaGo Zero style residual network (book 14.3-14.5), size-independent (docs/book-differences.md, 15).

    planes (None, None, C)
    -> Conv 3x3 -> BN -> ReLU                                  (stem)
    -> blocks x [Conv 3x3 -> BN -> ReLU -> Conv 3x3 -> BN -> + skip -> ReLU]
    policy: Conv 1x1 (policy_channels) -> BN -> ReLU
            -> Conv 1x1 (1) -> flatten                          one logit per point
            -> global average + max pooling -> Dense 1          the pass logit
            -> concatenate -> softmax ("policy", N*N + 1: pass last)
    value:  Conv 1x1 (value_channels) -> BN -> ReLU -> global average + max pooling
            -> Dense value_hidden ReLU -> Dense 1 tanh ("value")

No layer's weights depend on the board size: the policy head is convolutional and the value
head pools globally (the thesis head flattened into Dense 96 and so fixed the size). The same
weights therefore play 9x9 and 19x19 (and train on a mix, one size per batch). Batch norm uses
the channel axis (the OLIVAW thesis' code normalised the wrong axis), L2 1e-4 on every kernel.
"""

from __future__ import annotations

__all__ = ["zero_model", "book_zero_model", "compile_zero"]


def zero_model(
    num_planes: int,
    blocks: int = 6,
    filters: int = 64,
    board_size: int | None = None,
    policy_channels: int = 2,
    value_channels: int = 32,
    value_hidden: int = 64,
    l2: float = 1e-4,
    name: str | None = None,
):
    """Residual policy/value network; ``board_size=None`` leaves the spatial size open."""
    import keras
    from keras import layers, regularizers

    reg = regularizers.L2(l2) if l2 else None

    def conv(x, n, k, label):
        return layers.Conv2D(
            n, k, padding="same", use_bias=False, kernel_regularizer=reg, kernel_initializer="he_normal", name=label
        )(x)

    def bn(x, label):
        return layers.BatchNormalization(axis=-1, name=label)(x)

    spatial = (board_size, board_size) if board_size else (None, None)
    inputs = keras.Input(shape=(*spatial, num_planes), name="planes")
    x = layers.ReLU(name="stem_relu")(bn(conv(inputs, filters, 3, "stem_conv"), "stem_bn"))
    for i in range(blocks):
        y = layers.ReLU(name=f"res{i}_relu1")(bn(conv(x, filters, 3, f"res{i}_conv1"), f"res{i}_bn1"))
        y = bn(conv(y, filters, 3, f"res{i}_conv2"), f"res{i}_bn2")
        x = layers.ReLU(name=f"res{i}_relu2")(layers.Add(name=f"res{i}_add")([x, y]))

    p = layers.ReLU(name="policy_relu")(bn(conv(x, policy_channels, 1, "policy_conv"), "policy_bn"))
    board_logits = layers.Flatten(name="policy_board")(
        layers.Conv2D(1, 1, kernel_regularizer=reg, name="policy_logits")(p)
    )
    pooled = layers.Concatenate(name="policy_pool")(
        [layers.GlobalAveragePooling2D(name="policy_avg")(p), layers.GlobalMaxPooling2D(name="policy_max")(p)]
    )
    pass_logit = layers.Dense(1, kernel_regularizer=reg, name="policy_pass")(pooled)
    policy = layers.Softmax(name="policy")(layers.Concatenate(name="policy_concat")([board_logits, pass_logit]))

    v = layers.ReLU(name="value_relu")(bn(conv(x, value_channels, 1, "value_conv"), "value_bn"))
    v = layers.Concatenate(name="value_pool")(
        [layers.GlobalAveragePooling2D(name="value_avg")(v), layers.GlobalMaxPooling2D(name="value_max")(v)]
    )
    v = layers.Dense(value_hidden, activation="relu", kernel_regularizer=reg, name="value_hidden")(v)
    value = layers.Dense(1, activation="tanh", kernel_regularizer=reg, name="value")(v)
    return keras.Model(inputs, [policy, value], name=name or f"zero_{blocks}x{filters}")


def book_zero_model(num_planes: int, board_size: int = 9):
    """The book's demo network (listing 14.14): 4 x Conv 64 3x3, dense heads, fixed size."""
    import keras
    from keras import layers

    inputs = keras.Input(shape=(board_size, board_size, num_planes), name="planes")
    x = inputs
    for i in range(4):
        x = layers.Conv2D(64, 3, padding="same", activation="relu", name=f"conv{i + 1}")(x)
    p = layers.Flatten()(layers.Conv2D(2, 1, activation="relu", name="policy_conv")(x))
    policy = layers.Dense(board_size * board_size + 1, activation="softmax", name="policy")(p)
    v = layers.Flatten()(layers.Conv2D(1, 1, activation="relu", name="value_conv")(x))
    v = layers.Dense(256, activation="relu", name="value_hidden")(v)
    value = layers.Dense(1, activation="tanh", name="value")(v)
    return keras.Model(inputs, [policy, value], name="zero_book")


def compile_zero(model, learning_rate: float = 1e-3, value_weight: float = 1.0) -> None:
    """Cross-entropy on visit distributions plus MSE on game results, equal weights (book 14.3)."""
    import keras

    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate=learning_rate),
        loss={"policy": "categorical_crossentropy", "value": "mean_squared_error"},
        loss_weights={"policy": 1.0, "value": value_weight},
        metrics={"policy": ["accuracy"]},
    )
