"""Compiled (numba) board kernels shared by the playouts and the encoders.

Boards are numpy int8 arrays over the padded grid of :mod:`dlgo.geometry` (codes EMPTY, BLACK,
WHITE, BORDER; width ``w`` = columns + 2; padded index = row * w + col), so a neighbour is
index arithmetic and the border ring stops every walk. Everything compiles with
``cache=True``: the first run in a fresh checkout compiles, later runs load the cache.
"""

from __future__ import annotations

from numba import njit

from dlgo.geometry import BLACK, BORDER, EMPTY, WHITE

__all__ = [
    "EMPTY",
    "BLACK",
    "WHITE",
    "BORDER",
    "NO_LIMIT",
    "neighbor",
    "is_eye",
    "flood_chain",
    "flood_words",
    "play_and_capture",
    "among",
]

NO_LIMIT = 1 << 30  # a liberty cap ``flood_chain`` never reaches


@njit(cache=True, inline="always")
def neighbor(p, w, k):
    """The ``k``-th (0..3: up, down, left, right in index terms) neighbour of padded index ``p``."""
    if k == 0:
        return p - w
    if k == 1:
        return p + w
    if k == 2:
        return p - 1
    return p + 1


@njit(cache=True, inline="always")
def among(values, count, x):
    """Whether ``x`` is one of ``values[:count]`` (a string already met among a point's neighbours)."""
    for i in range(count):
        if values[i] == x:
            return True
    return False


@njit(cache=True)
def is_eye(colors, w, p, c):
    """The book's eye rule (book 3.6, listing 3.15) for colour ``c`` at ``p``.

    Every neighbour is ``c`` or the border; of the diagonals, all on-board ones must be ``c`` at
    the edge, and three of four in the middle. Whether ``p`` is empty is the caller's check.
    """
    for k in range(4):
        cn = colors[neighbor(p, w, k)]
        if cn != c and cn != BORDER:
            return False
    off = 0
    friendly = 0
    for d in (p - w - 1, p - w + 1, p + w - 1, p + w + 1):
        cd = colors[d]
        if cd == BORDER:
            off += 1
        elif cd == c:
            friendly += 1
    if off > 0:
        return off + friendly == 4
    return friendly >= 3


@njit(cache=True)
def flood_words(n):
    """Length of the int32 workspace ``flood_chain`` needs on a board of ``n`` padded points."""
    return 2 * n + 5


@njit(cache=True)
def flood_chain(colors, w, p, ws, max_libs):
    """The chain (string) at ``p``: its stones and its distinct liberties, breadth first.

    ``ws`` is one int32 workspace (``flood_words(n)`` long, ``n = colors.shape[0]``, zeros at
    first) kept between calls: ``ws[:n]`` marks, ``ws[n:2n]`` the stones found, ``ws[2n:2n+4]``
    the first four liberties, ``ws[2n+4]`` the fill's generation, so a fill costs nothing per
    point it does not reach. One array rather than four: compiled callers pay reference counting
    per array argument, a large part of the ladder reader's time with four arrays per fill. Returns (number of
    stones, number of liberties); it stops as soon as it has more than ``max_libs`` liberties
    (then the stone list is incomplete and the count is ``max_libs + 1``): pass ``NO_LIMIT`` for
    the whole chain.
    """
    n = colors.shape[0]
    st = n
    lb = 2 * n
    ws[lb + 4] += 1
    gen = ws[lb + 4]
    c = colors[p]
    ws[p] = gen
    ws[st] = p
    ns = 1
    nl = 0
    i = 0
    while i < ns:
        s = ws[st + i]
        i += 1
        for k in range(4):
            q = neighbor(s, w, k)
            if ws[q] == gen:
                continue
            cq = colors[q]
            if cq == c:
                ws[q] = gen
                ws[st + ns] = q
                ns += 1
            elif cq == EMPTY:
                ws[q] = gen
                if nl < 4:
                    ws[lb + nl] = q
                nl += 1
                if nl > max_libs:
                    return ns, nl
    return ns, nl


@njit(cache=True, nogil=True)
def play_and_capture(colors, w, p, c, ws, cap):
    """Play ``c`` at empty ``p`` and take off the opponent chains left without a liberty, their
    stones listed in ``ws[cap:]`` (``ws``: ``flood_chain``'s workspace with room for them after
    ``cap``); returns how many, or -1 (and no change) for a suicide. The ladder reader's plays and
    the compiled search tree's both come here."""
    n = colors.shape[0]
    colors[p] = c
    opp = 3 - c
    ncap = 0
    for k in range(4):
        q = neighbor(p, w, k)
        if colors[q] == opp:
            ns, nl = flood_chain(colors, w, q, ws, 0)
            if nl == 0:
                for i in range(ns):
                    s = ws[n + i]
                    ws[cap + ncap] = s
                    ncap += 1
                    colors[s] = EMPTY
    if ncap == 0:
        ns, nl = flood_chain(colors, w, p, ws, 0)
        if nl == 0:
            colors[p] = EMPTY
            return -1
    return ncap
