"""A tiny Zero network with KataGo's auxiliary heads, for tests: ``policy``, ``value`` (the
untrained residual network of ``dlgo.networks.zero``), ``ownership`` and ``score``.

Both extra heads are fixed functions of the input planes, so tests know the right answer:
ownership = tanh(own stones - opponent stones) per point (plane 1 minus plane 2 of the zero
encoder), score = (own stones - opponent stones) on average over the board, in SCORE_SCALE
units. Neither is symmetric under the board's symmetries, so a wrong inverse mapping shows.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

OWNERSHIP_AT_STONE = float(np.tanh(1.0))


def aux_zero_model(num_planes: int, blocks: int = 1, filters: int = 8, seed: int = 1):
    """(four-head model, the same network with policy and value only)."""
    import keras
    from keras import layers

    from dlgo.networks.zero import zero_model

    keras.utils.set_random_seed(seed)
    base = zero_model(num_planes, blocks=blocks, filters=filters)
    x = base.input
    stones = layers.Conv2D(1, 1, name="aux_stones", trainable=False)(x)  # own - opponent, set below
    ownership = layers.Flatten(name="ownership")(layers.Activation("tanh", name="ownership_tanh")(stones))
    score = layers.Dense(1, name="score", trainable=False)(layers.GlobalAveragePooling2D(name="score_pool")(stones))
    model = keras.Model(x, [*base.outputs, ownership, score], name="zero_aux")
    kernel = np.zeros((1, 1, num_planes, 1), dtype=np.float32)
    kernel[0, 0, 1, 0], kernel[0, 0, 2, 0] = 1.0, -1.0
    model.get_layer("aux_stones").set_weights([kernel, np.zeros(1, np.float32)])
    model.get_layer("score").set_weights([np.ones((1, 1), np.float32), np.zeros(1, np.float32)])
    return model, base


def save_aux_models(folder: Path, sizes: tuple[int, ...] = (9,)) -> tuple[Path, Path]:
    """Both models saved with their cards: (four heads, two heads)."""
    from dlgo.encoders import get_encoder_by_name
    from dlgo.inference import save_model

    encoder = get_encoder_by_name("zero", sizes[0])
    four, two = aux_zero_model(encoder.num_planes)
    paths = folder / "aux.keras", folder / "plain.keras"
    save_model(four, paths[0], encoder, list(sizes))
    save_model(two, paths[1], encoder, list(sizes))
    return paths
