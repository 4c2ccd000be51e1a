"""The book's ``small`` trunk (listing 7.18): padded convolutions 48 7x7, 3 x 32 5x5, Dense 512."""

from __future__ import annotations

__all__ = ["layers"]


def layers(input_shape: tuple[int, int, int]) -> list:
    from keras import Input
    from keras.layers import Conv2D, Dense, Flatten, ZeroPadding2D

    return [
        Input(shape=input_shape),
        ZeroPadding2D(padding=3),
        Conv2D(48, (7, 7), activation="relu"),
        ZeroPadding2D(padding=2),
        Conv2D(32, (5, 5), activation="relu"),
        ZeroPadding2D(padding=2),
        Conv2D(32, (5, 5), activation="relu"),
        ZeroPadding2D(padding=2),
        Conv2D(32, (5, 5), activation="relu"),
        Flatten(),
        Dense(512, activation="relu"),
    ]
