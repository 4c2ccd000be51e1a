"""Compiled board analysis shared by the encoders (numba).

Boards are numpy int8 arrays over the padded grid of ``dlgo.goboard`` (0 empty, 1 black,
2 white, 3 border; width ``w`` = columns + 2; padded index = row * w + col). Everything here
reads a board and writes feature arrays indexed by padded index; the encoders turn those into
planes. Nothing allocates Python objects, so a 19x19 analysis costs microseconds, and every kernel
releases the GIL (``nogil``): a search encodes one batch in its evaluator thread while the tree
grows in the other.

- ``chain_info``: chain (string) of every stone: root, ring of stones, liberties, size.
- ``analyse_moves``: for every empty point and the player to move: legal (not suicide),
  liberties of the new string, stones captured, size of the new string, and the situation hash
  after the move (so the caller can test superko with one set intersection).
- ``dlgo.encoders.ladder``: the ladder reader, on the same arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import BLACK, BORDER, EMPTY, NO_LIMIT, WHITE, among, flood_chain, flood_words, is_eye, neighbor

__all__ = [
    "EMPTY",
    "BLACK",
    "WHITE",
    "BORDER",
    "chain_info",
    "analyse_moves",
    "analyse",
    "stone_liberty_planes",
    "is_eye",
]

# ctr (int64 scratch array): [0] flood-fill generation


@njit(cache=True, nogil=True)
def chain_info(colors, w, label, nxt, libs, size):
    """Fill ``label`` (chain root per stone, -1 elsewhere), ``nxt`` (ring of a chain's stones),
    ``libs`` and ``size`` (valid at every stone of the chain)."""
    n = colors.shape[0]
    for p in range(n):
        label[p] = -1
        libs[p] = 0
        size[p] = 0
    ws = np.zeros(flood_words(n), np.int32)  # stones at ws[n:]
    for p in range(n):
        c = colors[p]
        if (c == BLACK or c == WHITE) and label[p] < 0:
            ns, nl = flood_chain(colors, w, p, ws, NO_LIMIT)
            for i in range(ns):
                s = ws[n + i]
                label[s] = p
                nxt[s] = ws[n + i + 1] if i + 1 < ns else p
                libs[s] = nl
                size[s] = ns


@njit(cache=True, nogil=True)
def analyse_moves(
    colors, w, color, label, nxt, libs, size, zob, h0, full, legal, libs_after, captures, new_size, hash_after
):
    """Per empty point, the play of ``color``: see the module docstring.

    ``zob`` is the Zobrist stone table [3, padded]; ``h0`` the situation hash of the current
    board with the player to move after ``color`` already toggled in. ``full`` False computes
    only ``legal``, ``captures`` and ``hash_after`` (enough for legality and ko).
    """
    n = colors.shape[0]
    opp = 3 - color
    capmark = np.full(n, -1, np.int32)
    libmark = np.full(n, -1, np.int32)
    roots = np.empty(4, np.int32)
    for p in range(n):
        legal[p] = 0
        libs_after[p] = 0
        captures[p] = 0
        new_size[p] = 0
        if colors[p] != EMPTY:
            continue
        h = h0 ^ zob[color, p]
        nroots = 0
        capt = 0
        has_empty = False
        safe_friend = False
        # Captured opponent chains (distinct roots).
        for k in range(4):
            q = neighbor(p, w, k)
            cq = colors[q]
            if cq == EMPTY:
                has_empty = True
            elif cq == opp:
                r = label[q]
                if libs[q] == 1:
                    if not among(roots, nroots, r):
                        roots[nroots] = r
                        nroots += 1
                        capt += size[q]
                        s = r
                        while True:
                            h ^= zob[opp, s]
                            capmark[s] = p
                            s = nxt[s]
                            if s == r:
                                break
            elif cq == color and libs[q] > 1:
                safe_friend = True
        if not (has_empty or capt > 0 or safe_friend):
            continue  # suicide
        legal[p] = 1
        captures[p] = capt
        hash_after[p] = h
        if not full:
            continue
        # The new string: p plus friendly neighbour chains; count its liberties once each.
        nl = 0
        ns = 1
        nfr = 0
        for k in range(4):
            q = neighbor(p, w, k)
            cq = colors[q]
            if cq == EMPTY or capmark[q] == p:
                if libmark[q] != p:
                    libmark[q] = p
                    nl += 1
            elif cq == color:
                r = label[q]
                if among(roots, nfr, r):
                    continue
                roots[nfr] = r
                nfr += 1
                ns += size[q]
                s = r
                while True:
                    for kk in range(4):
                        t = neighbor(s, w, kk)
                        if t != p and (colors[t] == EMPTY or capmark[t] == p) and libmark[t] != p:
                            libmark[t] = p
                            nl += 1
                    s = nxt[s]
                    if s == r:
                        break
        libs_after[p] = nl
        new_size[p] = ns


@njit(cache=True, nogil=True)
def analyse(colors, w, color, zob, h0, full):
    """``chain_info`` and ``analyse_moves`` in one call.

    Returns ``info`` int32 [8, padded] with rows label, nxt, libs, size, legal, libs_after,
    captures, new_size, and ``hash_after`` uint64 [padded]."""
    n = colors.shape[0]
    info = np.empty((8, n), np.int32)
    hash_after = np.zeros(n, np.uint64)
    chain_info(colors, w, info[0], info[1], info[2], info[3])
    analyse_moves(
        colors,
        w,
        color,
        info[0],
        info[1],
        info[2],
        info[3],
        zob,
        h0,
        full,
        info[4],
        info[5],
        info[6],
        info[7],
        hash_after,
    )
    return info, hash_after


@njit(cache=True, nogil=True)
def stone_liberty_planes(colors, w, first_color, libs, max_libs, out):
    """Stones of ``first_color`` into planes ``0 .. max_libs - 1`` by the liberties of their
    string (capped at ``max_libs``), the other colour into ``max_libs .. 2 * max_libs - 1``."""
    for p in range(colors.shape[0]):
        c = colors[p]
        if c == BLACK or c == WHITE:
            base = 0 if c == first_color else max_libs
            out[p // w - 1, p % w - 1, base + min(libs[p], max_libs) - 1] = 1.0
