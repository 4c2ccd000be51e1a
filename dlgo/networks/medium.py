"""The book's ``medium`` trunk (repo): 2 x Conv 64 5x5, 3 x Conv 64 3x3 (zero padded), Dense 512."""

from __future__ import annotations

__all__ = ["layers"]


def layers(input_shape: tuple[int, int, int]) -> list:
    from keras import Input
    from keras.layers import Conv2D, Dense, Flatten, ZeroPadding2D

    out = [Input(shape=input_shape)]
    for kernel, pad in ((5, 2), (5, 2), (3, 1), (3, 1), (3, 1)):
        out += [ZeroPadding2D(padding=pad), Conv2D(64, (kernel, kernel), activation="relu")]
    return [*out, Flatten(), Dense(512, activation="relu")]
