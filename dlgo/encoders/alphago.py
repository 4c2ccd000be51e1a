"""``alphago``: the AlphaGo policy/value input, 48 planes (+1 for the value net) (book 13.1.2, table 13.1).

All features are relative to the player to move. Counts are one-hot over 8 planes for
1, 2, ..., 7 and >= 8 (count k sets plane ``offset + min(k, 8) - 1``). Move features (22-47) are
set only on legal points (suicide and situational superko excluded).

| offset | planes | feature |
|---|---|---|
| 0 | 3 | own stone / opponent stone / empty |
| 3 | 1 | ones |
| 4 | 1 | zeros |
| 5 | 1 | sensibleness: legal and does not fill an own eye (the book's eye rule) |
| 6 | 8 | turns since the stone on this point was played (1 = last move; set-up stones >= 8) |
| 14 | 8 | liberties of the string of the stone on this point |
| 22 | 8 | liberties of the new string if the player to move played here |
| 30 | 8 | opponent stones this play would capture |
| 38 | 8 | self-atari size: own stones left in atari by this play (the new string, when it has 1 liberty) |
| 46 | 1 | ladder capture: this play ataris an opponent string that then dies in a ladder |
| 47 | 1 | ladder escape: this play (extension or capture) saves an own string in atari from the ladder |
| 48 | 1 | (``use_player_plane``) ones if black is to move |

Fixes of the book's code (docs/book-differences.md, 10): no index overflow at count 8, self-atari counts the
new string's stones, a real ladder reader (``dlgo.encoders.kernels``), constant planes written once, and the
player plane is off by default (policy: 48 planes; ``alphago_value`` or ``use_player_plane=True``:
49).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from dlgo.encoders import kernels as K
from dlgo.encoders import ladder
from dlgo.encoders.base import Encoder
from dlgo.encoders.features import BoardAnalysis, recent_moves
from dlgo.goboard import GameState

__all__ = ["AlphaGoEncoder", "create", "FEATURE_OFFSETS"]

FEATURE_OFFSETS = {
    "stone_color": 0,
    "ones": 3,
    "zeros": 4,
    "sensibleness": 5,
    "turns_since": 6,
    "liberties": 14,
    "liberties_after": 22,
    "capture_size": 30,
    "self_atari_size": 38,
    "ladder_capture": 46,
    "ladder_escape": 47,
    "player": 48,
}
TURNS_TRACKED = 7  # older stones (and set-up stones) count as ">= 8"


@njit(cache=True, nogil=True)
def _fill(colors, w, color, libs, legal, libs_after, captures, new_size, age, lad_cap, lad_esc, black_plane, out):
    n = colors.shape[0]
    for p in range(n):
        c = colors[p]
        if c == K.BORDER:
            continue
        r = p // w - 1
        q = p % w - 1
        out[r, q, 3] = 1.0
        if c == K.EMPTY:
            out[r, q, 2] = 1.0
            if legal[p]:
                if not K.is_eye(colors, w, p, color):
                    out[r, q, 5] = 1.0
                out[r, q, 22 + min(libs_after[p], 8) - 1] = 1.0
                if captures[p] > 0:
                    out[r, q, 30 + min(captures[p], 8) - 1] = 1.0
                if libs_after[p] == 1:
                    out[r, q, 38 + min(new_size[p], 8) - 1] = 1.0
                if lad_cap[p]:
                    out[r, q, 46] = 1.0
                if lad_esc[p]:
                    out[r, q, 47] = 1.0
        else:
            out[r, q, 0 if c == color else 1] = 1.0
            a = age[p]
            out[r, q, 6 + (7 if a == 0 else min(a, 8) - 1)] = 1.0
            out[r, q, 14 + min(libs[p], 8) - 1] = 1.0
        if black_plane:
            out[r, q, 48] = 1.0


class AlphaGoEncoder(Encoder):
    history_moves = TURNS_TRACKED

    def __init__(self, board_size: int | tuple[int, int], use_player_plane: bool = False) -> None:
        super().__init__(board_size)
        self.use_player_plane = use_player_plane
        self.num_planes = 49 if use_player_plane else 48

    def name(self) -> str:
        return "alphago_value" if self.use_player_plane else "alphago"

    def _encode_into(self, game_state: GameState, out: np.ndarray) -> None:
        a = BoardAnalysis(game_state, full_moves=True)
        n = a.colors.shape[0]
        age = np.zeros(n, np.int32)
        w = a.w
        for k, move in enumerate(recent_moves(game_state, TURNS_TRACKED), start=1):
            if move is not None and move.is_play:
                idx = move.point.row * w + move.point.col
                if age[idx] == 0:
                    age[idx] = k
        ladders = ladder.ladder_features(a.colors, w, a.color, a.label, a.libs, a.legal, False, True)
        black_plane = self.use_player_plane and a.color == K.BLACK
        _fill(
            a.colors,
            w,
            a.color,
            a.libs,
            a.legal,
            a.libs_after,
            a.captures,
            a.new_size,
            age,
            ladders[1],
            ladders[2],
            black_plane,
            out,
        )


def create(board_size: int | tuple[int, int], use_player_plane: bool = False) -> AlphaGoEncoder:
    return AlphaGoEncoder(board_size, use_player_plane)
