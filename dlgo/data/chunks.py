"""Compact chunk files of encoded samples: compressed ``.npz``, planes packed by what they hold.

Most planes are 0/1 (stones, liberties, history, ko), some are one number per position (komi,
colour to move), a few hold small integers (``oneplane``'s -1/0/+1). A chunk stores each plane in
the smallest exact form that fits every sample of the chunk:

- ``bits``: 0/1 planes, ``np.packbits`` over (points x planes): 1 bit per point;
- ``scalars``: planes constant over the board, one float32 per sample;
- ``ints``: small integers, int8 per point;
- ``dense``: anything else, float16 per point.

A 19x19 ``zero`` sample (16 planes) takes 677 bytes packed and about a fifth of that compressed,
against 23 KB as float32. Besides the planes a chunk holds ``moves`` (label indices), ``values``
and ``value_mask``, ``game`` (index into ``game_ids``) and ``move_numbers``.
``read_chunk`` and ``Chunk.planes(idx)`` give the float32 planes back bit for bit.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["PackedPlanes", "pack_planes", "concat_packed", "Chunk", "write_chunk", "read_chunk", "CHUNK_FORMAT"]

CHUNK_FORMAT = 1
_KINDS = ("bits", "scalars", "ints", "dense")


def _plane_kind(plane: np.ndarray) -> str:
    """The smallest exact form of one plane over all samples, ``plane`` shaped (n, rows, cols)."""
    if np.all((plane == 0) | (plane == 1)):
        return "bits"
    flat = plane.reshape(len(plane), -1)
    if np.all(flat == flat[:, :1]):
        return "scalars"
    if np.all(plane == np.round(plane)) and plane.min() >= -128 and plane.max() <= 127:
        return "ints"
    return "dense"


@dataclass
class PackedPlanes:
    """Planes of n samples, each plane stored as ``kinds[p]``."""

    shape: tuple[int, int, int]  # (rows, cols, planes)
    kinds: list[str]
    bits: np.ndarray  # (n, ceil(rows*cols*nbits/8)) uint8
    scalars: np.ndarray  # (n, nscalars) float32
    ints: np.ndarray  # (n, rows, cols, nints) int8
    dense: np.ndarray  # (n, rows, cols, ndense) float16

    def __len__(self) -> int:
        return len(self.bits)

    def planes_of(self, kind: str) -> list[int]:
        return [p for p, k in enumerate(self.kinds) if k == kind]

    def unpack(self, idx: np.ndarray | slice | None = None) -> np.ndarray:
        """Float32 planes ``(m, rows, cols, planes)`` of the samples ``idx`` (all when None)."""
        sel = slice(None) if idx is None else idx
        rows, cols, num_planes = self.shape
        bits = self.bits[sel]
        m = len(bits)
        out = np.empty((m, rows, cols, num_planes), dtype=np.float32)
        bit_planes = self.planes_of("bits")
        if bit_planes:
            count = rows * cols * len(bit_planes)
            unpacked = np.unpackbits(bits, axis=1, count=count).reshape(m, rows, cols, len(bit_planes))
            out[..., bit_planes] = unpacked
        scalar_planes = self.planes_of("scalars")
        if scalar_planes:
            out[..., scalar_planes] = self.scalars[sel][:, None, None, :]
        int_planes = self.planes_of("ints")
        if int_planes:
            out[..., int_planes] = self.ints[sel]
        dense_planes = self.planes_of("dense")
        if dense_planes:
            out[..., dense_planes] = self.dense[sel]
        return out


def pack_planes(planes: np.ndarray) -> PackedPlanes:
    """Pack float planes ``(n, rows, cols, planes)``; exact for bits, scalars and ints."""
    n, rows, cols, num_planes = planes.shape
    kinds = [_plane_kind(planes[..., p]) for p in range(num_planes)]
    by = {k: [p for p in range(num_planes) if kinds[p] == k] for k in _KINDS}
    bits = np.packbits(planes[..., by["bits"]].astype(np.uint8).reshape(n, -1), axis=1)
    scalars = planes[:, 0, 0, by["scalars"]].astype(np.float32)
    ints = planes[..., by["ints"]].astype(np.int8)
    dense = planes[..., by["dense"]].astype(np.float16)
    return PackedPlanes((rows, cols, num_planes), kinds, bits, scalars, ints, dense)


def concat_packed(parts: list[PackedPlanes]) -> PackedPlanes:
    """One ``PackedPlanes`` of all ``parts`` (re-packed when their plane kinds differ)."""
    if not parts:
        raise ValueError("nothing to concatenate")
    first = parts[0]
    if any(p.shape != first.shape for p in parts):
        raise ValueError("planes of different shapes")
    if all(p.kinds == first.kinds for p in parts):
        return PackedPlanes(
            first.shape,
            list(first.kinds),
            np.concatenate([p.bits for p in parts]),
            np.concatenate([p.scalars for p in parts]),
            np.concatenate([p.ints for p in parts]),
            np.concatenate([p.dense for p in parts]),
        )
    return pack_planes(np.concatenate([p.unpack() for p in parts]))


@dataclass
class Chunk:
    """A chunk file's contents."""

    packed: PackedPlanes
    moves: np.ndarray
    values: np.ndarray
    value_mask: np.ndarray
    game: np.ndarray
    move_numbers: np.ndarray
    game_ids: list[str]
    encoder: str

    def __len__(self) -> int:
        return len(self.moves)

    def planes(self, idx: np.ndarray | slice | None = None) -> np.ndarray:
        return self.packed.unpack(idx)


