"""Time control: the per-move budget, the engine's own clock keeping, and real games on short
simulated clocks (absolute 30 s for a whole 9x9 game, byo-yomi 5 s periods) that the engine
must not lose on time, start-up included."""

from __future__ import annotations

import dataclasses
import time

import pytest
from gtp_client import EngineProcess, InProcessEngine, SimClock, play_against_gnugo

from dlgo.gotypes import Player
from dlgo.play.clock import (
    BudgetSettings,
    Clock,
    PlayerClock,
    TimeControl,
    game_phase_weight,
    may_run_on,
    move_budget,
    move_limit,
    time_banks,
)
from gtp_engine.protocol import GtpError
from gtp_engine.time_settings import parse_gtp_time_settings, parse_time_settings

S = BudgetSettings(lag_buffer=1.0, min_moves_left=10, moves_left_factor=0.4, minimum=0.02, max_seconds=0.0)


def test_time_settings_mapping() -> None:
    assert TimeControl.from_gtp(0, 1, 0).system == "none"
    assert TimeControl.from_gtp(0, 0, 0).system == "none"
    assert TimeControl.from_gtp(300, 0, 0) == TimeControl("absolute", 300)
    assert TimeControl.from_gtp(600, 30, 5) == TimeControl("canadian", 600, 30, 5)
    with pytest.raises(ValueError):
        TimeControl("hourglass")


def test_settings_commands_parsed() -> None:
    """The arguments of time_settings, kgs-time_settings and kata-time_settings."""
    assert parse_gtp_time_settings(("600", "30", "5")) == TimeControl("canadian", 600, 30, 5)
    assert parse_gtp_time_settings(("0", "10", "1")) == TimeControl("canadian", 0, 10, 1)  # gtp2ogs "simple"

    def kgs(*args: str) -> TimeControl:
        return parse_time_settings(args, kata=False)

    def kata(*args: str) -> TimeControl:
        return parse_time_settings(args, kata=True)

    assert kgs("none") == TimeControl("none")
    assert kgs("absolute", "600") == TimeControl("absolute", 600)
    assert kgs("absolute", "0") == TimeControl("none")
    assert kgs("Canadian", "600", "300", "25") == TimeControl("canadian", 600, 300, 25)
    assert kgs("byoyomi", "600", "30", "5") == TimeControl("byoyomi", 600, 30, 5)
    assert kgs("byo-yomi", "60", "0", "5") == TimeControl("absolute", 60)  # empty periods: main time alone
    assert kata("fischer", "300", "5") == TimeControl("fischer", 300, 5)
    assert kata("fischer-capped", "600", "10", "900", "-1") == TimeControl("fischer", 600, 10, 0, 900, None)
    for bad in (
        ("600", "30"),
        ("a", "0", "0"),
        ("-5", "0", "0"),
    ):
        with pytest.raises(GtpError, match="syntax error"):
            parse_gtp_time_settings(bad)
    for bad in ((), ("fischer", "300", "5"), ("byoyomi", "1", "2"), ("sudden", "5")):
        with pytest.raises(GtpError, match="syntax error"):
            kgs(*bad)
    for bad in (("fischer", "300"), ("fischer-capped", "-1", "5", "0", "0")):
        with pytest.raises(GtpError, match="syntax error"):
            kata(*bad)


def test_no_clock_uses_config_default() -> None:
    none = TimeControl()
    assert move_budget(none, PlayerClock(), BudgetSettings(default_seconds=5.0), 81, 81) == 5.0
    assert move_budget(none, PlayerClock(), BudgetSettings(default_seconds=0.0), 81, 81) is None
    assert move_budget(none, PlayerClock(), BudgetSettings(default_seconds=5.0, max_seconds=2.0), 81, 81) == 2.0
    assert move_budget(none, PlayerClock(), BudgetSettings(default_seconds=0.0, max_seconds=2.0), 81, 81) == 2.0


def test_phase_weight_peaks_in_the_middle_game() -> None:
    assert game_phase_weight(361, 361) == pytest.approx(0.7)
    assert game_phase_weight(235, 361) > 1.4
    assert game_phase_weight(50, 361) == 1.0


