"""The strings of a playout board: circular linked lists of stones with pseudo-liberty counts.

Each stone/empty-neighbour pair counts once. That count is exact for what a playout needs: a
string whose only liberty is p has exactly as many pseudo-liberties as it has stones next to p.
Boards are the int8 arrays of ``dlgo.playout.kernel`` (0 empty, 1 black, 2 white, 3 border).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import BLACK, BORDER, EMPTY, WHITE, neighbor


@njit(cache=True)
def init_strings(colors, w, head, nxt, libs, size, empties, epos):
    """Build strings and the empty-point list from a colour array; returns the empty count.

    Its own depth-first fill rather than ``dlgo.kernels.flood_chain``: the order it links a
    string's stones in decides the order captured points rejoin the empty list, and so which
    random moves a seeded playout draws.
    """
    n_points = colors.shape[0]
    for p in range(n_points):
        head[p] = -1
    n_empty = 0
    stack = np.empty(n_points, np.int32)
    for p in range(n_points):
        c = colors[p]
        if c == EMPTY:
            empties[n_empty] = p
            epos[p] = n_empty
            n_empty += 1
        elif c != BORDER and head[p] < 0:
            # Flood fill one string, linking its stones in a ring.
            head[p] = p
            nxt[p] = p
            size[p] = 1
            libs[p] = 0
            top = 0
            stack[top] = p
            top += 1
            while top > 0:
                top -= 1
                s = stack[top]
                for k in range(4):
                    n = neighbor(s, w, k)
                    cn = colors[n]
                    if cn == EMPTY:
                        libs[p] += 1
                    elif cn == c and head[n] < 0:
                        head[n] = p
                        nxt[n] = nxt[p]
                        nxt[p] = n
                        size[p] += 1
                        stack[top] = n
                        top += 1
    return n_empty


@njit(cache=True)
def work_arrays(n):
    """Scratch arrays for strings and the empty-point list: head, next, libs, size, empties, epos."""
    return (
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
    )


@njit(cache=True)
def is_legal(colors, w, head, libs, p, c, ko):
    """Legal for ``c`` at empty ``p``: not the ko point and not suicide after captures."""
    if p == ko:
        return False
    for k in range(4):
        if colors[neighbor(p, w, k)] == EMPTY:
            return True
    for k in range(4):
        n = neighbor(p, w, k)
        cn = colors[n]
        if cn == BLACK or cn == WHITE:
            h = head[n]
            adjacent = 0
            for j in range(4):
                m = neighbor(p, w, j)
                if colors[m] == cn and head[m] == h:
                    adjacent += 1
            if cn == c:
                if libs[h] > adjacent:
                    return True  # the friendly string keeps another liberty
            elif libs[h] == adjacent:
                return True  # captures
    return False


@njit(cache=True)
def _remove_string(colors, w, head, nxt, libs, empties, epos, n_empty, h):
    s = h
    while True:
        colors[s] = EMPTY
        empties[n_empty] = s
        epos[s] = n_empty
        n_empty += 1
        s = nxt[s]
        if s == h:
            break
    s = h
    while True:
        for k in range(4):
            m = neighbor(s, w, k)
            cm = colors[m]
            if cm == BLACK or cm == WHITE:
                libs[head[m]] += 1
        s = nxt[s]
        if s == h:
            break
    return n_empty


@njit(cache=True)
def play_stone(colors, w, head, nxt, libs, size, empties, epos, n_empty, p, c):
    """Play a legal move; returns (new empty count, ko point or 0)."""
    i = epos[p]
    last = empties[n_empty - 1]
    empties[i] = last
    epos[last] = i
    n_empty -= 1
    colors[p] = c
    head[p] = p
    nxt[p] = p
    size[p] = 1
    libs[p] = 0
    for k in range(4):
        n = neighbor(p, w, k)
        cn = colors[n]
        if cn == EMPTY:
            libs[p] += 1
        elif cn == BLACK or cn == WHITE:
            libs[head[n]] -= 1
    for k in range(4):
        n = neighbor(p, w, k)
        if colors[n] == c:
            a = head[n]
            b = head[p]
            if a != b:
                if size[a] < size[b]:
                    a, b = b, a
                s = b
                while True:
                    head[s] = a
                    s = nxt[s]
                    if s == b:
                        break
                tmp = nxt[a]
                nxt[a] = nxt[b]
                nxt[b] = tmp
                size[a] += size[b]
                libs[a] += libs[b]
    opp = 3 - c
    captured = 0
    captured_at = 0
    for k in range(4):
        n = neighbor(p, w, k)
        if colors[n] == opp and libs[head[n]] == 0:
            h = head[n]
            captured += size[h]
            captured_at = n
            n_empty = _remove_string(colors, w, head, nxt, libs, empties, epos, n_empty, h)
    ko = 0
    h = head[p]
    if captured == 1 and size[h] == 1 and libs[h] == 1:
        ko = captured_at
    return n_empty, ko
