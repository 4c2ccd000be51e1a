"""The duel library (dlgo.match) and its command line dlgo.match.duel: statistics, clocks, misbehaving engines,
resuming, Ctrl-C, and a small real match of our engine against GNU Go level 1."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dlgo.match import (
    ClockSettings,
    GameRules,
    MatchError,
    MatchSettings,
    command_player,
    dlgo_player,
    play_game,
    runner,
)
from dlgo.match.clock import PlayerClock
from dlgo.match.players import find_gnugo, gnugo_player
from dlgo.match.record import GameRecord, append_record, load_records, repair_records
from dlgo.match.runner import run_match
from dlgo.match.scoring import GnuGoScorer
from dlgo.match.stats import binomial_p_value, elo_from_rate, elo_interval, wilson_interval
from dlgo.match.summary import summarise, summary_text
from dlgo.sgf import read_game

ROOT = Path(__file__).resolve().parent.parent
FAKE = Path(__file__).resolve().parent / "fake_gtp_engine.py"
needs_gnugo = pytest.mark.skipif(find_gnugo() is None, reason="GNU Go not installed (apt-get install gnugo)")


def fake(mode: str, label: str | None = None):
    return command_player([sys.executable, str(FAKE), mode], label or f"fake-{mode}")


QUICK = GameRules(size=9, move_timeout=2.0, command_timeout=10.0)


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


# --- the referee's clock -----------------------------------------------------------------------


def test_canadian_clock():
    clock = PlayerClock(ClockSettings(10, 5, 2))
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
    absolute = PlayerClock(ClockSettings(3))
    assert absolute.spend(2) and not absolute.spend(1.5)
    per_move = PlayerClock(ClockSettings(0, 2, 1))
    assert per_move.time_left() == (2, 1)
    assert all(per_move.spend(1.9) for _ in range(5))
    assert not per_move.spend(2.1)
    assert ClockSettings(0, 2, 1).gtp() == "time_settings 0 2 1"


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
    record = play_game(fake("pass", "good"), fake(mode), QUICK, log_dir=tmp_path)
    assert (record.winner, record.reason, record.fault, record.result) == ("B", reason, "W", "B+F")
    assert record.detail
    if mode == "illegal":
        assert "off the 9x9 board" in record.detail


def test_missing_engine_is_a_crash():
    record = play_game(command_player(["/nonexistent/engine"], "ghost"), fake("pass"), QUICK)
    assert (record.winner, record.reason, record.fault) == ("W", "crash", "B")
    assert "cannot start" in record.detail


@needs_gnugo
def test_move_on_an_occupied_point_is_illegal():
    record = play_game(gnugo_player(1, "gnugo"), fake("illegal"), QUICK)
    assert (record.winner, record.reason) == ("B", "illegal")
    assert "occupied" in record.detail


def test_overrunning_the_clock_loses_on_time():
    rules = GameRules(size=9, clock=ClockSettings(0.3), lag_allowance=0.05)
    record = play_game(fake("pass", "fast"), fake("slow:1.0", "slow"), rules)
    assert (record.winner, record.reason, record.fault, record.result) == ("B", "time", "W", "B+T")
    rules = GameRules(size=9, clock=ClockSettings(5))
    record = play_game(fake("pass", "fast"), fake("slow:0.05", "slow"), rules)
    assert (record.reason, record.result) == ("score", "W+7.5")  # two passes, komi


def test_match_goes_on_after_crashes(tmp_path):
    settings = MatchSettings(fake("pass", "good"), fake("crash", "crasher"), 3, QUICK, gnugo_check=False)
    result = run_match(settings, tmp_path, progress=False)
    assert not result.interrupted and len(result.records) == 3
    assert [r.reason for r in result.records] == ["crash"] * 3
    assert [r.black for r in result.records] == ["good", "crasher", "good"]  # colours alternate
    s = result.summary
    assert (s["engine_wins"], s["opponent_wins"]) == (3, 0)
    assert s["players"]["crasher"]["losses_by_fault"] == {"crash": 3}
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [f"game-000{i}.sgf" for i in (1, 2, 3)]
    assert read_game(tmp_path / "games" / "game-0002.sgf").result == "W+F"


# --- resuming --------------------------------------------------------------------------------


def _settings(games: int, jobs: int = 1) -> MatchSettings:
    return MatchSettings(fake("pass", "a"), fake("pass", "b"), games, QUICK, jobs=jobs, gnugo_check=False)


def test_resume_plays_only_missing_games(tmp_path):
    first = run_match(_settings(2), tmp_path, progress=False)
    assert len(first.records) == 2
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    played = []
    second = run_match(_settings(4), tmp_path, progress=False, on_game=lambda r: played.append(r.index))
    assert sorted(played) == [2, 3]
    assert len(second.records) == 4 and second.summary["games"] == 4
    assert (tmp_path / "results.jsonl").read_text().splitlines()[:2] == lines


def test_interrupted_match_keeps_finished_games_and_resumes(tmp_path):
    def stop(record):
        raise KeyboardInterrupt

    first = run_match(_settings(3), tmp_path, progress=False, on_game=stop)
    assert first.interrupted and len(first.records) == 1
    assert json.loads((tmp_path / "summary.json").read_text())["games"] == 1
    played = []
    second = run_match(_settings(3), tmp_path, progress=False, on_game=lambda r: played.append(r.index))
    assert not second.interrupted and sorted(played) == [1, 2]
    assert sorted(load_records(tmp_path / "results.jsonl")) == [0, 1, 2]


def _instant_games(monkeypatch, played=None):
    """Games that end at once (White wins by komi), without engines: the runner's bookkeeping alone."""

    def play(settings, index, scorer, out):
        if played is not None:
            played.append(index)
        black, white = runner.players_of_game(settings, index)
        return GameRecord(index, black.label, white.label, 9, 7.5, winner="W", result="W+7.5", reason="score")

    monkeypatch.setattr(runner, "_play_index", play)