def test_absolute_budget() -> None:
    c = TimeControl("absolute", 300)
    b = move_budget(c, PlayerClock(300), S, 200, 361)
    assert 1.0 < b < 10.0
    assert move_budget(c, PlayerClock(30), S, 200, 361) < b
    assert move_budget(c, PlayerClock(0.9), S, 200, 361) == S.minimum  # inside the lag buffer
    assert move_budget(c, PlayerClock(300), S, 200, 361, opponent_passed=True) < b * 0.5
    assert move_budget(c, PlayerClock(300), S, 200, 361, clear_result=True) < b
    capped = BudgetSettings(max_seconds=0.5)
    assert move_budget(c, PlayerClock(300), capped, 200, 361) == 0.5


def test_overtime_budgets() -> None:
    byo = TimeControl("byoyomi", 0, 5, 3)
    assert move_budget(byo, PlayerClock(5, 3), S, 40, 81) == pytest.approx(0.9 * 4)
    assert move_budget(byo, PlayerClock(0.5, 1), S, 40, 81) == S.minimum
    main = move_budget(byo, PlayerClock(60, 0), S, 40, 81)
    assert main > 2.0 and main < 60
    canadian = TimeControl("canadian", 0, 60, 10)
    assert move_budget(canadian, PlayerClock(60, 10), S, 40, 81) <= (60 - 1) / 10
    assert move_budget(canadian, PlayerClock(9, 1), S, 40, 81) == pytest.approx(8.0)
    simple = TimeControl.from_gtp(0, 10, 1)
    assert move_budget(simple, PlayerClock(10, 1), S, 40, 81) == pytest.approx(9.0)


def test_short_periods_are_used_not_thrown_away() -> None:
    """A fixed 1 s margin used to come off every period: time_settings 0 1 1 gave 0.02 s of
    search, 0 2 1 under 1 s. With the default (measured) lag buffer a period is mostly searched,
    the first move of a game included (in overtime the period comes back: no saving for later)."""
    from dlgo.play.config import load_config

    defaults = BudgetSettings()
    assert defaults.lag_buffer == load_config(None).get("time.lag_buffer") < 0.5
    for period in (1, 2, 5):
        simple = TimeControl.from_gtp(0, period, 1)
        assert move_budget(simple, PlayerClock(period, 1), defaults, 81, 81) >= 0.85 * period
        byo = TimeControl("byoyomi", 0, period, 3)
        assert move_budget(byo, PlayerClock(period, 3), defaults, 81, 81) >= 0.8 * period
        # Reasons to hurry still count in overtime.
        assert move_budget(byo, PlayerClock(period, 3), defaults, 40, 81, opponent_passed=True) < 0.3 * period


def test_move_limit_is_the_clock_less_the_lag_buffer() -> None:
    assert move_limit(TimeControl(), PlayerClock(), S) is None
    assert move_limit(TimeControl("absolute", 30), PlayerClock(12), S) == 11
    assert move_limit(TimeControl("byoyomi", 10, 5, 3), PlayerClock(2, 0), S) == 6  # main, then a period
    assert move_limit(TimeControl("byoyomi", 10, 5, 3), PlayerClock(4, 2), S) == 3  # the current period
    assert move_limit(TimeControl.from_gtp(0, 2, 1), PlayerClock(2, 1), S) == 1
    assert move_limit(TimeControl("fischer", 60, 5, 0, None, 3.0), PlayerClock(50), S) == 2


def test_fischer_budgets() -> None:
    f = TimeControl("fischer", 60, 5)
    b = move_budget(f, PlayerClock(60), S, 60, 81)
    assert 4.0 < b < 59
    assert move_budget(f, PlayerClock(3), S, 60, 81) <= 2.0  # never more than the clock minus lag
    capped = TimeControl("fischer", 60, 5, 0, main_cap=60)
    assert move_budget(capped, PlayerClock(60), S, 10, 81) >= 5.0  # the increment would be lost
    per_move = TimeControl("fischer", 600, 5, 0, None, 3.0)
    assert move_budget(per_move, PlayerClock(600), S, 60, 81) <= 2.0


