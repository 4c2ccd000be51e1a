"""In-process matches of two search settings on one network (``dlgo.zero.search_ab``)."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import EncodedProjectionEvaluator

from dlgo.search import PUCTAgent
from dlgo.zero.search_ab import SearchPlayer, opening, parse_side, play_match


def test_sides_parse_into_settings_and_typos_are_errors():
    assert parse_side("c=1.5, visits=400,gumbel=1") == {"c": 1.5, "visits": 400, "gumbel": 1}
    assert parse_side("") == {}
    with pytest.raises(ValueError, match="cpuct"):
        parse_side("cpuct=1")
    with pytest.raises(ValueError):
        parse_side("visits=")


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
