"""Searches in a worker thread while the main thread watches the input.

The move path (``genmove`` and its forms): a per-move budget from the clock (``time_control``),
a deadline that also respects the controller's last ``time_left``, a wait for the agent built in
the background (a quick move when it is late), the search and the decision (``decision``), then
the move played and the clock charged. Analysis searches run until the next input line; the
GoGui one-shot searches and ``genmove`` stop early at ``# interrupt`` or ``gogui-interrupt``.
After our ``genmove`` an agent that keeps its tree ponders on the opponent's time.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from dlgo.agent.base import Agent
from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.search import ProgressCallback, SearchAgent, SearchBudget
from gtp_engine.agent_pool import AgentBuild, Overhead
from gtp_engine.analysis_formats import explain
from gtp_engine.chat import chat_line, send_chat
from gtp_engine.commands.counting import count_position
from gtp_engine.decision import DecisionSettings, MoveChoice, choose_move
from gtp_engine.game import position_for
from gtp_engine.protocol import GtpError, color_name, format_move
from gtp_engine.quickmove import quick_move
from gtp_engine.resign_history import ResignHistory
from gtp_engine.time_control import BudgetSettings, move_budget, move_limit, time_banks

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

__all__ = ["SearchRunner", "MovePlan", "Worker", "QUICK_MOVE_RESERVE"]

log = logging.getLogger(__name__)

T = TypeVar("T")

# Seconds (at most 30% of the search time) left for a quick move, or a search worth the name,
# when a move's agent is late.
QUICK_MOVE_RESERVE = 0.2


class Worker(threading.Thread):
    """Runs ``fn`` in the background and keeps its value or exception."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        super().__init__(name="gtp-search", daemon=True)
        self._fn = fn
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self._fn()
        except BaseException as e:  # noqa: BLE001 - handed to the main thread
            self.error = e

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.value


@dataclass
class MovePlan:
    """One move's search as set before it starts: whose move, its time and its decision rules."""

    player: Player
    state: GameState  # the position with ``player`` to move
    cleanup: bool
    started: float  # when the engine began the move: its time counts from here
    seconds: float | None  # the move's budget; None: no time limit
    deadline: float | None  # when the answer is due
    overhead_floor: float  # time.move_overhead
    build: AgentBuild
    budget: SearchBudget
    settings: DecisionSettings
    opponent_passed: bool
    move_number: int
    previous_values: list[float | None]


