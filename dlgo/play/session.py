"""One game as the engine plays it: the object every front end drives (GTP, the web page).

    session = PlaySession(load_config(path))              # agents built in the background
    session.game.play(Player.black, Move.play(Point(3, 3)))
    plan = session.plan_move(Player.white, started=time.monotonic())
    choice, agent = session.decide(plan)                  # in a worker thread: plan.budget.stop ends it
    session.finish_move(plan, choice, agent)              # played, clock charged, resign streak kept
    session.count()                                       # the final count, as ``scoring`` says

What it holds: the config, the agents per board size (``AgentPool``: built and warmed in the
background, shared by the sessions of one config), the game with its record (``Game``), the
clocks (``Clock``) and the move budget they give, the engine's measured own time per move,
the resign history, and pondering. What it decides: the move (the search, then the one
end-of-game policy of ``dlgo.play.decision``), the final count (``scoring``: the network's
ownership or playouts). It raises ``dlgo.play.errors``; the front ends word them (GTP text,
HTTP statuses). Protocol matters stay with the front ends: reading commands, watching the input
for interrupts, formats, chat.

This is KataGo's ``Setup`` + ``AsyncBot`` and minigo's ``MCTSPlayer`` in this project's names.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from dlgo.agent.base import Agent
from dlgo.deadstones import Count, count, ownership_count
from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.play.agents import AgentBuild, AgentPool, Overhead
from dlgo.play.clock import BudgetSettings, Clock, move_budget, move_limit, time_banks
from dlgo.play.config import Config
from dlgo.play.decision import DecisionSettings, MoveChoice, choose_move
from dlgo.play.errors import CannotScore, NoAnalysis, PlayError
from dlgo.play.game import Game, position_for
from dlgo.play.memory import trim_heap
from dlgo.play.quickmove import quick_move
from dlgo.play.resign_history import ResignHistory
from dlgo.rules import RuleSet, parse_rules
from dlgo.search import ProgressCallback, SearchAgent, SearchBudget
from dlgo.territory import territory_result

__all__ = ["PlaySession", "MovePlan", "SearchThread", "QUICK_MOVE_RESERVE"]

log = logging.getLogger(__name__)

# Seconds (at most 30% of the search time) left for a quick move, or a search worth the name,
# when a move's agent is late.
QUICK_MOVE_RESERVE = 0.2


class SearchThread(threading.Thread):
    """Runs ``fn`` in the background and keeps its value or exception for the caller."""

    def __init__(self, fn: Callable[[], Any], name: str = "search") -> None:
        super().__init__(name=name, daemon=True)
        self._fn = fn
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self._fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller's thread
            self.error = e

    def outcome(self) -> Any:
        """The value of ``fn``, or its exception raised here (call after the thread ended)."""
        if self.error is not None:
            raise self.error
        return self.value


@dataclass
class MovePlan:
    """One move's search as set before it starts: whose move, its time and its decision rules."""

    player: Player
    state: GameState  # the position with ``player`` to move
    cleanup: bool
    started: float  # when the front end began the move: its time counts from here
    seconds: float | None  # the move's budget; None: no time limit
    deadline: float | None  # when the answer is due
    overhead_floor: float  # time.move_overhead
    build: AgentBuild
    budget: SearchBudget
    settings: DecisionSettings
    opponent_passed: bool
    move_number: int
    previous_values: list[float | None]


