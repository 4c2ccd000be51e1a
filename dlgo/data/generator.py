"""Streaming training batches from chunk files, with 8-fold symmetry augmentation on the fly
(the book's ``DataGenerator``, book 7.2.3, reading the right files: docs/book-differences.md, 5).

    gen = DataGenerator.from_folder("runs/data-zero19", "train", batch_size=256, seed=1)
    for batch in gen.batches(augment=True):          # endless; batch.x is (256, 19, 19, 16)
        ...

The stream is deterministic for a seed and restartable at a sample offset (``start``, rounded
down to a chunk; exact at the start of a pass), which is how training resumes mid-way without
repeating data. Pass ``p`` over the data visits the chunks in
a permutation drawn from ``(seed, p)``; ``buffer_chunks`` chunks at a time are loaded, their
samples shuffled together and cut into batches. Each sample of a batch gets its own random board
symmetry (planes and move label move together; the pass label stays). ``Prefetch`` runs the
unpacking in a background thread so the network never waits on it.
"""

from __future__ import annotations

import functools
import os
import queue
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dlgo.data.chunks import Chunk, chunk_length, read_chunk
from dlgo.data.processor import load_manifest
from dlgo.encoders import symmetry

__all__ = ["Batch", "DataGenerator", "Prefetch", "augment_batch"]


@dataclass
class Batch:
    x: np.ndarray  # (n, rows, cols, planes) float32
    moves: np.ndarray  # (n,) int64 label indices
    values: np.ndarray  # (n,) float32 in {-1, 0, 1}
    value_mask: np.ndarray  # (n,) bool

    def __len__(self) -> int:
        return len(self.moves)

    def value_weights(self) -> np.ndarray:
        """Per-sample weights of the value loss: masked samples 0, the rest scaled so that a mean
        over the batch is the mean over the samples that count."""
        mask = self.value_mask.astype(np.float32)
        total = mask.sum()
        return mask * (len(mask) / total) if total > 0 else mask


@functools.cache
def _label_map(rows: int, cols: int, k: int) -> np.ndarray:
    """``new_label = map[old_label]`` under symmetry ``k``; the pass index (N*N) maps to itself."""
    inv = np.argsort(symmetry.permutation((rows, cols), k))
    out = np.append(inv, rows * cols).astype(np.int64)
    out.setflags(write=False)
    return out


