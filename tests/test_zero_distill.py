"""A smaller network taught by a larger one (``dlgo.zero.distill``): the teacher's probabilities
are mixed into the policy targets (alone where a row had none), its value becomes the rows' root
values, only the training chunks are relabelled, a rerun keeps what is done, and a student
trained on the relabelled games moves towards the teacher."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dlgo.zero.distill import distilled_buffer, relabel_replay
from dlgo.zero.experience import ReplayBuffer, ZeroExperienceBuffer

pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")

MOVES = 26  # 5x5 and a pass


def _buffer(n: int, taught: bool = True, seed: int = 0) -> ZeroExperienceBuffer:
    rng = np.random.default_rng(seed)
    states = rng.integers(0, 2, size=(n, 5, 5, 16)).astype(np.float16)
    policies = np.zeros((n, MOVES), dtype=np.float32)
    if taught:
        policies[np.arange(n), rng.integers(0, MOVES, size=n)] = 1.0
    rewards = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    return ZeroExperienceBuffer(states, policies, rewards)


class FixedTeacher:
    """A stand-in for a Keras network: the same probabilities and value for every position."""

    def __init__(self, move: int, value: float) -> None:
        self.policy = np.full(MOVES, 0.1 / (MOVES - 1), dtype=np.float32)
        self.policy[move] = 0.9
        self.value = value
        self.calls = 0

    def predict_on_batch(self, x: np.ndarray) -> list[np.ndarray]:
        self.calls += 1
        return [np.tile(self.policy, (len(x), 1)), np.full((len(x), 1), self.value, dtype=np.float32)]


def test_the_teachers_policy_is_mixed_in_and_its_value_becomes_the_root_value():
    mixed_rows = _buffer(3)
    untaught = _buffer(2, taught=False)
    teacher = FixedTeacher(move=7, value=1.5)  # outside tanh's range: clipped
    for buffer in (mixed_rows, untaught):
        policy, value = teacher.predict_on_batch(buffer.states)
        out = distilled_buffer(buffer, policy, value, policy_mix=0.75)
        assert np.allclose(out.policies.sum(axis=1), 1.0)
        assert np.array_equal(out.rewards, buffer.rewards) and np.array_equal(out.states, buffer.states)
        assert np.allclose(out.root_values, 1.0)
        if buffer is mixed_rows:
            played = buffer.policies.argmax(axis=1)
            expected = 0.75 * teacher.policy[played] + 0.25
            assert np.allclose(out.policies[np.arange(3), played], np.where(played == 7, 0.9, expected))
        else:  # no target of their own: the teacher's alone
            assert np.allclose(out.policies, teacher.policy)
    with pytest.raises(ValueError, match="policy_mix"):
        distilled_buffer(mixed_rows, policy, value, policy_mix=1.5)
    with pytest.raises(ValueError, match="does not fit"):
        distilled_buffer(mixed_rows, np.ones((3, 10)), np.zeros(3), policy_mix=0.5)


def test_relabelling_keeps_chunk_names_and_resumes(tmp_path):
    source, target = ReplayBuffer(tmp_path / "src"), ReplayBuffer(tmp_path / "dst")
    for task in range(3):
        source.add(_buffer(4 + task, seed=task), iteration=1, task=task)
    teacher = FixedTeacher(move=3, value=-0.5)
    assert relabel_replay(teacher, source, target, policy_mix=1.0, batch_size=2) == (3, 0)
    assert [c.path.name for c in target.chunks()] == [c.path.name for c in source.chunks()]
    first = ZeroExperienceBuffer.load(target.chunks()[0].path)
    assert np.allclose(first.policies, teacher.policy) and np.allclose(first.root_values, -0.5)
    calls = teacher.calls
    assert relabel_replay(teacher, source, target, policy_mix=1.0) == (0, 3)
    assert teacher.calls == calls  # nothing evaluated again


def test_a_student_learns_from_the_relabelled_games(tmp_path, capsys):
    keras = pytest.importorskip("keras")
    from dlgo.inference import save_model
    from dlgo.networks.zero import zero_model
    from dlgo.zero import teacher as teacher_cli
    from dlgo.zero.distill import main

    keras.utils.set_random_seed(0)
    big = tmp_path / "zero-5x5-big.keras"
    model = zero_model(16, blocks=2, filters=16)
    pass_layer = model.get_layer("policy_pass")
    pass_layer.set_weights([pass_layer.get_weights()[0], np.array([4.0], dtype=np.float32)])  # a teacher that passes
    save_model(model, big, "zero", [5])
    data = tmp_path / "data"
    for side, tasks in (("train", range(6)), ("holdout", range(6, 8))):
        replay = ReplayBuffer(data / side)
        for task in tasks:
            replay.add(_buffer(20, seed=task), iteration=0, task=task)
    out = tmp_path / "run"
    argv = ["--teacher", str(big), "--data", str(data), "--out", str(out), "--blocks", "1", "--filters", "8"]
    assert main([*argv, "--no-progress"]) == 0
    assert "6 chunks relabelled" in capsys.readouterr().out
    student = out / "zero-5x5-1x8.keras"
    card = json.loads(student.with_name("zero-5x5-1x8.card.json").read_text())
    assert card["network"]["blocks"] == 1 and card["network"]["filters"] == 8
    assert card["board_sizes"] == [5]
    held = sorted(p.name for p in (out / "data" / "holdout").iterdir())
    assert held == sorted(p.name for p in (data / "holdout").iterdir())  # held out as they were
    assert np.array_equal(
        ZeroExperienceBuffer.load(out / "data" / "holdout" / held[0]).policies,
        ZeroExperienceBuffer.load(data / "holdout" / held[0]).policies,
    )
    assert main([*argv, "--no-progress"]) == 0 and "0 chunks relabelled (6 kept" in capsys.readouterr().out
    net = tmp_path / "net"
    train = ["train", "--data", str(out / "data"), "--init", str(student), "--out", str(net)]
    assert teacher_cli.main([*train, "--rounds", "1", "--steps", "60", "--lr", "0.02", "--value-q-weight", "0.5"]) == 0
    assert (net / "zero-5x5-1x8.keras").is_file()

    # the student's policy moves towards the teacher's on the training positions
    from dlgo.inference import load_model

    positions = ZeroExperienceBuffer.load(ReplayBuffer(out / "data" / "train").chunks()[0].path)
    x = np.asarray(positions.states, dtype=np.float32)
    target = np.asarray(load_model(big).model.predict_on_batch(x)[0])

    def distance(path):
        return float(np.abs(np.asarray(load_model(path).model.predict_on_batch(x)[0]) - target).sum(axis=1).mean())

    assert distance(net / "zero-5x5-1x8.keras") < distance(student)
    with pytest.raises(SystemExit, match="policy-mix"):
        main([*argv, "--policy-mix", "2"])
    with pytest.raises(SystemExit, match="no experience chunks"):
        main(["--teacher", str(big), "--data", str(tmp_path / "none"), "--out", str(out)])
