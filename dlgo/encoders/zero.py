"""``zero``: the input of our AlphaGo Zero style networks; moves include pass (N*N + 1).

The book's Zero encoder (docs/book-differences.md, 14) used 11 planes of stones by liberties plus colour and ko;
AlphaGo Zero used 17 planes of raw stone history. These 16 planes keep what made those strong
and add what small networks cannot cheaply compute themselves (liberties, ko, ladders: the
KataGo lesson), while staying size-independent so one fully convolutional network plays 9x9 to
19x19:

| plane | meaning |
|---|---|
| 0 | on board: all ones (zero padding of the convolutions then marks the edge) |
| 1 | stones of the player to move |
| 2 | stones of the opponent |
| 3, 4, 5 | stones (either colour) whose string has exactly 1, 2, 3 liberties |
| 6 | empty points where the player to move may not play because of (situational super)ko |
| 7, 8, 9, 10 | the point played 1, 2, 3, 4 moves ago (nothing for a pass or before the start) |
| 11 | stones of strings a ladder captures (1 liberty with the owner to move, or 2 with the attacker to move) |
| 12 | plays that catch an opponent string in a ladder (atari, then the ladder works) |
| 13 | all ones if black is to move |
| 14 | komi from the point of view of the player to move / 15 (+0.5 for white at komi 7.5) |
| 15 | all ones if the last move was a pass (passing now ends the game) |

Move indices: play at (row, col) -> ``cols * (row - 1) + (col - 1)``; pass -> ``rows * cols``;
``num_moves() == rows * cols + 1``. Resignation is not a network move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.encoders import kernels as K
from dlgo.encoders import ladder
from dlgo.encoders.base import Encoder
from dlgo.encoders.features import BoardAnalysis, recent_moves, zobrist_array
from dlgo.goboard import BLACK, GameState, Move

__all__ = ["ZeroEncoder", "create", "encode_position", "PLANES", "HISTORY", "KOMI_SCALE"]

HISTORY = 4
KOMI_SCALE = 15.0
PLANES = (
    "on_board",
    "own_stones",
    "opponent_stones",
    "liberties_1",
    "liberties_2",
    "liberties_3",
    "ko",
    "last_move_1",
    "last_move_2",
    "last_move_3",
    "last_move_4",
    "laddered_stones",
    "ladder_capture_moves",
    "black_to_move",
    "komi",
    "last_move_pass",
)


@njit(cache=True, nogil=True)
def _fill(colors, w, color, libs, laddered, lad_cap, history, komi_value, last_pass, out):
    n = colors.shape[0]
    for p in range(n):
        c = colors[p]
        if c == K.BORDER:
            continue
        r = p // w - 1
        q = p % w - 1
        out[r, q, 0] = 1.0
        if c != K.EMPTY:
            out[r, q, 1 if c == color else 2] = 1.0
            lib = libs[p]
            if lib <= 3:
                out[r, q, 2 + lib] = 1.0
            if laddered[p]:
                out[r, q, 11] = 1.0
        elif lad_cap[p]:
            out[r, q, 12] = 1.0
        if color == K.BLACK:
            out[r, q, 13] = 1.0
        out[r, q, 14] = komi_value
        if last_pass:
            out[r, q, 15] = 1.0
    for k in range(history.shape[0]):
        p = history[k]
        if p > 0:
            out[p // w - 1, p % w - 1, 7 + k] = 1.0


@njit(cache=True, nogil=True)
def _encode(colors, w, color, zob, h0, komi_value, history, last_pass, out):
    """Every plane but ko (6) in one compiled call, for a position without superko conflicts.

    Returns the situation hash after every legal play (suicide excluded): when one of them is an
    earlier situation, the caller encodes again with that play removed from the legal moves."""
    info, hash_after = K.analyse(colors, w, color, zob, h0, False)
    libs = info[2]
    legal = info[4]
    ladders = ladder.ladder_features(colors, w, color, info[0], libs, legal, True, False)
    _fill(colors, w, color, libs, ladders[0], ladders[1], history, komi_value, last_pass, out)
    return hash_after[legal != 0]


@njit(cache=True, nogil=True, inline="always")
def _seen_before(h, earlier_sorted, earlier_recent, n_recent):
    """Whether situation ``h`` is in the sorted array or among the first ``n_recent`` others."""
    i = np.searchsorted(earlier_sorted, h)
    if i < earlier_sorted.shape[0] and earlier_sorted[i] == h:
        return True
    for j in range(n_recent):
        if earlier_recent[j] == h:
            return True
    return False


@njit(cache=True, nogil=True)
def encode_position(
    colors, w, color, zob, h0, komi_value, history, last_pass, earlier_sorted, earlier_recent, n_recent, out, moves
):
    """All 16 planes of a position in one compiled call, situational superko included, for a
    caller that keeps the game's earlier situations as hashes rather than ``GameState``s (the
    compiled search): ``earlier_sorted`` (sorted uint64) and the first ``n_recent`` of
    ``earlier_recent``. ``out`` [rows, cols, 16] is overwritten. The legal moves go to ``moves``:
    padded indices of the legal plays in ascending order, then 0 for pass; returns their count.
    Same planes as ``ZeroEncoder`` (a test compares them on random games)."""
    out[:] = 0.0
    info, hash_after = K.analyse(colors, w, color, zob, h0, False)
    legal = info[4]
    n = colors.shape[0]
    for p in range(n):
        if legal[p] != 0 and _seen_before(hash_after[p], earlier_sorted, earlier_recent, n_recent):
            legal[p] = 0
            out[p // w - 1, p % w - 1, 6] = 1.0
    ladders = ladder.ladder_features(colors, w, color, info[0], info[2], legal, True, False)
    _fill(colors, w, color, info[2], ladders[0], ladders[1], history, komi_value, last_pass, out)
    count = 0
    for p in range(n):
        if legal[p] != 0:
            moves[count] = p
            count += 1
    moves[count] = 0
    return count + 1


class ZeroEncoder(Encoder):
    num_planes = len(PLANES)
    history_moves = HISTORY

    def name(self) -> str:
        return "zero"

    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        board = game_state.board
        w = board.geometry.width
        history = np.zeros(HISTORY, np.int32)
        last_pass = False
        state: GameState | None = game_state
        for k in range(HISTORY):
            move = state.last_move
            if move is None:
                break
            if move.is_play:
                history[k] = move.point.row * w + move.point.col
            elif k == 0:
                last_pass = move.is_pass
            state = state.previous_state
            if state is None:
                break
        color = game_state.next_player.value
        zob, wtm = zobrist_array(board.num_rows, board.num_cols)
        h0 = board.zobrist_hash() ^ (wtm if color == BLACK else 0)  # after black plays, white is to move
        komi = game_state.komi if color != BLACK else -game_state.komi
        colors = np.frombuffer(board.padded_colors, np.int8)
        hashes = _encode(colors, w, color, zob, np.uint64(h0), komi / KOMI_SCALE, history, last_pass, out)
        previous = game_state.previous_states
        if previous and not previous.isdisjoint(hashes.tolist()):
            out[...] = 0.0  # a superko point changes the legal moves the ladder planes read
            self._encode_with_ko(game_state, out)

    def _encode_with_ko(self, game_state: GameState, out: np.ndarray) -> None:
        """The planes from a full ``BoardAnalysis`` (superko points excluded from the legal moves)."""
        a = BoardAnalysis(game_state)
        w = a.w
        moves = recent_moves(game_state, HISTORY)
        history = np.zeros(HISTORY, np.int32)
        for k, move in enumerate(moves):
            if move is not None and move.is_play:
                history[k] = move.point.row * w + move.point.col
        last_pass = moves[0] is not None and moves[0].is_pass
        ladders = ladder.ladder_features(a.colors, w, a.color, a.label, a.libs, a.legal, True, False)
        komi = game_state.komi if a.color != K.BLACK else -game_state.komi
        _fill(a.colors, w, a.color, a.libs, ladders[0], ladders[1], history, komi / KOMI_SCALE, last_pass, out)
        for idx in a.ko:
            out[idx // w - 1, idx % w - 1, 6] = 1.0

    # --- moves with pass ------------------------------------------------------------------
    def encode_move(self, move: Move) -> int:
        if move.is_play:
            return self.encode_point(move.point)
        if move.is_pass:
            return self.num_points()
        raise ValueError("resignation is not a network move")

    def decode_move_index(self, index: int) -> Move:
        if index == self.num_points():
            return Move.pass_turn()
        if not 0 <= index < self.num_points():
            raise ValueError(f"move index {index} outside 0..{self.num_points()}")
        return Move.play(self.decode_point_index(index))

    def num_moves(self) -> int:
        return self.num_points() + 1


def create(board_size: int | tuple[int, int]) -> ZeroEncoder:
    return ZeroEncoder(board_size)
