"""Model files with model cards, clear load errors, and the batched evaluator (compiled function
and ONNX Runtime) against ``model.predict``, with cache and symmetries."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.bench.nn import sample_states  # noqa: E402
from dlgo.encoders import get_encoder_by_name, symmetry  # noqa: E402
from dlgo.goboard import GameState, Move  # noqa: E402
from dlgo.gotypes import Point  # noqa: E402
from dlgo.inference import BatchEvaluator, ModelFileError, card_path, load_model, read_card, save_model  # noqa: E402
from dlgo.inference.runners import make_runner  # noqa: E402
from dlgo.networks.chapter6 import cnn_v2  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402

# Keras' own model.save trips a NumPy 2 deprecation inside TensorFlow; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

HAS_ORT = importlib.util.find_spec("onnxruntime") is not None and importlib.util.find_spec("tf2onnx") is not None
BACKENDS = ["compiled", pytest.param("onnx", marks=pytest.mark.skipif(not HAS_ORT, reason="onnxruntime missing"))]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny untrained Zero network saved with its card (shared: TensorFlow is slow to start)."""
    folder = tmp_path_factory.mktemp("models")
    encoder = get_encoder_by_name("zero", 9)
    model = zero_model(encoder.num_planes, blocks=1, filters=8)
    path = folder / "tiny.keras"
    save_model(model, path, encoder, [9, 19], training={"data": "none", "epochs": 0}, metrics={"top1": 0.0})
    return path, model, encoder


def test_save_load_round_trip_with_card(tiny):
    path, model, encoder = tiny
    assert card_path(path).name == "tiny.card.json"
    card = read_card(path)
    assert card.encoder == "zero" and card.board_sizes == [9, 19] and card.num_planes == 16
    assert card.heads == ["policy", "value"] and card.input_shape == [None, None, 16]
    assert card.training == {"data": "none", "epochs": 0} and card.metrics == {"top1": 0.0}
    assert card.network["parameters"] == model.count_params() and card.versions["keras"]
    loaded = load_model(path, encoder="zero", board_size=19, heads=["policy", "value"])
    x = encoder.encode_batch(sample_states(9, 4))
    for a, b in zip(model.predict(x, verbose=0), loaded.model.predict(x, verbose=0)):
        assert np.allclose(a, b, atol=1e-6)
    assert loaded.encoder(13).shape() == (13, 13, 16)


def test_load_fails_clearly(tiny, tmp_path):
    path, model, _ = tiny
    with pytest.raises(ModelFileError, match=r"tiny\.keras: the model was trained with encoder 'zero', not 'simple'"):
        load_model(path, encoder="simple")
    with pytest.raises(ModelFileError, match="no value head|not found"):
        load_model(tmp_path / "missing.keras")
    with pytest.raises(ModelFileError, match="has no .* head"):
        load_model(path, heads=["ownership"])
    # A card naming an encoder with a different number of planes.
    bad = tmp_path / "bad.keras"
    save_model(model, bad, "zero", [9])
    data = json.loads(card_path(bad).read_text())
    data["encoder"] = "simple"
    card_path(bad).write_text(json.dumps(data))
    with pytest.raises(ModelFileError, match=r"bad\.keras: encoder 'simple' gives 11 planes but the model takes 16"):
        load_model(bad)
    card_path(bad).unlink()
    with pytest.raises(ModelFileError, match=r"bad\.card\.json: model card missing"):
        load_model(bad)


def test_fixed_size_model_refuses_other_sizes(tmp_path):
    encoder = get_encoder_by_name("oneplane", 9)
    path = tmp_path / "cnn.keras"
    save_model(cnn_v2(), path, encoder)
    assert read_card(path).heads == ["policy"]
    with pytest.raises(ModelFileError, match="plays 9x9 only, not 19x19"):
        load_model(path, board_size=19)
    evaluator = BatchEvaluator(load_model(path), backend="compiled")
    states = sample_states(9, 3)
    assert evaluator.policy(states).shape == (3, 81)
    with pytest.raises(ValueError, match="no value head"):
        evaluator.evaluate(states)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("size", [9, 19])
def test_evaluator_matches_predict(tiny, backend, size):
    path, model, _ = tiny
    evaluator = BatchEvaluator(load_model(path), backend=backend)
    states = sample_states(size, 6, seed=size)
    x = get_encoder_by_name("zero", size).encode_batch(states)
    ref_policy, ref_value = model.predict(x, verbose=0)
    policy, value = evaluator.evaluate(states)
    assert policy.shape == (6, size * size + 1) and value.shape == (6,)
    assert np.allclose(policy, ref_policy, atol=1e-5)
    assert np.allclose(value, ref_value[:, 0], atol=1e-5)


