"""The first move on time and queued commands (issue 12, items 1 and 2).

Building an agent (TensorFlow, ONNX export, compiled kernels) is never charged to a move: the
engine builds in the background from start-up, and a genmove whose agent is not ready waits only
as long as its budget allows, then answers with a quick move. A move's time starts when the
engine begins it, so genmoves sent together each get their own budget; a time_left report
still bounds the move from when it arrived.
"""

from __future__ import annotations

import threading
import time

import pytest
from gtp_client import InProcessEngine
from scripted_agent import ScriptedSearch

from dlgo import agent_registry as registry
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.search import SearchResult
from gtp_engine.channel import Line


class BudgetRecorder(ScriptedSearch):
    """Records how much time each search was given, then thinks until the deadline (as a real
    search does) and plays the first legal point."""

    def __init__(self) -> None:
        super().__init__()
        self.remaining: list[float] = []

    def search(self, game_state, budget, on_progress=None, progress_interval=0.5) -> SearchResult:
        if budget.deadline is not None:
            self.remaining.append(budget.deadline - time.monotonic())
            while not budget.exhausted(0):
                time.sleep(0.005)
        return super().search(game_state, budget, on_progress, progress_interval)


def _register(monkeypatch: pytest.MonkeyPatch, name: str, build) -> None:
    monkeypatch.setitem(registry.REGISTRY, name, registry.AgentType(name, "test agent", {}, build, searches=True))


def _engine(name: str, *sets: str) -> InProcessEngine:
    return InProcessEngine(f"agent={name}", "engine.board_size=9", "resign.enabled=false", *sets, config=None)


def _timed_genmove(eng: InProcessEngine, colour: str = "b") -> tuple[str, float]:
    started = time.monotonic()
    move = eng.ok(f"genmove {colour}")
    return move, time.monotonic() - started


def test_a_move_is_on_time_while_its_agent_is_still_building(monkeypatch) -> None:
    """An agent whose build takes far longer than the period: the first moves still come inside
    their 3 s periods (budget 2 s with a 1 s lag buffer), as legal quick moves, and once the
    agent is built it plays."""
    release = threading.Event()
    recorder = BudgetRecorder()

    def slow_build(params, size):
        release.wait(60)  # a build slow on purpose (TensorFlow on a busy machine, say)
        return recorder

    _register(monkeypatch, "slow", slow_build)
    eng = _engine("slow", "time.lag_buffer=1.0")
    try:
        eng.ok("time_settings 0 3 1")
        for colour in ("b", "w"):
            move, seconds = _timed_genmove(eng, colour)
            assert seconds < 3.0, f"the move took {seconds:.2f} s of a 3 s period"
            assert move not in ("pass", "resign")
            assert "quick move while agent slow is built" in eng.ok("gomill-explain_last_move")
        assert len(eng.engine.game.moves) == 2 and recorder.remaining == []
        release.set()
        move, seconds = _timed_genmove(eng)
        assert seconds < 3.0 and recorder.remaining, "the built agent plays"
        assert "quick move" not in eng.ok("gomill-explain_last_move")
    finally:
        release.set()
        eng.close()


def test_a_move_waits_for_its_agent_while_the_budget_allows(monkeypatch) -> None:
    """A build of 0.3 s and a 5 s period: the move waits and the agent searches the rest."""
    recorder = BudgetRecorder()

    def build(params, size):
        time.sleep(0.3)
        return recorder

    _register(monkeypatch, "late", build)
    eng = _engine("late", "engine.preload=false", "time.lag_buffer=0.5")
    try:
        eng.ok("time_settings 0 5 1")
        move, seconds = _timed_genmove(eng)
        assert "quick move" not in eng.ok("gomill-explain_last_move")
        assert len(recorder.remaining) == 1 and recorder.remaining[0] > 1.0
        assert seconds < 5.0
    finally:
        eng.close()


def test_the_agents_of_every_configured_size_are_built_at_start_up(monkeypatch) -> None:
    built: list[int] = []
    lock = threading.Lock()

    def build(params, size):
        with lock:
            built.append(size)
        return BudgetRecorder()

    _register(monkeypatch, "recorded", build)
    _register(monkeypatch, "recorded_too", build)
    eng = InProcessEngine("agent=recorded", "size.9.agent=recorded_too", "size.13.time.max_seconds=9", config=None)
    try:
        deadline = time.monotonic() + 30
        while len(built) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        # 19x19 (the start-up size, top-level agent) and 9x9 (its own agent); 13x13 plays the
        # top-level agent with the same parameters: built once.
        assert sorted(built) == [9, 19]
    finally:
        eng.close()