def test_time_banks_only_where_a_move_can_save_it_for_later() -> None:
    """Searches stop early (the best move cannot be overtaken) only where the time saved is kept."""
    assert not time_banks(TimeControl.from_gtp(0, 1, 0), PlayerClock())  # no clock: time per move
    assert time_banks(TimeControl("absolute", 300), PlayerClock(200, 0))
    assert time_banks(TimeControl("fischer", 60, 5), PlayerClock(40, 0))
    byoyomi = TimeControl("byoyomi", 60, 10, 3)
    assert time_banks(byoyomi, PlayerClock(50, 0)) and not time_banks(byoyomi, PlayerClock(10, 2))
    canadian = TimeControl.from_gtp(0, 30, 5)
    assert time_banks(canadian, PlayerClock(30, 5)) and not time_banks(canadian, PlayerClock(8, 1))
    assert not time_banks(TimeControl.from_gtp(0, 2, 1), PlayerClock(2, 1))  # simple: one stone a period


def test_an_unsure_move_may_think_longer_only_in_main_time() -> None:
    """``time.unsure_factor``: a move whose best choice is close may run on to this many times its
    share, within the same cap, and only where unused time would be banked."""
    unsure = dataclasses.replace(S, unsure_factor=2.5)
    absolute = TimeControl("absolute", 300)
    share = move_budget(absolute, PlayerClock(200, 0), unsure, 60, 81)
    assert move_budget(absolute, PlayerClock(200, 0), unsure, 60, 81, factor=2.5) == pytest.approx(2.5 * share)
    assert (
        move_budget(absolute, PlayerClock(2.5, 0), unsure, 60, 81, factor=2.5) <= 1.5
    )  # never past the clock less lag
    capped = dataclasses.replace(unsure, max_seconds=1.0)
    assert move_budget(absolute, PlayerClock(200, 0), capped, 60, 81, factor=2.5) == 1.0
    assert may_run_on(absolute, PlayerClock(200, 0), unsure)
    assert not may_run_on(absolute, PlayerClock(200, 0), S)  # factor 1: off
    byoyomi = TimeControl("byoyomi", 60, 10, 3)
    assert may_run_on(byoyomi, PlayerClock(50, 0), unsure)
    assert not may_run_on(byoyomi, PlayerClock(10, 2), unsure)  # a period: its share is whole
    assert not may_run_on(TimeControl.from_gtp(0, 1, 0), PlayerClock(), unsure)  # no clock


def test_the_engine_tells_its_search_whether_time_banks() -> None:
    eng = InProcessEngine("engine.preload=false", config="configs/engine/random.toml")
    banks = []
    for settings in ("0 5 1", "300 5 1", "0 60 10"):
        if settings != "0 5 1":
            eng.ok(f"time_settings {settings}")
        banks.append(eng.engine.session.plan_move(Player.black, eng.engine.began).budget.banks_time)
    assert banks == [False, True, True]  # no clock yet (time per move), main time, 10 stones a period


def test_the_engine_lets_an_unsure_move_run_on_in_main_time_only() -> None:
    eng = InProcessEngine("engine.preload=false", "time.unsure_factor=2", config="configs/engine/random.toml")
    eng.ok("time_settings 300 10 1")
    plan = eng.engine.session.plan_move(Player.black, time.monotonic())
    assert plan.budget.unsure_deadline is not None and plan.budget.deadline is not None
    assert plan.budget.unsure_deadline > plan.budget.deadline and plan.unsure_deadline <= plan.started + 290
    eng.ok("time_left black 5 1")  # in the period: its share is whole already
    assert eng.engine.session.plan_move(Player.black, time.monotonic()).budget.unsure_deadline is None
    off = InProcessEngine("engine.preload=false", config="configs/engine/random.toml")
    off.ok("time_settings 300 10 1")
    assert off.engine.session.plan_move(Player.black, time.monotonic()).budget.unsure_deadline is None


def test_clock_keeping() -> None:
    clock = Clock(TimeControl("byoyomi", 10, 5, 2))
    clock.spend(Player.black, 4)
    assert clock.clocks[Player.black] == PlayerClock(6, 0)
    clock.spend(Player.black, 8)  # 6 s of main time, 2 s into the first period
    assert clock.clocks[Player.black] == PlayerClock(5, 2)
    clock.spend(Player.black, 7)  # one period used up
    assert clock.clocks[Player.black] == PlayerClock(5, 1)
    assert clock.clocks[Player.white] == PlayerClock(10, 0)
    clock.time_left(Player.white, 3, 1)
    assert clock.clocks[Player.white] == PlayerClock(3, 1)

    canadian = Clock(TimeControl("canadian", 0, 30, 2))
    canadian.spend(Player.black, 10)
    assert canadian.clocks[Player.black] == PlayerClock(20, 1)
    canadian.spend(Player.black, 10)
    assert canadian.clocks[Player.black] == PlayerClock(30, 2)  # a new period

    fischer = Clock(TimeControl("fischer", 10, 3, 0, main_cap=12))
    fischer.spend(Player.white, 1)
    assert fischer.clocks[Player.white].time == 12
    absolute = Clock(TimeControl("absolute", 10))
    absolute.time_left(Player.black, 7, 5)  # stones mean nothing in absolute time
    assert absolute.clocks[Player.black] == PlayerClock(7, 0)


