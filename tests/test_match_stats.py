"""dlgo.match.stats and dlgo.match.summary: intervals, Elo, p-values and the match summary."""

from __future__ import annotations

import pytest

from dlgo.match.record import GameRecord
from dlgo.match.stats import binomial_p_value, elo_from_rate, elo_interval, wilson_interval
from dlgo.match.summary import summarise, summary_text

# --- statistics --------------------------------------------------------------------------------


def test_wilson_interval_known_values():
    # Reference values: Wilson (1927) score interval, z = 1.96 (e.g. Newcombe 1998, table I).
    assert wilson_interval(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson_interval(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(4.5, 10)  # half points for draws
    assert lo < 0.45 < hi


def test_elo_known_values():
    assert elo_from_rate(0.5) == 0.0
    assert elo_from_rate(0.75) == pytest.approx(190.849, abs=1e-3)  # 400 log10(3)
    assert elo_from_rate(0.25) == pytest.approx(-190.849, abs=1e-3)
    assert elo_from_rate(10 / 11) == pytest.approx(400.0, abs=1e-9)  # 10:1 odds is 400 Elo
    assert elo_from_rate(1.0) == float("inf") and elo_from_rate(0.0) == float("-inf")
    lo, hi = elo_interval(8, 10)
    assert lo == pytest.approx(elo_from_rate(0.4902), abs=0.5) and hi == pytest.approx(elo_from_rate(0.9433), abs=0.5)


def test_binomial_p_value_known_values():
    assert binomial_p_value(8, 10) == pytest.approx(0.109375)  # 2 * 56 / 1024
    assert binomial_p_value(2, 10) == pytest.approx(0.109375)
    assert binomial_p_value(5, 10) == 1.0
    assert binomial_p_value(0, 5) == pytest.approx(0.0625)
    assert binomial_p_value(60, 100) == pytest.approx(0.056887, abs=1e-6)
    assert binomial_p_value(0, 0) == 1.0


def test_summary_counts_colours_faults_and_times():
    def game(index, black, white, winner, reason, fault=None, result=None):
        moves = [["B", "E5"], ["W", "C3"], ["B", "pass"], ["W", "pass"]]
        return GameRecord(index, black, white, 9, 7.5, moves=moves, times=[1.0, 0.5, 3.0, 0.5], winner=winner,
                          result=result or f"{winner}+1.5", reason=reason, fault=fault)  # fmt: skip

    records = [
        game(0, "me", "them", "B", "score"),
        game(1, "them", "me", "B", "crash", fault="W", result="B+F"),
        game(2, "me", "them", "B", "illegal", fault="W", result="B+F"),
        game(3, "them", "me", None, "score", result="0"),
    ]
    s = summarise(records, "me", "them", planned=6)
    assert (s["games"], s["engine_wins"], s["opponent_wins"], s["draws"]) == (4, 2, 1, 1)
    assert s["win_rate"] == 0.625 and s["black_wins"] == 3 and s["white_wins"] == 0
    assert s["p_value"] == pytest.approx(binomial_p_value(2, 3))
    me, them = s["players"]["me"], s["players"]["them"]
    assert me["as_black"] == {"games": 2, "wins": 2} and me["as_white"] == {"games": 2, "wins": 0}
    assert me["losses_by_fault"] == {"crash": 1} and them["losses_by_fault"] == {"illegal": 1}
    assert me["avg_move_seconds"] == pytest.approx((1.0 + 3.0 + 0.5 + 0.5 + 1.0 + 3.0 + 0.5 + 0.5) / 8)
    assert me["max_move_seconds"] == 3.0
    text = summary_text(s)
    assert "me 2 - 1 them, 1 draws" in text and "4 of 6 games" in text
