"""Training some heads only (``dlgo.networks.heads``, ``TrainerSettings.train_heads``): the value
head fitted to new games while the trunk, its batch-norm statistics and the policy stay exactly
as they were; and a loop's replay folder split into train and held-out games for the fine-tuning
(``python -m dlgo.zero.teacher split``)."""

from __future__ import annotations

import numpy as np
import pytest

from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def _network(tmp_path, aux=False):
    keras = pytest.importorskip("keras")
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model

    keras.utils.set_random_seed(0)
    path = tmp_path / "init.keras"
    save_model(zero_model(16, blocks=1, filters=16, ownership=aux, score=aux), path, "zero", [5])
    return path


def _replay(tmp_path, n=96):
    rng = np.random.default_rng(5)
    x = (rng.random((n, 5, 5, 16)) > 0.6).astype(np.float32)
    policies = rng.dirichlet(np.ones(26), size=n)
    replay = ReplayBuffer(tmp_path / "replay")
    replay.add(ZeroExperienceBuffer(x, policies, np.where(np.arange(n) % 2, 1.0, -1.0)), 0, 0)
    return replay


def test_only_the_named_heads_layers_are_trainable(tmp_path):
    from dlgo.inference import load_model
    from dlgo.networks.heads import head_of, train_only_heads

    model = load_model(_network(tmp_path, aux=True)).model
    trained = train_only_heads(model, ["value"])
    assert trained and all(head_of(name) == "value" for name in trained)
    assert {"value_conv", "value_bn", "value_hidden", "value"} <= set(trained)
    assert not model.get_layer("stem_conv").trainable and not model.get_layer("policy_logits").trainable
    assert not model.get_layer("score_hidden").trainable  # the score head reads value_pool but is its own
    assert len(train_only_heads(model, [])) > len(trained) and model.get_layer("stem_conv").trainable
    with pytest.raises(ValueError, match="no head ownership"):
        train_only_heads(load_model(_network(tmp_path / "plain")).model, ["ownership"])


def test_unknown_heads_are_refused_by_the_settings_and_the_loop_config(tmp_path):
    from dlgo.zero.loop_config import LoopConfigError, load_loop_config
    from dlgo.zero.trainer import TrainerSettings

    assert TrainerSettings(train_heads=["value"]).train_heads == ("value",)
    with pytest.raises(ValueError, match="unknown head valeu"):
        TrainerSettings(train_heads=("valeu",))
    config = tmp_path / "loop.toml"
    config.write_text('[train]\ntrain_heads = ["value", "polcy"]\n')
    with pytest.raises(LoopConfigError, match=r"loop\.toml.*unknown head polcy"):
        load_loop_config(config)
    config.write_text('[train]\ntrain_heads = ["value"]\n')
    assert load_loop_config(config).train.train_heads == ("value",)


def test_a_value_head_fine_tune_leaves_the_trunk_and_the_policy_exactly_as_they_were(tmp_path):
    from dlgo.inference import load_model
    from dlgo.networks.heads import head_of
    from dlgo.zero.trainer import TrainerSettings, train_candidate

    init = _network(tmp_path)
    replay = _replay(tmp_path)
    # bn_batches > 0: the candidate's batch norms are recalibrated, the frozen ones must not move
    settings = TrainerSettings(
        batch_size=32, steps_per_iteration=40, lr=0.05, window_start=1000, bn_batches=4, train_heads=("value",)
    )
    train_candidate(replay, 0, tmp_path / "learner.keras", init, tmp_path / "cand.keras", settings, 1, progress=False)
    before, after = load_model(init).model, load_model(tmp_path / "cand.keras").model
    moved = []
    for layer in before.layers:
        old, new = layer.get_weights(), after.get_layer(layer.name).get_weights()
        if any(not np.array_equal(a, b) for a, b in zip(old, new)):
            moved.append(layer.name)
    assert moved and all(head_of(name) == "value" for name in moved), moved
    assert "value" in moved and "value_hidden" in moved
    assert all(layer.trainable for layer in after.layers)  # the candidate does not carry the freeze
    # the learner goes on with the whole network when the settings say so: a fresh optimizer
    every = TrainerSettings(batch_size=32, steps_per_iteration=10, lr=0.05, window_start=1000, bn_batches=0)
    train_candidate(replay, 1, tmp_path / "learner.keras", init, tmp_path / "cand2.keras", every, 2, progress=False)
    whole = load_model(tmp_path / "cand2.keras").model
    assert not np.array_equal(
        whole.get_layer("stem_conv").get_weights()[0], after.get_layer("stem_conv").get_weights()[0]
    )


def test_a_loops_replay_is_split_by_task_into_train_and_held_out_games(tmp_path, capsys):
    from dlgo.zero.teacher import main

    replay = ReplayBuffer(tmp_path / "run" / "replay")
    for iteration in range(2):
        for task in range(4):
            n = 3 + task
            replay.add(ZeroExperienceBuffer(np.zeros((n, 5, 5, 16)), np.zeros((n, 26)), np.ones(n)), iteration, task)
    data = tmp_path / "data"
    assert main(["split", str(replay.root), "--out", str(data), "--holdout-every", "2"]) == 0
    assert "4 chunks to train on, 4 held out" in capsys.readouterr().out
    held, train = ReplayBuffer(data / "holdout"), ReplayBuffer(data / "train")
    assert [(c.iteration, c.task) for c in held.chunks()] == [(0, 0), (0, 2), (1, 0), (1, 2)]
    assert [(c.iteration, c.task) for c in train.chunks()] == [(0, 1), (0, 3), (1, 1), (1, 3)]
    assert main(["split", str(replay.root), "--out", str(data), "--holdout-every", "2"]) == 0  # again: kept
    assert train.positions() == 4 + 6 + 4 + 6
    # self-play beside converted games: the offset moves the iterations past theirs, and again keeps
    mixed = tmp_path / "mixed"
    offset = ["--holdout-every", "2", "--iteration-offset", "100"]
    for _ in range(2):
        assert main(["split", str(replay.root), "--out", str(mixed), *offset]) == 0
    assert [(c.iteration, c.task) for c in ReplayBuffer(mixed / "train").chunks()] == [
        (100, 1), (100, 3), (101, 1), (101, 3)
    ]  # fmt: skip
    assert ReplayBuffer(mixed / "holdout").positions() == 3 + 5 + 3 + 5
    with pytest.raises(SystemExit, match="iteration-offset"):
        main(["split", str(replay.root), "--out", str(mixed), "--iteration-offset", "-1"])
    with pytest.raises(SystemExit, match="no such replay folder"):
        main(["split", str(tmp_path / "nowhere"), "--out", str(data)])
