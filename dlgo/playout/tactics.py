"""The tactical rules of a "fast" playout: what classic playout policies do before a random move.

- :func:`urgent_move`: answer the last move: capture a string in atari next to it, or save an own
  string in atari by capturing a neighbour in atari or by extending into room;
- :func:`big_self_atari`: never leave more stones than a nakade in atari.

Random playouts without them let groups die in capturing races they win, which is what misled
the dead-stone count (``dlgo.deadstones``) and AlphaGo's rollouts (``dlgo.alphago.rollout``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import EMPTY, among, neighbor
from dlgo.playout.strings import is_legal

# The most stones an attacker puts inside an eye space to kill it (the rabbity six's nakade):
# a self-atari up to this size can be a killing move, a bigger one is a blunder.
NAKADE_STONES = 5


@njit(cache=True)
def _scan_neighbours(colors, w, head, nxt, libs, h, p, known, capture_for, ko):
    """The first neighbour of string ``h`` that qualifies (0 if none), walking its stones once.

    ``capture_for`` 0: an empty point other than ``p`` and ``known`` (a liberty). Otherwise the
    liberty of a neighbouring string of the other colour in atari, where ``capture_for`` may
    legally play (a capture)."""
    s = h
    while True:
        for k in range(4):
            n = neighbor(s, w, k)
            if capture_for == 0:
                if colors[n] == EMPTY and n != p and n != known:
                    return n
            elif colors[n] == 3 - capture_for:
                lib = _single_liberty(colors, w, head, nxt, libs, head[n])
                if lib and is_legal(colors, w, head, libs, lib, capture_for, ko):
                    return lib
        s = nxt[s]
        if s == h:
            return 0


@njit(cache=True)
def big_self_atari(colors, w, head, nxt, libs, size, p, c):
    """Playing ``c`` at ``p`` leaves a string of more than NAKADE_STONES stones with one liberty
    and captures nothing: a move no sensible player makes, which random playouts make often
    enough to lose won capturing races and let living groups die."""
    grown = 1
    lib = 0
    for k in range(4):
        n = neighbor(p, w, k)
        cn = colors[n]
        if cn == EMPTY:
            if lib and n != lib:
                return False
            lib = n
        elif cn == 3 - c:
            adjacent = 0
            for j in range(4):
                m = neighbor(p, w, j)
                if colors[m] == cn and head[m] == head[n]:
                    adjacent += 1
            if libs[head[n]] == adjacent:
                return False  # captures
    counted = np.zeros(4, np.int32)
    n_counted = 0
    for k in range(4):
        n = neighbor(p, w, k)
        if colors[n] == c:
            h = head[n]
            if among(counted, n_counted, h):
                continue
            counted[n_counted] = h
            n_counted += 1
            grown += size[h]
            other = _scan_neighbours(colors, w, head, nxt, libs, h, p, lib, 0, 0)
            if other:
                if lib:
                    return False
                lib = other
                if _scan_neighbours(colors, w, head, nxt, libs, h, p, lib, 0, 0):
                    return False
    return grown > NAKADE_STONES


@njit(cache=True)
def _single_liberty(colors, w, head, nxt, libs, h):
    """The liberty of string ``h`` if it has exactly one, else 0 (libs are pseudo-liberties)."""
    lib = _scan_neighbours(colors, w, head, nxt, libs, h, 0, 0, 0, 0)
    if lib == 0:
        return 0
    adjacent = 0
    for k in range(4):
        m = neighbor(lib, w, k)
        if colors[m] == colors[h] and head[m] == h:
            adjacent += 1
    return lib if libs[h] == adjacent else 0


@njit(cache=True)
def urgent_move(colors, w, head, nxt, libs, last, c, ko):
    """A capture or an atari escape next to the last move (0 if none is legal). An own string in
    atari escapes by capturing a neighbouring string in atari, else by extending into room."""
    if last <= 0:
        return 0
    opp = 3 - c
    for k in range(5):
        p = last if k == 4 else neighbor(last, w, k)
        if colors[p] == opp:
            lib = _single_liberty(colors, w, head, nxt, libs, head[p])
            if lib and is_legal(colors, w, head, libs, lib, c, ko):
                return lib
    for k in range(4):
        p = neighbor(last, w, k)
        if colors[p] == c:
            lib = _single_liberty(colors, w, head, nxt, libs, head[p])
            if lib:
                take = _scan_neighbours(colors, w, head, nxt, libs, head[p], 0, 0, c, ko)
                if take:
                    return take
                room = 0
                for j in range(4):
                    if colors[neighbor(lib, w, j)] == EMPTY:
                        room += 1
                if room >= 2 and is_legal(colors, w, head, libs, lib, c, ko):
                    return lib
    return 0