class PlaySession:
    """A game, its clocks and the agents that play it; see the module's docstring."""

    def __init__(self, config: Config, agents: AgentPool | None = None) -> None:
        self.config = config
        self.agents = agents if agents is not None else AgentPool(config)
        size = config.get("engine.board_size")
        self.game = Game(size, size, config.get("engine.komi"), config.get("engine.handicap_compensation"))
        self.rules: RuleSet = parse_rules(config.get("engine.rules"))
        self.clock = Clock()
        self.overhead = Overhead()
        self.resign_history = ResignHistory()
        self.last_choice: MoveChoice | None = None
        self.last_winrate: float | None = None  # of our last move, for the player who made it
        self.finished = 0.0  # when the last move's decision ended (time.monotonic)
        self._rng: random.Random | None = None
        self._ponder_after: tuple[SearchAgent, GameState] | None = None
        self._ponder: tuple[threading.Event, SearchThread] | None = None

    # --- config as it applies to the board ---------------------------------------------------------
    def size_key(self) -> int | None:
        """The board size for ``[size.N]`` config tables; None on a rectangular board."""
        return self.game.rows if self.game.rows == self.game.cols else None

    def section(self, name: str) -> dict[str, Any]:
        """Config table ``name`` as it applies to the current board size."""
        return self.config.section(name, self.size_key())

    def plays(self, rows: int, cols: int) -> bool:
        """Whether an agent of the config plays this board."""
        return self.agents.resolve(rows, cols) is not None

    def new_game(self) -> None:
        """A new game is on the board: fresh clocks, no last move, and the last game's freed
        memory given back (``dlgo.play.memory``)."""
        trim_heap()
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None

    # --- the move budget ---------------------------------------------------------------------------
    def budget_settings(self) -> BudgetSettings:
        return BudgetSettings.from_config(self.section("time"))

    def budget_seconds(self, player: Player) -> float | None:
        """Seconds ``player``'s next move may think (the clock's share); None: no limit."""
        board = self.game.board
        points = board.num_rows * board.num_cols
        empty = points - sum(1 for _ in board.stones())
        clear = self.last_winrate is not None and not (0.05 <= self.last_winrate <= 0.95)
        return move_budget(
            self.clock.control,
            self.clock.clocks[player],
            self.budget_settings(),
            empty,
            points,
            opponent_passed=self.game.opponent_passed(player),
            clear_result=clear,
        )

    def deadline(self, player: Player, started: float, seconds: float | None) -> float | None:
        """When the move that began at ``started`` with ``seconds`` to think must stop: its
        budget counts from when the front end began it, and when the controller reported our
        clock (``Clock.time_left``) the move also ends before that clock, counted from the
        report, runs out."""
        if seconds is None:
            return None
        deadline = started + seconds
        reported = self.clock.reported.get(player)
        if reported is not None:
            settings = self.budget_settings()
            limit = move_limit(self.clock.control, self.clock.clocks[player], settings)
            if limit is not None:
                deadline = min(deadline, max(reported + limit, started + settings.minimum))
        return deadline

    def search_deadline(self, plan: MovePlan) -> float | None:
        """The deadline less the engine's own work after the search (at most a quarter of the
        move's time), so that the answer is out by the move's deadline."""
        if plan.deadline is None:
            return None
        own = self.overhead.estimate(plan.overhead_floor, plan.build.overhead)
        return plan.deadline - min(own, 0.25 * (plan.deadline - plan.started))

    # --- the move ----------------------------------------------------------------------------------
    def plan_move(self, player: Player, started: float, cleanup: bool = False) -> MovePlan:
        """Everything a move's search needs, set before it starts (``started``: when the front
        end began the move); ``UnsupportedSize``/``AgentBuildError`` when no agent plays the board."""
        _, _, build = self.agents.request(self.game.rows, self.game.cols)
        seconds = self.budget_seconds(player)
        settings = DecisionSettings.from_config(
            self.section("resign"), self.section("pass"), self.section("variety"), area_scoring=self.rules.area
        )
        plan = MovePlan(
            player=player,
            state=position_for(self.game.state, player),
            cleanup=cleanup,
            started=started,
            seconds=seconds,
            deadline=self.deadline(player, started, seconds),
            overhead_floor=self.section("time")["move_overhead"],
            build=build,
            budget=SearchBudget(
                stop=threading.Event(), banks_time=time_banks(self.clock.control, self.clock.clocks[player])
            ),
            settings=settings,
            opponent_passed=self.game.opponent_passed(player),
            move_number=self.game.num_moves + 1,
            previous_values=self.resign_history.previous(
                self.game.state, player, settings.resign_consecutive_moves - 1
            ),
        )
        plan.budget.deadline = self.search_deadline(plan)
        return plan

    def decide(
        self, plan: MovePlan, on_progress: ProgressCallback | None = None, progress_interval: float = 0.5
    ) -> tuple[MoveChoice, Agent | None]:
        """The move for ``plan`` and the agent that chose it (None: a quick move while the agent
        was still built). Runs in the caller's thread until the search ends; ``plan.budget.stop``
        ends it early with the best move found so far."""
        budget, stop = plan.budget, plan.budget.stop
        assert stop is not None
        agent = self._await_agent(plan.build, plan.started, budget.deadline, stop)
        if agent is None:  # still building: answer in time with what needs no agent
            move, why = quick_move(plan.state)
            return MoveChoice(move, f"quick move while agent {plan.build.name} is built: {why}"), None
        with self.agents.lend(plan.build) as lent:
            budget.max_visits = lent.visit_limit if isinstance(lent, SearchAgent) else None
            budget.deadline = self.search_deadline(plan)  # the agent's own measure, now that it is built
            choice = choose_move(
                lent,
                plan.state,
                budget,
                plan.settings,
                plan.move_number,
                plan.opponent_passed,
                plan.cleanup,
                on_progress,
                progress_interval,
                plan.previous_values,
                final_count=self.count,
                rng=self._variety_rng(plan.settings) if plan.settings.variety.enabled else None,
            )
        return choice, lent

    def finish_move(self, plan: MovePlan, choice: MoveChoice, agent: Agent | None, commit: bool = True) -> float:
        """After ``decide``: the move played (when ``commit``; not a resignation), the clock
        charged, the resign streak and the engine's own time per move kept. Returns the
        seconds the move took from ``plan.started``."""
        self.finished = time.monotonic()
        elapsed = self.finished - plan.started
        budget = plan.budget
        if budget.deadline is not None and agent is not None and self.finished >= budget.deadline:
            self.overhead.record(self.finished - budget.deadline)  # the search ran to its deadline
        if commit and not choice.move.is_resign:
            self.game.play(plan.player, choice.move)
            self.resign_history.record(self.game.state, choice)
            if isinstance(agent, SearchAgent) and agent.keeps_tree:
                self._ponder_after = (agent, self.game.state)
        if commit:
            self.clock.spend(plan.player, elapsed)  # our own count until the controller reports again
        self.last_choice = choice
        if choice.candidate is not None:
            self.last_winrate = choice.candidate.winrate
        return elapsed

    def _variety_rng(self, settings: DecisionSettings) -> random.Random:
        """One generator for the session's varied opening moves, seeded once (variety.seed)."""
        if self._rng is None:
            self._rng = settings.variety.rng()
        return self._rng

    def _await_agent(
        self, build: AgentBuild, started: float, deadline: float | None, stop: threading.Event
    ) -> Agent | None:
        """The agent of ``build`` once built, waiting at most until a quick move must be made to
        answer by ``deadline`` (no limit without one); None when the time or a stop came first."""
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

    # --- analysis and counting ---------------------------------------------------------------------
    def searching_agent(self) -> SearchAgent:
        """The board's agent, which must search (analysis), waiting for its build;
        ``NoAnalysis`` when it does not search."""
        agent_type, _, agent = self.agents.get(self.game.rows, self.game.cols)
        if not isinstance(agent, SearchAgent):
            raise NoAnalysis(f"agent '{agent_type.name}' does not search: no analysis")
        return agent

    def ownership_agent(self) -> SearchAgent | None:
        """The board's agent when its searches give the network's ownership map (an ownership
        head), waiting for its build; None otherwise or when no agent plays the board."""
        try:
            _, _, agent = self.agents.get(self.game.rows, self.game.cols)
        except PlayError:
            return None
        return agent if isinstance(agent, SearchAgent) and agent.network_ownership else None

    def count(self, state: GameState | None = None) -> Count:
        """``state`` (the game's position by default) counted as a finished game is, under the
        session's rules (``rules``: by area, or by territory with prisoners): dead stones found by
        the network's ownership or by playouts, as ``scoring.dead_stones`` says. ``CannotScore``
        if counting fails. The pass decision asks it too, so the engine passes only into a count
        that its own final score confirms."""
        counted = self._area_count(state)
        if self.rules.area:
            return counted
        state = self.game.state if state is None else state
        seki = [p for group in counted.status.seki for p in group]
        return replace(counted, result=territory_result(state, counted.dead_stones(), seki))

    def _area_count(self, state: GameState | None = None) -> Count:
        """The area count of ``state`` (the game's position by default), dead stones found as
        ``scoring.dead_stones`` says."""
        state = self.game.state if state is None else state
        scoring = self.section("scoring")
        try:
            build = self._counting_build(scoring["dead_stones"])
            if build is None:
                return count(state, scoring["playouts"], scoring["seed"])
            visits = scoring["network_visits"]

            def ownership():
                # The board as a game going on (a finished game has nothing left to search).
                board = GameState.from_position(state.board, state.next_player, state.komi)
                with self.agents.lend(build) as agent:
                    return agent.search(board, SearchBudget(max_visits=visits)).ownership

            return ownership_count(state, ("network", id(build), visits), ownership)
        except Exception as e:
            log.exception("counting failed")
            raise CannotScore(f"counting failed: {e}") from e

    def counts_with_network(self) -> bool:
        """Whether the final count finds dead stones with the network (else with playouts)."""
        return self._counting_build(self.section("scoring")["dead_stones"]) is not None

    def _counting_build(self, method: str) -> AgentBuild | None:
        """The build of the board's agent when its network finds the dead stones (``method``
        and an ownership head), waiting for it; None when playouts count."""
        if method == "playouts":
            return None
        try:
            _, _, build = self.agents.request(self.game.rows, self.game.cols)
            build.done.wait()
            agent = build.result()
        except PlayError:
            agent = None
        if isinstance(agent, SearchAgent) and agent.network_ownership:
            return build
        if method == "network":
            log.warning("scoring.dead_stones = network, but the board's agent has no ownership head: playouts count")
        return None

    # --- pondering ---------------------------------------------------------------------------------
    def start_pondering(self) -> None:
        """After our committed move, search the opponent's position until ``stop_pondering``;
        agents that keep their tree (zero, alphago) then start the next move from it."""
        after, self._ponder_after = self._ponder_after, None
        if after is None or not self.config.get("engine.ponder"):
            return
        agent, state = after
        if state is not self.game.state or state.is_over():
            return
        stop = threading.Event()
        budget = SearchBudget(max_visits=self.section("analysis")["max_visits"], stop=stop)
        worker = SearchThread(lambda: agent.search(state, budget), name="ponder")
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
