"""The soak benchmark's clocks and process figures (dlgo.bench.soak), and a short soak."""

from __future__ import annotations

import os

import pytest

from dlgo.bench.soak import ClockSpec, GameClock, process_stats, run_soak, summarise
from dlgo.match.players import find_gnugo


def test_byoyomi_clock_spends_main_time_then_periods() -> None:
    clock = GameClock(ClockSpec("byoyomi", 2, period=1, periods=3))
    clock.spend(1.5)
    assert clock.time_left() == (pytest.approx(0.5), 0)
    clock.spend(0.9)  # main time runs out; 0.4 s of a period is used, which a period absorbs
    assert clock.time_left() == (1, 3) and not clock.flagged
    clock.spend(2.5)  # two periods used up
    assert clock.time_left() == (1, 1) and not clock.flagged
    clock.spend(1.2)
    assert clock.flagged


def test_canadian_and_fischer_clocks() -> None:
    canadian = GameClock(ClockSpec("canadian", 0, period=5, stones=2))
    canadian.spend(2)
    assert canadian.time_left() == (3, 1)
    canadian.spend(2.5)  # the period's stones are played: a fresh period
    assert canadian.time_left() == (5, 2) and not canadian.flagged
    canadian.spend(6)
    assert canadian.flagged
    fischer = GameClock(ClockSpec("fischer", 5, increment=2, cap=6))
    fischer.spend(0.5)
    assert fischer.time_left() == (6, 0)  # 4.5 + 2, capped at 6
    fischer.spend(7)
    assert fischer.flagged
    assert ClockSpec("fischer", 5, increment=0.5, cap=10).command() == "kata-time_settings fischer-capped 5 0.5 10 -1"


def test_process_stats_reads_this_process() -> None:
    stats = process_stats(os.getpid())
    assert stats.rss_mb > 10 and stats.fds >= 3 and stats.threads >= 1 and stats.children >= 0


@pytest.mark.gnugo
@pytest.mark.skipif(find_gnugo() is None, reason="GNU Go is not installed")
def test_a_short_soak_reports_every_game(tmp_path) -> None:
    reports = run_soak(2, 0, "live", tmp_path, "configs/engine/mcts.toml", ["mcts.rounds=200"], gnugo_level=0)
    assert [r.index for r in reports] == [1, 2]
    assert all(r.result and not r.errors for r in reports)
    summary = summarise(reports)
    assert summary["games"] == 2 and summary["time_losses"] == 0 and summary["children"] == [0]
    assert summary["by_size"]["9"]["games"] == 2
    assert len((tmp_path / "games.jsonl").read_text().splitlines()) == 2
