"""PUCT search (book 14.2) pinned: the speed work on the search, the encoder and the evaluator must
not change which positions are visited how often.

A deterministic evaluator built on the real zero encoder (a fixed random projection of its
planes: liberties, ko, ladders and history all move the answer) searches a fixed position with
a fixed budget; the root visit counts were recorded with the search as it was before that work
(pure Python tree, per-leaf encoding) and must come out the same, with and without pipelining.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from dlgo.encoders import get_encoder_by_name
from dlgo.goboard import GameState
from dlgo.search import PUCTSearch, SearchBudget, SearchSettings


class ProjectionEvaluator:
    """Policy = softmax of a fixed projection of the encoded planes; value = tanh of another."""

    def __init__(self, size: int) -> None:
        self.encoder = get_encoder_by_name("zero", size)
        rng = np.random.default_rng(7)
        features = self.encoder.num_planes * size * size
        self.policy_weights = rng.normal(size=(features, size * size + 1)) * 0.3
        self.value_weights = rng.normal(size=features) * 0.1

    def evaluate(self, states):
        x = self.encoder.encode_batch(list(states)).reshape(len(states), -1).astype(np.float64)
        logits = x @ self.policy_weights
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True), np.tanh(x @ self.value_weights)


def _midgame(size: int, seed: int) -> GameState:
    rng = random.Random(seed)
    state = GameState.new_game(size)
    for _ in range(size * size // 3):
        state = state.apply_move(rng.choice([m for m in state.legal_moves() if m.is_play]))
    return state


# Root visit counts by move index (400 visits, batches of 8), recorded before the speed work.
PINNED = {
    (False, 9): {18: 36, 28: 42, 32: 2, 48: 2, 53: 2, 55: 96, 59: 85, 67: 13, 68: 59, 74: 2, 75: 60},
    (False, 7): {
        2: 10,
        6: 6,
        7: 6,
        10: 2,
        13: 24,
        18: 4,
        21: 19,
        23: 2,
        24: 151,
        26: 4,
        28: 2,
        31: 37,
        34: 9,
        37: 10,
        38: 42,
        43: 3,
        45: 12,
        46: 28,
        47: 22,
        49: 6,
    },  # fmt: skip
    (True, 9): {18: 29, 28: 39, 32: 2, 48: 2, 53: 2, 55: 99, 59: 91, 67: 17, 68: 61, 74: 2, 75: 55},
    (True, 7): {
        2: 12,
        6: 7,
        7: 6,
        8: 2,
        10: 2,
        13: 25,
        18: 6,
        21: 15,
        23: 2,
        24: 145,
        26: 8,
        28: 6,
        31: 26,
        34: 13,
        35: 2,
        37: 13,
        38: 40,
        43: 6,
        45: 14,
        46: 19,
        47: 24,
        49: 6,
    },  # fmt: skip
}


@pytest.mark.parametrize("pipeline", [False, True])
@pytest.mark.parametrize("size", [9, 7])
def test_fixed_search_visits_as_pinned(pipeline: bool, size: int) -> None:
    state = _midgame(9, 3) if size == 9 else GameState.new_game(7)
    search = PUCTSearch(ProjectionEvaluator(size), SearchSettings(batch_size=8, early_stop=False, pipeline=pipeline))
    search.search(state, SearchBudget(max_visits=400))
    counts = search.statistics().visit_counts
    assert {int(i): int(counts[i]) for i in np.flatnonzero(counts)} == PINNED[(pipeline, size)]