class SearchRunner:
    """The engine's searches: budgets and deadlines, the search threads, pondering."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.finished = 0.0  # when the engine finished its last move generation
        self.overhead = Overhead()
        self.resign_history = ResignHistory()
        self._rng: random.Random | None = None
        self._stop: threading.Event | None = None
        self._ponder_after: tuple[SearchAgent, GameState] | None = None  # (agent, position) to ponder on
        self._ponder: tuple[threading.Event, Worker] | None = None

    # --- budgets ----------------------------------------------------------------------------------
    def budget_settings(self) -> BudgetSettings:
        return BudgetSettings.from_config(self.engine.section("time"))

    def budget_seconds(self, player: Player) -> float | None:
        """Seconds ``player``'s next move may think (the clock's share); None: no limit."""
        engine = self.engine
        board = engine.game.board
        points = board.num_rows * board.num_cols
        empty = points - sum(1 for _ in board.stones())
        clear = engine.last_winrate is not None and not (0.05 <= engine.last_winrate <= 0.95)
        return move_budget(
            engine.clock.control,
            engine.clock.clocks[player],
            self.budget_settings(),
            empty,
            points,
            opponent_passed=engine.game.opponent_passed(player),
            clear_result=clear,
        )

    def deadline(self, player: Player, started: float, seconds: float | None) -> float | None:
        """When the move that began at ``started`` with ``seconds`` to think must stop: its
        budget counts from when the engine began it, and when the controller reported our clock
        (time_left) the move also ends before that clock, counted from the report, runs out."""
        if seconds is None:
            return None
        deadline = started + seconds
        clock = self.engine.clock
        reported = clock.reported.get(player)
        if reported is not None:
            settings = self.budget_settings()
            limit = move_limit(clock.control, clock.clocks[player], settings)
            if limit is not None:
                deadline = min(deadline, max(reported + limit, started + settings.minimum))
        return deadline

    def _search_deadline(self, plan: MovePlan) -> float | None:
        """The deadline less the engine's own work after the search (at most a quarter of the
        move's time), so that the answer is out by the move's deadline."""
        if plan.deadline is None:
            return None
        own = self.overhead.estimate(plan.overhead_floor, plan.build.overhead)
        return plan.deadline - min(own, 0.25 * (plan.deadline - plan.started))

    def _variety_rng(self, settings: DecisionSettings) -> random.Random:
        """One generator for the process's varied opening moves, seeded once (variety.seed)."""
        if self._rng is None:
            self._rng = settings.variety.rng()
        return self._rng

    # --- the move path ----------------------------------------------------------------------------
    def plan_move(self, player: Player, cleanup: bool = False) -> MovePlan:
        """Everything a move's search needs, set before it starts; GtpError when no agent plays
        the board (before any streamed answer begins)."""
        engine = self.engine
        started = engine.began  # the move's time starts when the engine began it, not at its line
        _, _, build = engine.agents.request(engine.game.rows, engine.game.cols)
        seconds = self.budget_seconds(player)
        settings = DecisionSettings.from_config(
            engine.section("resign"), engine.section("pass"), engine.section("variety")
        )
        plan = MovePlan(
            player=player,
            state=position_for(engine.game.state, player),
            cleanup=cleanup,
            started=started,
            seconds=seconds,
            deadline=self.deadline(player, started, seconds),
            overhead_floor=engine.section("time")["move_overhead"],
            build=build,
            budget=SearchBudget(
                stop=threading.Event(), banks_time=time_banks(engine.clock.control, engine.clock.clocks[player])
            ),
            settings=settings,
            opponent_passed=engine.game.opponent_passed(player),
            move_number=engine.game.num_moves + 1,
            previous_values=self.resign_history.previous(
                engine.game.state, player, settings.resign_consecutive_moves - 1
            ),
        )
        plan.budget.deadline = self._search_deadline(plan)
        return plan

    def genmove(self, player: Player, commit: bool = True, cleanup: bool = False) -> MoveChoice:
        """Search and decide a move for ``player``; play it when ``commit`` (not a resignation)."""
        return self.play_move(self.plan_move(player, cleanup), commit)

    def play_move(
        self,
        plan: MovePlan,
        commit: bool = True,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
    ) -> MoveChoice:
        """Run ``plan``'s search and decision; play the move when ``commit`` (not a resignation),
        charge the clock and remember it. ``on_progress`` receives the search's interim results."""
        budget, stop = plan.budget, plan.budget.stop
        assert stop is not None
        used: list[Agent] = []

        def work() -> MoveChoice:
            agent = self._await_agent(plan.build, plan.started, budget.deadline, stop)
            if agent is None:  # still building: answer in time with what needs no agent
                move, why = quick_move(plan.state)
                return MoveChoice(move, f"quick move while agent {plan.build.name} is built: {why}")
            used.append(agent)
            budget.max_visits = agent.visit_limit if isinstance(agent, SearchAgent) else None
            budget.deadline = self._search_deadline(plan)  # the agent's own measure, now that it is built
            return choose_move(
                agent,
                plan.state,
                budget,
                plan.settings,
                plan.move_number,
                plan.opponent_passed,
                plan.cleanup,
                on_progress,
                progress_interval,
                plan.previous_values,
                final_count=lambda state: count_position(self.engine, state),
                rng=self._variety_rng(plan.settings) if plan.settings.variety.enabled else None,
            )

        choice: MoveChoice = self.run_interruptible(work, stop, pause_builds=True)
        self.finished = time.monotonic()
        elapsed = self.finished - plan.started
        if budget.deadline is not None and used and self.finished >= budget.deadline:
            self.overhead.record(self.finished - budget.deadline)  # the search ran to its deadline
        agent = used[0] if used else None
        self._remember(plan, choice, agent, commit, elapsed)
        return choice

    def _remember(self, plan: MovePlan, choice: MoveChoice, agent: Agent | None, commit: bool, elapsed: float) -> None:
        """The move played (when ``commit``), the clock charged, the log and chat lines."""
        engine = self.engine
        player = plan.player
        if commit and not choice.move.is_resign:
            engine.game.play(player, choice.move)
            self.resign_history.record(engine.game.state, choice)
            if isinstance(agent, SearchAgent) and agent.keeps_tree:
                self._ponder_after = (agent, engine.game.state)
        if commit:
            engine.clock.spend(player, elapsed)  # our own count until the controller reports again
        engine.last_choice = choice
        if choice.candidate is not None:
            engine.last_winrate = choice.candidate.winrate
        log.info(
            "%s %s -> %s in %.2f s (budget %s): %s",
            "genmove" if commit else "reg_genmove",
            color_name(player),
            format_move(choice.move),
            elapsed,
            "none" if plan.seconds is None else f"{plan.seconds:.2f} s",
            explain(choice.result, choice.candidate, choice.move, choice.reason),
        )
        if commit and engine.config.get("chat.enabled"):
            send_chat(chat_line(engine.config.get("chat.channel"), player, choice.candidate))

    def _await_agent(
        self, build: AgentBuild, started: float, deadline: float | None, stop: threading.Event
    ) -> Agent | None:
        """The agent of ``build`` once built, waiting at most until a quick move must be made to
        answer by ``deadline`` (no limit without one); None when the time or an interrupt came first."""
        if not build.done.is_set():
            until = None if deadline is None else deadline - min(QUICK_MOVE_RESERVE, 0.3 * (deadline - started))
            log.info(
                "waiting for agent %s (%s)",
                build.name,
                "no time limit" if until is None else f"{until - time.monotonic():.2f} s at most",
            )
            while not build.done.is_set() and not stop.is_set():
                left = None if until is None else until - time.monotonic()
                if left is not None and left <= 0:
                    break
                build.done.wait(0.05 if left is None else min(0.05, left))
            if not build.done.is_set():
                return None
        return build.result()

    # --- running searches -------------------------------------------------------------------------
    def searching_agent(self) -> SearchAgent:
        """The agent of the board, which must search (analysis); GtpError otherwise."""
        agent_type, _, agent = self.engine.agents.get(self.engine.game.rows, self.engine.game.cols)
        if not isinstance(agent, SearchAgent):
            raise GtpError(f"agent '{agent_type.name}' does not search: no analysis")
        return agent

    def ownership_agent(self) -> SearchAgent | None:
        """The board's agent when its searches give the network's ownership map (an ownership
        head), waiting for its build; None otherwise or when no agent plays the board."""
        try:
            _, _, agent = self.engine.agents.get(self.engine.game.rows, self.engine.game.cols)
        except GtpError:
            return None
        return agent if isinstance(agent, SearchAgent) and agent.network_ownership else None

    def run_interruptible(self, fn: Callable[[], T], stop: threading.Event, pause_builds: bool = False) -> T:
        """``fn()`` in a worker while the main thread watches the input for an interrupt, which
        sets ``stop``; its value, or its exception raised here. ``pause_builds``: background
        agent builds wait meanwhile (a move's search has the machine)."""
        worker = Worker(fn)
        self._stop = stop
        if pause_builds:
            self.engine.agents.idle.clear()
        try:
            worker.start()
            assert self.engine.channel is not None
            self.engine.channel.watch(worker, self.interrupt)
        finally:
            self._stop = None
            if pause_builds:
                self.engine.agents.idle.set()
        return worker.outcome()

    def run_until_input(self, fn: Callable[[], Any], stop: threading.Event) -> BaseException | None:
        """``fn()`` in a worker until the next input line arrives, then ``stop`` it; what it raised."""
        worker = Worker(fn)
        worker.start()
        assert self.engine.channel is not None
        self.engine.channel.wait_for_input()
        stop.set()
        worker.join()
        return worker.error

    def interrupt(self) -> None:
        stop = self._stop
        if stop is not None:
            log.info("interrupted")
            stop.set()

    # --- pondering --------------------------------------------------------------------------------
    def start_pondering(self) -> None:
        """After our genmove, search the opponent's position until the next input line; agents
        that keep their tree (zero, alphago) then start the next genmove from it."""
        after, self._ponder_after = self._ponder_after, None
        if after is None or not self.engine.config.get("engine.ponder"):
            return
        agent, state = after
        if state is not self.engine.game.state or state.is_over():
            return
        stop = threading.Event()
        budget = SearchBudget(max_visits=self.engine.section("analysis")["max_visits"], stop=stop)
        worker = Worker(lambda: agent.search(state, budget))
        worker.start()
        self._ponder = (stop, worker)

    def stop_pondering(self) -> None:
        if self._ponder is None:
            return
        stop, worker = self._ponder
        self._ponder = None
        stop.set()
        worker.join()
        if worker.error is not None:
            log.warning("pondering failed: %r", worker.error)
