"""Variety in the opening (dlgo.search.variety): drawn only among near-best moves, only over the
opening, never when off; and the engine, playing itself, no longer repeats one game."""

from __future__ import annotations

import random
from collections import Counter

from gtp_client import EngineProcess

from dlgo.goboard import Move
from dlgo.gotypes import Point
from dlgo.search.base import CandidateInfo, SearchResult
from dlgo.search.variety import VarietySettings, draw_probabilities, near_best_candidates, vary_move


def _result(*cands: tuple[Move, int, float]) -> SearchResult:
    infos = [CandidateInfo(move, visits, winrate) for move, visits, winrate in cands]
    return SearchResult(infos, sum(c.visits for c in infos), infos[0].winrate, 0.1)


A, B, C, D = (Move.play(Point(r, c)) for r, c in ((3, 3), (3, 4), (4, 4), (5, 5)))
RESULT = _result((A, 500, 0.60), (B, 300, 0.595), (C, 20, 0.61), (D, 200, 0.50), (Move.pass_turn(), 300, 0.6))
ON = VarietySettings(opening_moves=10, temperature=1.0)


def test_only_near_best_moves_with_enough_visits_are_candidates() -> None:
    # C: too few visits (20 < 10% of 500); D: 0.10 below the best; the pass: never.
    assert [c.move for c in near_best_candidates(RESULT, ON)] == [A, B]


def test_draws_in_proportion_to_visits_over_the_opening_only() -> None:
    rng = random.Random(1)
    drawn = Counter(vary_move(RESULT, ON, 1, rng).move for _ in range(4000))
    assert set(drawn) == {A, B}
    assert abs(drawn[B] / 4000 - 300 / 800) < 0.03  # temperature 1: in proportion to visits
    assert vary_move(RESULT, ON, 11, rng) is None  # past the opening
    assert vary_move(RESULT, VarietySettings(), 1, rng) is None  # off by default
    cold = VarietySettings(opening_moves=10, temperature=0.05)
    assert all(vary_move(RESULT, cold, 1, rng).move == A for _ in range(200))  # near 0: the best
    assert vary_move(_result((Move.pass_turn(), 100, 0.5), (A, 90, 0.5)), ON, 1, rng) is None


def test_draw_probabilities_are_the_draws_weights() -> None:
    assert [(c.move, round(p, 3)) for c, p in draw_probabilities(RESULT, ON)] == [(A, 0.625), (B, 0.375)]
    half = VarietySettings(opening_moves=10, temperature=0.5)  # weights (visits / best's) ** 2
    assert [round(p, 3) for _, p in draw_probabilities(RESULT, half)] == [round(1 / 1.36, 3), round(0.36 / 1.36, 3)]
    tight = VarietySettings(opening_moves=10, temperature=1.0, max_winrate_loss=0.001)
    assert [(c.move, p) for c, p in draw_probabilities(RESULT, tight)] == [(A, 1.0)]
    assert draw_probabilities(SearchResult([], 0, 0.5, 0.0), ON) == []


def test_the_engine_playing_itself_varies_its_games_only_when_asked() -> None:
    """Before, one engine process at fixed visits played the same game 100 times out of 100."""

    def openings(*sets: str) -> set[tuple[str, ...]]:
        seen = set()
        with EngineProcess("random.seed=1", *sets, config="configs/engine/zero-9x9.toml") as eng:
            eng.ok("boardsize 9", timeout=180)
            for _ in range(6):
                eng.ok("clear_board")
                seen.add(tuple(eng.ok(f"genmove {c}", timeout=120) for c in "bwbw"))
        return seen

    fixed = ("zero.rounds=48", "time.default_seconds=0", "zero.seed=3", "zero.threads=1")
    assert len(openings(*fixed)) == 1
    varied = openings(*fixed, "variety.opening_moves=4", "variety.temperature=2", "variety.max_winrate_loss=0.2")
    assert len(varied) >= 3
