"""The zero encoder's fast path (one compiled call from the board to the planes, the full analysis only
when a superko point exists) gives exactly the planes of the full analysis (``BoardAnalysis`` +
``ladder_features``)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from dlgo.encoders.zero import ZeroEncoder
from dlgo.goboard import GameState, Move


def _games(size: int, games: int, seed: int):
    """Positions of random games (captures, ko, ladders and passes all come up), in order."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GameState.new_game(size)
        for _ in range(size * size * 2):
            yield state
            moves = state.legal_moves()
            if state.is_over() or not moves:
                break
            # A pass now and then: both colours' reads meet the same board, and two passes end it.
            state = state.apply_move(Move.pass_turn() if rng.random() < 0.03 else rng.choice(moves))


@pytest.mark.parametrize(("size", "games"), [(5, 40), (9, 25), pytest.param(13, 4, marks=pytest.mark.slow)])
def test_fast_planes_equal_full_analysis(size: int, games: int) -> None:
    fast, full = ZeroEncoder(size), ZeroEncoder(size)
    count = 0
    for state in _games(size, games, seed=size):
        a = np.zeros(fast.shape(), np.float32)
        b = np.zeros(full.shape(), np.float32)
        fast._encode_into(state, a)
        full._encode_with_ko(state, b)
        assert np.array_equal(a, b), f"move {state.move_number}"
        count += 1
    assert count > games * size * size // 2  # the games were long enough to reach fights
