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
    ownership (``ownership=True``): Conv 1x1 (aux_channels) -> BN -> ReLU -> Conv 1x1 (1) tanh
            -> flatten ("ownership", N*N: +1 the player to move owns the point at the end)
    score (``score=True``): the value head's pooled features -> Dense value_hidden ReLU
            -> Dense 1 linear ("score": final area difference for the player to move / SCORE_SCALE)
    global pooling (``global_pooling=True``): in every third residual block a Conv 3x3
            (gpool_channels) -> BN -> ReLU of the block input is pooled (mean, max) and a Dense
            layer adds the result to the block's first convolution as per-channel biases

The auxiliary heads and global pooling are KataGo's (Wu 2019, "Accelerating Self-Play Learning
in Go"): final ownership and score are dense targets that teach the trunk life, death and
territory much faster than one win/loss bit per game; pooling lets a 3x3 trunk see the whole board.

No layer's weights depend on the board size: the policy head is convolutional and the value
head pools globally (the thesis head flattened into Dense 96 and so fixed the size). The same
weights therefore play 9x9 and 19x19 (and train on a mix, one size per batch). Batch norm uses
the channel axis (the OLIVAW thesis' code normalised the wrong axis), L2 1e-4 on every kernel.
"""

from __future__ import annotations

__all__ = [
    "zero_model",
    "book_zero_model",
    "compile_zero",
    "gpool_blocks",
    "SCORE_SCALE",
    "AUX_HEADS",
]

SCORE_SCALE = 20.0  # the score head predicts (area difference incl. komi) / SCORE_SCALE
AUX_HEADS = ("ownership", "score")  # optional outputs, in this order after policy and value


def gpool_blocks(blocks: int) -> list[int]:
    """Residual blocks with global pooling: every third (2, 5, 8, ...; block 0 with fewer than 3)."""
    return [i for i in range(blocks) if i % 3 == 2] or ([0] if blocks else [])


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
    *,
    ownership: bool = False,
    score: bool = False,
    global_pooling: bool = False,
    aux_channels: int = 16,
    gpool_channels: int = 0,
):
    """Residual policy/value network; ``board_size=None`` leaves the spatial size open.

    ``ownership``/``score`` add KataGo's auxiliary heads, ``global_pooling`` its pooling blocks
    (``gpool_channels`` 0: a quarter of ``filters``); the defaults build the plain network."""
    import keras
    from keras import layers, regularizers

    reg = regularizers.L2(l2) if l2 else None
    # Under a mixed (bfloat16) policy the logits and outputs stay float32: 8 bits blur a softmax.
    out_dtype = "float32" if keras.config.dtype_policy().name.startswith("mixed") else None

    def conv(x, n, k, label):
        return layers.Conv2D(
            n, k, padding="same", use_bias=False, kernel_regularizer=reg, kernel_initializer="he_normal", name=label
        )(x)

    def bn(x, label):
        return layers.BatchNormalization(axis=-1, name=label)(x)

    spatial = (board_size, board_size) if board_size else (None, None)
    inputs = keras.Input(shape=(*spatial, num_planes), name="planes")
    x = layers.ReLU(name="stem_relu")(bn(conv(inputs, filters, 3, "stem_conv"), "stem_bn"))
    pooled_blocks = set(gpool_blocks(blocks)) if global_pooling else set()
    g_channels = gpool_channels or max(4, filters // 4)
    for i in range(blocks):
        y = bn(conv(x, filters, 3, f"res{i}_conv1"), f"res{i}_bn1")
        if i in pooled_blocks:
            y = layers.Add(name=f"res{i}_gpool_add")(
                [y, _gpool_bias(x, filters, g_channels, f"res{i}_gpool", conv, bn, reg)]
            )
        y = layers.ReLU(name=f"res{i}_relu1")(y)
        y = bn(conv(y, filters, 3, f"res{i}_conv2"), f"res{i}_bn2")
        x = layers.ReLU(name=f"res{i}_relu2")(layers.Add(name=f"res{i}_add")([x, y]))

    p = layers.ReLU(name="policy_relu")(bn(conv(x, policy_channels, 1, "policy_conv"), "policy_bn"))
    board_logits = layers.Flatten(name="policy_board")(
        layers.Conv2D(1, 1, kernel_regularizer=reg, name="policy_logits", dtype=out_dtype)(p)
    )
    pooled = layers.Concatenate(name="policy_pool")(
        [layers.GlobalAveragePooling2D(name="policy_avg")(p), layers.GlobalMaxPooling2D(name="policy_max")(p)]
    )
    pass_logit = layers.Dense(1, kernel_regularizer=reg, name="policy_pass", dtype=out_dtype)(pooled)
    logits = layers.Concatenate(name="policy_concat")([board_logits, pass_logit])
    policy = layers.Softmax(name="policy", dtype=out_dtype)(logits)

    v = layers.ReLU(name="value_relu")(bn(conv(x, value_channels, 1, "value_conv"), "value_bn"))
    value_pool = layers.Concatenate(name="value_pool")(
        [layers.GlobalAveragePooling2D(name="value_avg")(v), layers.GlobalMaxPooling2D(name="value_max")(v)]
    )
    v = layers.Dense(value_hidden, activation="relu", kernel_regularizer=reg, name="value_hidden")(value_pool)
    value = layers.Dense(1, activation="tanh", kernel_regularizer=reg, name="value", dtype=out_dtype)(v)
    outputs = [policy, value]
    if ownership:
        o = layers.ReLU(name="ownership_relu")(bn(conv(x, aux_channels, 1, "ownership_conv"), "ownership_bn"))
        o = layers.Conv2D(1, 1, activation="tanh", kernel_regularizer=reg, name="ownership_points")(o)
        outputs.append(layers.Flatten(name="ownership")(o))
    if score:
        # shares the value head's pooled features, as KataGo's score and value heads do
        s = layers.Dense(value_hidden, activation="relu", kernel_regularizer=reg, name="score_hidden")(value_pool)
        outputs.append(layers.Dense(1, kernel_regularizer=reg, name="score")(s))
    return keras.Model(inputs, outputs, name=name or f"zero_{blocks}x{filters}")


def _gpool_bias(x, filters: int, channels: int, label: str, conv, bn, reg):
    """KataGo's global pooling: ``channels`` features of ``x`` pooled over the board (mean, max),
    mapped to one bias per trunk channel, shaped ``[batch, 1, 1, filters]`` to broadcast."""
    from keras import layers

    g = layers.ReLU(name=f"{label}_relu")(bn(conv(x, channels, 3, f"{label}_conv"), f"{label}_bn"))
    g = layers.Concatenate(name=f"{label}_pool")(
        [layers.GlobalAveragePooling2D(name=f"{label}_avg")(g), layers.GlobalMaxPooling2D(name=f"{label}_max")(g)]
    )
    g = layers.Dense(filters, use_bias=False, kernel_regularizer=reg, name=f"{label}_dense")(g)
    return layers.Reshape((1, 1, filters), name=f"{label}_bias")(g)


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
