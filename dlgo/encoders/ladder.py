"""A real ladder reader (compiled with numba) for the encoders' ladder planes (book 13.2).

The defender of a string in atari may extend or capture an adjacent attacker string in atari; the
attacker ataris on either liberty of a two-liberty string. Three liberties is an escape. The search
is exact within its ply and node limits (``LADDER_MAX_DEPTH``, ``LADDER_MAX_NODES``); a read that
hits a limit counts as "not captured" (real ladders are narrow: the wrong atari gives three
liberties at once, so only tangled fights reach the limit; on 6,786 reads from KGS games a limit of
1,000 plays answers exactly as 5,000 does). Inside a read simple ko is respected (no immediate
retake), so ko fights cannot loop; longer cycles end at the ply limit.

Boards are the int8 padded arrays of ``dlgo.encoders.kernels``; a read mutates ``colors`` and
restores it. Every scratch array of a read lives in one int32 workspace (``_workspace``): a call
between compiled functions pays reference counting per array argument, and with six to nine arrays
per call that was a large part of a read (one array: middle-game positions read about 15% faster).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import EMPTY, NO_LIMIT, flood_chain, flood_words, neighbor, play_and_capture

__all__ = ["LADDER_MAX_DEPTH", "LADDER_MAX_NODES", "ladder_captured", "ladder_features"]

LADDER_MAX_DEPTH = 200  # plies: a ladder across a 25x25 board takes about 100
LADDER_MAX_NODES = 1000  # plays per read: real ladders need up to a few hundred (wrong branches included)

# --- ladder reader (mutates ``colors`` and restores it) -------------------------------------

MAX_CANDIDATES = 8  # defender's moves: extend, or capture one of up to 7 adjacent strings in atari
_MAXD = LADDER_MAX_DEPTH + 1
_TABLE = _MAXD + 1  # one row of the per-ply tables

# Workspace layout (n = padded points, F = flood_words(n)): ``flood_chain``'s part (stones at
# [n, 2n), liberties at [2n, 2n + 4)) | the defender's stones [F, F + n) | candidate moves per
# ply | six per-ply tables | captured stones along the line (4n) | captures of one outer play (n).


@njit(cache=True, nogil=True)
def _cand(n):
    return flood_words(n) + n


@njit(cache=True, nogil=True)
def _tables(n):
    return _cand(n) + _MAXD * MAX_CANDIDATES


@njit(cache=True, nogil=True)
def _capstack(n):
    return _tables(n) + 6 * _TABLE


@njit(cache=True, nogil=True)
def _workspace(n):
    ws = np.empty(_capstack(n) + 5 * n, np.int32)  # all but the fill's marks is written before read
    ws[: flood_words(n)] = 0
    return ws


@njit(cache=True, nogil=True)
def _undo(colors, p, c, ws, cap, ncap):
    colors[p] = EMPTY
    opp = 3 - c
    for i in range(ncap):
        colors[ws[cap + i]] = opp


@njit(cache=True, nogil=True)
def _candidates(colors, w, s, attacker, d, ws, row):
    """Moves of a node into the candidate row ``row``: the attacker's ataris or the defender's escapes.

    Returns how many, or -1 / -2 when the node is decided without moves (-1: captured,
    -2: escaped or not attackable)."""
    n = colors.shape[0]
    lb = 2 * n
    cb = _cand(n) + row * MAX_CANDIDATES
    a = 3 - d
    ns, nl = flood_chain(colors, w, s, ws, NO_LIMIT)
    if attacker:
        if nl != 2:
            return -1 if nl < 2 else -2
        # Atari first on the side that leaves the defender the liberty with fewer empty
        # neighbours to extend to: the ladder move in a real ladder, found without detours.
        l0 = ws[lb]
        l1 = ws[lb + 1]
        e0 = 0
        e1 = 0
        for k in range(4):
            if colors[neighbor(l0, w, k)] == EMPTY:
                e0 += 1
            if colors[neighbor(l1, w, k)] == EMPTY:
                e1 += 1
        if e1 <= e0:
            ws[cb] = l0
            ws[cb + 1] = l1
        else:
            ws[cb] = l1
            ws[cb + 1] = l0
        return 2
    if nl != 1:
        return -1 if nl == 0 else -2
    ws[cb] = ws[lb]
    nc = 1
    chain = flood_words(n)  # the fills below overwrite the stone list
    for i in range(ns):
        ws[chain + i] = ws[n + i]
    base_gen = ws[lb + 4]  # stones marked after this belong to attacker chains already looked at
    for i in range(ns):
        for k in range(4):
            q = neighbor(ws[chain + i], w, k)
            if colors[q] == a and ws[q] <= base_gen:
                _, nlq = flood_chain(colors, w, q, ws, 1)
                if nlq == 1:
                    m = ws[lb]
                    dup = False
                    for t in range(nc):
                        if ws[cb + t] == m:
                            dup = True
                    if not dup and nc < MAX_CANDIDATES:
                        ws[cb + nc] = m
                        nc += 1
    return nc


@njit(cache=True, nogil=True)
def _read(colors, w, s, attacker_to_move, ws):
    """True when the chain at ``s`` is captured in a ladder (iterative depth-first search).

    ``attacker_to_move``: the chain has two liberties and the attacker ataris; otherwise the chain
    is in atari and its owner tries to escape (extend, or capture an adjacent string in atari).
    Nodes alternate between attacker and defender. A read past the ply or node limit answers
    False. ``colors`` is restored before returning."""
    n = colors.shape[0]
    d = colors[s]
    a = 3 - d
    maxd = _MAXD
    cand = _cand(n)
    t = _tables(n)
    ncand = t  # per ply: candidates, next candidate, move played, captures, capture base, ko
    ci = t + _TABLE
    played = t + 2 * _TABLE
    ncap = t + 3 * _TABLE
    capbase = t + 4 * _TABLE
    kop = t + 5 * _TABLE  # point the mover at this ply may not play: simple ko
    cs = _capstack(n)
    nc = _candidates(colors, w, s, attacker_to_move, d, ws, 0)
    if nc < 0:
        return nc == -1
    ws[ncand] = nc
    ws[ci] = 0
    ws[capbase] = 0
    ws[kop] = -1
    depth = 0
    nodes = 0
    is_att = attacker_to_move  # kind of the node at ``depth``
    while True:
        # One step at the node ``depth``: decide it, or descend into a child.
        decided = False
        result = False  # "captured", meaningful when decided
        if ws[ci + depth] >= ws[ncand + depth]:
            decided = True
            result = not is_att  # attacker out of ataris: the chain lives; defender out of moves: dies
        else:
            m = ws[cand + depth * MAX_CANDIDATES + ws[ci + depth]]
            ws[ci + depth] += 1
            if m == ws[kop + depth]:
                continue
            mover = a if is_att else d
            base = ws[capbase + depth]
            if base + n > 4 * n:
                break  # abort (absurdly many captures on one line)
            k = play_and_capture(colors, w, m, mover, ws, cs + base)
            if k < 0:
                continue
            nodes += 1
            ws[played + depth] = m
            ws[ncap + depth] = k
            ws[capbase + depth + 1] = base + k
            _, nl2 = flood_chain(colors, w, s, ws, 2)
            if is_att:
                descend = nl2 == 1
            else:
                descend = nl2 == 2
                if nl2 >= 3:
                    decided = True  # escaped
            if descend:
                if depth + 1 >= maxd or nodes > LADDER_MAX_NODES:
                    depth += 1  # the unwinding below undoes this move too
                    break
                child = _candidates(colors, w, s, not is_att, d, ws, depth + 1)
                ws[kop + depth + 1] = -1
                if k == 1:  # took one stone: a ko if the taker is one stone with one liberty
                    ns1, nl1 = flood_chain(colors, w, m, ws, 1)
                    if ns1 == 1 and nl1 == 1:
                        ws[kop + depth + 1] = ws[cs + base]
                if child >= 0:
                    depth += 1
                    is_att = not is_att
                    ws[ncand + depth] = child
                    ws[ci + depth] = 0
                    continue
                # The child is decided at once: -1 captured, -2 escaped.
                if (child == -1) == is_att:
                    decided = True
                    result = is_att
            _undo(colors, m, mover, ws, cs + base, k)
            if not decided:
                continue
        # Propagate the decided ``result`` of the node at ``depth`` to its ancestors.
        while decided:
            if depth == 0:
                return result
            depth -= 1
            is_att = not is_att
            mover = a if is_att else d
            _undo(colors, ws[played + depth], mover, ws, cs + ws[capbase + depth], ws[ncap + depth])
            # An attacker node is decided by a capturing child, a defender node by an escaping one.
            decided = result == is_att
    # Aborted: undo the moves on the path and answer "not captured".
    while depth > 0:
        depth -= 1
        is_att = attacker_to_move if depth % 2 == 0 else not attacker_to_move
        _undo(colors, ws[played + depth], a if is_att else d, ws, cs + ws[capbase + depth], ws[ncap + depth])
    return False


@njit(cache=True, nogil=True)
def ladder_captured(colors, w, s, attacker_to_move):
    """Single read (tests, tools): is the chain at ``s`` captured in a ladder?"""
    return _read(colors.copy(), w, s, attacker_to_move, _workspace(colors.shape[0]))


@njit(cache=True, nogil=True)
def ladder_features(colors, w, color, label, libs, legal, want_laddered, want_escape):
    """Ladder planes for ``color`` to move, as int8 [3, padded]:

    0. laddered stones (``want_laddered``): stones of chains a ladder captures, one liberty
       with the owner to move or two with the attacker to move (KataGo's "ladderable stones");
    1. ladder captures: plays that atari an opponent two-liberty chain which then dies;
    2. ladder escapes (``want_escape``): plays (extension or capture) that save an own chain in
       atari, for every own chain in atari they are a candidate for.
    """
    n = colors.shape[0]
    opp = 3 - color
    work = colors.copy()
    ws = _workspace(n)
    lb = 2 * n
    cap = _capstack(n) + 4 * n  # captures of the plays made here, outside any read
    out = np.zeros((3, n), np.int8)
    status = np.zeros(n, np.int8)  # escapes: 0 untried, 1 works so far, 2 failed somewhere
    cands = np.empty(4 * n + 1, np.int32)
    for r in range(n):
        if label[r] != r:
            continue
        c = work[r]
        nl = libs[r]
        laddered = False
        if c == opp and nl == 2:
            flood_chain(work, w, r, ws, NO_LIMIT)
            l0 = ws[lb]
            l1 = ws[lb + 1]
            for j in range(2):
                m = l0 if j == 0 else l1
                if legal[m] == 0:
                    continue
                k = play_and_capture(work, w, m, color, ws, cap)
                if k < 0:
                    continue
                _, nl2 = flood_chain(work, w, r, ws, NO_LIMIT)
                if nl2 == 1 and _read(work, w, r, False, ws):
                    out[1, m] = 1
                    laddered = True
                _undo(work, m, color, ws, cap, k)
        elif want_laddered and (nl == 1 or (nl == 2 and c == color)):
            laddered = _read(work, w, r, nl == 2, ws)
        if want_escape and c == color and nl == 1:
            ns, _ = flood_chain(work, w, r, ws, NO_LIMIT)
            chain = flood_words(n)
            for i in range(ns):
                ws[chain + i] = ws[n + i]
            cands[0] = ws[lb]
            nc = 1
            for i in range(ns):
                for kk in range(4):
                    q = neighbor(ws[chain + i], w, kk)
                    if work[q] == opp:
                        _, nlq = flood_chain(work, w, q, ws, 1)
                        if nlq == 1:
                            m = ws[lb]
                            dup = False
                            for t in range(nc):
                                if cands[t] == m:
                                    dup = True
                            if not dup:
                                cands[nc] = m
                                nc += 1
            for j in range(nc):
                m = cands[j]
                if legal[m] == 0:
                    continue
                k = play_and_capture(work, w, m, color, ws, cap)
                if k < 0:
                    continue
                _, nl2 = flood_chain(work, w, r, ws, NO_LIMIT)
                ok = nl2 >= 3 or (nl2 == 2 and not _read(work, w, r, True, ws))
                _undo(work, m, color, ws, cap, k)
                if not ok:
                    status[m] = 2
                elif status[m] == 0:
                    status[m] = 1
        if laddered and want_laddered:
            ns, _ = flood_chain(work, w, r, ws, NO_LIMIT)
            for i in range(ns):
                out[0, ws[n + i]] = 1
    if want_escape:
        for p in range(n):
            if status[p] == 1:
                out[2, p] = 1
    return out