def test_evaluator_cache(tiny):
    _, model, encoder = tiny
    evaluator = BatchEvaluator(model, encoder, backend="compiled", cache_size=5)
    states = sample_states(9, 4)
    first = evaluator.evaluate(states)
    assert evaluator.stats["cache_misses"] == 4 and evaluator.stats["batches"] == 1
    again = evaluator.evaluate(states[::-1])
    assert evaluator.stats["cache_hits"] == 4 and evaluator.stats["batches"] == 1  # no network call
    assert np.array_equal(again[0], first[0][::-1]) and np.array_equal(again[1], first[1][::-1])
    evaluator.evaluate(sample_states(9, 4, seed=7))
    assert evaluator.stats["cache_entries"] == 5  # the limit holds
    # Duplicates inside one batch are evaluated once.
    fresh = BatchEvaluator(model, encoder, backend="compiled")
    fresh.evaluate([states[0]] * 3)
    assert fresh.stats["cache_misses"] == 1


def test_fixed_symmetry_is_the_rotated_position(tiny):
    _, model, encoder = tiny
    states = sample_states(9, 3, seed=3)
    plain = BatchEvaluator(model, encoder, backend="compiled")
    for k in (1, 6):
        rotated = []
        for s in states:
            r = GameState.new_game(9)
            for m in s.moves():
                r = r.apply_move(Move.play(symmetry.apply_to_point(m.point, k, 9)) if m.is_play else m)
            rotated.append(r)
        p_k, v_k = BatchEvaluator(model, encoder, backend="compiled", symmetry_mode=k).evaluate(states)
        p_r, v_r = plain.evaluate(rotated)
        assert np.allclose(symmetry.apply_to_policy(p_k, k, 9), p_r, atol=1e-5)
        assert np.allclose(v_k, v_r, atol=1e-5)


def test_random_symmetry(tiny):
    _, model, encoder = tiny
    states = sample_states(9, 8)
    a = BatchEvaluator(model, encoder, backend="compiled", symmetry_mode="random", seed=5).evaluate(states)
    b = BatchEvaluator(model, encoder, backend="compiled", symmetry_mode="random", seed=5).evaluate(states)
    assert np.array_equal(a[0], b[0])
    assert np.allclose(a[0].sum(axis=1), 1, atol=1e-5)


def test_average_symmetry_is_the_mean_of_the_eight(tiny):
    _, model, encoder = tiny
    states = sample_states(9, 4)
    fixed = [BatchEvaluator(model, encoder, backend="compiled", symmetry_mode=k).evaluate(states) for k in range(8)]
    p_avg, v_avg = BatchEvaluator(model, encoder, backend="compiled", symmetry_mode="average").evaluate(states)
    assert np.allclose(p_avg, np.mean([p for p, _ in fixed], axis=0), atol=1e-6)
    assert np.allclose(v_avg, np.mean([v for _, v in fixed], axis=0), atol=1e-6)
    with pytest.raises(ValueError, match="average"):
        BatchEvaluator(model, encoder, backend="compiled", symmetry_mode="mean")


def test_runners_agree(tiny):
    _, model, encoder = tiny
    x = encoder.encode_batch(sample_states(9, 5))
    ref = make_runner(model, "predict")(x)
    for backend in ["compiled"] + (["onnx"] if HAS_ORT else []):
        out = make_runner(model, backend)(x)
        assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(ref, out))


def test_bench_nn_command(capsys):
    from dlgo.bench.__main__ import main

    args = ["nn", "--build", "zero", "--blocks", "1", "--filters", "8", "--batches", "1,2", "--seconds", "0.01"]
    assert main([*args, "--backends", "compiled,predict"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"] == "nn" and out["encoder"] == "zero"
    assert set(out["runners"]) == {"compiled-tensorflow", "keras-predict"}
    assert out["runners"]["compiled-tensorflow"]["2"]["positions_per_second"] > 0
    assert out["evaluator"]["2"]["positions_per_second"] > 0


def test_cache_keys_tell_the_recent_moves_apart():
    """The key holds what the zero planes depend on: the same stones reached by other recent
    moves, or after a pass, is another position for the network."""
    encoder = get_encoder_by_name("zero", 9)

    def play(*points):
        s = GameState.new_game(9)
        for p in points:
            s = s.apply_move(Move.pass_turn() if p is None else Move.play(Point(*p)))
        return s

    key = BatchEvaluator._key
    a, b = play((1, 1), (2, 2), (3, 3)), play((3, 3), (2, 2), (1, 1))
    assert a.situation_hash() == b.situation_hash()
    assert key(a, "r", encoder) != key(b, "r", encoder)
    assert key(a, "r", encoder) == key(play((1, 1), (2, 2), (3, 3)), "r", encoder)
    assert key(a, "r", encoder) != key(a, 0, encoder)  # another symmetry mode
    passed = play((1, 1), (2, 2), (3, 3), None, None)  # the same stones, White to move again
    assert passed.situation_hash() == a.situation_hash() and key(passed, "r", encoder) != key(a, "r", encoder)
