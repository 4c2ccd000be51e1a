"""The ladder reader (book 13.2) as it was before its one-workspace rewrite, with the chain fill it
used: the reference the property tests compare ``dlgo.encoders.ladder`` with.

The defender of a string in atari may extend or capture an adjacent attacker string in atari; the
attacker ataris on either liberty of a two-liberty string. Three liberties is an escape. The search
is exact within its ply and node limits (``LADDER_MAX_DEPTH``, ``LADDER_MAX_NODES``); a read that
hits a limit counts as "not captured" (real ladders are narrow: the wrong atari gives three
liberties at once, so only tangled fights reach the limit; on 6,786 reads from KGS games a limit of
1,000 plays answers exactly as 5,000 does). Inside a read simple ko is respected (no immediate
retake), so ko fights cannot loop; longer cycles end at the ply limit.

Boards are the int8 padded arrays of ``dlgo.encoders.kernels``; a read mutates ``colors`` and
restores it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import EMPTY, NO_LIMIT, neighbor

__all__ = ["LADDER_MAX_DEPTH", "LADDER_MAX_NODES", "ladder_captured", "ladder_features"]

LADDER_MAX_DEPTH = 200  # plies: a ladder across a 25x25 board takes about 100
LADDER_MAX_NODES = 1000  # plays per read: real ladders need up to a few hundred (wrong branches included)


@njit(cache=True)
def flood_chain(colors, w, p, mark, ctr, stones, lib_out, max_libs):
    """The chain (string) at ``p``: its stones and its distinct liberties, breadth first.

    Stones go into ``stones`` (room for every point needed), liberties into ``lib_out`` as many
    as fit. ``mark`` (one int per point) and ``ctr`` (one int, the fill's generation) are scratch
    kept between calls, so a fill costs nothing per point it does not reach. Returns (number of
    stones, number of liberties); it stops as soon as it has more than ``max_libs`` liberties
    (then the stone list is incomplete and the count is ``max_libs + 1``): pass ``NO_LIMIT``
    for the whole chain.
    """
    ctr[0] += 1
    gen = ctr[0]
    c = colors[p]
    mark[p] = gen
    stones[0] = p
    ns = 1
    nl = 0
    i = 0
    cap = lib_out.shape[0]
    while i < ns:
        s = stones[i]
        i += 1
        for k in range(4):
            q = neighbor(s, w, k)
            if mark[q] == gen:
                continue
            cq = colors[q]
            if cq == c:
                mark[q] = gen
                stones[ns] = q
                ns += 1
            elif cq == EMPTY:
                mark[q] = gen
                if nl < cap:
                    lib_out[nl] = q
                nl += 1
                if nl > max_libs:
                    return ns, nl
    return ns, nl


# --- ladder reader (mutates ``colors`` and restores it) -------------------------------------


@njit(cache=True, nogil=True)
def _play(colors, w, p, c, mark, ctr, stones, lib_out, cap):
    """Play ``c`` at empty ``p``, removing captured chains into ``cap``; -1 (and no change) if suicide."""
    colors[p] = c
    opp = 3 - c
    ncap = 0
    for k in range(4):
        q = neighbor(p, w, k)
        if colors[q] == opp:
            ns, nl = flood_chain(colors, w, q, mark, ctr, stones, lib_out, 0)
            if nl == 0:
                for i in range(ns):
                    cap[ncap] = stones[i]
                    ncap += 1
                    colors[stones[i]] = EMPTY
    if ncap == 0:
        ns, nl = flood_chain(colors, w, p, mark, ctr, stones, lib_out, 0)
        if nl == 0:
            colors[p] = EMPTY
            return -1
    return ncap


@njit(cache=True, nogil=True)
def _undo(colors, p, c, cap, ncap):
    colors[p] = EMPTY
    opp = 3 - c
    for i in range(ncap):
        colors[cap[i]] = opp


MAX_CANDIDATES = 8  # defender's moves: extend, or capture one of up to 7 adjacent strings in atari


@njit(cache=True, nogil=True)
def _candidates(colors, w, s, attacker, d, mark, ctr, stones, lib_out, cand, row):
    """Moves of a node into ``cand[row]``: the attacker's ataris or the defender's escapes.

    Returns how many, or -1 / -2 when the node is decided without moves (-1: captured,
    -2: escaped or not attackable)."""
    a = 3 - d
    ns, nl = flood_chain(colors, w, s, mark, ctr, stones, lib_out, NO_LIMIT)
    if attacker:
        if nl != 2:
            return -1 if nl < 2 else -2
        # Atari first on the side that leaves the defender the liberty with fewer empty
        # neighbours to extend to: the ladder move in a real ladder, found without detours.
        l0 = lib_out[0]
        l1 = lib_out[1]
        e0 = 0
        e1 = 0
        for k in range(4):
            if colors[neighbor(l0, w, k)] == EMPTY:
                e0 += 1
            if colors[neighbor(l1, w, k)] == EMPTY:
                e1 += 1
        if e1 <= e0:
            cand[row, 0] = l0
            cand[row, 1] = l1
        else:
            cand[row, 0] = l1
            cand[row, 1] = l0
        return 2
    if nl != 1:
        return -1 if nl == 0 else -2
    cand[row, 0] = lib_out[0]
    nc = 1
    chain = stones[:ns].copy()
    base_gen = ctr[0]  # stones marked after this belong to attacker chains already looked at
    for i in range(ns):
        for k in range(4):
            q = neighbor(chain[i], w, k)
            if colors[q] == a and mark[q] <= base_gen:
                _, nlq = flood_chain(colors, w, q, mark, ctr, stones, lib_out, 1)
                if nlq == 1:
                    m = lib_out[0]
                    dup = False
                    for t in range(nc):
                        if cand[row, t] == m:
                            dup = True
                    if not dup and nc < MAX_CANDIDATES:
                        cand[row, nc] = m
                        nc += 1
    return nc


@njit(cache=True, nogil=True)
def _read(colors, w, s, attacker_to_move, sc):
    """True when the chain at ``s`` is captured in a ladder (iterative depth-first search).

    ``attacker_to_move``: the chain has two liberties and the attacker ataris; otherwise the chain
    is in atari and its owner tries to escape (extend, or capture an adjacent string in atari).
    Nodes alternate between attacker and defender. A read past the ply or node limit answers
    False. ``colors`` is restored before returning."""
    n = colors.shape[0]
    d = colors[s]
    a = 3 - d
    maxd = LADDER_MAX_DEPTH + 1
    mark, ctr, stones, lib_out, cand, tables, capstack = sc
    ncand = tables[0]
    ci = tables[1]
    played = tables[2]
    ncap = tables[3]
    capbase = tables[4]
    kop = tables[5]  # point the mover at this ply may not play: simple ko
    nc = _candidates(colors, w, s, attacker_to_move, d, mark, ctr, stones, lib_out, cand, 0)
    if nc < 0:
        return nc == -1
    ncand[0] = nc
    ci[0] = 0
    capbase[0] = 0
    kop[0] = -1
    depth = 0
    nodes = 0
    is_att = attacker_to_move  # kind of the node at ``depth``
    while True:
        # One step at the node ``depth``: decide it, or descend into a child.
        decided = False
        result = False  # "captured", meaningful when decided
        if ci[depth] >= ncand[depth]:
            decided = True
            result = not is_att  # attacker out of ataris: the chain lives; defender out of moves: dies
        else:
            m = cand[depth, ci[depth]]
            ci[depth] += 1
            if m == kop[depth]:
                continue
            mover = a if is_att else d
            base = capbase[depth]
            if base + n > capstack.shape[0]:
                break  # abort (absurdly many captures on one line)
            k = _play(colors, w, m, mover, mark, ctr, stones, lib_out, capstack[base:])
            if k < 0:
                continue
            nodes += 1
            played[depth] = m
            ncap[depth] = k
            capbase[depth + 1] = base + k
            _, nl2 = flood_chain(colors, w, s, mark, ctr, stones, lib_out, 2)
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
                child = _candidates(colors, w, s, not is_att, d, mark, ctr, stones, lib_out, cand, depth + 1)
                kop[depth + 1] = -1
                if k == 1:  # took one stone: a ko if the taker is one stone with one liberty
                    ns1, nl1 = flood_chain(colors, w, m, mark, ctr, stones, lib_out, 1)
                    if ns1 == 1 and nl1 == 1:
                        kop[depth + 1] = capstack[base]
                if child >= 0:
                    depth += 1
                    is_att = not is_att
                    ncand[depth] = child
                    ci[depth] = 0
                    continue
                # The child is decided at once: -1 captured, -2 escaped.
                if (child == -1) == is_att:
                    decided = True
                    result = is_att
            _undo(colors, m, mover, capstack[base:], k)
            if not decided:
                continue
        # Propagate the decided ``result`` of the node at ``depth`` to its ancestors.
        while decided:
            if depth == 0:
                return result
            depth -= 1
            is_att = not is_att
            mover = a if is_att else d
            _undo(colors, played[depth], mover, capstack[capbase[depth] :], ncap[depth])
            # An attacker node is decided by a capturing child, a defender node by an escaping one.
            decided = result == is_att
    # Aborted: undo the moves on the path and answer "not captured".
    while depth > 0:
        depth -= 1
        is_att = attacker_to_move if depth % 2 == 0 else not attacker_to_move
        _undo(colors, played[depth], a if is_att else d, capstack[capbase[depth] :], ncap[depth])
    return False


@njit(cache=True, nogil=True)
def _scratch(n):
    maxd = LADDER_MAX_DEPTH + 1
    return (
        np.zeros(n, np.int64),  # flood-fill marks
        np.zeros(1, np.int64),  # flood-fill generation
        np.empty(n, np.int32),  # stones of a chain / BFS queue
        np.empty(4, np.int32),  # liberties found
        np.empty((maxd, MAX_CANDIDATES), np.int32),  # candidate moves per ply
        np.empty((6, maxd + 1), np.int32),  # ncand, next candidate, move played, captures, capture base, ko
        np.empty(4 * n, np.int32),  # captured stones along the line
    )


@njit(cache=True, nogil=True)
def ladder_captured(colors, w, s, attacker_to_move):
    """Single read (tests, tools): is the chain at ``s`` captured in a ladder?"""
    return _read(colors.copy(), w, s, attacker_to_move, _scratch(colors.shape[0]))


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
    sc = _scratch(n)
    mark, ctr, stones, lib_out = sc[0], sc[1], sc[2], sc[3]
    cap = np.empty(n, np.int32)
    out = np.zeros((3, n), np.int8)
    status = np.zeros(n, np.int8)  # escapes: 0 untried, 1 works so far, 2 failed somewhere
    for r in range(n):
        if label[r] != r:
            continue
        c = work[r]
        nl = libs[r]
        laddered = False
        if c == opp and nl == 2:
            flood_chain(work, w, r, mark, ctr, stones, lib_out, NO_LIMIT)
            l0 = lib_out[0]
            l1 = lib_out[1]
            for j in range(2):
                m = l0 if j == 0 else l1
                if legal[m] == 0:
                    continue
                k = _play(work, w, m, color, mark, ctr, stones, lib_out, cap)
                if k < 0:
                    continue
                _, nl2 = flood_chain(work, w, r, mark, ctr, stones, lib_out, NO_LIMIT)
                if nl2 == 1 and _read(work, w, r, False, sc):
                    out[1, m] = 1
                    laddered = True
                _undo(work, m, color, cap, k)
        elif want_laddered and (nl == 1 or (nl == 2 and c == color)):
            laddered = _read(work, w, r, nl == 2, sc)
        if want_escape and c == color and nl == 1:
            ns, _ = flood_chain(work, w, r, mark, ctr, stones, lib_out, NO_LIMIT)
            chain = stones[:ns].copy()
            cands = np.empty(4 * ns + 1, np.int32)
            cands[0] = lib_out[0]
            nc = 1
            for i in range(ns):
                for kk in range(4):
                    q = neighbor(chain[i], w, kk)
                    if work[q] == opp:
                        _, nlq = flood_chain(work, w, q, mark, ctr, stones, lib_out, 1)
                        if nlq == 1:
                            m = lib_out[0]
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
                k = _play(work, w, m, color, mark, ctr, stones, lib_out, cap)
                if k < 0:
                    continue
                _, nl2 = flood_chain(work, w, r, mark, ctr, stones, lib_out, NO_LIMIT)
                ok = nl2 >= 3 or (nl2 == 2 and not _read(work, w, r, True, sc))
                _undo(work, m, color, cap, k)
                if not ok:
                    status[m] = 2
                elif status[m] == 0:
                    status[m] = 1
        if laddered and want_laddered:
            ns, _ = flood_chain(work, w, r, mark, ctr, stones, lib_out, NO_LIMIT)
            for i in range(ns):
                out[0, stones[i]] = 1
    if want_escape:
        for p in range(n):
            if status[p] == 1:
                out[2, p] = 1
    return out
