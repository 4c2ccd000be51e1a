"""The ladder reader on one int32 workspace answers exactly as the reader it replaced
(``tests/ladder_reference.py``), plane for plane, on positions of seeded random games."""

from __future__ import annotations

import random

import ladder_reference
import numpy as np
import pytest

from dlgo.encoders import kernels as K
from dlgo.encoders import ladder
from dlgo.encoders.features import zobrist_array
from dlgo.goboard import GameState, Move


def _positions(size: int, games: int, seed: int):
    """Every position of random games (with a pass now and then, so both colours get to read)."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GameState.new_game(size)
        for _ in range(size * size * 2):
            yield state
            moves = [m for m in state.legal_moves() if m.is_play]
            if state.is_over() or not moves:
                break
            state = state.apply_move(Move.pass_turn() if rng.random() < 0.03 else rng.choice(moves))


def _inputs(state: GameState):
    board = state.board
    colors = np.frombuffer(board.padded_colors, np.int8).copy()
    zob, _ = zobrist_array(board.num_rows, board.num_cols)
    color = state.next_player.value
    info, _ = K.analyse(colors, board.geometry.width, color, zob, np.uint64(0), False)
    return colors, board.geometry.width, color, info[0], info[2], info[4]


@pytest.mark.parametrize(("size", "games"), [(7, 30), (9, 20), (13, 4), pytest.param(19, 6, marks=pytest.mark.slow)])
def test_ladder_features_equal_reference(size: int, games: int) -> None:
    count = reads = 0
    for state in _positions(size, games, seed=100 + size):
        args = _inputs(state)
        new = ladder.ladder_features(*args, True, True)
        old = ladder_reference.ladder_features(*args, True, True)
        assert np.array_equal(new, old), f"move {state.move_number}"
        count += 1
        reads += int(old.sum() > 0)
    assert count > games * size * size // 2
    assert reads > count // 10  # the games reached positions with ladder planes set


def test_single_reads_equal_reference() -> None:
    for state in _positions(9, 6, seed=7):
        colors, w, _, label, libs, _ = _inputs(state)
        for r in np.flatnonzero((label == np.arange(len(label))) & (libs <= 2)):
            for attacker in (False, True):
                assert ladder.ladder_captured(colors, w, int(r), attacker) == ladder_reference.ladder_captured(
                    colors, w, int(r), attacker
                )