def test_builds_nobody_waits_for_pause_while_a_move_is_searched(monkeypatch) -> None:
    """The 9x9 move searches alone; the agent of the other sizes is built after it."""
    recorder = BudgetRecorder()
    events: list[tuple[str, float]] = []

    def build_nine(params, size):
        time.sleep(0.3)
        return recorder

    def build_other(params, size):
        events.append(("other built", time.monotonic()))
        return BudgetRecorder()

    _register(monkeypatch, "nine", build_nine)
    _register(monkeypatch, "other", build_other)
    eng = InProcessEngine("agent=other", "size.9.agent=nine", "engine.board_size=9", "time.lag_buffer=0.5", config=None)
    try:
        eng.ok("time_settings 0 2 1")
        eng.ok("genmove b")
        searched = time.monotonic()
        assert recorder.remaining, "the 9x9 agent played"
        deadline = time.monotonic() + 30
        while not events and time.monotonic() < deadline:
            time.sleep(0.02)
        assert events and events[0][1] >= searched - 0.05, "the other agent was built during the search"
    finally:
        eng.close()


def _run_lines(eng: InProcessEngine, lines: list[str], answers: int, timeout: float = 60.0) -> list[str]:
    """Send every line at once (a pipe, a GUI sending ahead) to the engine's main loop."""
    runner = threading.Thread(target=eng.engine.run, daemon=True)
    runner.start()
    eng._stdin_w.write("".join(line + "\n" for line in lines).encode())
    eng._stdin_w.flush()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        responses = eng._out.getvalue().decode().split("\n\n")[:-1]
        if len(responses) >= answers:
            eng._stdin_w.write(b"quit\n")
            eng._stdin_w.flush()
            runner.join(10)
            return responses
        time.sleep(0.02)
    raise TimeoutError(eng._out.getvalue())


def test_queued_genmoves_each_get_their_budget(monkeypatch) -> None:
    """Three genmoves sent at once with a 1 s period: each gets most of its second (the third
    used to start with its time already spent waiting in line)."""
    recorder = BudgetRecorder()
    _register(monkeypatch, "recorder", lambda params, size: recorder)
    eng = _engine("recorder", "time.lag_buffer=0.1")
    try:
        eng.engine.agents.get(9, 9)  # built: only the clock matters here
        lines = ["time_settings 0 1 1", "genmove b", "genmove w", "genmove b"]
        responses = _run_lines(eng, lines, answers=4)
        assert all(r.startswith("=") for r in responses)
        assert len(recorder.remaining) == 3
        assert min(recorder.remaining) > 0.5, recorder.remaining
    finally:
        eng.close()


def test_a_time_left_report_still_bounds_the_move(monkeypatch) -> None:
    """The controller said 2 s left a second and a half ago: the move ends by its clock."""
    recorder = BudgetRecorder()
    _register(monkeypatch, "recorder", lambda params, size: recorder)
    eng = _engine("recorder", "time.lag_buffer=0.1")
    try:
        eng.engine.agents.get(9, 9)
        eng.ok("time_settings 0 2 1")
        eng.engine.handle_line(Line("time_left b 2 1", time.monotonic() - 1.5))
        eng.ok("genmove b")
        assert recorder.remaining[-1] < 0.5, recorder.remaining  # (2 - 0.1) - 1.5 = 0.4 s at most
        eng.ok("genmove w")  # no report for White: the engine's own clock, from the start
        assert recorder.remaining[-1] > 1.0, recorder.remaining
    finally:
        eng.close()


def test_quick_moves_are_sensible() -> None:
    """Captures first, no self-atari, and an open point in the opening."""
    from dlgo.goboard import Board
    from dlgo.gotypes import Player
    from dlgo.play.quickmove import quick_move

    board = Board(9, 9)
    for p in [(5, 5)]:
        board.place_stone(Player.white, Point(*p))
    for p in [(4, 5), (6, 5), (5, 4)]:
        board.place_stone(Player.black, Point(*p))
    state = GameState.from_position(board, Player.black, komi=7.5)
    move, why = quick_move(state)
    assert move == Move.play(Point(5, 6)) and why == "capture"
    move, why = quick_move(GameState.new_game(19))
    assert move.is_play and all(3 <= x <= 4 or 16 <= x <= 17 for x in (move.point.row, move.point.col))
