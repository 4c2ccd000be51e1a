"""Rollouts with a trained fast policy (book 13.2): the linear pattern network inside compiled playouts.

The rollout network (``dlgo.networks.rollout``, trained by the AlphaGo pipeline's ``rollout``
stage) is one linear ``k x k`` convolution over the ``sevenplane`` planes followed by a softmax.
Linear means the score of a point is the sum, over the stones within the pattern around it, of
one weight per (offset, plane): this kernel keeps the playout's strings (``dlgo.playout.kernel``),
counts each string's exact liberties before every move, adds the weights of each stone to the
empty points around it and samples a legal move that does not fill the mover's own eye with
probability ``softmax(score)`` (the network's own answer, restricted to those moves). No
Keras call per move: a rollout costs tens of microseconds per move on 9x9.

    weights = load_rollout_weights("runs/alphago-9x9/rollout/model.keras")
    value = trained_rollout_value(state, weights)
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from dlgo.encoders.kernels import chain_info
from dlgo.goboard import GameState
from dlgo.kernels import BLACK, EMPTY, WHITE, is_eye
from dlgo.playout.kernel import area_winner, init_strings, is_legal, play_stone, work_arrays

__all__ = ["load_rollout_weights", "trained_rollout", "trained_rollout_value", "pattern_scores"]

PLANES = 7  # the sevenplane encoder's


def load_rollout_weights(path: str | os.PathLike) -> np.ndarray:
    """The pattern weights ``[k, k, 7]`` of a saved rollout network (``.keras`` with its card)."""
    from dlgo.inference import load_model

    loaded = load_model(path, encoder="sevenplane", heads=["policy"])
    kernels = [w for w in loaded.model.get_weights() if w.ndim == 4]
    if len(kernels) != 1 or kernels[0].shape[2:] != (PLANES, 1):
        raise ValueError(f"{path}: not a rollout network (one linear convolution over 7 planes)")
    return np.ascontiguousarray(kernels[0][:, :, :, 0], dtype=np.float64)


@njit(cache=True)
def pattern_scores(colors, w, c, ko, weights, libs_exact, scores):
    """The network's logit at every point for ``c`` to move (what the convolution computes)."""
    n = colors.shape[0]
    rows = n // w - 2
    cols = w - 2
    k = weights.shape[0]
    half = k // 2
    for p in range(n):
        scores[p] = 0.0
    for q in range(n):
        cq = colors[q]
        if cq == BLACK or cq == WHITE:
            plane = (0 if cq == c else 3) + min(libs_exact[q], 3) - 1
        elif q == ko and ko > 0:
            plane = 6
        else:
            continue
        qr = q // w
        qc = q % w
        for i in range(k):
            pr = qr - i + half
            if pr < 1 or pr > rows:
                continue
            for j in range(k):
                pc = qc - j + half
                if pc < 1 or pc > cols:
                    continue
                scores[pr * w + pc] += weights[i, j, plane]


@njit(cache=True)
def _sample(colors, w, head, libs, c, ko, scores, weights_out):
    """A legal point that does not fill ``c``'s eye, drawn by softmax of ``scores``; 0 to pass."""
    n = colors.shape[0]
    top = -1e300
    for p in range(n):
        weights_out[p] = 0.0
        if colors[p] == EMPTY and scores[p] > top and not is_eye(colors, w, p, c):
            top = scores[p]
    total = 0.0
    for p in range(n):
        if colors[p] == EMPTY and not is_eye(colors, w, p, c):
            weights_out[p] = np.exp(scores[p] - top)
            total += weights_out[p]
    while total > 1e-300:
        r = np.random.random() * total
        acc = 0.0
        pick = -1
        for p in range(n):
            if weights_out[p] > 0.0:
                acc += weights_out[p]
                pick = p
                if acc >= r:
                    break
        if pick < 0:
            return 0
        if is_legal(colors, w, head, libs, pick, c, ko):
            return pick
        total -= weights_out[pick]
        weights_out[pick] = 0.0
    return 0


@njit(cache=True)
def trained_rollout(colors_in, w, to_move, ko, komi, max_moves, weights):
    """Play one rollout by the trained policy; the winner (1 black, 2 white, 0 jigo or undecided)."""
    n = colors_in.shape[0]
    colors = colors_in.copy()
    head, nxt, libs, size, empties, epos = work_arrays(n)
    n_empty = init_strings(colors, w, head, nxt, libs, size, empties, epos)
    libs_exact = np.empty(n, np.int32)  # exact liberties at every stone (the playout keeps pseudo-liberties)
    label = np.empty(n, np.int32)
    ring = np.empty(n, np.int32)
    chain_size = np.empty(n, np.int32)
    scores = np.empty(n, np.float64)
    scratch = np.empty(n, np.float64)
    passes = 0
    moves = 0
    c = to_move
    while moves < max_moves and passes < 2:
        chain_info(colors, w, label, ring, libs_exact, chain_size)
        pattern_scores(colors, w, c, ko, weights, libs_exact, scores)
        p = _sample(colors, w, head, libs, c, ko, scores, scratch)
        if p == 0:
            passes += 1
            ko = 0
        else:
            passes = 0
            n_empty, ko = play_stone(colors, w, head, nxt, libs, size, empties, epos, n_empty, p, c)
        moves += 1
        c = 3 - c
    if passes < 2:
        return 0
    return area_winner(colors, w, np.empty(n, np.int8), komi)


def trained_rollout_value(state: GameState, weights: np.ndarray, max_moves: int | None = None, count: int = 1) -> float:
    """Mean result of ``count`` trained rollouts from ``state`` for its player to move (+1, -1, 0)."""
    board = state.board
    colors = np.frombuffer(board.padded_colors, dtype=np.int8).copy()
    limit = max_moves if max_moves is not None else 3 * board.num_rows * board.num_cols + 50
    me = state.next_player.value
    total = 0
    for _ in range(count):
        winner = trained_rollout(colors, board.geometry.width, me, state.ko_point, float(state.komi), limit, weights)
        if winner:
            total += 1 if winner == me else -1
    return total / count
