"""dlgo.match.referee, its clock (dlgo.match.referee_clock) and GNU Go's count
(dlgo.match.gnugo_count): misbehaving engines lose with a reason, clocks run out."""

from __future__ import annotations

import pytest
from conftest import QUICK, fake_player

from dlgo.match import (
    ClockSettings,
    GameRules,
    command_player,
    play_game,
)
from dlgo.match.gnugo_count import GnuGoScorer
from dlgo.match.players import find_gnugo, gnugo_player
from dlgo.match.referee_clock import RefereeClock

needs_gnugo = pytest.mark.skipif(find_gnugo() is None, reason="GNU Go not installed (apt-get install gnugo)")


# --- the referee's clock -----------------------------------------------------------------------


def test_canadian_clock():
    clock = RefereeClock(ClockSettings(10, 5, 2))
    assert clock.time_left() == (10, 0)
    assert clock.spend(8)
    assert clock.time_left() == (2, 0)
    assert clock.max_thinking_time() == 7
    assert clock.spend(4)  # 2 s of main time, then 2 s of the first period: one stone played
    assert clock.time_left() == (3, 1)
    assert clock.spend(3)  # the last stone of the period: a fresh period
    assert clock.time_left() == (5, 2)
    assert not clock.spend(5.5)
    assert clock.flagged


def test_absolute_and_per_move_clocks():
    absolute = RefereeClock(ClockSettings(3))
    assert absolute.spend(2) and not absolute.spend(1.5)
    per_move = RefereeClock(ClockSettings(0, 2, 1))
    assert per_move.time_left() == (2, 1)
    assert all(per_move.spend(1.9) for _ in range(5))
    assert not per_move.spend(2.1)
    assert ClockSettings(0, 2, 1).gtp() == "time_settings 0 2 1"


def test_japanese_byo_yomi_clock():
    settings = ClockSettings(10, 5, periods=3)
    assert settings.gtp() == "kgs-time_settings byoyomi 10 5 3"
    assert settings.gtp_fallback() == "time_settings 10 5 1"
    assert "3 x 5 s" in settings.describe() and settings.to_json()["periods"] == 3
    clock = RefereeClock(settings)
    assert clock.time_left() == (10, 0)
    assert clock.max_thinking_time() == 10 + 3 * 5
    assert clock.spend(12)  # 10 s of main time, then 2 s of a period: the period starts again
    assert clock.time_left() == (5, 3)
    assert all(clock.spend(4.9) for _ in range(20))  # within the period, move after move
    assert clock.spend(7)  # ran past one period: two left
    assert clock.time_left() == (5, 2) and clock.max_thinking_time() == 10
    assert clock.spend(10)  # ended exactly at the end of its second period: one left
    assert clock.time_left() == (5, 1)
    assert not clock.spend(5.5) and clock.flagged
    with pytest.raises(ValueError):
        ClockSettings(10, 5, stones=2, periods=3)
    with pytest.raises(ValueError):
        ClockSettings(10, 0, periods=3)


def test_japanese_byo_yomi_in_a_game():
    """Each move of 0.05 s fits its 1 s period; a player announced kgs-time_settings plays on,
    and one who runs past its periods loses on time."""
    rules = GameRules(size=9, clock=ClockSettings(0, 1, periods=2), lag_allowance=0.05)
    record = play_game(fake_player("pass", "fast"), fake_player("slow:0.05", "slow"), rules)
    assert (record.reason, record.result) == ("score", "W+7.5")
    assert "byo-yomi" in record.time_control
    record = play_game(fake_player("pass", "fast"), fake_player("slow:2.5", "slow"), rules)
    assert (record.winner, record.reason, record.fault) == ("B", "time", "W")


# --- misbehaving engines -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "mode, reason",
    [
        ("crash", "crash"),
        ("hang", "timeout"),
        ("nonsense", "protocol"),
        ("badmove", "protocol"),
        ("illegal", "illegal"),
        ("refuse", "refused"),
        ("rejectplay", "refused"),
    ],
)
def test_misbehaving_player_loses_with_reason(mode, reason, tmp_path):
    record = play_game(fake_player("pass", "good"), fake_player(mode), QUICK, log_dir=tmp_path)
    assert (record.winner, record.reason, record.fault, record.result) == ("B", reason, "W", "B+F")
    assert record.detail
    if mode == "illegal":
        assert "off the 9x9 board" in record.detail


def test_missing_engine_is_a_crash():
    record = play_game(command_player(["/nonexistent/engine"], "ghost"), fake_player("pass"), QUICK)
    assert (record.winner, record.reason, record.fault) == ("W", "crash", "B")
    assert "cannot start" in record.detail


@needs_gnugo
def test_move_on_an_occupied_point_is_illegal():
    record = play_game(gnugo_player(1, "gnugo"), fake_player("illegal"), QUICK)
    assert (record.winner, record.reason) == ("B", "illegal")
    assert "occupied" in record.detail


def test_overrunning_the_clock_loses_on_time():
    rules = GameRules(size=9, clock=ClockSettings(0.3), lag_allowance=0.05)
    record = play_game(fake_player("pass", "fast"), fake_player("slow:1.0", "slow"), rules)
    assert (record.winner, record.reason, record.fault, record.result) == ("B", "time", "W", "B+T")
    rules = GameRules(size=9, clock=ClockSettings(5))
    record = play_game(fake_player("pass", "fast"), fake_player("slow:0.05", "slow"), rules)
    assert (record.reason, record.result) == ("score", "W+7.5")  # two passes, komi


@needs_gnugo
def test_gnugo_scorer_counts_a_replayed_game():
    # Black walls column E, White column F: 45 points to 36, komi 7.5, no dame.
    moves = [[c, f"{col}{row}"] for row in range(1, 10) for c, col in (("B", "E"), ("W", "F"))]
    moves += [["B", "pass"], ["W", "pass"]]
    with GnuGoScorer() as scorer:
        assert scorer.score(9, 7.5, [], moves) == "B+1.5"
        assert scorer.score(9, 10.5, [], moves) == "W+1.5"
