"""In-process matches of two search settings on one network (``dlgo.zero.search_ab``)."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import EncodedProjectionEvaluator

from dlgo.search import PUCTAgent
from dlgo.zero.search_ab import SearchPlayer, make_player, opening, parse_side, play_match


def test_sides_parse_into_settings_and_typos_are_errors():
    assert parse_side("c=1.5, visits=400,gumbel=1") == {"c": 1.5, "visits": 400, "gumbel": 1}
    assert parse_side("") == {}
    with pytest.raises(ValueError, match="cpuct"):
        parse_side("cpuct=1")
    with pytest.raises(ValueError):
        parse_side("visits=")


def test_batch_and_move_choice_reach_the_side_s_search():
    """``batch``, ``growth`` and ``lcb`` build the search they name on the shipped network."""
    import argparse
    from pathlib import Path

    model = Path(__file__).resolve().parent.parent / "weights" / "zero-9x9.keras"
    args = argparse.Namespace(model=str(model), size=9, seed=1, runtime="fp32", visits=32)
    side = make_player("a", parse_side("batch=4,growth=32,lcb=1"), args)
    assert side.agent.settings.batch_size == 4 and side.agent.settings.select_by == "lcb"
    assert side.agent.settings.batch_growth == 32
    assert side.visits == 32
    plain = make_player("b", parse_side("visits=16"), args)
    assert plain.agent.settings.batch_size == 8 and plain.agent.settings.select_by == "visits"
    assert plain.agent.settings.batch_growth == 4
    state = opening(plain.agent.evaluator, 9, 2, np.random.default_rng(1))
    assert state.is_valid_move(side.move(state, np.random.default_rng(2)))


def test_openings_are_legal_policy_moves_without_passes():
    evaluator = EncodedProjectionEvaluator(9)
    state = opening(evaluator, 9, 6, np.random.default_rng(1))
    assert state.move_number == 6
    assert len(dict(state.board.stones())) == 6


def test_a_match_swaps_colours_in_pairs_and_counts_every_game():
    def player(name: str, visits: int, gumbel: bool = False) -> SearchPlayer:
        agent = PUCTAgent(EncodedProjectionEvaluator(7), batch_size=4, seed=1, early_stop=False)
        return SearchPlayer(name, agent, visits, gumbel)

    a, b = player("a", 8), player("b", 8, gumbel=True)
    result = play_match(a, b, 5, np.random.default_rng(3), size=7, progress=False)
    assert result.games == 4 and len(result.results) == 4
    summary = result.summary()
    assert summary["a_wins"] + summary["b_wins"] + summary["draws"] == 4
    assert 0 <= summary["ci95"][0] <= summary["a_score"] <= summary["ci95"][1] <= 1
    # the same deterministic players from the same opening: the pair's games mirror each other
    same = play_match(player("x", 8), player("y", 8), 2, np.random.default_rng(3), size=7, progress=False)
    assert same.results[0] == -same.results[1] or same.results == [0, 0]


class _FlatNetwork:
    """A network that knows nothing: uniform policy, value 0 (the rollouts decide)."""

    def __init__(self, size: int) -> None:
        self.points = size * size

    def policy(self, states):
        return np.full((len(states), self.points + 1), 1.0 / (self.points + 1), np.float32)

    def value(self, states):
        return np.zeros(len(states), np.float32)

    def evaluate(self, states):
        return self.policy(states), self.value(states)


def test_rollout_side_mixes_one_rollout_into_each_leaf_value():
    from dlgo.goboard import GameState, Move
    from dlgo.gotypes import Point
    from dlgo.zero.search_ab import with_rollouts

    assert parse_side("rollout=0.25") == {"rollout": 0.25}
    plain = PUCTAgent(_FlatNetwork(5), rounds_per_move=16, batch_size=4, seed=1, early_stop=False)
    mixed = with_rollouts(plain, 0.5, seed=1)
    assert mixed.tree.__class__.__name__ == "PUCTSearch" and mixed.rounds_per_move == 16
    # Black to move, its wall across the middle, one White stone below it: Black wins almost
    # every rollout, so the leaf value tends to (1 - 0.5) * 0 + 0.5 * 1.
    state = GameState.new_game(5, komi=0.5)
    for col in range(1, 6):
        reply = Move.play(Point(1, 1)) if col == 1 else Move.pass_turn()
        state = state.apply_move(Move.play(Point(3, col))).apply_move(reply)
    values = [mixed.evaluator.evaluate([state])[1][0] for _ in range(20)]
    assert plain.evaluator.evaluate([state])[1][0] == 0.0
    assert set(values) <= {-0.5, 0.0, 0.5}  # one rollout a leaf, at half weight
    assert np.mean(values) > 0.35
