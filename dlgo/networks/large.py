"""The book's ``large`` trunk (repo; used in 8.2.1 and 9.3.3): 7 zero-padded convolutions, Dense 1024."""

from __future__ import annotations

__all__ = ["layers"]


def layers(input_shape: tuple[int, int, int]) -> list:
    from keras import Input
    from keras.layers import Conv2D, Dense, Flatten, ZeroPadding2D

    out = [Input(shape=input_shape)]
    for filters, kernel, pad in ((64, 7, 3), (64, 5, 2), (64, 5, 2), (48, 5, 2), (48, 5, 2), (32, 5, 2), (32, 5, 2)):
        out += [ZeroPadding2D(padding=pad), Conv2D(filters, (kernel, kernel), activation="relu")]
    return [*out, Flatten(), Dense(1024, activation="relu")]
