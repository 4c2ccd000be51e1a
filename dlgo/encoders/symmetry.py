"""The 8 symmetries of a square board, for planes and policy vectors (augmentation, inference).

Symmetry ``k`` (0..7) is ``k % 4`` quarter turns of the (row, col) grid followed, for ``k >= 4``,
by a mirror of the columns; 0 is the identity. Each is a permutation of the flat point index
(``cols * row + col``, the encoders' index), so planes and policies always move together:

    planes_k = apply_to_planes(planes, k)          # (..., rows, cols, C)
    policy_k = apply_to_policy(policy, k, size)    # (..., N*N) or (..., N*N + 1): pass untouched
    policy   = invert_policy(policy_k, k, size)    # back to the original orientation

A network evaluated on ``planes_k`` answers in rotated coordinates; ``invert_policy`` maps that
answer back. On a non-square board only 0, 2, 4 and 6 keep the shape and are allowed.
"""

from __future__ import annotations

import functools

import numpy as np

from dlgo.gotypes import Point

__all__ = [
    "NUM_SYMMETRIES",
    "permutation",
    "inverse",
    "apply_to_planes",
    "apply_to_policy",
    "invert_policy",
    "apply_each_to_planes",
    "invert_each_policy",
    "apply_to_point",
    "allowed",
]

NUM_SYMMETRIES = 8


def _dims(board_size: int | tuple[int, int]) -> tuple[int, int]:
    if isinstance(board_size, int | np.integer):
        return int(board_size), int(board_size)
    return int(board_size[0]), int(board_size[1])


def allowed(board_size: int | tuple[int, int]) -> tuple[int, ...]:
    """Symmetries that map the board onto itself (all 8 when square)."""
    rows, cols = _dims(board_size)
    return tuple(range(8)) if rows == cols else (0, 2, 4, 6)


def _transform_grid(grid: np.ndarray, k: int) -> np.ndarray:
    out = np.rot90(grid, k % 4, axes=(0, 1))
    if k >= 4:
        out = out[:, ::-1]
    return out


@functools.cache
def permutation(board_size: int | tuple[int, int], k: int) -> np.ndarray:
    """Index array ``perm`` with ``transformed_flat[j] == original_flat[perm[j]]``."""
    rows, cols = _dims(board_size)
    if not 0 <= k < NUM_SYMMETRIES:
        raise ValueError(f"symmetry {k} outside 0..7")
    if k not in allowed((rows, cols)):
        raise ValueError(f"symmetry {k} does not map a {rows}x{cols} board onto itself")
    perm = np.ascontiguousarray(_transform_grid(np.arange(rows * cols).reshape(rows, cols), k)).ravel()
    perm.setflags(write=False)
    return perm


@functools.cache
def _inverse_permutation(board_size: int | tuple[int, int], k: int) -> np.ndarray:
    inv = np.argsort(permutation(board_size, k))
    inv.setflags(write=False)
    return inv


def inverse(k: int) -> int:
    """The symmetry that undoes ``k``: quarter turns reverse, mirrors undo themselves."""
    return k if k >= 4 else (4 - k) % 4


def apply_to_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Transform planes shaped ``(..., rows, cols, C)`` (one position or a batch)."""
    if k == 0:
        return planes
    rows, cols = planes.shape[-3], planes.shape[-2]
    perm = permutation((rows, cols), k)
    flat = planes.reshape(*planes.shape[:-3], rows * cols, planes.shape[-1])
    new_rows, new_cols = (cols, rows) if k % 2 else (rows, cols)
    return np.take(flat, perm, axis=-2).reshape(*planes.shape[:-3], new_rows, new_cols, planes.shape[-1])


def _apply_policy(policy: np.ndarray, perm: np.ndarray) -> np.ndarray:
    n = perm.shape[0]
    if policy.shape[-1] not in (n, n + 1):
        raise ValueError(f"policy of length {policy.shape[-1]} does not fit a board of {n} points")
    out = np.array(policy, copy=True)
    out[..., :n] = np.take(policy[..., :n], perm, axis=-1)
    return out


def apply_to_policy(policy: np.ndarray, k: int, board_size: int | tuple[int, int]) -> np.ndarray:
    """Transform a policy (or visit-count) vector ``(..., N*N[+1])`` like its planes; pass stays last."""
    return _apply_policy(policy, permutation(_dims(board_size), k))


def invert_policy(policy: np.ndarray, k: int, board_size: int | tuple[int, int]) -> np.ndarray:
    """Map a policy computed on planes transformed by ``k`` back to the original board."""
    return _apply_policy(policy, _inverse_permutation(_dims(board_size), k))


@functools.cache
def _stacked(dims: tuple[int, int], inverse: bool) -> np.ndarray:
    """The permutations of every symmetry as rows ``(8, rows * cols)`` (identity where a symmetry
    does not map the board onto itself)."""
    rows, cols = dims
    identity = np.arange(rows * cols)
    ok = allowed(dims)
    pick = _inverse_permutation if inverse else permutation
    out = np.stack([pick(dims, k) if k in ok else identity for k in range(NUM_SYMMETRIES)])
    out.setflags(write=False)
    return out


def apply_each_to_planes(planes: np.ndarray, ks: np.ndarray) -> np.ndarray:
    """A batch ``(m, rows, cols, C)`` with symmetry ``ks[i]`` applied to position ``i`` (symmetries
    that map the board onto itself), in one gather: ``apply_to_planes`` one position at a time."""
    m, rows, cols, c = planes.shape
    points = rows * cols
    rows_taken = _stacked((rows, cols), False)[ks] + (np.arange(m) * points)[:, None]
    return np.take(planes.reshape(m * points, c), rows_taken.ravel(), axis=0).reshape(m, rows, cols, c)


def invert_each_policy(policy: np.ndarray, ks: np.ndarray, board_size: int | tuple[int, int]) -> np.ndarray:
    """``invert_policy`` of row ``i`` by ``ks[i]`` for a batch ``(m, N*N[+1])``, in one gather."""
    perms = _stacked(_dims(board_size), True)
    n = perms.shape[1]
    if policy.shape[-1] not in (n, n + 1):
        raise ValueError(f"policy of length {policy.shape[-1]} does not fit a board of {n} points")
    m, width = policy.shape
    out = np.array(policy, copy=True)
    out[:, :n] = np.take(np.ascontiguousarray(policy).reshape(-1), perms[ks] + (np.arange(m) * width)[:, None])
    return out


def apply_to_point(point: Point, k: int, board_size: int | tuple[int, int]) -> Point:
    """Where ``point`` lands under symmetry ``k``."""
    rows, cols = _dims(board_size)
    original = cols * (point.row - 1) + (point.col - 1)
    j = int(_inverse_permutation((rows, cols), k)[original])
    new_cols = rows if k % 2 else cols
    r, c = divmod(j, new_cols)
    return Point(r + 1, c + 1)
