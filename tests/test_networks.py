"""Network factories (book 6, 7.3, 13.1, 14.3-14.5): shapes, exact parameter counts, one Zero
network for every board size, Keras-only model code."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.encoders import get_encoder_by_name  # noqa: E402
from dlgo.networks import TRUNKS, alphago, chapter6, move_predictor, zero  # noqa: E402


def test_chapter6_parameter_counts():
    assert chapter6.mlp().count_params() == 623_081
    assert chapter6.cnn_v1().count_params() == 2_053_985
    assert chapter6.cnn_v2().count_params() == 456_545
    assert chapter6.cnn_v2().output_shape == (None, 81)


@pytest.mark.parametrize("name,hidden", [("small", 512), ("medium", 512), ("large", 1024)])
def test_book_trunks(name, hidden):
    encoder = get_encoder_by_name("sevenplane", 19)
    model = move_predictor(name, encoder)
    assert model.input_shape == (None, 19, 19, 7)
    assert model.output_shape == (None, 361)
    assert model.layers[-2].units == hidden
    assert model.layers[-1].activation.__name__ == "softmax"
    assert name in TRUNKS


def test_alphago_policy_network_has_13_conv_layers():
    model = alphago.policy_network()
    convs = [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]
    assert len(convs) == 13  # the book's code stopped at 12 (docs/book-differences.md, 12)
    assert convs[0].kernel_size == (5, 5) and all(c.kernel_size == (3, 3) for c in convs[1:12])
    assert all(c.filters == 192 for c in convs[:12]) and convs[12].filters == 1
    assert model.input_shape == (None, 19, 19, 48) and model.output_shape == (None, 361)
    out = keras.ops.convert_to_numpy(model(np.zeros((2, 19, 19, 48), np.float32)))
    assert np.allclose(out.sum(axis=1), 1, atol=1e-5)


def test_alphago_value_network():
    model = alphago.value_network()
    convs = [layer for layer in model.layers if isinstance(layer, keras.layers.Conv2D)]
    dense = [layer for layer in model.layers if isinstance(layer, keras.layers.Dense)]
    assert len(convs) == 14 and len(dense) == 2 and dense[0].units == 256
    assert model.input_shape == (None, 19, 19, 49) and model.output_shape == (None, 1)


@pytest.fixture(scope="module")
def small_zero():
    return zero.zero_model(16, blocks=2, filters=16)


@pytest.mark.parametrize("size", [9, 13, 19])
def test_one_zero_network_plays_every_size(small_zero, size):
    x = np.random.default_rng(size).random((3, size, size, 16)).astype(np.float32)
    policy, value = (keras.ops.convert_to_numpy(o) for o in small_zero(x, training=False))
    assert policy.shape == (3, size * size + 1) and value.shape == (3, 1)
    assert np.allclose(policy.sum(axis=1), 1, atol=1e-5)
    assert (np.abs(value) <= 1).all()


def test_zero_network_structure(small_zero):
    assert small_zero.input_shape == (None, None, None, 16)
    assert small_zero.output_names == ["policy", "value"]
    norms = [layer for layer in small_zero.layers if isinstance(layer, keras.layers.BatchNormalization)]
    assert norms and all(layer.axis in (-1, 3) for layer in norms)  # the channel axis (docs/book-differences.md, 15)
    assert sum(isinstance(layer, keras.layers.Add) for layer in small_zero.layers) == 2
    # No weight depends on the board size: 9x9 and 19x19 use the same variables.
    assert small_zero.count_params() == zero.zero_model(16, blocks=2, filters=16, board_size=19).count_params()


def test_book_zero_demo_network():
    model = zero.book_zero_model(16, 9)
    assert [o[-1] for o in model.output_shape] == [82, 1]


def test_model_code_is_keras_only():
    """No TensorFlow in model code, so KERAS_BACKEND=jax or torch runs the same networks."""
    folder = Path(zero.__file__).parent
    for path in folder.glob("*.py"):
        text = path.read_text()
        assert not re.search(r"import tensorflow|\btf\.\w", text), path.name