@pytest.mark.parametrize(
    "control",
    [
        TimeControl("absolute", 30),
        TimeControl("absolute", 5),
        TimeControl("byoyomi", 0, 5, 1),
        TimeControl("byoyomi", 10, 5, 3),
        TimeControl("canadian", 0, 10, 5),
        TimeControl("canadian", 20, 10, 10),
        TimeControl.from_gtp(0, 3, 1),
        TimeControl("fischer", 10, 1),
        TimeControl("fischer", 20, 2, 0, main_cap=25, move_cap=2),
    ],
)
@pytest.mark.parametrize("settings", [S, BudgetSettings()], ids=["lag-1s", "default-lag"])
def test_simulated_games_never_flag(control: TimeControl, settings: BudgetSettings) -> None:
    """Spend every budget plus 50 ms of overhead per move (under the default lag buffer, as
    measured by ``python -m dlgo.bench firstmove``): the clock never runs out (a long 9x9 game of
    50 moves of ours in absolute time, 120 moves under time that is renewed)."""
    clock = Clock(control)
    overhead = 0.05
    for move in range(50 if control.system == "absolute" else 120):
        empty = max(5, 81 - move)
        mine = clock.clocks[Player.black]
        seconds = move_budget(control, mine, settings, empty, 81) + overhead
        before = PlayerClock(mine.time, mine.stones)
        clock.spend(Player.black, seconds)
        after = clock.clocks[Player.black]
        assert after.time >= 0, f"flag fell at move {move}: {before} -> {after} after {seconds:.2f} s"
        if control.system == "byoyomi" and before.stones:
            assert after.stones == before.stones, "a byo-yomi period was lost"


# --- real games against GNU Go on short clocks ------------------------------------------------


def _start(*sets: str) -> tuple[EngineProcess, float]:
    eng = EngineProcess(*sets)
    eng.ok("name", timeout=30)  # start-up counts against the clock
    return eng, time.monotonic() - eng.started


@pytest.mark.gnugo
def test_absolute_30s_whole_9x9_game(gnugo) -> None:
    eng, startup = _start("mcts.rounds=100000000", "resign.enabled=false")
    with eng:
        clock = SimClock("absolute", 30)
        record = play_against_gnugo(eng, gnugo, "black", clock=clock, startup_seconds=startup, max_moves=300)
        total = startup + sum(record.engine_times)
        assert total < 30, f"used {total:.1f} s of 30"
        assert record.ended_by_passes or record.resigned == "white", record
        assert len(record.engine_times) >= 15
        assert total > 10, f"only {total:.1f} s used: the clock was not used well"


@pytest.mark.gnugo
def test_byoyomi_5s_periods(gnugo) -> None:
    """Byo-yomi 5 s x 1 period from the first move: every move fits its period."""
    eng, startup = _start("mcts.rounds=100000000", "resign.enabled=false")
    with eng:
        clock = SimClock("byoyomi", 0, 5, 1)
        record = play_against_gnugo(eng, gnugo, "white", clock=clock, startup_seconds=0.0, max_moves=8)
        assert len(record.engine_times) == 4
        assert max(record.engine_times) < 5.0
        assert min(record.engine_times) > 2.0  # the period is used, not wasted
        assert startup < 5.0


@pytest.mark.slow
@pytest.mark.gnugo
def test_byoyomi_whole_game(gnugo) -> None:
    eng, startup = _start("mcts.rounds=100000000", "resign.enabled=false")
    with eng:
        clock = SimClock("byoyomi", 10, 5, 1)
        record = play_against_gnugo(eng, gnugo, "black", clock=clock, startup_seconds=startup, max_moves=300)
        assert record.ended_by_passes or record.resigned == "white"
