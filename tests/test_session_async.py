"""``PlaySession`` as an asynchronous bot (KataGo's ``AsyncBot``): ``genmove`` returns a future
searched in the session's own thread, ``stop`` ends the search with its best move, a change of
the game (or ``cancel``) drops a move under way, refusals are raised at once and the search's
errors come with the future; ``analyze`` searches without playing."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.play.config import load_config
from dlgo.play.errors import MoveAbandoned, NoAnalysis, UnsupportedSize
from dlgo.play.session import PlaySession
from dlgo.search import SearchBudget

ROOT = Path(__file__).resolve().parent.parent
MCTS = str(ROOT / "configs" / "engine" / "mcts.toml")
BASE = ["engine.board_size=9", "engine.preload=false", "time.default_seconds=0", "pass.playouts=100"]
QUICK = [*BASE, "mcts.rounds=100"]
SLOW = [*BASE, "mcts.rounds=10000000"]  # searches until stopped


def session_of(sets: list[str], path: str = MCTS) -> PlaySession:
    return PlaySession(load_config(path, sets))


def test_genmove_is_a_future_that_plays_the_move():
    session = session_of(QUICK)
    session.play(Player.black, Move.play(Point(5, 5)))
    move = session.genmove(Player.white)
    assert isinstance(move, Future) and move.plan.player is Player.white
    choice = move.result(60)
    assert session.game.moves[-1] == (Player.white, choice.move)
    assert move.elapsed is not None and move.elapsed >= 0 and move.agent is not None
    assert session.last_choice is choice and not session.searching


def test_genmove_without_commit_leaves_the_game_as_it_was():
    session = session_of(QUICK)
    choice = session.genmove(Player.black, commit=False).result(60)
    assert choice.move.is_play and session.game.num_moves == 0


def test_stop_ends_a_search_with_its_best_move_and_plays_it():
    session = session_of(SLOW)
    move = session.genmove(Player.black)
    time.sleep(0.3)
    assert not move.done() and session.searching
    stopped = time.monotonic()
    session.stop()
    choice = move.result(20)
    assert time.monotonic() - stopped < 10
    assert choice.move.is_play and session.game.moves == [(Player.black, choice.move)]
    assert not session.searching


def test_the_callers_stop_event_ends_the_search_too():
    session = session_of(SLOW)
    stop = threading.Event()
    move = session.genmove(Player.black, stop=stop)
    time.sleep(0.2)
    stop.set()
    assert move.result(20).move.is_play


def test_a_change_of_the_game_drops_the_move_under_way():
    session = session_of(SLOW)
    move = session.genmove(Player.black)
    time.sleep(0.2)
    session.play(Player.white, Move.play(Point(3, 3)))  # the search stops: its position is gone
    with pytest.raises(MoveAbandoned):
        move.result(20)
    assert session.game.moves == [(Player.white, Move.play(Point(3, 3)))]


def test_cancel_drops_the_move_and_a_new_one_follows_it():
    session = session_of(SLOW)
    dropped = session.genmove(Player.black)
    time.sleep(0.2)
    session.cancel()
    stop = threading.Event()
    stop.set()  # stopped before it starts: it answers at once with what little it searched
    kept = session.genmove(Player.black, stop=stop)
    with pytest.raises(MoveAbandoned):
        dropped.result(20)
    choice = kept.result(20)
    assert session.game.moves == [(Player.black, choice.move)]


def test_a_refusal_is_raised_at_once_and_starts_nothing():
    session = session_of(["engine.board_size=19", "engine.preload=false"], str(ROOT / "configs/engine/pg-9x9.toml"))
    with pytest.raises(UnsupportedSize):
        session.genmove(Player.black)
    assert not session.searching


def test_the_searchs_error_comes_with_the_future_and_changes_nothing():
    session = session_of(SLOW)
    searched_in: list[str] = []

    def fail(result) -> None:
        searched_in.append(threading.current_thread().name)
        raise RuntimeError("progress failed")

    move = session.genmove(Player.black, on_progress=fail, progress_interval=0.01)
    with pytest.raises(RuntimeError, match="progress failed"):
        move.result(20)
    assert session.game.num_moves == 0
    assert searched_in and searched_in[0] != threading.current_thread().name  # the session's thread
    session.stop()  # nothing to stop: harmless
    assert session.genmove(Player.black, stop=_set()).result(20).move.is_play  # the session goes on


def test_analyze_searches_without_playing():
    session = session_of(QUICK)
    session.play(Player.black, Move.play(Point(5, 5)))
    progress = []
    result = session.analyze(SearchBudget(max_visits=60), on_progress=progress.append, progress_interval=0).result(60)
    assert result.visits > 0 and progress == [result]  # interval 0: once, at the end
    assert session.game.num_moves == 1 and session.last_choice is None


def test_analysis_ownership_comes_from_playouts_without_an_ownership_head():
    session = session_of(QUICK)
    result = session.analyze(SearchBudget(max_visits=30), ownership=True).result(60)
    assert result.ownership is not None and result.ownership.shape == (9, 9)


def test_stop_ends_an_analysis():
    session = session_of(QUICK)
    search = session.analyze(SearchBudget())  # until stopped
    time.sleep(0.2)
    session.stop()
    assert search.result(20).visits > 0


def test_an_agent_that_does_not_search_gives_no_analysis():
    session = session_of(["engine.board_size=9"], str(ROOT / "configs/engine/random.toml"))
    with pytest.raises(NoAnalysis):
        session.analyze(SearchBudget(max_visits=10))


def _set() -> threading.Event:
    event = threading.Event()
    event.set()
    return event
