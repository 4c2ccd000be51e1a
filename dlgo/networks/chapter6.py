"""The book's first move predictors (chapter 6; 9x9, one plane, 81 classes).

| model | layers | parameters |
|---|---|---|
| ``mlp`` | flatten -> Dense 1000 sigmoid -> Dense 500 sigmoid -> Dense 81 sigmoid | 623,081 |
| ``cnn_v1`` | Conv 48 3x3 same sigmoid x 2 -> flatten -> Dense 512 sigmoid -> Dense 81 sigmoid | 2,053,985 |
| ``cnn_v2`` | Conv 48 relu, drop, Conv 48 relu, pool 2x2, drop, Dense 512 relu, drop, Dense 81 softmax | 456,545 |

The book trained the first two with mean squared error and SGD, the third with categorical
cross-entropy (``compile_book``).
"""

from __future__ import annotations

__all__ = ["mlp", "cnn_v1", "cnn_v2", "compile_book"]


def mlp(board_size: int = 9, num_planes: int = 1):
    import keras
    from keras.layers import Dense, Flatten

    n = board_size * board_size
    return keras.Sequential(
        [
            keras.Input(shape=(board_size, board_size, num_planes)),
            Flatten(),
            Dense(1000, activation="sigmoid"),
            Dense(500, activation="sigmoid"),
            Dense(n, activation="sigmoid", name="policy"),
        ],
        name="mlp",
    )


def cnn_v1(board_size: int = 9, num_planes: int = 1):
    import keras
    from keras.layers import Conv2D, Dense, Flatten

    n = board_size * board_size
    return keras.Sequential(
        [
            keras.Input(shape=(board_size, board_size, num_planes)),
            Conv2D(48, (3, 3), padding="same", activation="sigmoid"),
            Conv2D(48, (3, 3), padding="same", activation="sigmoid"),
            Flatten(),
            Dense(512, activation="sigmoid"),
            Dense(n, activation="sigmoid", name="policy"),
        ],
        name="cnn_v1",
    )


def cnn_v2(board_size: int = 9, num_planes: int = 1):
    import keras
    from keras.layers import Conv2D, Dense, Dropout, Flatten, MaxPooling2D

    n = board_size * board_size
    return keras.Sequential(
        [
            keras.Input(shape=(board_size, board_size, num_planes)),
            Conv2D(48, (3, 3), padding="same", activation="relu"),
            Dropout(0.5),
            Conv2D(48, (3, 3), padding="same", activation="relu"),
            MaxPooling2D(pool_size=(2, 2)),
            Dropout(0.5),
            Flatten(),
            Dense(512, activation="relu"),
            Dropout(0.5),
            Dense(n, activation="softmax", name="policy"),
        ],
        name="cnn_v2",
    )


def compile_book(model, lr: float = 0.1) -> None:
    """Losses as in the book: MSE for the sigmoid models, cross-entropy for the softmax one."""
    import keras

    loss = "categorical_crossentropy" if model.name == "cnn_v2" else "mean_squared_error"
    model.compile(loss=loss, optimizer=keras.optimizers.SGD(learning_rate=lr), metrics=["accuracy"])
