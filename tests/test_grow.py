"""A Zero network grown to a larger trunk answers exactly as before and trains from there."""

from __future__ import annotations

import json

import numpy as np
import pytest

keras = pytest.importorskip("keras")

from dlgo.inference import load_model, save_model  # noqa: E402
from dlgo.networks.grow import conform_network, graft_heads_from, grow_network, trunk_size  # noqa: E402
from dlgo.networks.zero import zero_model  # noqa: E402
from dlgo.zero.grow import main  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def _trained_looking(blocks: int = 3, filters: int = 8, seed: int = 3):
    """A small network with every weight random, batch-norm statistics included (a fresh one's
    identity statistics would hide a wrongly copied mean or variance)."""
    keras.utils.set_random_seed(seed)
    model = zero_model(16, blocks=blocks, filters=filters, ownership=True, score=True, global_pooling=True)
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        weights = layer.get_weights()
        if isinstance(layer, keras.layers.BatchNormalization):
            gamma, beta, mean, var = weights
            weights = [rng.uniform(0.5, 1.5, gamma.shape), rng.normal(0, 0.3, beta.shape),
                       rng.normal(0, 0.5, mean.shape), rng.uniform(0.5, 2.0, var.shape)]  # fmt: skip
        else:
            weights = [rng.normal(0, 0.3, w.shape) for w in weights]
        layer.set_weights([w.astype(np.float32) for w in weights])
    return model


def _planes(n: int, size: int = 9, seed: int = 5) -> np.ndarray:
    return (np.random.default_rng(seed).random((n, size, size, 16)) > 0.6).astype(np.float32)


def _outputs(model, x):
    return [np.array(keras.ops.convert_to_numpy(o)) for o in model(x, training=False)]


def test_wider_and_deeper_network_answers_as_before():
    source = _trained_looking()
    grown = grow_network(source, blocks=6, filters=12)
    assert trunk_size(source) == (3, 8) and trunk_size(grown) == (6, 12)
    assert grown.output_names == source.output_names
    assert grown.count_params() > 1.5 * source.count_params()
    assert {"res5_gpool_conv", "res2_gpool_conv"} <= {layer.name for layer in grown.layers}
    for size in (9, 7):  # size-independent before and after
        x = _planes(16, size)
        for before, after in zip(_outputs(source, x), _outputs(grown, x), strict=True):
            assert np.allclose(before, after, atol=1e-4), np.abs(before - after).max()
    # the new channels carry signal (fresh incoming weights), read with zero weights for now
    stem = grown.get_layer("stem_conv").get_weights()[0]
    assert np.abs(stem[..., 8:]).sum() > 0
    assert not grown.get_layer("policy_conv").get_weights()[0][:, :, 8:, :].any()


def test_training_moves_the_grown_weights():
    grown = grow_network(_trained_looking(), blocks=4, filters=12)
    grown.compile(optimizer=keras.optimizers.SGD(0.05), loss=["categorical_crossentropy", "mse", "mse", "mse"])
    x = _planes(32)
    rng = np.random.default_rng(1)
    policy = rng.dirichlet(np.ones(82), 32).astype(np.float32)
    targets = [policy, rng.uniform(-1, 1, (32, 1)), rng.uniform(-1, 1, (32, 81)), rng.normal(0, 1, (32, 1))]
    for _ in range(3):
        grown.train_on_batch(x, [t.astype(np.float32) for t in targets])
    # the heads learn to read the new channels, and the new block's zero scale moves off zero
    assert grown.get_layer("value_conv").get_weights()[0][:, :, 8:, :].any()
    assert np.abs(grown.get_layer("res3_bn2").get_weights()[0]).sum() > 0


def test_a_trunk_only_grows():
    source = _trained_looking(blocks=2, filters=8)
    with pytest.raises(ValueError, match="can only grow"):
        grow_network(source, blocks=1, filters=8)
    assert conform_network(source, aux_heads=True, global_pooling=True, trunk=(2, 8)) is source
    assert conform_network(source, aux_heads=True, global_pooling=True, trunk=(1, 4)) is source
    assert trunk_size(conform_network(source, aux_heads=True, global_pooling=True, trunk=(3, 8))) == (3, 8)


def test_command_writes_the_grown_network_and_its_card(tmp_path, capsys):
    source = _trained_looking(blocks=2, filters=8)
    path = tmp_path / "small.keras"
    save_model(source, path, "zero", [9], network={"kind": "zero", "blocks": 2, "filters": 8}, training={"kind": "x"})
    out = tmp_path / "big" / "grown.keras"
    assert main(["--model", str(path), "--blocks", "3", "--filters", "10", "--out", str(out)]) == 0
    loaded = load_model(out)
    assert trunk_size(loaded.model) == (3, 10)
    card = json.loads(out.with_name("grown.card.json").read_text())
    assert card["network"]["blocks"] == 3 and card["network"]["filters"] == 10
    assert card["training"]["kind"] == "grown" and card["training"]["from"] == str(path)
    x = _planes(4)
    assert np.allclose(_outputs(source, x)[1], _outputs(loaded.model, x)[1], atol=1e-4)
    assert "(2x8" in capsys.readouterr().out

    bad = tmp_path / "bad.keras"
    bad.write_bytes(b"not a model")
    assert main(["--model", str(bad), "--blocks", "3", "--filters", "10", "--out", str(tmp_path / "x.keras")]) == 1
    assert str(bad) in capsys.readouterr().err