def augment_batch(x: np.ndarray, moves: np.ndarray, syms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Apply symmetry ``syms[i]`` to sample ``i`` (planes ``(n, rows, cols, C)`` and move labels)."""
    rows, cols = x.shape[1], x.shape[2]
    x = x.copy()
    moves = moves.copy()
    for k in np.unique(syms):
        if k == 0:
            continue
        idx = np.flatnonzero(syms == k)
        x[idx] = symmetry.apply_to_planes(x[idx], int(k))
        moves[idx] = _label_map(rows, cols, int(k))[moves[idx]]
    return x, moves


class DataGenerator:
    """Batches from a list of chunk files (one board size)."""

    def __init__(
        self,
        chunks: Sequence[str | os.PathLike],
        batch_size: int = 128,
        seed: int = 0,
        buffer_chunks: int = 3,
        num_moves: int | None = None,
        lengths: Sequence[int] | None = None,
    ) -> None:
        if not chunks:
            raise ValueError("no chunk files")
        self.chunks = [Path(c) for c in chunks]
        self.batch_size = int(batch_size)
        self.seed = int(seed)
        self.buffer_chunks = max(1, int(buffer_chunks))
        self.num_moves = num_moves  # labels >= num_moves (pass, for a net without it) are dropped
        self._lengths = list(lengths) if lengths is not None else None

    @classmethod
    def from_folder(cls, folder: str | os.PathLike, part: str = "train", **kwargs) -> DataGenerator:
        manifest = load_manifest(folder)
        chunks = manifest.chunks(part)
        if not chunks:
            raise ValueError(f"{folder}: no {part} chunks")
        return cls([p for p, _ in chunks], lengths=[n for _, n in chunks], **kwargs)

    def lengths(self) -> list[int]:
        if self._lengths is None:
            self._lengths = [chunk_length(c) for c in self.chunks]
        return self._lengths

    def get_num_samples(self) -> int:
        """Samples in one pass (the book's name), from the manifest or the chunk headers."""
        return sum(self.lengths())

    def steps_per_pass(self) -> int:
        return max(1, self.get_num_samples() // self.batch_size)

    def _order(self, pass_index: int, shuffle: bool) -> list[int]:
        if not shuffle:
            return list(range(len(self.chunks)))
        return np.random.default_rng((self.seed, pass_index)).permutation(len(self.chunks)).tolist()

    def _load(self, i: int) -> Chunk:
        chunk = read_chunk(self.chunks[i])
        if self.num_moves is not None and np.any(chunk.moves >= self.num_moves):
            keep = np.flatnonzero(chunk.moves < self.num_moves)
            packed = chunk.packed
            packed.bits, packed.scalars = packed.bits[keep], packed.scalars[keep]
            packed.ints, packed.dense = packed.ints[keep], packed.dense[keep]
            chunk.moves, chunk.values = chunk.moves[keep], chunk.values[keep]
            chunk.value_mask, chunk.game = chunk.value_mask[keep], chunk.game[keep]
            chunk.move_numbers = chunk.move_numbers[keep]
        return chunk

    def batches(self, augment: bool = True, shuffle: bool = True, start: int = 0, loop: bool = True) -> Iterator[Batch]:
        """Batches from sample offset ``start`` (counted over passes; rounded down to a chunk);
        endless when ``loop``, else one pass (the last partial batch included)."""
        total = self.get_num_samples()
        lengths = self.lengths()
        pass_index, offset = divmod(max(0, int(start)), max(1, total))
        while True:
            rng = np.random.default_rng((self.seed, pass_index, offset, 7))
            order = self._order(pass_index, shuffle)
            skipped = 0
            while order and skipped + lengths[order[0]] <= offset:
                skipped += lengths[order.pop(0)]
            offset = 0
            carry: list[tuple[Chunk, np.ndarray]] = []
            for at in range(0, len(order), self.buffer_chunks):
                loaded = [self._load(i) for i in order[at : at + self.buffer_chunks]]
                pool = carry + [(c, np.arange(len(c))) for c in loaded]
                yield from self._emit(pool, rng, augment, shuffle, carry)
            if carry and not loop:
                yield from self._emit(carry, rng, augment, shuffle, None)
            if not loop:
                return
            pass_index += 1

    def _emit(
        self,
        pool: list[tuple[Chunk, np.ndarray]],
        rng: np.random.Generator,
        augment: bool,
        shuffle: bool,
        carry: list | None,
    ) -> Iterator[Batch]:
        """Batches from ``pool`` (chunks with the sample indices still to use); the remainder
        smaller than a batch goes to ``carry`` (or out as a last short batch when ``carry`` is None)."""
        refs = np.concatenate([np.full(len(idx), j, dtype=np.int32) for j, (_, idx) in enumerate(pool)])
        rows = np.concatenate([idx for _, idx in pool])
        if shuffle:
            perm = rng.permutation(len(rows))
            refs, rows = refs[perm], rows[perm]
        n = len(rows)
        full = n - n % self.batch_size
        for s in range(0, full, self.batch_size):
            yield self._batch(pool, refs[s : s + self.batch_size], rows[s : s + self.batch_size], rng, augment)
        if carry is None:
            if full < n:
                yield self._batch(pool, refs[full:], rows[full:], rng, augment)
            return
        carry.clear()
        for j, (chunk, _) in enumerate(pool):
            left = rows[full:][refs[full:] == j]
            if len(left):
                carry.append((chunk, left))

    def _batch(
        self, pool: list[tuple[Chunk, np.ndarray]], refs: np.ndarray, rows: np.ndarray, rng, augment: bool
    ) -> Batch:
        xs, moves, values, masks = [], [], [], []
        for j in np.unique(refs):
            chunk = pool[int(j)][0]
            sel = np.sort(rows[refs == j])
            xs.append(chunk.planes(sel))
            moves.append(chunk.moves[sel])
            values.append(chunk.values[sel])
            masks.append(chunk.value_mask[sel])
        x = np.concatenate(xs) if len(xs) > 1 else xs[0]
        m = np.concatenate(moves)
        if augment:
            allowed = np.array(symmetry.allowed((x.shape[1], x.shape[2])))
            x, m = augment_batch(x, m, rng.choice(allowed, size=len(m)))
        return Batch(x, m, np.concatenate(values), np.concatenate(masks))

    def generate(self, augment: bool = True) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """The book's interface: endless ``(x, y)`` with ``y`` the move labels."""
        for b in self.batches(augment=augment):
            yield b.x, b.moves


class Prefetch:
    """Iterate ``source`` in a background thread, ``depth`` items ahead (numpy work releases the GIL)."""

    _END = object()

    def __init__(self, source: Iterator, depth: int = 4) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=max(1, depth))
        self._error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._fill, args=(source,), daemon=True, name="prefetch")
        self._thread.start()

    def _fill(self, source: Iterator) -> None:
        try:
            for item in source:
                while not self._stop.is_set():
                    try:
                        self._queue.put(item, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
        except BaseException as e:  # handed to the consumer
            self._error = e
        self._queue.put(self._END)

    def __iter__(self) -> Prefetch:
        return self

    def __next__(self):
        item = self._queue.get()
        if item is self._END:
            self._queue.put(self._END)
            if self._error is not None:
                raise self._error
            raise StopIteration
        return item

    def close(self) -> None:
        self._stop.set()
