"""Experience of book chapters 9 and 12: the collector's rewards and advantages, the HDF5 layout
the book's reader code expects, chunked reading and appending."""

from __future__ import annotations

import numpy as np
import pytest

from dlgo.rl.experience import (
    ExperienceBuffer,
    ExperienceCollector,
    append_experience,
    combine_experience,
    experience_size,
    iter_experience,
    load_experience,
    write_experience,
)

h5py = pytest.importorskip("h5py")


def _state(k: int) -> np.ndarray:
    return np.full((5, 5, 11), k % 2, dtype=np.float32)


def test_complete_episode_gives_every_decision_the_reward_and_advantage() -> None:
    c = ExperienceCollector()
    c.begin_episode()
    c.record_decision(_state(0), 3, estimated_value=0.25)
    c.record_decision(_state(1), 7, estimated_value=-0.5)
    c.complete_episode(reward=1)
    c.begin_episode()
    c.record_decision(_state(2), 1)  # no estimate: advantage = reward
    c.complete_episode(reward=-1)
    assert c.actions == [3, 7, 1]
    assert c.rewards == [1, 1, -1]
    assert c.advantages == pytest.approx([0.75, 1.5, -1.0])


def test_an_abandoned_episode_is_not_kept() -> None:
    c = ExperienceCollector()
    c.begin_episode()
    c.record_decision(_state(0), 2)
    c.begin_episode()  # the game before was never completed
    c.record_decision(_state(0), 4)
    c.complete_episode(reward=-1)
    assert c.actions == [4] and c.rewards == [-1]


def test_combine_experience_concatenates_collectors() -> None:
    a, b = ExperienceCollector(), ExperienceCollector()
    for collector, action, reward in ((a, 5, 1), (b, 6, -1)):
        collector.begin_episode()
        collector.record_decision(_state(action), action)
        collector.complete_episode(reward)
    buffer = combine_experience([a, b])
    assert buffer.states.shape == (2, 5, 5, 11)
    assert buffer.actions.tolist() == [5, 6] and buffer.rewards.tolist() == [1, -1]


def _buffer(n: int, offset: int = 0) -> ExperienceBuffer:
    rng = np.random.default_rng(n + offset)
    return ExperienceBuffer(
        rng.integers(0, 2, (n, 5, 5, 11)).astype(np.float32),
        np.arange(offset, offset + n) % 25,
        rng.choice([-1.0, 1.0], n),
        rng.normal(size=n),
    )


def test_hdf5_file_has_the_books_layout(tmp_path) -> None:
    buffer = _buffer(7)
    path = tmp_path / "exp.h5"
    with h5py.File(path, "w") as f:
        buffer.serialize(f)
    with h5py.File(path, "r") as f:
        assert set(f.keys()) == {"experience"}
        assert set(f["experience"].keys()) == {"states", "actions", "rewards", "advantages"}
        # the book's load_experience reads exactly this: f['experience']['states'][:] ...
        assert np.array_equal(f["experience"]["actions"][:], buffer.actions)
        loaded = load_experience(f)
    for name in ("states", "actions", "rewards", "advantages"):
        assert np.array_equal(getattr(loaded, name), getattr(buffer, name)), name


def test_a_file_without_advantages_loads_with_zeros(tmp_path) -> None:
    path = tmp_path / "book.h5"
    with h5py.File(path, "w") as f:  # chapter 10's files had no advantages
        g = f.create_group("experience")
        g.create_dataset("states", data=np.zeros((3, 5, 5, 11)))
        g.create_dataset("actions", data=np.array([1, 2, 3]))
        g.create_dataset("rewards", data=np.array([1, -1, 1]))
    with h5py.File(path, "r") as f:
        assert load_experience(f).advantages.tolist() == [0, 0, 0]
    assert [len(b) for b in iter_experience(path, 2)] == [2, 1]


def test_chunks_of_several_files_add_up_to_the_files(tmp_path) -> None:
    first = write_experience(_buffer(10), tmp_path / "a.h5")
    second = write_experience(_buffer(3, 50), tmp_path / "b.h5")
    chunks = list(iter_experience([first, second], chunk_size=4))
    assert [len(c) for c in chunks] == [4, 4, 2, 3]
    actions = np.concatenate([c.actions for c in chunks])
    assert actions.tolist() == _buffer(10).actions.tolist() + _buffer(3, 50).actions.tolist()
    assert experience_size(first) == 10
    with pytest.raises(ValueError):
        next(iter_experience(first, 0))


def test_append_grows_a_file_in_place(tmp_path) -> None:
    path = tmp_path / "grow.h5"
    assert append_experience(path, _buffer(4)) == 4
    assert append_experience(path, _buffer(6, 9)) == 10
    with h5py.File(path, "r") as f:
        loaded = load_experience(f)
    assert loaded.actions.tolist() == _buffer(4).actions.tolist() + _buffer(6, 9).actions.tolist()
    assert np.array_equal(loaded.rewards[4:], _buffer(6, 9).rewards)


def test_buffer_arrays_must_agree() -> None:
    with pytest.raises(ValueError):
        ExperienceBuffer(np.zeros((2, 5, 5, 11)), np.array([1]), np.array([1.0, -1.0]))


def test_files_named_in_the_rl_docs_exist() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    text = (root / "docs" / "rl.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:gtp_engine|dlgo|scripts|configs|tests|docs|weights)/[^`\s]+)`", text))
    assert named and not [p for p in sorted(named) if not any(root.glob(p.rstrip("/")))]