def _summary_games(folder: Path) -> int:
    return json.loads((folder / "summary.json").read_text())["games"]


def test_ctrl_c_just_after_a_result_is_appended_keeps_the_summary_in_step(tmp_path, monkeypatch):
    # The race behind a flaky test_duel_script_ctrl_c_then_resume: SIGINT landing after a line
    # reached results.jsonl (during its fsync) but before the game was counted left summary.json
    # one game short. Here the SIGINT comes at exactly that point, every time.
    _instant_games(monkeypatch)
    real_append = runner.append_record

    def append_then_ctrl_c(path, record):
        real_append(path, record)
        if record.index == 1:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(runner, "append_record", append_then_ctrl_c)
    result = run_match(_settings(4), tmp_path, progress=False, check_engines=False)
    assert result.interrupted
    assert sorted(load_records(tmp_path / "results.jsonl")) == [0, 1]
    assert _summary_games(tmp_path) == result.summary["games"] == 2
    assert [r.index for r in result.records] == [0, 1]
    assert "W+7.5" in (tmp_path / "games" / "game-0002.sgf").read_text()

    played = []
    _instant_games(monkeypatch, played)
    monkeypatch.setattr(runner, "append_record", real_append)
    second = run_match(_settings(4), tmp_path, progress=False, check_engines=False)
    assert not second.interrupted and played == [2, 3] and _summary_games(tmp_path) == 4


def test_the_final_summary_counts_what_results_jsonl_holds(tmp_path, monkeypatch):
    # A game written to results.jsonl however late, as long as it is before the writers stop,
    # is in the summary: it is made from the file once the games are over, not from memory.
    _instant_games(monkeypatch)
    late = GameRecord(2, "a", "b", 9, 7.5, winner="W", result="W+7.5", reason="score")

    def late_game_then_ctrl_c(record):
        append_record(tmp_path / "results.jsonl", late)
        raise KeyboardInterrupt

    result = run_match(_settings(4), tmp_path, progress=False, check_engines=False, on_game=late_game_then_ctrl_c)
    assert result.interrupted and [r.index for r in result.records] == [0, 2]
    assert _summary_games(tmp_path) == result.summary["games"] == 2


def test_games_drained_after_ctrl_c_are_written_before_the_summary(tmp_path):
    # After Ctrl-C the parallel runner keeps the games already in the queue, then stops the workers.
    settings = _settings(3)
    runner._check_folder(tmp_path, settings)
    output = runner._Output(tmp_path, settings, {}, progress=False)
    pending = queue.Queue()
    for index in (0, 1):
        pending.put(("done", index, GameRecord(index, "a", "b", 9, 7.5, winner="W", result="W+7.5").to_json()))
    pending.put(("error", 2, "Traceback: referee bug"))
    errors, seen = [], []
    runner._drain(pending, output, errors, lambda r: seen.append(r.index))
    assert seen == [0, 1] and errors == ["game 3: Traceback: referee bug"]
    assert sorted(load_records(tmp_path / "results.jsonl")) == [0, 1] and _summary_games(tmp_path) == 2


def test_a_torn_last_line_is_ignored_and_cut_before_the_next_append(tmp_path, monkeypatch):
    results = tmp_path / "results.jsonl"
    run_match(_settings(1), tmp_path, progress=False)  # game 0, for real
    whole = results.read_bytes()
    results.write_bytes(whole + b'{"index":1,"black":"b","whi')  # a kill in the middle of a write
    assert sorted(load_records(results)) == [0]
    played = []
    _instant_games(monkeypatch, played)
    result = run_match(_settings(3), tmp_path, progress=False, check_engines=False)
    assert played == [1, 2] and [r.index for r in result.records] == [0, 1, 2]
    data = results.read_bytes()
    assert data.startswith(whole) and data.endswith(b"\n")
    assert [json.loads(line)["index"] for line in data.splitlines()] == [0, 1, 2]


