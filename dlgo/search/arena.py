"""The PUCT tree as flat arrays, and the compiled (numba) kernels that grow it (book 14.2).

The same search as ``dlgo.search.puct`` with ``ZeroTreeNode`` objects (same selection, virtual
loss, backup and batching rules), laid out so that a whole batch of descents, the board play
along them, superko and the encoding of every new leaf run in one compiled call that releases
the GIL, while the network evaluates the previous batch in the other thread. The Python tree
spends 100-200 microseconds of interpreter work per visit; this one spends its time on the
board and the encoder.

**Nodes** (capacity ``C``): ``ni`` int32 [C, 7] (parent, edge from the parent, move that led
here, colour to move, status, first edge, edge count), ``nf`` float64 [C, 2] (the network's value
for the player to move, visits through the node's edges, virtual ones included), ``bhash`` the
board's Zobrist hash, ``boards`` int8 [C, padded points] (the position, so a descent plays only
the new leaf's move). **Edges** (the legal moves of an evaluated node, pass last): ``prior``,
``N``, ``W`` (visits and total value from the mover's view, as the Python tree keeps them),
``emove`` (padded index, 0 for pass) and ``child`` (-1 until visited). Moves are padded
indices (``row * (cols + 2) + col``), 0 for pass, -1 for "no move" (before the game's start).

With a network that has KataGo's ownership and score heads (analysis, not self-play), ``af``
float64 [C, 4] keeps per node whether it has them, its score and the sum and count of the scores
of the evaluated nodes below it (a move's score lead is its subtree's mean, as KataGo reports
it), and ``own`` float16 [C, points] (numpy's; numba has no float16) its ownership, both in
Black's view; every such node lies under the root, so the root's averaged ownership is their mean.

A node is **pending** from the descent that creates it until its evaluation is attached, so a
second descent to it in the same batch (or the batch under evaluation) is undone, as the Python
tree drops a leaf picked twice; **terminal** nodes (two passes) are scored at once by area.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.encoders.zero import KOMI_SCALE, encode_position
from dlgo.kernels import BLACK, WHITE, flood_words, play_and_capture
from dlgo.playout.kernel import area_winner
from dlgo.search.tree import first_play_value, score_utility, select_branch

__all__ = [
    "PARENT",
    "PEDGE",
    "MOVE",
    "COLOR",
    "STATUS",
    "FIRST",
    "COUNT",
    "VALUE",
    "TOTAL",
    "PENDING",
    "EVALUATED",
    "TERMINAL",
    "play",
    "encode_node",
    "collect",
    "attach",
    "abandon",
    "compact",
    "attach_aux",
    "HAS_AUX",
    "SCORE",
    "SCORE_BELOW",
    "COUNT_BELOW",
]

PARENT, PEDGE, MOVE, COLOR, STATUS, FIRST, COUNT = range(7)  # columns of ``ni``
VALUE, TOTAL = 0, 1  # columns of ``nf``
PENDING, EVALUATED, TERMINAL = 0, 1, 2  # node status
HAS_AUX, SCORE, SCORE_BELOW, COUNT_BELOW = range(4)  # columns of ``af``
NO_MOVE = -1
# Geometry vector ``g``: padded width, rows, columns, padded points, pass index (rows * cols).
G_W, G_ROWS, G_COLS, G_N, G_PASS = range(5)


@njit(cache=True, nogil=True)
def play(colors, w, color, p, zob, h, ws):
    """Put a ``color`` stone on empty ``p`` and take off the opponent strings left without a
    liberty (``dlgo.kernels.play_and_capture``); returns the board hash after it. ``ws``:
    ``flood_chain``'s workspace with room for ``n`` captured stones after ``flood_words(n)``."""
    cap = flood_words(colors.shape[0])
    ncap = play_and_capture(colors, w, p, color, ws, cap)
    h ^= zob[color, p]
    opp = 3 - color
    for i in range(ncap):
        h ^= zob[opp, ws[cap + i]]
    return h


@njit(cache=True, nogil=True, inline="always")
def _situation(bhash, color, wtm):
    """The situation hash (board and player to move) as ``GameState.situation_hash`` has it."""
    return bhash ^ wtm if color == WHITE else bhash


