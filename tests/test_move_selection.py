"""Which root move the PUCT search plays (``SearchSettings.select_by``): the most visited, or the
best lower confidence bound of the win rate among well-visited moves (Leela Zero, KataGo)."""

from __future__ import annotations

import numpy as np
import pytest
from test_compiled_search import EncodedProjectionEvaluator, ProjectionEvaluator, _random_game

from dlgo.play.config import ConfigError, load_config
from dlgo.search import PUCTSearch, SearchBudget, SearchSettings
from dlgo.search.base import LCB_MIN_VISITS_FRACTION, lower_confidence_bound, root_order
from dlgo.search.compiled import CompiledPUCTSearch


def _q(winrates: list[float]) -> np.ndarray:
    return np.array(winrates) * 2.0 - 1.0


def test_visits_order_is_the_books() -> None:
    visits = np.array([400.0, 4000.0, 0.0, 100.0])
    assert root_order(visits, _q([0.9, 0.5, 0.99, 0.2])) == [1, 0, 3]


def test_lcb_plays_a_well_visited_move_whose_bound_is_higher() -> None:
    """400 visits at 60% bound higher than 4,000 at 55%: that move is played."""
    visits = np.array([4000.0, 400.0, 50.0])
    q = _q([0.55, 0.60, 0.95])
    order = root_order(visits, q, "lcb")
    assert order[0] == 1
    assert lower_confidence_bound(0.6 * 400, 400) > lower_confidence_bound(0.55 * 4000, 4000)
    # 50 visits are under a tenth of the top: however good its win rate, it comes after
    assert order == [1, 0, 2]


def test_lcb_keeps_the_most_visited_move_when_the_other_bound_is_lower() -> None:
    visits = np.array([4000.0, 400.0])
    assert root_order(visits, _q([0.55, 0.56]), "lcb") == [0, 1]


def test_the_visits_floor_is_a_tenth_of_the_top() -> None:
    top = 1000.0
    just_under = top * LCB_MIN_VISITS_FRACTION - 1
    visits = np.array([top, just_under, top * LCB_MIN_VISITS_FRACTION])
    order = root_order(visits, _q([0.5, 0.99, 0.95]), "lcb")
    assert order[0] == 2 and order[-1] == 1


def test_settings_reject_an_unknown_rule() -> None:
    with pytest.raises(ValueError, match="select_by"):
        SearchSettings(select_by="winrate")


def test_the_config_key_is_read_and_a_bad_value_is_named() -> None:
    assert load_config(None, ["zero.select_by=lcb"]).get("zero.select_by") == "lcb"
    assert load_config(None).get("zero.select_by") == "visits"
    with pytest.raises(ConfigError, match="select_by"):
        load_config(None, ["zero.select_by=best"])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_both_trees_order_their_candidates_alike(seed: int) -> None:
    """The same search in both trees; with "lcb" each puts the same move first, the one with the
    best bound among moves with a tenth of the top visits."""
    size = 5
    state = _random_game(size, 8, seed)[-1]
    settings = SearchSettings(batch_size=8, early_stop=False, pipeline=False, select_by="lcb")
    results = [
        PUCTSearch(ProjectionEvaluator(size), settings).search(state, SearchBudget(max_visits=800)),
        CompiledPUCTSearch(EncodedProjectionEvaluator(size), settings).search(state, SearchBudget(max_visits=800)),
    ]
    assert [c.move for c in results[0].candidates] == [c.move for c in results[1].candidates]
    for result in results:
        top = max(c.visits for c in result.candidates)
        eligible = [c for c in result.candidates if c.visits >= LCB_MIN_VISITS_FRACTION * top]
        assert result.best.lcb == max(c.lcb for c in eligible)
