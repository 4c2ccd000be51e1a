"""A move in milliseconds with no network and no compiled code: what the engine plays when a
``genmove`` comes before its agent is built and the move's time would run out waiting.

Plain Python on the board (:mod:`dlgo.goboard`), so it needs nothing that loads or compiles.
It reads the local fights the way the book's fast rollout policy does (chapter 13: captures and
atari escapes first) and adds opening sense: every empty point that is not our own eye and not
suicide gets a score

- capture: the opponent stones it takes (the most urgent),
- escape: our stones in atari it saves, when the saved string gets two liberties or more,
- atari: opponent stones it puts in atari, when our stone is not in atari itself,
- self-atari: a large penalty when our string is left with one liberty and takes nothing,
- shape: lines 3 and 4 (3 to 5 on small boards) are good, the first line is bad and the second
  poor; in an open area a corner point (both lines good) is best, as in a normal opening,
- locality: a small bonus near the opponent's last move, a penalty inside our own area,

plus a little noise, and plays the best legal one (superko checked); it passes only when no
point qualifies. It is no substitute for a search, only far better than a random move.
"""

from __future__ import annotations

import random
from collections import deque

from dlgo.agent.helpers import is_eye_at_index
from dlgo.goboard import EMPTY, GameState, Move

__all__ = ["quick_move"]

CAPTURE = 10.0
ESCAPE = 8.0
ATARI = 2.0
SELF_ATARI = -12.0


def _distances(colors: list[int], geo, limit: int) -> dict[int, int]:
    """Steps from each point to the nearest stone (points further than ``limit`` are absent)."""
    dist: dict[int, int] = {}
    queue: deque[int] = deque()
    for idx in geo.on_board:
        if colors[idx] != EMPTY:
            dist[idx] = 0
            queue.append(idx)
    while queue:
        idx = queue.popleft()
        d = dist[idx] + 1
        if d > limit:
            continue
        for n in geo.neighbors[idx]:
            if n not in dist:
                dist[n] = d
                queue.append(n)
    return dist


def quick_move(state: GameState, rng: random.Random | None = None) -> tuple[Move, str]:
    """(move, why) for the player to move in ``state``."""
    rng = rng or random.Random()
    board = state.board
    geo = board.geometry
    colors = board.padded_colors
    me = state.next_player.value
    rows, cols = board.num_rows, board.num_cols
    good_lines = (3, 4) if min(rows, cols) >= 13 else (3, 4, 5) if min(rows, cols) >= 9 else (2, 3)
    stones = sum(1 for idx in geo.on_board if colors[idx] != EMPTY)
    opening = stones < len(geo.on_board) // 8
    dist = _distances(colors, geo, 3)
    last = state.last_move
    near_last: set[int] = set()
    if last is not None and last.is_play:
        centre = geo.index(last.point)
        near_last = {centre}
        for _ in range(2):
            near_last |= {n for i in near_last for n in geo.neighbors[i]} | {
                d for i in near_last for d in geo.diagonals[i]
            }

    scored: list[tuple[float, int, str]] = []
    for idx in geo.on_board:
        if colors[idx] != EMPTY or is_eye_at_index(colors, geo, idx, me) or board.is_suicide_at(me, idx):
            continue
        libs: set[int] = set()
        captured = saved = threatened = own = 0
        seen: list = []
        for n in geo.neighbors[idx]:
            c = colors[n]
            if c == EMPTY:
                libs.add(n)
                continue
            s = board.go_string_at_index(n)
            if any(s is g for g in seen):
                continue
            seen.append(s)
            size = len(s.stone_indices)
            if c == me:
                own += 1
                libs |= s.liberty_indices
                if s.num_liberties == 1:
                    saved += size
            elif s.num_liberties == 1:
                captured += size
            elif s.num_liberties == 2:
                threatened += size
        libs.discard(idx)
        liberties = len(libs) + (1 if captured else 0)
        score = CAPTURE * captured
        why = "capture" if captured else ""
        if saved and liberties >= 2:
            score += ESCAPE * saved
            why = why or "escape from atari"
        if liberties <= 1 and not captured:
            score += SELF_ATARI
        elif threatened:
            score += ATARI * threatened
            why = why or "atari"
        point = geo.points[idx]
        line_r = min(point.row, rows + 1 - point.row)
        line_c = min(point.col, cols + 1 - point.col)
        line = min(line_r, line_c)
        if line == 1:
            score -= 3.0 if opening else 1.5
        elif line == 2 and max(rows, cols) >= 9:
            score -= 1.0 if opening else 0.3
        elif line in good_lines:
            score += 1.0
        if dist.get(idx, 99) >= 3:
            score += 1.5 if opening else 0.5  # open area
            if opening and line_r in good_lines and line_c in good_lines:
                score += 2.0  # a corner or centre point of the opening
        if idx in near_last:
            score += 1.0
        if own == len(geo.neighbors[idx]) and not saved:
            score -= 2.0  # filling our own area
        score += rng.random() * 0.5
        scored.append((score, idx, why or ("opening point" if opening else "shape")))

    scored.sort(reverse=True)
    for _score, idx, why in scored:
        move = Move.play(geo.points[idx])
        if state.is_valid_move(move):
            return move, why
    return Move.pass_turn(), "no sensible point left"
