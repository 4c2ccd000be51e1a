"""Self-play experience: what a game leaves for training, and the replay buffer on disk.

The book keeps Zero experience as three arrays (``states``, ``visit_counts``, ``rewards``) in
HDF5 (14.3). Here a ``ZeroExperienceBuffer`` holds the same three per position, with the visit
counts already normalised into the policy target, and is stored as one compressed ``.npz``
chunk per self-play task (binary planes compress about tenfold):

    buffer = ZeroExperienceBuffer(states, policies, rewards)
    path = replay.add(buffer, iteration=3, task=12)          # atomic: a chunk is whole or absent
    batch = replay.sample(256, rng)                          # from the window, augmented

``ReplayBuffer`` is a folder of chunks named ``it{iteration:04d}-t{task:05d}-n{positions}.npz``.
A chunk's name says where it belongs, so a restarted loop knows which tasks are done (never
playing them twice, never losing them), and the training window (the last ``window``
positions, growing with the iterations as AlphaGo Zero's and the thesis' did) is read from
the names alone.

KataGo's auxiliary targets (Wu 2019) ride along: ``ownership`` (int8 ``[n, N*N]``, the final
owner of every point, +1 the player to move, -1 the opponent, 0 neither), ``score`` (the final
area difference with komi for the player to move, in points) and ``aux_mask`` (1 where the game
was counted after two passes; 0 for resigned or capped games and for chunks older than the
targets, which load with mask 0).

``root_values`` (float32 ``[n]``) is the full search's mean value at the root for the player to
move (its Q), the second value target that ``[train] value_q_weight`` blends with the result
(NaN where unknown: chunks older than it load as NaN and train on the result alone).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from dlgo.encoders import symmetry

__all__ = ["ZeroExperienceBuffer", "combine_experience", "ReplayBuffer", "ChunkInfo", "window_size"]

_CHUNK = re.compile(r"^it(\d{4,})-t(\d{5,})-n(\d+)\.npz$")


@dataclass
class ZeroExperienceBuffer:
    """Training targets of many positions (the book's name).

    ``states``: encoded planes ``[n, rows, cols, planes]`` (float16: every plane of the zero
    encoder is exact in it); ``policies``: search visit distributions ``[n, N*N + 1]``;
    ``rewards``: the final result for the player to move, +1 win, -1 loss, 0 jigo;
    ``ownership``, ``score``, ``aux_mask``: the auxiliary targets (module doc; None: none, mask 0);
    ``root_values``: the search's root Q per position (None: unknown, stored as NaN).
    """

    states: np.ndarray
    policies: np.ndarray
    rewards: np.ndarray
    ownership: np.ndarray | None = None
    score: np.ndarray | None = None
    aux_mask: np.ndarray | None = None
    root_values: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.states = np.asarray(self.states, dtype=np.float16)
        self.policies = np.asarray(self.policies, dtype=np.float32)
        self.rewards = np.asarray(self.rewards, dtype=np.float32)
        n = len(self.states)
        if len(self.policies) != n or len(self.rewards) != n:
            raise ValueError("states, policies and rewards must have one entry per position")
        points = self.states.shape[1] * self.states.shape[2] if self.states.ndim == 4 else self.policies.shape[-1] - 1
        given = [a is not None for a in (self.ownership, self.score, self.aux_mask)]
        if any(given) and not all(given):
            raise ValueError("ownership, score and aux_mask come together")
        have = all(given)
        ownership = np.asarray(self.ownership if have else np.zeros((n, points)), dtype=np.int8)
        # a game resigned before its first recorded move has no rows; -1 cannot be inferred from 0
        self.ownership = ownership.reshape(n, ownership.size // n if n else max(points, 0))
        self.score = np.asarray(self.score if have else np.zeros(n), dtype=np.float32).reshape(n)
        self.aux_mask = np.asarray(self.aux_mask if have else np.zeros(n), dtype=np.float32).reshape(n)
        unknown = np.full(n, np.nan, dtype=np.float32)
        self.root_values = np.asarray(unknown if self.root_values is None else self.root_values, dtype=np.float32)
        if self.root_values.shape != (n,):
            raise ValueError(f"root_values has shape {self.root_values.shape}, expected ({n},)")
        if self.ownership.shape[1] != points:
            raise ValueError(f"ownership has {self.ownership.shape[1]} points per position, the board {points}")

    def __len__(self) -> int:
        return len(self.states)

    def save(self, path: str | os.PathLike) -> Path:
        """Write a compressed chunk (temporary file, then rename: never a half-written chunk)."""
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **self._arrays())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> ZeroExperienceBuffer:
        try:
            with np.load(path) as data:
                aux = {k: data[k] for k in _AUX if k in data.files} if "aux_mask" in data.files else {}
                q = data["root_values"] if "root_values" in data.files else None
                return cls(data["states"], data["policies"], data["rewards"], **aux, root_values=q)
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"{path}: not a readable experience chunk ({e})") from e

    def _arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in _FIELDS}

    def take(self, index: np.ndarray | slice) -> ZeroExperienceBuffer:
        """The positions at ``index`` (every array alike)."""
        return ZeroExperienceBuffer(**{k: v[index] for k, v in self._arrays().items()})


_AUX = ("ownership", "score", "aux_mask")
_FIELDS = ("states", "policies", "rewards", *_AUX, "root_values")


def combine_experience(buffers: Sequence[ZeroExperienceBuffer]) -> ZeroExperienceBuffer:
    """One buffer holding all positions of ``buffers`` (the book's ``combine_experience``)."""
    if not buffers:
        raise ValueError("nothing to combine")
    return ZeroExperienceBuffer(**{k: np.concatenate([getattr(b, k) for b in buffers]) for k in _FIELDS})


def window_size(iteration: int, start: int, growth: int, maximum: int) -> int:
    """Positions in the training window at ``iteration`` (0-based): ``start`` growing by
    ``growth`` per iteration up to ``maximum`` (early, weak games leave the window first)."""
    return min(maximum, start + growth * iteration)


@dataclass(frozen=True)
class ChunkInfo:
    path: Path
    iteration: int
    task: int
    positions: int


class ReplayBuffer:
    """The folder of experience chunks and the training window over them."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self._cache: dict[Path, ZeroExperienceBuffer] = {}
        self._windows: dict[int, ZeroExperienceBuffer] | None = None
        self._window_key: tuple | None = None

    def chunk_path(self, iteration: int, task: int, positions: int) -> Path:
        return self.root / f"it{iteration:04d}-t{task:05d}-n{positions}.npz"

    def link(self, source: str | os.PathLike, iteration: int, task: int, positions: int) -> Path:
        """A chunk written elsewhere, kept here under this name: a hard link (no second copy on
        disk), a copy where the file system refuses one; a chunk here already is left as it is."""
        target = self.chunk_path(iteration, task, positions)
        if not target.exists():
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
        return target

    def add(self, buffer: ZeroExperienceBuffer, iteration: int, task: int) -> Path:
        if self.done_tasks(iteration).get(task) is not None:
            raise ValueError(f"{self.root}: task {task} of iteration {iteration} is stored already")
        return buffer.save(self.chunk_path(iteration, task, len(buffer)))

    def chunks(self) -> list[ChunkInfo]:
        """Whole chunks in creation order (iteration, task); leftovers of a crash are removed."""
        out = []
        for p in self.root.iterdir():
            if p.name.endswith(".tmp"):
                p.unlink(missing_ok=True)  # a write that a stop cut short: its task is redone
                continue
            m = _CHUNK.match(p.name)
            if m:
                out.append(ChunkInfo(p, int(m.group(1)), int(m.group(2)), int(m.group(3))))
        return sorted(out, key=lambda c: (c.iteration, c.task))

    def done_tasks(self, iteration: int) -> dict[int, ChunkInfo]:
        return {c.task: c for c in self.chunks() if c.iteration == iteration}

    def positions(self, up_to_iteration: int | None = None) -> int:
        return sum(c.positions for c in self.chunks() if up_to_iteration is None or c.iteration <= up_to_iteration)

    def window(self, max_positions: int, up_to_iteration: int | None = None) -> ZeroExperienceBuffer:
        """The newest ``max_positions`` positions (whole chunks; the oldest chunk is cut), of one
        board size; ``ValueError`` naming the sizes when the folder mixes them (see :meth:`windows`)."""
        windows = self.windows(max_positions, up_to_iteration)
        if len(windows) > 1:
            sizes = ", ".join(f"{n}x{n}" for n in windows)
            raise ValueError(f"{self.root}: games of several board sizes ({sizes}); train on them by size")
        return next(iter(windows.values()))

    def windows(self, max_positions: int, up_to_iteration: int | None = None) -> dict[int, ZeroExperienceBuffer]:
        """The same newest ``max_positions`` positions as :meth:`window`, one buffer per board size
        (smallest first): a batch holds one size, a network without size-bound layers learns all."""
        chunks = [c for c in self.chunks() if up_to_iteration is None or c.iteration <= up_to_iteration]
        chosen: list[ChunkInfo] = []
        total = 0
        for c in reversed(chunks):
            if total >= max_positions:
                break
            chosen.append(c)
            total += c.positions
        if not chosen:
            raise ValueError(f"{self.root}: the replay buffer is empty")
        key = (max_positions, tuple(c.path for c in chosen))
        if key == self._window_key and self._windows is not None:
            return self._windows
        keep = {c.path for c in chosen}
        self._cache = {p: b for p, b in self._cache.items() if p in keep}
        parts = []
        for c in reversed(chosen):
            if c.path not in self._cache:
                self._cache[c.path] = ZeroExperienceBuffer.load(c.path)
            parts.append(self._cache[c.path])
        cut = sum(len(b) for b in parts) - max_positions
        if cut > 0:  # the oldest chunk loses its first positions
            parts[0] = parts[0].take(slice(cut, None))
        by_size: dict[int, list[ZeroExperienceBuffer]] = {}
        for b in [b for b in parts if len(b)] or parts[-1:]:  # a game resigned at once has no rows
            by_size.setdefault(board_size_of(b), []).append(b)
        self._windows = {n: combine_experience(by_size[n]) for n in sorted(by_size)}
        self._window_key = key
        return self._windows


def board_size_of(buffer: ZeroExperienceBuffer) -> int:
    """The board size of a buffer's positions (its planes' rows)."""
    return int(buffer.states.shape[1])


class TrainingBatch(NamedTuple):
    """One training batch: planes, policy and value targets, the auxiliary targets
    (ownership float32 ``[b, N*N]``, score ``[b]`` in points, mask ``[b]``) and the search's
    root Q ``[b]`` (NaN where unknown)."""

    x: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    ownership: np.ndarray
    score: np.ndarray
    aux_mask: np.ndarray
    root_values: np.ndarray


def training_batch(
    buffer: ZeroExperienceBuffer, batch_size: int, rng: np.random.Generator, augment: bool = True
) -> TrainingBatch:
    """A random batch, each position in a random one of the 8 symmetries (planes, policy and
    ownership moved together, pass untouched)."""
    idx = rng.integers(0, len(buffer), size=batch_size)
    x = buffer.states[idx].astype(np.float32)
    p = buffer.policies[idx].copy()
    own = buffer.ownership[idx].astype(np.float32)
    if augment:
        rows, cols = x.shape[1], x.shape[2]
        choices = np.array(symmetry.allowed((rows, cols)))
        ks = rng.choice(choices, size=batch_size)
        for k in np.unique(ks):
            if k == 0:
                continue
            sel = np.flatnonzero(ks == k)
            x[sel] = symmetry.apply_to_planes(x[sel], int(k))
            p[sel] = symmetry.apply_to_policy(p[sel], int(k), (rows, cols))
            own[sel] = symmetry.apply_to_policy(own[sel], int(k), (rows, cols))
    return TrainingBatch(
        x,
        p,
        buffer.rewards[idx].copy(),
        own,
        buffer.score[idx].copy(),
        buffer.aux_mask[idx].copy(),
        buffer.root_values[idx].copy(),
    )


def mixed_training_batch(
    windows: Mapping[int, ZeroExperienceBuffer], batch_size: int, rng: np.random.Generator, augment: bool = True
) -> TrainingBatch:
    """A :func:`training_batch` of one board size, the size drawn in proportion to its positions
    (one size: no draw, so a single-size run's batches are as before)."""
    sizes = [n for n in sorted(windows) if len(windows[n])]
    if not sizes:
        raise ValueError("no positions to train on")
    if len(sizes) == 1:
        return training_batch(windows[sizes[0]], batch_size, rng, augment)
    weights = np.array([len(windows[n]) for n in sizes], dtype=np.float64)
    size = sizes[int(rng.choice(len(sizes), p=weights / weights.sum()))]
    return training_batch(windows[size], batch_size, rng, augment)


def augmented_batch(
    buffer: ZeroExperienceBuffer, batch_size: int, rng: np.random.Generator, augment: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``training_batch``'s planes, policy and value targets (the book's three arrays)."""
    return training_batch(buffer, batch_size, rng, augment)[:3]


__all__ += ["augmented_batch", "training_batch", "mixed_training_batch", "TrainingBatch", "board_size_of"]