@njit(cache=True, nogil=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: spreads a history code over all 64 bits of a cache key."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True, nogil=True)
def encode_node(ni, bhash, boards, node, root, g, root_set, root_hist, zob, wtm, komi, salt, recent, out, moves):
    """The network input of ``node`` into ``out`` and its legal moves into ``moves`` (see
    ``encode_position``); returns (number of moves, cache key).

    The earlier situations are the root's (``root_set``, sorted) plus those of the nodes above
    ``node``; its last four moves come from the path and then the root's own (``root_hist``, most
    recent first). The key hashes the situation, those four moves and ``salt`` (board size and
    komi), what ``BatchEvaluator``'s cache keys hold."""
    w = g[G_W]
    color = ni[node, COLOR]
    history = np.zeros(4, np.int32)
    last_pass = False
    key = _situation(bhash[node], color, wtm)
    cur = node
    j = 0
    stopped = False
    for k in range(4):
        if cur != root:
            code = ni[cur, MOVE]
            cur = ni[cur, PARENT]
        else:
            code = root_hist[j]
            j += 1
        if code == NO_MOVE:
            stopped = True
        if stopped:
            code = NO_MOVE
        elif code > 0:
            history[k] = code
        elif k == 0:
            last_pass = True
        key = _mix(key ^ np.uint64((code + 2) * (k + 1)))
    n_recent = 0
    cur = ni[node, PARENT]
    while cur >= 0 and cur != root:
        recent[n_recent] = _situation(bhash[cur], ni[cur, COLOR], wtm)
        n_recent += 1
        cur = ni[cur, PARENT]
    h0 = bhash[node] ^ wtm if color == BLACK else bhash[node]  # after black plays, white is to move
    komi_value = (komi if color != BLACK else -komi) / KOMI_SCALE
    count = encode_position(
        boards[node], w, color, zob, h0, komi_value, history, last_pass, root_set, recent, n_recent, out, moves
    )
    return count, key ^ salt


@njit(cache=True, nogil=True, inline="always")
def _select_and_visit(ni, nf, prior, N, W, child, af, node, c, vl, fpu_reduction, su):
    """The PUCT choice at ``node`` (``dlgo.search.tree.select_branch``, the same rule as the
    Python tree) and its virtual visit. ``su``: score utility (factor, scale, the root's score
    in Black's view); with a factor above 0 and a tree that keeps scores, each visited branch's Q
    gains ``score_utility`` of its subtree's mean score (the mover's view)."""
    first = ni[node, FIRST]
    end = first + ni[node, COUNT]
    total = nf[node, TOTAL]
    fpu = first_play_value(prior[first:end], N[first:end], nf[node, VALUE], fpu_reduction)
    values = W[first:end]
    if su[0] > 0.0 and af.shape[0] > 0:
        values = values.copy()
        sign = 1.0 if ni[node, COLOR] == BLACK else -1.0
        for i in range(end - first):
            ch = child[first + i]
            if ch >= 0 and af[ch, HAS_AUX] > 0.0:
                mean = (af[ch, SCORE] + af[ch, SCORE_BELOW]) / (1.0 + af[ch, COUNT_BELOW])
                values[i] += N[first + i] * score_utility(sign * mean, sign * su[2], su[0], su[1])
    best = first + select_branch(prior[first:end], N[first:end], values, total, c, fpu)
    N[best] += 1.0
    W[best] -= vl
    nf[node, TOTAL] = total + 1.0
    return best


@njit(cache=True, nogil=True)
def _quota_visit(ni, nf, N, W, root, quota, vl):
    """The root's least visited branch still under its quota (the first on ties), with its
    virtual visit; -1 when every branch has its quota."""
    first = ni[root, FIRST]
    best = -1
    for i in range(quota.shape[0]):
        if N[first + i] < quota[i] and (best < 0 or N[first + i] < N[best]):
            best = first + i
    if best >= 0:
        N[best] += 1.0
        W[best] -= vl
        nf[root, TOTAL] += 1.0
    return best


@njit(cache=True, nogil=True)
def _backup(W, path_edges, depth, leaf_value, vl):
    """The leaf's value (its mover's view) up the path, sign flipped at every ply; the virtual
    losses become real results."""
    value = leaf_value
    for i in range(depth - 1, -1, -1):
        value = -value
        W[path_edges[i]] += value + vl


@njit(cache=True, nogil=True)
def _undo(nf, N, W, path_nodes, path_edges, depth, vl):
    for i in range(depth):
        e = path_edges[i]
        N[e] -= 1.0
        W[e] += vl
        nf[path_nodes[i], TOTAL] -= 1.0


@njit(cache=True, nogil=True)
def _new_node(ni, nf, used, parent, edge, move, color, status, value):
    node = used[0]
    used[0] += 1
    ni[node, PARENT] = parent
    ni[node, PEDGE] = edge
    ni[node, MOVE] = move
    ni[node, COLOR] = color
    ni[node, STATUS] = status
    ni[node, FIRST] = 0
    ni[node, COUNT] = 0
    nf[node, VALUE] = value
    nf[node, TOTAL] = 0.0
    return node


@njit(cache=True, nogil=True)
def collect(
    tree,
    root,
    limit,
    visit_cap,
    c,
    vl,
    fpu_reduction,
    g,
    root_set,
    root_hist,
    zob,
    wtm,
    komi,
    salt,
    planes,
    leaves,
    keys,
    moves,
    counts,
    root_quota,
    af,
    su,
):
    """Up to ``limit`` descents with virtual losses to new leaves, each played, encoded
    (``planes[i]``, its legal moves in ``moves[i]`` / ``counts[i]``, cache key ``keys[i]``) and
    left pending in ``leaves[i]``; returns how many. A descent that ends in a finished game is
    scored and backed up at once; one that meets a pending leaf is undone; after ``2 * limit``
    of those the batch ends short, and after a finished game once the root has ``visit_cap``
    visits (-1: no cap), as ``PUCTSearch._collect`` does. The caller leaves room for
    ``3 * limit + 2`` nodes. ``root_quota`` (one per root branch, or empty for PUCT): the root's
    branch is the least visited one still under its quota, and the batch ends when none is
    (a root search of its own above the tree, ``dlgo.search.gumbel``). ``af``/``su``: the
    nodes' scores and the score utility (``_select_and_visit``)."""
    ni, nf, bhash, boards, prior, N, W, emove, child, used = tree
    w = g[G_W]
    n = g[G_N]
    ws = np.zeros(flood_words(n) + n, np.int32)
    depth_cap = used[0] + 2
    path_nodes = np.empty(depth_cap, np.int32)
    path_edges = np.empty(depth_cap, np.int32)
    recent = np.empty(depth_cap, np.uint64)
    m = 0
    other = 0
    while m < limit and other <= 2 * limit:
        node = root
        depth = 0
        finished_game = False
        while True:
            if depth == 0 and root_quota.shape[0] > 0:
                e = _quota_visit(ni, nf, N, W, root, root_quota, vl)
                if e < 0:
                    return m
            else:
                e = _select_and_visit(ni, nf, prior, N, W, child, af, node, c, vl, fpu_reduction, su)
            path_nodes[depth] = node
            path_edges[depth] = e
            depth += 1
            ch = child[e]
            if ch >= 0:
                status = ni[ch, STATUS]
                if status == EVALUATED:
                    node = ch
                    continue
                if status == TERMINAL:
                    _backup(W, path_edges, depth, nf[ch, VALUE], vl)
                    finished_game = True
                else:  # pending: already in this batch or the one under evaluation
                    _undo(nf, N, W, path_nodes, path_edges, depth, vl)
                other += 1
                break
            move = emove[e]
            mover = 3 - ni[node, COLOR]
            if move == 0 and ni[node, MOVE] == 0:  # the second pass ends the game
                winner = area_winner(boards[node], w, np.empty(n, np.int8), komi)
                value = 0.0 if winner == 0 else (1.0 if winner == mover else -1.0)
                child[e] = _new_node(ni, nf, used, node, e, 0, mover, TERMINAL, value)
                _backup(W, path_edges, depth, value, vl)
                finished_game = True
                other += 1
                break
            leaf = _new_node(ni, nf, used, node, e, move, mover, PENDING, 0.0)
            child[e] = leaf
            colors = boards[leaf]
            colors[:] = boards[node]
            h = bhash[node]
            if move > 0:
                h = play(colors, w, ni[node, COLOR], move, zob, h, ws)
            bhash[leaf] = h
            counts[m], keys[m] = encode_node(
                ni, bhash, boards, leaf, root, g, root_set, root_hist, zob, wtm, komi, salt, recent, planes[m], moves[m]
            )
            leaves[m] = leaf
            m += 1
            break
        if finished_game and visit_cap >= 0 and 1.0 + nf[root, TOTAL] >= visit_cap:
            break
    return m


@njit(cache=True, nogil=True)
def attach(tree, root, g, leaves, m, policy, values, moves, counts, vl):
    """The evaluations of a collected batch: each leaf's edges (its legal moves, priors from
    ``policy`` [m, points + 1] renormalised over them, uniform when they have no mass), its value,
    and the value's backup to the root. The caller leaves room for the edges."""
    ni, nf, bhash, boards, prior, N, W, emove, child, used = tree
    w = g[G_W]
    cols = g[G_COLS]
    pass_index = g[G_PASS]
    for i in range(m):
        leaf = leaves[i]
        count = counts[i]
        first = used[1]
        used[1] += count
        total = np.float32(0.0)
        for j in range(count):
            p = moves[i, j]
            idx = pass_index if p == 0 else (p // w - 1) * cols + (p % w - 1)
            pr = policy[i, idx]
            prior[first + j] = pr
            total += pr
            emove[first + j] = p
            child[first + j] = -1
            N[first + j] = 0.0
            W[first + j] = 0.0
        if total > 0 and np.isfinite(total):
            for j in range(count):
                prior[first + j] = prior[first + j] / total
        else:
            for j in range(count):
                prior[first + j] = np.float32(1.0 / count)
        ni[leaf, FIRST] = first
        ni[leaf, COUNT] = count
        ni[leaf, STATUS] = EVALUATED
        value = values[i]
        nf[leaf, VALUE] = value
        node = leaf
        while node != root:
            value = -value
            W[ni[node, PEDGE]] += value + vl
            node = ni[node, PARENT]


@njit(cache=True, nogil=True)
def attach_aux(ni, af, root, leaves, m, scores):
    """The scores [m] of a batch's leaves (the network's, in the mover's view) kept in Black's
    view, each added below every node above its leaf that has one (``NodeAux.backup`` of the
    Python tree); returns each leaf's sign (+1 Black to move), for its ownership. After ``attach``."""
    signs = np.empty(m, np.float64)
    for i in range(m):
        leaf = leaves[i]
        sign = 1.0 if ni[leaf, COLOR] == BLACK else -1.0
        signs[i] = sign
        score = sign * scores[i]
        af[leaf, HAS_AUX] = 1.0
        af[leaf, SCORE] = score
        af[leaf, SCORE_BELOW] = 0.0
        af[leaf, COUNT_BELOW] = 0.0
        node = leaf
        while node != root:
            node = ni[node, PARENT]
            if af[node, HAS_AUX] > 0:
                af[node, SCORE_BELOW] += score
                af[node, COUNT_BELOW] += 1.0
    return signs


@njit(cache=True, nogil=True)
def abandon(tree, root, leaves, m, vl):
    """Take a batch's pending leaves back out of the tree with their virtual losses (its
    evaluation failed); the nodes stay unused."""
    ni, nf, bhash, boards, prior, N, W, emove, child, used = tree
    for i in range(m):
        leaf = leaves[i]
        child[ni[leaf, PEDGE]] = -1
        node = leaf
        while node != root:
            e = ni[node, PEDGE]
            parent = ni[node, PARENT]
            N[e] -= 1.0
            W[e] += vl
            nf[parent, TOTAL] -= 1.0
            node = parent


@njit(cache=True, nogil=True)
def compact(tree, root, out):
    """Copy the subtree under ``root`` into the empty arrays ``out`` (root first, breadth first),
    so a tree kept between moves holds no nodes of the moves not played; returns the old index
    of each copied node (for arrays kept beside the tree)."""
    ni, nf, bhash, boards, prior, N, W, emove, child, used = tree
    ni2, nf2, bhash2, boards2, prior2, N2, W2, emove2, child2, used2 = out
    order = np.empty(used[0], np.int32)
    order[0] = root
    count = 1
    edges = 0
    k = 0
    while k < count:
        old = order[k]
        ni2[k, :] = ni[old, :]
        nf2[k, :] = nf[old, :]
        bhash2[k] = bhash[old]
        boards2[k, :] = boards[old, :]
        first = ni[old, FIRST]
        m = ni[old, COUNT]
        ni2[k, FIRST] = edges
        for j in range(m):
            e = first + j
            f = edges + j
            prior2[f] = prior[e]
            N2[f] = N[e]
            W2[f] = W[e]
            emove2[f] = emove[e]
            ch = child[e]
            if ch >= 0:
                order[count] = ch
                child2[f] = count
                ni[ch, PARENT] = k  # read back below through the copy of ``ch``
                ni[ch, PEDGE] = f
                count += 1
            else:
                child2[f] = -1
        edges += m
        k += 1
    ni2[0, PARENT] = -1
    ni2[0, PEDGE] = -1
    used2[0] = count
    used2[1] = edges
    return order[:count]
