"""Experience from self-play (book 9.4.1, 12.1.2): the collector, the buffer and HDF5 files.

    collector = ExperienceCollector()
    collector.begin_episode()
    collector.record_decision(state, action, estimated_value)   # value only for actor-critic
    collector.complete_episode(reward=+1)                          # every decision gets the reward
    buffer = combine_experience([black_collector, white_collector])
    with h5py.File("exp.h5", "w") as f:
        buffer.serialize(f)                                        # group "experience", as the book

The file layout is the book's: a group ``experience`` with the datasets ``states``, ``actions``,
``rewards`` and ``advantages`` (book 12.1.2 added the last one), so its ``load_experience`` reads
our files and ours read its. Beyond the book, ``iter_experience`` reads a file in slices
(files larger than memory stream), and ``append_experience`` grows a file in place.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "ExperienceCollector",
    "ExperienceBuffer",
    "combine_experience",
    "load_experience",
    "iter_experience",
    "experience_size",
    "experience_files",
    "append_experience",
    "write_experience",
    "GROUP",
    "DATASETS",
]

GROUP = "experience"
DATASETS = ("states", "actions", "rewards", "advantages")


class ExperienceCollector:
    """The decisions of one agent over many games (book listing 9.13; 12.1.2 for values).

    ``record_decision`` keeps an encoded state and the index of the move played, and for the
    actor-critic the critic's ``estimated_value`` at that moment; ``complete_episode(reward)``
    gives every decision of the game the final reward (+1 win, -1 loss: Go has no other
    reward, book 9.1) and the advantage ``reward - estimated_value`` (book 12.1).
    """

    def __init__(self) -> None:
        self.states: list[np.ndarray] = []
        self.actions: list[int] = []
        self.rewards: list[float] = []
        self.advantages: list[float] = []
        self._current_episode_states: list[np.ndarray] = []
        self._current_episode_actions: list[int] = []
        self._current_episode_estimated_values: list[float] = []

    def begin_episode(self) -> None:
        self._current_episode_states = []
        self._current_episode_actions = []
        self._current_episode_estimated_values = []

    def record_decision(self, state: np.ndarray, action: int, estimated_value: float = 0.0) -> None:
        self._current_episode_states.append(np.asarray(state))
        self._current_episode_actions.append(int(action))
        self._current_episode_estimated_values.append(float(estimated_value))

    def complete_episode(self, reward: float) -> None:
        n = len(self._current_episode_states)
        self.states += self._current_episode_states
        self.actions += self._current_episode_actions
        self.rewards += [float(reward)] * n
        self.advantages += [float(reward) - v for v in self._current_episode_estimated_values]
        self.begin_episode()

    def __len__(self) -> int:
        return len(self.states)

    def to_buffer(self) -> ExperienceBuffer:
        return combine_experience([self])


class ExperienceBuffer:
    """Parallel arrays, one entry per decision (book listing 9.14, 12.1.2).

    ``states`` ``[n, rows, cols, planes]`` (stored as float16: encoder planes are small exact
    numbers), ``actions`` point indices, ``rewards`` +-1, ``advantages`` reward - value.
    ``advantages`` may be omitted (policy gradient and Q-learning do not use them): zeros.
    """

    def __init__(
        self,
        states: np.ndarray,
        actions: np.ndarray,
        rewards: np.ndarray,
        advantages: np.ndarray | None = None,
    ) -> None:
        self.states = np.asarray(states, dtype=np.float16)
        self.actions = np.asarray(actions, dtype=np.int32)
        self.rewards = np.asarray(rewards, dtype=np.float32)
        n = len(self.states)
        self.advantages = np.zeros(n, np.float32) if advantages is None else np.asarray(advantages, np.float32)
        if not len(self.actions) == len(self.rewards) == len(self.advantages) == n:
            raise ValueError("states, actions, rewards and advantages need one entry per decision")

    def __len__(self) -> int:
        return len(self.states)

    def serialize(self, h5file: Any) -> None:
        """Write the group ``experience`` into an open ``h5py.File`` (the book's layout)."""
        group = h5file.create_group(GROUP)
        for name in DATASETS:
            data = getattr(self, name)
            # resizable along the first axis so append_experience can grow a file in place
            group.create_dataset(name, data=data, maxshape=(None, *data.shape[1:]), chunks=_chunks(data))

    def shuffled(self, rng: np.random.Generator) -> ExperienceBuffer:
        order = rng.permutation(len(self))
        return ExperienceBuffer(self.states[order], self.actions[order], self.rewards[order], self.advantages[order])


def _chunks(data: np.ndarray) -> tuple[int, ...]:
    """HDF5 chunks of about 1 MB: slices read fast without reading the whole dataset."""
    row = max(1, int(np.prod(data.shape[1:], dtype=np.int64)) * data.dtype.itemsize)
    return (max(1, min(len(data) or 1, (1 << 20) // row)), *data.shape[1:])


def combine_experience(collectors: Iterable[ExperienceCollector]) -> ExperienceBuffer:
    """One buffer from many collectors (book listing 9.15)."""
    collectors = list(collectors)
    states = [s for c in collectors for s in c.states]
    if not states:
        raise ValueError("no decisions in these collectors")
    return ExperienceBuffer(
        np.stack(states),
        np.array([a for c in collectors for a in c.actions]),
        np.array([r for c in collectors for r in c.rewards]),
        np.array([a for c in collectors for a in c.advantages]),
    )


def load_experience(h5file: Any) -> ExperienceBuffer:
    """The whole buffer from an open ``h5py.File`` (book listing 9.16); ``advantages`` may be absent."""
    group = h5file[GROUP]
    advantages = group["advantages"][()] if "advantages" in group else None
    return ExperienceBuffer(group["states"][()], group["actions"][()], group["rewards"][()], advantages)


def experience_size(path: str | os.PathLike) -> int:
    """The number of decisions in an experience file, without reading them."""
    import h5py

    with h5py.File(path, "r") as f:
        return int(f[GROUP]["actions"].shape[0])


def experience_files(paths: list[str]) -> list[Path]:
    """Files given, and the ``*.h5`` files of folders given, in name order (exits with one line
    when there are none: what both ``python -m dlgo.rl train`` and the loop want)."""
    found: list[Path] = []
    for p in map(Path, paths):
        found += sorted(p.glob("*.h5")) if p.is_dir() else [p]
    if not found:
        raise SystemExit(f"no experience files in {', '.join(paths)}")
    return found


def iter_experience(
    paths: str | os.PathLike | Sequence[str | os.PathLike], chunk_size: int
) -> Iterator[ExperienceBuffer]:
    """Buffers of at most ``chunk_size`` decisions, file after file, each read from disk when
    needed: training streams files larger than memory (book 10.2 trains on many files)."""
    import h5py

    if chunk_size < 1:
        raise ValueError("chunk_size must be at least 1")
    for path in [paths] if isinstance(paths, str | os.PathLike) else paths:
        with h5py.File(path, "r") as f:
            group = f[GROUP]
            n = group["actions"].shape[0]
            for start in range(0, n, chunk_size):
                part = slice(start, min(n, start + chunk_size))
                advantages = group["advantages"][part] if "advantages" in group else None
                yield ExperienceBuffer(
                    group["states"][part], group["actions"][part], group["rewards"][part], advantages
                )


def write_experience(buffer: ExperienceBuffer, path: str | os.PathLike) -> Path:
    """``buffer`` as a new file at ``path``, atomically (a file is whole or absent)."""
    import h5py

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp{path.suffix}")
    with h5py.File(tmp, "w") as f:
        buffer.serialize(f)
    os.replace(tmp, path)
    return path


def append_experience(path: str | os.PathLike, buffer: ExperienceBuffer) -> int:
    """Add ``buffer`` at the end of the file (created if missing); returns the decisions now in it."""
    import h5py

    path = Path(path)
    if not path.exists():
        write_experience(buffer, path)
        return len(buffer)
    with h5py.File(path, "a") as f:
        group = f[GROUP]
        n = group["actions"].shape[0]
        for name in DATASETS:
            data = getattr(buffer, name)
            if name not in group:  # a file written without advantages
                group.create_dataset(name, data=np.zeros((n, *data.shape[1:]), data.dtype), maxshape=(None,))
            dataset = group[name]
            if dataset.shape[1:] != data.shape[1:]:
                raise ValueError(f"{path}: {name} has shape {dataset.shape[1:]} per decision, not {data.shape[1:]}")
            dataset.resize(n + len(buffer), axis=0)
            dataset[n:] = data
        return n + len(buffer)
