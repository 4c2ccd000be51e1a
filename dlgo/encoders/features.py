"""Board features the encoders share, computed by the compiled kernels in ``dlgo.encoders.kernels``.

``analyse(game_state)`` returns a ``BoardAnalysis`` of flat arrays over the padded grid
(index ``row * (cols + 2) + col``, as in ``dlgo.goboard``). Legality is exact: suicide by the
kernel, situational superko by intersecting the hashes after every legal play with the game's
earlier situations (one C-level set operation).
"""

from __future__ import annotations

import functools

import numpy as np

from dlgo.encoders import kernels as K
from dlgo.encoders import ladder
from dlgo.goboard import BLACK, GameState
from dlgo.zobrist import zobrist_table

__all__ = [
    "BoardAnalysis",
    "zobrist_array",
    "analyse",
    "padded_colors",
    "recent_moves",
    "legal_move_mask",
    "ladder_captured",
]


@functools.cache
def zobrist_array(num_rows: int, num_cols: int) -> tuple[np.ndarray, int]:
    table = zobrist_table(num_rows, num_cols)
    return np.array(table.stone, dtype=np.uint64), table.white_to_move


@functools.cache
def _board_view(num_rows: int, num_cols: int) -> tuple[slice, slice]:
    return slice(1, num_rows + 1), slice(1, num_cols + 1)


def padded_colors(game_state: GameState) -> np.ndarray:
    """The board's padded colour array as a writable int8 numpy array."""
    return np.frombuffer(bytearray(game_state.board.padded_colors), dtype=np.int8)


def on_board(arr: np.ndarray, num_rows: int, num_cols: int) -> np.ndarray:
    """View of a padded flat array as ``(rows, cols)``: row ``r - 1`` is board row ``r``."""
    rs, cs = _board_view(num_rows, num_cols)
    return arr.reshape(num_rows + 2, num_cols + 2)[rs, cs]


class BoardAnalysis:
    """Chains and per-move facts of one position for the player to move (padded arrays)."""

    __slots__ = (
        "state",
        "colors",
        "w",
        "rows",
        "cols",
        "color",
        "label",
        "nxt",
        "libs",
        "size",
        "legal",
        "ko",
        "libs_after",
        "captures",
        "new_size",
    )

    def __init__(self, game_state: GameState, full_moves: bool = False) -> None:
        board = game_state.board
        self.state = game_state
        self.rows, self.cols = board.num_rows, board.num_cols
        self.w = board.geometry.width
        self.colors = padded_colors(game_state)
        self.color = color = game_state.next_player.value
        zob, wtm = zobrist_array(self.rows, self.cols)
        h0 = board.zobrist_hash() ^ (wtm if color == BLACK else 0)  # after black plays, white is to move
        info, hash_after = K.analyse(self.colors, self.w, color, zob, np.uint64(h0), full_moves)
        self.label, self.nxt, self.libs, self.size, self.legal, self.libs_after, self.captures, self.new_size = info
        # Situational superko: plays whose resulting situation occurred before.
        self.ko: list[int] = []
        previous = game_state.previous_states
        if previous:
            legal = self.legal != 0
            hashes = hash_after[legal].tolist()
            if not previous.isdisjoint(hashes):
                candidates = np.flatnonzero(legal)
                self.ko = [int(p) for p, h in zip(candidates, hashes) if h in previous]
                self.legal[self.ko] = 0

    def mark_ko(self, out: np.ndarray, plane: int) -> None:
        """Ones in ``out[:, :, plane]`` (``out``: rows x cols x planes) on the empty points where a
        play would repeat an earlier situation (``ko``: (situational super)ko)."""
        for idx in self.ko:
            row, col = divmod(idx, self.w)
            out[row - 1, col - 1, plane] = 1.0


def analyse(game_state: GameState, full_moves: bool = False) -> BoardAnalysis:
    return BoardAnalysis(game_state, full_moves)


def recent_moves(game_state: GameState, count: int) -> list:
    """The last ``count`` moves, most recent first (``None`` past the start of the game)."""
    out = []
    state = game_state
    for _ in range(count):
        if state is None or state.last_move is None:
            out.append(None)
            state = None
        else:
            out.append(state.last_move)
            state = state.previous_state
    return out


def legal_move_mask(game_state: GameState) -> np.ndarray:
    """Bool vector over the book's point indices plus pass (last): the legal moves, exactly.

    Same answer as ``GameState.is_valid_move`` for every point, at a fraction of the cost;
    all False when the game is over.
    """
    a = BoardAnalysis(game_state)
    mask = np.zeros(a.rows * a.cols + 1, dtype=bool)
    if game_state.is_over():
        return mask
    mask[:-1] = on_board(a.legal, a.rows, a.cols).ravel() != 0
    mask[-1] = True
    return mask


def ladder_captured(game_state: GameState, point, attacker_to_move: bool) -> bool:
    """Is the chain at ``point`` captured in a ladder? (its owner to move when in atari, or the
    attacker to move when it has two liberties)."""
    board = game_state.board
    idx = board.geometry.index(point)
    return bool(ladder.ladder_captured(padded_colors(game_state), board.geometry.width, idx, attacker_to_move))