def write_chunk(
    path: str | os.PathLike,
    planes: np.ndarray | PackedPlanes,
    moves: np.ndarray,
    values: np.ndarray,
    value_mask: np.ndarray,
    game: np.ndarray,
    move_numbers: np.ndarray,
    game_ids: list[str],
    encoder: str,
) -> Path:
    """Write a chunk atomically (temporary file, then rename)."""
    path = Path(path)
    packed = planes if isinstance(planes, PackedPlanes) else pack_planes(planes)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(
        tmp,
        format=np.array(CHUNK_FORMAT),
        encoder=np.array(encoder),
        shape=np.array(packed.shape, dtype=np.int32),
        kinds=np.array(packed.kinds),
        bits=packed.bits,
        scalars=packed.scalars,
        ints=packed.ints,
        dense=packed.dense,
        moves=np.asarray(moves, dtype=np.int16),
        values=np.asarray(values, dtype=np.int8),
        value_mask=np.asarray(value_mask, dtype=bool),
        game=np.asarray(game, dtype=np.int32),
        move_numbers=np.asarray(move_numbers, dtype=np.int16),
        game_ids=np.array(game_ids, dtype=str),
    )
    os.replace(tmp, path)
    return path


def read_chunk(path: str | os.PathLike) -> Chunk:
    with np.load(path, allow_pickle=False) as z:
        if int(z["format"]) != CHUNK_FORMAT:
            raise ValueError(f"{path}: chunk format {int(z['format'])}, this code reads {CHUNK_FORMAT}")
        packed = PackedPlanes(
            shape=tuple(int(v) for v in z["shape"]),
            kinds=[str(k) for k in z["kinds"]],
            bits=z["bits"],
            scalars=z["scalars"],
            ints=z["ints"],
            dense=z["dense"],
        )
        return Chunk(
            packed=packed,
            moves=z["moves"].astype(np.int64),
            values=z["values"].astype(np.float32),
            value_mask=z["value_mask"],
            game=z["game"],
            move_numbers=z["move_numbers"],
            game_ids=[str(g) for g in z["game_ids"]],
            encoder=str(z["encoder"]),
        )


def chunk_length(path: str | os.PathLike) -> int:
    """Samples in a chunk, reading only its label array."""
    with np.load(path, allow_pickle=False) as z:
        return int(z["moves"].shape[0])


__all__ += ["chunk_length"]
