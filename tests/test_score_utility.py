"""KataGo's score utility in both PUCT trees: with a score head, moves of equal win rate are
told apart by the points they gain (``SearchSettings.score_utility``)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_compiled_search import AuxProjectionEvaluator, EncodedAuxProjectionEvaluator, _random_game

from dlgo.search import PUCTSearch, SearchBudget, SearchSettings
from dlgo.search.compiled import CompiledPUCTSearch
from dlgo.search.tree import score_utility


def test_the_utility_is_zero_at_the_center_odd_and_saturates_at_its_factor() -> None:
    assert score_utility(3.0, 3.0, 0.3, 5.0) == 0.0
    assert score_utility(8.0, 3.0, 0.3, 5.0) == pytest.approx(0.3 * 0.5)  # one scale above: half
    assert score_utility(-2.0, 3.0, 0.3, 5.0) == pytest.approx(-0.15)
    assert score_utility(1e9, 0.0, 0.3, 5.0) == pytest.approx(0.3, abs=1e-6)
    assert score_utility(2.0, 0.0, 0.3, 5.0) < score_utility(4.0, 0.0, 0.3, 5.0)


def test_settings_reject_a_negative_factor_and_a_scale_that_is_not_positive() -> None:
    with pytest.raises(ValueError):
        SearchSettings(score_utility=-0.1)
    with pytest.raises(ValueError):
        SearchSettings(score_utility=0.3, score_scale=0.0)


def _flat(evaluator):
    """The evaluator with even priors and a value of 0 (a draw) everywhere: only the score head
    tells moves apart."""
    evaluator.value_weights = np.zeros_like(evaluator.value_weights)
    evaluator.policy_weights = np.zeros_like(evaluator.policy_weights)
    return evaluator


def _searches(settings: SearchSettings, size: int) -> list:
    return [
        PUCTSearch(_flat(AuxProjectionEvaluator(size)), settings),
        CompiledPUCTSearch(_flat(EncodedAuxProjectionEvaluator(size)), settings),
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_with_a_flat_value_the_search_plays_for_points(seed: int) -> None:
    """Even priors and every position a draw by value (but finished games): with the utility,
    the visits follow the points each move's subtree leads by, in both trees."""
    size = 5
    state = _random_game(size, 6, seed)[-1]
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=False, score_utility=0.5, score_scale=10.0)
    for search in _searches(settings, size):
        result = search.search(state, SearchBudget(max_visits=1500))
        # moves whose subtrees hold no finished game (those have real values) and enough visits
        candidates = [c for c in result.candidates if c.visits >= 30 and c.winrate == 0.5]
        leads = np.array([c.score_lead for c in candidates])  # the mover's
        visits = np.array([c.visits for c in candidates], np.float64)
        assert leads[np.argmax(visits)] >= leads.max() - 1.0, type(search).__name__
        assert np.corrcoef(visits, leads)[0, 1] > 0.8  # more points, more visits


@pytest.mark.parametrize("seed", [1, 2])
def test_both_trees_search_alike_with_the_utility(seed: int) -> None:
    """The same rule in both trees: the same visit counts and choices with tree reuse."""
    size = 5
    state = _random_game(size, 12, seed)[-1]
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=False, score_utility=0.3, score_scale=3.0)
    python = PUCTSearch(AuxProjectionEvaluator(size), settings)
    compiled = CompiledPUCTSearch(EncodedAuxProjectionEvaluator(size), settings)
    plain = CompiledPUCTSearch(EncodedAuxProjectionEvaluator(size), SearchSettings(batch_size=8, early_stop=False))
    changed = False
    for step in range(3):
        budget = SearchBudget(max_visits=1500 + 500 * step)
        python.search(state, budget)
        compiled.search(state, budget)
        plain.search(state, budget)
        a, b, c = python.statistics(), compiled.statistics(), plain.statistics()
        assert np.array_equal(a.visit_counts, b.visit_counts)
        changed |= not np.array_equal(b.visit_counts, c.visit_counts)
        state = state.apply_move(compiled.most_visited())
        if state.is_over():
            break
    assert changed  # the utility moved the visits


def test_self_play_ignores_the_utility() -> None:
    """Self-play keeps no scores, so it searches on win rate alone, as the loop trains."""
    size = 5
    state = _random_game(size, 8, 4)[-1]
    visits = []
    for factor in (0.0, 0.5):
        settings = SearchSettings(batch_size=8, early_stop=False, pipeline=False, score_utility=factor)
        search = CompiledPUCTSearch(EncodedAuxProjectionEvaluator(size), settings, np.random.default_rng(5))
        search.search(state, SearchBudget(max_visits=400), self_play=True)
        visits.append(search.statistics().visit_counts)
    assert np.array_equal(*visits)
    assert math.isfinite(float(visits[0].sum()))
