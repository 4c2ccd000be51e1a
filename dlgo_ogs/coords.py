"""Points as OGS writes them (SGF letters, ``..`` for a pass) and as GTP does (``E5``, ``pass``)."""

from __future__ import annotations

__all__ = ["PASS", "from_gtp", "from_ogs", "to_gtp", "to_ogs"]

PASS = (-1, -1)
_OGS = "abcdefghijklmnopqrstuvwxyz"
_GTP = "abcdefghjklmnopqrstuvwxyz"


def from_ogs(text: str, size: int) -> tuple[int, int]:
    """``"ee"`` -> (4, 4): column and row from the top left; ``".."`` (or empty) -> PASS."""
    if text in ("..", ""):
        return PASS
    if len(text) != 2 or any(c not in _OGS[:size] for c in text):
        raise ValueError(f"not a point on {size}x{size}: {text!r}")
    return _OGS.index(text[0]), _OGS.index(text[1])


def to_ogs(point: tuple[int, int]) -> str:
    return ".." if point == PASS else _OGS[point[0]] + _OGS[point[1]]


def to_gtp(point: tuple[int, int], size: int) -> str:
    return "pass" if point == PASS else f"{_GTP[point[0]].upper()}{size - point[1]}"


def from_gtp(vertex: str, size: int) -> tuple[int, int]:
    """``"E5"`` -> (4, 4) on 9x9; ``pass`` -> PASS; ValueError for anything else."""
    v = vertex.strip().lower()
    if v == "pass":
        return PASS
    if len(v) < 2 or v[0] not in _GTP[:size] or not v[1:].isdigit() or not 1 <= int(v[1:]) <= size:
        raise ValueError(f"not a vertex on {size}x{size}: {vertex!r}")
    return _GTP.index(v[0]), size - int(v[1:])