def test_repair_records_completes_or_cuts_the_last_line(tmp_path):
    path = tmp_path / "results.jsonl"
    assert not repair_records(path)
    append_record(path, GameRecord(0, "a", "b", 9, 7.5))
    assert not repair_records(path)
    line = path.read_bytes()
    path.write_bytes(line + line.replace(b'"index":0', b'"index":1').rstrip(b"\n"))  # whole, no newline
    assert repair_records(path) and sorted(load_records(path)) == [0, 1]
    assert path.read_bytes().endswith(b"}\n") and path.read_bytes().count(b"\n") == 2
    path.write_bytes(line + b'{"index":1,"bl')
    assert repair_records(path) and path.read_bytes() == line


def test_other_settings_in_the_same_folder_are_refused(tmp_path):
    run_match(_settings(1), tmp_path, progress=False)
    other = MatchSettings(fake("pass", "a"), fake("pass", "b"), 1, GameRules(size=13), gnugo_check=False)
    with pytest.raises(MatchError, match="other settings"):
        run_match(other, tmp_path, progress=False)


def test_parallel_games(tmp_path):
    result = run_match(_settings(4, jobs=2), tmp_path, progress=False)
    assert sorted(r.index for r in result.records) == [0, 1, 2, 3]
    assert result.summary["white_wins"] == 4  # both pass: White wins by komi


def test_duel_script_ctrl_c_then_resume(tmp_path):
    out = tmp_path / "duel"
    cmd = [
        sys.executable, "-m", "dlgo.match.duel",
        "--engine-cmd", f"{sys.executable} {FAKE} slow:0.3", "--engine-name", "slow",
        "--opponent-cmd", f"{sys.executable} {FAKE} pass", "--opponent-name", "passer",
        "--games", "8", "-j", "2", "--no-gnugo-check", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    results = out / "results.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (results.exists() and results.read_text().strip()):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    kept = load_records(results)
    assert 1 <= len(kept) < 8
    assert json.loads((out / "summary.json").read_text())["games"] == len(kept)
    assert "interrupted" in stderr

    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = results.read_text().splitlines()
    assert len(lines) == 8 and sorted(load_records(results)) == list(range(8))  # nothing replayed
    assert "slow vs passer: 8 of 8 games" in done.stdout


def test_duel_script_reports_an_engine_that_does_not_start(tmp_path):
    cmd = [sys.executable, "-m", "dlgo.match.duel", "--engine-cmd", "/nonexistent/engine",
           "--opponent-cmd", f"{sys.executable} {FAKE} pass", "--games", "1", "--out", str(tmp_path)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "does not work as a GTP engine" in done.stderr


# --- a real match ----------------------------------------------------------------------------


@needs_gnugo
def test_small_match_against_gnugo(tmp_path):
    engine = dlgo_player(ROOT / "configs" / "engine" / "mcts.toml", "dlgo-mcts")
    rules = GameRules(size=9, visits=40, move_timeout=60.0)
    settings = MatchSettings(engine, gnugo_player(1, "gnugo-l1"), 2, rules)
    result = run_match(settings, tmp_path, progress=False)
    assert not result.interrupted and not result.errors
    assert [r.black for r in result.records] == ["dlgo-mcts", "gnugo-l1"]
    for record in result.records:
        assert record.reason in ("score", "resign", "move-limit"), record.detail
        assert len(record.times) == len(record.moves) > 0
        sgf = read_game(tmp_path / "games" / f"game-{record.index + 1:04d}.sgf")
        assert (sgf.black_name.split()[0], sgf.white_name.split()[0]) == (record.black, record.white)
        assert sgf.result == record.result and sgf.komi == 7.5 and sgf.rules == "Chinese"
        assert len(sgf.moves) == len(record.moves)
        assert sgf.comments[0].endswith(" s")
        if record.reason == "score":
            assert record.scoring["gnugo_result"] is not None
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 2 and summary["engine_wins"] + summary["opponent_wins"] + summary["draws"] == 2
    text = (tmp_path / "summary.txt").read_text()
    assert "win rate" in text and "Elo" in text and "p-value" in text


@needs_gnugo
def test_gnugo_scorer_counts_a_replayed_game():
    # Black walls column E, White column F: 45 points to 36, komi 7.5, no dame.
    moves = [[c, f"{col}{row}"] for row in range(1, 10) for c, col in (("B", "E"), ("W", "F"))]
    moves += [["B", "pass"], ["W", "pass"]]
    with GnuGoScorer() as scorer:
        assert scorer.score(9, 7.5, [], moves) == "B+1.5"
        assert scorer.score(9, 10.5, [], moves) == "W+1.5"
