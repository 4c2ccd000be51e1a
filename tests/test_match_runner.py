"""dlgo.match.runner: matches of many games, in parallel, resumable after a crash or Ctrl-C, and a
small real match of our engine against GNU Go level 1."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import QUICK, fake_player

from dlgo.match import (
    GameRules,
    MatchError,
    MatchSettings,
    dlgo_player,
    runner,
)
from dlgo.match.players import find_gnugo, gnugo_player
from dlgo.match.record import GameRecord, append_record, load_records, repair_records
from dlgo.match.runner import run_match
from dlgo.sgf import read_game

ROOT = Path(__file__).resolve().parent.parent
needs_gnugo = pytest.mark.skipif(find_gnugo() is None, reason="GNU Go not installed (apt-get install gnugo)")


def test_match_goes_on_after_crashes(tmp_path):
    settings = MatchSettings(fake_player("pass", "good"), fake_player("crash", "crasher"), 3, QUICK, gnugo_check=False)
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
    return MatchSettings(fake_player("pass", "a"), fake_player("pass", "b"), games, QUICK, jobs=jobs, gnugo_check=False)


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


@pytest.fixture
def ctrl_c_raises():
    """Python's own Ctrl-C handler for the test: a run started in the background by a shell
    (`nohup pytest &`) ignores SIGINT, and a SIGINT sent to itself would then do nothing."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_just_after_a_result_is_appended_keeps_the_summary_in_step(tmp_path, monkeypatch, ctrl_c_raises):
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
    other = MatchSettings(fake_player("pass", "a"), fake_player("pass", "b"), 1, GameRules(size=13), gnugo_check=False)
    with pytest.raises(MatchError, match="other settings"):
        run_match(other, tmp_path, progress=False)


def test_parallel_games(tmp_path):
    result = run_match(_settings(4, jobs=2), tmp_path, progress=False)
    assert sorted(r.index for r in result.records) == [0, 1, 2, 3]
    assert result.summary["white_wins"] == 4  # both pass: White wins by komi


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")
def test_duel_workers_end_when_the_match_process_is_killed(tmp_path):
    """A match stopped by ``kill`` (or ``kill -9``) used to leave its game workers playing on."""
    from proc_tree import children, kill_all, wait_gone

    script = tmp_path / "match.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            sys.path.insert(0, {str(ROOT / "tests")!r})
            from conftest import fake_player
            from dlgo.match import GameRules, MatchSettings
            from dlgo.match.runner import run_match

            if __name__ == "__main__":
                rules = GameRules(size=9, move_timeout=600.0, command_timeout=600.0)
                settings = MatchSettings(
                    fake_player("hang", "a"), fake_player("hang", "b"), 4, rules, jobs=2, gnugo_check=False
                )
                run_match(settings, {str(tmp_path / "out")!r}, progress=False)
            """
        )
    )
    parent = subprocess.Popen([sys.executable, str(script)], cwd=ROOT)
    kids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        workers: list[int] = []
        while time.monotonic() < deadline and len(workers) < 2:
            workers = [p for p, cmd in children(parent.pid).items() if "spawn_main" in cmd]
            time.sleep(0.2)
        assert len(workers) == 2
        time.sleep(1.0)
        assert not [p for p in workers if p not in children(parent.pid)]  # both stuck in a game, as meant
        kids.extend(children(parent.pid))
        kids.extend(engine for worker in workers for engine in children(worker))  # hung fakes: clean-up
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert not wait_gone(workers), "duel workers still running after the match process was killed"
    finally:
        parent.kill()
        kill_all(kids)
