"""Gumbel root search with sequential halving (``dlgo.search.gumbel``) on the compiled tree, and
self-play with ``root_search = "gumbel"``."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import EncodedProjectionEvaluator

from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.search import PUCTAgent, SearchBudget
from dlgo.search.gumbel import (
    completed_q,
    fitted_considered,
    gumbel_search,
    halving_schedule,
    improved_policy,
    sigma,
)
from dlgo.zero.selfplay import SelfPlaySettings, play_game


def test_halving_schedule_halves_and_spends_the_budget():
    assert halving_schedule(256, 16) == [(16, 4), (8, 8), (4, 16), (2, 32)]
    assert halving_schedule(5, 1) == [(1, 5)]
    for visits in (8, 16, 32, 64, 200):
        m = fitted_considered(visits, 16)
        total = sum(count * each for count, each in halving_schedule(visits, m))
        assert visits * 0.9 <= total <= visits, (visits, m, total)
    assert fitted_considered(16, 16) < 16 and fitted_considered(256, 16) == 16


def test_completed_q_fills_unvisited_moves_with_the_value_mix():
    n = np.array([4.0, 0.0, 2.0])
    q = np.array([0.5, 0.0, -0.1])
    priors = np.array([0.5, 0.3, 0.2])
    mixed = (0.2 + 6 * (0.5 * 0.5 + 0.2 * -0.1) / 0.7) / 7
    assert completed_q(n, q, priors, 0.2) == pytest.approx([0.5, mixed, -0.1])
    assert completed_q(np.zeros(3), q, priors, 0.2) == pytest.approx([0.2] * 3)


def test_improved_policy_is_the_prior_when_every_q_is_equal_and_moves_towards_better_q():
    logits = np.log(np.array([0.6, 0.3, 0.1]))
    n = np.array([3.0, 3.0, 3.0])
    flat = improved_policy(logits, n, np.full(3, 0.1), np.exp(logits), 0.1)
    assert flat == pytest.approx([0.6, 0.3, 0.1])
    better = improved_policy(logits, n, np.array([-0.5, 0.0, 0.5]), np.exp(logits), 0.0)
    assert better.sum() == pytest.approx(1.0)
    assert better[2] > 0.1 and better[0] < 0.6
    assert sigma(np.array([0.0, 1.0]), np.array([10.0, 0.0]))[1] == pytest.approx((50 + 10) * 0.1)


def _midgame(size: int) -> GameState:
    state = GameState.new_game(size, komi=7.0)
    for r, c in [(3, 3), (5, 5), (3, 5), (5, 3), (4, 4)]:
        state = state.apply_move(Move.play(Point(r, c)))
    return state


@pytest.mark.parametrize("visits", [8, 32, 64])
def test_gumbel_search_spends_its_schedule_on_the_considered_moves_only(visits):
    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=3, self_play=True)
    state = _midgame(9)
    outcome = gumbel_search(agent.tree, state, visits, considered=16, rng=np.random.default_rng(5))
    m = fitted_considered(visits, 16)
    schedule = halving_schedule(visits, m)
    counts = outcome.statistics.visit_counts
    assert outcome.statistics.new_visits == sum(c * e for c, e in schedule)
    assert np.count_nonzero(counts) == m
    # the last round's moves have the most visits, and the move played is one of them
    top = sorted(counts[counts > 0])[-1]
    played = (outcome.move.point.row - 1) * 9 + outcome.move.point.col - 1
    assert counts[played] == top
    assert state.is_valid_move(outcome.move)
    target = outcome.policy_target
    assert target.sum() == pytest.approx(1.0, abs=1e-5)
    assert (target > 0).sum() > m  # every legal move keeps some of the improved policy
    assert agent.tree.last_statistics.training_target() is target
    assert len(agent.tree.root_quota) == 0  # the tree searches by PUCT again afterwards


def test_gumbel_search_reuses_the_tree_and_counts_only_new_visits():
    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=3, self_play=True)
    state = _midgame(9)
    agent.tree.search(state, SearchBudget(max_visits=100), self_play=True)
    before = agent.tree.last_statistics.visit_counts.sum()
    outcome = gumbel_search(agent.tree, state, 32, rng=np.random.default_rng(1))
    after = outcome.statistics.visit_counts.sum()
    assert after - before == outcome.statistics.new_visits


def test_gumbel_search_needs_the_compiled_tree():
    agent = PUCTAgent(EncodedProjectionEvaluator(9), seed=3, tree="python")
    with pytest.raises(TypeError, match="compiled tree"):
        gumbel_search(agent.tree, _midgame(9), 16)


def test_self_play_with_gumbel_full_searches_records_improved_policies():
    agent = PUCTAgent(EncodedProjectionEvaluator(9), batch_size=8, seed=2, self_play=True)
    settings = SelfPlaySettings(
        board_size=9, full_visits=24, fast_visits=4, full_search_fraction=0.5, max_moves=40, root_search="gumbel"
    )
    game = play_game(agent, settings, np.random.default_rng(4), resign_allowed=False)
    policies = game.experience.policies
    assert len(policies) == game.full_searches > 5
    assert np.allclose(policies.sum(axis=1), 1.0, atol=1e-4)
    # improved policies spread over the legal moves, unlike visit counts of a 24-visit search
    assert min(np.count_nonzero(p > 1e-6) for p in policies) > 20
    with pytest.raises(ValueError, match="root_search"):
        SelfPlaySettings(root_search="alphago")