def test_the_loops_learner_grows_at_its_next_training(tmp_path):
    from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer
    from dlgo.zero.trainer import TrainerSettings, train_candidate

    rng = np.random.default_rng(2)
    n, size = 64, 5
    x = (rng.random((n, size, size, 16)) > 0.6).astype(np.float32)
    replay = ReplayBuffer(tmp_path / "replay")
    replay.add(ZeroExperienceBuffer(x, np.full((n, 26), 1 / 26), rng.choice([-1.0, 1.0], n)), 0, 0)
    init = tmp_path / "init.keras"
    save_model(
        _trained_looking(blocks=2, filters=8), init, "zero", [size], network={"kind": "zero", "blocks": 2, "filters": 8}
    )
    settings = TrainerSettings(
        batch_size=16, steps_per_iteration=2, lr=0.01, window_start=1000, min_positions=1, bn_batches=2
    )
    learner = tmp_path / "learner.keras"
    common = {"settings": settings, "progress": False, "aux_heads": True, "global_pooling": True}
    train_candidate(replay, 0, learner, init, tmp_path / "c0.keras", seed=1, **common)  # the old trunk's checkpoint
    assert trunk_size(keras.saving.load_model(learner, compile=False)) == (2, 8)
    train_candidate(replay, 1, learner, init, tmp_path / "c1.keras", seed=2, trunk=(3, 12), **common)
    grown = load_model(tmp_path / "c1.keras")
    assert trunk_size(grown.model) == (3, 12) == (grown.card.network["blocks"], grown.card.network["filters"])
    assert trunk_size(keras.saving.load_model(learner, compile=False)) == (3, 12)


def _without_heads(model, value_seed: int | None = None):
    """``model``'s trunk, policy and value without the auxiliary heads; with ``value_seed`` its
    value head refitted (new random weights), as the 13x13 network is from the 19x19 one."""
    from dlgo.networks.grow import graft_heads

    bare = graft_heads(model, ownership=False, score=False)
    if value_seed is not None:
        rng = np.random.default_rng(value_seed)
        for name in ("value_conv", "value_hidden", "value"):
            layer = bare.get_layer(name)
            layer.set_weights([rng.normal(0, 0.05, w.shape).astype(np.float32) for w in layer.get_weights()])
    return bare


def test_heads_taken_from_a_network_with_the_same_trunk():
    donor = _trained_looking(blocks=2, filters=8)
    x = _planes(8)
    policy, value, ownership, score = _outputs(donor, x)
    # the same value head: every output is the donor's
    same = graft_heads_from(_without_heads(donor), donor)
    assert same[1] == []
    for a, b in zip(_outputs(same[0], x), (policy, value, ownership, score), strict=True):
        assert np.allclose(a, b, atol=1e-5)
    # a refitted value head: its own value, the donor's ownership, and the score head named to refit
    refitted = _without_heads(donor, value_seed=11)
    new, refit = graft_heads_from(refitted, donor)
    assert refit == ["score"]
    got = _outputs(new, x)
    assert np.allclose(got[1], _outputs(refitted, x)[1], atol=1e-5) and not np.allclose(got[1], value, atol=1e-3)
    assert np.allclose(got[2], ownership, atol=1e-5)


def test_heads_refused_from_another_trunk_or_a_donor_without_them(tmp_path, capsys):
    donor = _trained_looking(blocks=2, filters=8)
    other = _trained_looking(blocks=2, filters=8, seed=4)
    with pytest.raises(ValueError, match="trunks differ.*stem_conv"):
        graft_heads_from(_without_heads(other), donor)
    with pytest.raises(ValueError, match="no ownership or score head"):
        graft_heads_from(donor, _without_heads(donor))
    # the command: a card saying where the heads came from, and one line naming a refused donor
    net, donor_path, other_path = tmp_path / "net.keras", tmp_path / "donor.keras", tmp_path / "other.keras"
    for model, path in ((_without_heads(donor, 11), net), (donor, donor_path), (other, other_path)):
        network = {"kind": "zero", "blocks": 2, "filters": 8}
        save_model(model, path, "zero", [9], network=network, training={"kind": "x"})
    out = tmp_path / "aux.keras"
    assert main(["--model", str(net), "--heads-from", str(donor_path), "--out", str(out)]) == 0
    card = json.loads(out.with_name("aux.card.json").read_text())
    assert card["training"]["kind"] == "heads grafted" and "to fit again: score" in card["training"]["notes"]
    assert "ownership" in card["heads"] and "score" in card["heads"]
    assert main(["--model", str(net), "--heads-from", str(other_path), "--out", str(tmp_path / "y.keras")]) == 1
    assert "trunks differ" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--model", str(net), "--heads-from", str(donor_path), "--blocks", "3", "--filters", "8", "--out", "x"])
