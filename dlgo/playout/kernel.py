"""Compiled random playouts (numba): the speed the book's rollout-based search depends on.

A playout plays uniformly random moves that are legal and do not fill the mover's own eye
(the book's RandomBot rule, book 3.3 listing 3.15) until both sides pass, then counts the board by area.
A "fast" playout (AlphaGo's rollouts, the dead-stone count) first answers the last move
(:func:`urgent_move`) and never makes a :func:`big_self_atari`.
Boards are numpy int8 arrays over the same padded grid as ``dlgo.goboard`` (0 empty, 1 black,
2 white, 3 border; width = columns + 2).

Inside a playout, strings are circular linked lists with pseudo-liberty counts
(``dlgo.playout.strings``); the fast rules are ``dlgo.playout.tactics``. Simple ko is
enforced; longer cycles (superko) are cut by a move cap, which is "superko-safe enough" for a
playout and costs nothing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.kernels import BLACK, BORDER, EMPTY, WHITE, is_eye, neighbor
from dlgo.playout.strings import init_strings, is_legal, play_stone, work_arrays
from dlgo.playout.tactics import big_self_atari, urgent_move


@njit(cache=True)
def seed(value: int) -> None:
    """Seed numba's generator (separate from numpy's) for reproducible playouts."""
    np.random.seed(value)


@njit(cache=True)
def _select(colors, w, head, nxt, libs, size, empties, epos, n_empty, c, ko, fast):
    """A uniformly random legal non-eye point for ``c``, or 0 to pass; with ``fast`` not a
    :func:`big_self_atari` either.

    Rejected points are swapped to the end of the candidate range, so each try is O(1).
    """
    k = n_empty
    while k > 0:
        i = np.random.randint(k)
        p = empties[i]
        if (
            not is_eye(colors, w, p, c)
            and is_legal(colors, w, head, libs, p, c, ko)
            and not (fast and big_self_atari(colors, w, head, nxt, libs, size, p, c))
        ):
            return p
        k -= 1
        q = empties[k]
        empties[i] = q
        epos[q] = i
        empties[k] = p
        epos[p] = k
    return 0


@njit(cache=True)
def area_owner(colors, w, owner):
    """Fill ``owner`` (1 black, 2 white, 0 dame/border) by area; returns black minus white area."""
    n_points = colors.shape[0]
    for p in range(n_points):
        owner[p] = 0
    seen = np.zeros(n_points, np.bool_)
    stack = np.empty(n_points, np.int32)
    region = np.empty(n_points, np.int32)
    diff = 0
    for p in range(n_points):
        c = colors[p]
        if c == BLACK or c == WHITE:
            owner[p] = c
            diff += 1 if c == BLACK else -1
        elif c == EMPTY and not seen[p]:
            seen[p] = True
            top = 0
            stack[top] = p
            top += 1
            count = 0
            borders = 0
            while top > 0:
                top -= 1
                s = stack[top]
                region[count] = s
                count += 1
                for k in range(4):
                    n = neighbor(s, w, k)
                    cn = colors[n]
                    if cn == EMPTY:
                        if not seen[n]:
                            seen[n] = True
                            stack[top] = n
                            top += 1
                    elif cn != BORDER:
                        borders |= cn
            if borders == BLACK or borders == WHITE:
                for j in range(count):
                    owner[region[j]] = borders
                diff += count if borders == BLACK else -count
    return diff


@njit(cache=True)
def play_out(colors, w, to_move, ko, last, max_moves, fast, head, nxt, libs, size, empties, epos):
    """Play a game out on ``colors`` (modified): random legal moves that do not fill one's own
    eye, or with ``fast`` first the urgent reply to the ``last`` move (AlphaGo-style rollouts).
    Returns (moves played, whether it ended with two passes rather than at ``max_moves``)."""
    n_empty = init_strings(colors, w, head, nxt, libs, size, empties, epos)
    passes = 0
    moves = 0
    c = to_move
    while moves < max_moves and passes < 2:
        p = urgent_move(colors, w, head, nxt, libs, last, c, ko) if fast else 0
        if p == 0:
            p = _select(colors, w, head, nxt, libs, size, empties, epos, n_empty, c, ko, fast)
        if p == 0:
            passes += 1
            ko = 0
        else:
            passes = 0
            n_empty, ko = play_stone(colors, w, head, nxt, libs, size, empties, epos, n_empty, p, c)
        last = p
        moves += 1
        c = 3 - c
    return moves, passes >= 2


@njit(cache=True)
def _playout_in_place(colors, w, to_move, ko, max_moves, head, nxt, libs, size, empties, epos):
    """Play a random game on ``colors`` (modified); returns the number of moves played."""
    return play_out(colors, w, to_move, ko, 0, max_moves, False, head, nxt, libs, size, empties, epos)[0]


@njit(cache=True)
def default_max_moves(n_points):
    return 3 * n_points + 50


@njit(cache=True)
def area_winner(colors, w, owner, komi):
    """The winner of a finished board by area count and komi: 1 black, 2 white, 0 jigo
    (``owner`` is filled with each point's owner on the way)."""
    score = area_owner(colors, w, owner) - komi
    if score > 0:
        return BLACK
    if score < 0:
        return WHITE
    return 0


@njit(cache=True)
def playout(colors_in, w, to_move, ko, komi, max_moves):
    """One random playout from a position; returns (winner 1/2 or 0 for jigo, moves played)."""
    n = colors_in.shape[0]
    colors = colors_in.copy()
    head, nxt, libs, size, empties, epos = work_arrays(n)
    owner = np.empty(n, np.int8)
    moves = _playout_in_place(colors, w, to_move, ko, max_moves, head, nxt, libs, size, empties, epos)
    return area_winner(colors, w, owner, komi), moves


@njit(cache=True)
def playouts(colors_in, w, to_move, ko, komi, num_playouts, max_moves, fast):
    """Many playouts from one position, random or with ``fast`` the urgent replies of
    :func:`urgent_move` first and no :func:`big_self_atari`.

    Returns (black wins, white wins, total moves, mean ownership per point in [-1, 1] with +1
    for black); the ownership estimate is what dead-stone detection and analysis use.
    """
    n = colors_in.shape[0]
    colors = np.empty(n, np.int8)
    head, nxt, libs, size, empties, epos = work_arrays(n)
    owner = np.empty(n, np.int8)
    ownership = np.zeros(n, np.float64)
    black_wins = 0
    white_wins = 0
    total_moves = 0
    for _ in range(num_playouts):
        colors[:] = colors_in
        total_moves += play_out(colors, w, to_move, ko, 0, max_moves, fast, head, nxt, libs, size, empties, epos)[0]
        score = area_owner(colors, w, owner) - komi
        if score > 0:
            black_wins += 1
        elif score < 0:
            white_wins += 1
        for p in range(n):
            o = owner[p]
            if o == BLACK:
                ownership[p] += 1.0
            elif o == WHITE:
                ownership[p] -= 1.0
    if num_playouts > 0:
        ownership /= num_playouts
    return black_wins, white_wins, total_moves, ownership


@njit(cache=True)
def candidate_moves(colors_in, w, to_move, ko):
    """Points (padded indices, ascending) where ``to_move`` may play and that are not its own eyes.

    Simple ko is respected; superko is left to the caller's full check on the few it expands.
    """
    n = colors_in.shape[0]
    colors = colors_in.copy()
    head, nxt, libs, size, empties, epos = work_arrays(n)
    init_strings(colors, w, head, nxt, libs, size, empties, epos)
    out = np.empty(n, np.int32)
    count = 0
    for p in range(n):
        if colors[p] == EMPTY and not is_eye(colors, w, p, to_move):
            if is_legal(colors, w, head, libs, p, to_move, ko):
                out[count] = p
                count += 1
    return out[:count]
