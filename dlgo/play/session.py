"""One game as the engine plays it: the object every front end drives (GTP, the web page).

    session = PlaySession(load_config(path))              # agents built in the background
    session.play(Player.black, Move.play(Point(3, 3)))
    move = session.genmove(Player.white)                  # a Future: searched in the session's thread
    session.stop()                                        # (any time) answer now with the best so far
    choice = move.result()                                # played, clock charged, resign streak kept
    session.count()                                       # the final count, as ``scoring`` says

What it holds: the config, the agents per board size (``AgentPool``: built and warmed in the
background, shared by the sessions of one config), the game with its record (``Game``), the
clocks (``Clock``) and the move budget they give, the engine's measured own time per move,
the resign history, pondering, and its one search thread (``dlgo.play.worker``). What it
decides: the move (the opening book's, ``dlgo.search.book``, or the search's and then the one
end-of-game policy of ``dlgo.play.decision``), the final count (``dlgo.play.counting``). It
raises ``dlgo.play.errors``; the front ends word them (GTP text, HTTP statuses). Protocol
matters stay with the front ends: reading commands, watching the input for interrupts, formats,
chat.

The game changes only through the session's methods (``play``, ``undo``, ``clear``,
``set_komi``, ``set_handicap``, ``set_game``), under its ``lock``; a change drops a move still
searched for the position before (its future raises ``MoveAbandoned``). A move is committed,
and its future resolved, inside the same lock, so a front end that keeps state beside the game
(the web page) holds that lock too and sees the move and its own state change together.

This is KataGo's ``Setup`` + ``AsyncBot`` and minigo's ``MCTSPlayer`` in this project's names.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from dlgo.agent.base import Agent
from dlgo.agent.termination import is_handicap_game
from dlgo.deadstones import Count
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.play.agents import AgentBuild, AgentPool, Overhead
from dlgo.play.clock import BudgetSettings, Clock, may_run_on, move_budget, move_limit, time_banks
from dlgo.play.config import Config
from dlgo.play.counting import counting_build, final_count
from dlgo.play.decision import DecisionSettings, MoveChoice, book_choice, choose_move
from dlgo.play.errors import MoveAbandoned, NoAnalysis, PlayError
from dlgo.play.game import Game, position_for
from dlgo.play.memory import trim_heap
from dlgo.play.move import MoveFuture, MovePlan
from dlgo.play.quickmove import quick_move
from dlgo.play.resign_history import ResignHistory
from dlgo.play.worker import SearchWorker
from dlgo.rules import RuleSet, parse_rules
from dlgo.search import ProgressCallback, SearchAgent, SearchBudget, SearchResult
from dlgo.search.book import BookError, load_book

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PlaySession", "QUICK_MOVE_RESERVE"]

log = logging.getLogger(__name__)

# Seconds (at most 30% of the search time) left for a quick move, or a search worth the name,
# when a move's agent is late.
QUICK_MOVE_RESERVE = 0.2


class PlaySession:
    """A game, its clocks, the agents that play it and its search thread; see the module's
    docstring."""

    def __init__(self, config: Config, agents: AgentPool | None = None) -> None:
        self.config = config
        self.agents = agents if agents is not None else AgentPool(config)
        size = config.get("engine.board_size")
        self._game = Game(size, size, config.get("engine.komi"), config.get("engine.handicap_compensation"))
        self.rules: RuleSet = parse_rules(config.get("engine.rules"))
        self.clock = Clock()
        self.overhead = Overhead()
        self.resign_history = ResignHistory()
        self.last_choice: MoveChoice | None = None
        self.last_winrate: float | None = None  # of our last move, for the player who made it
        self.finished = 0.0  # when the last move's decision ended (time.monotonic)
        # Held while the game changes and while a move is committed (see the module's docstring).
        self.lock = threading.RLock()
        self._worker = SearchWorker()
        self._generation = 0  # bumped by every change of the game: a move searched before is dropped
        self._rng: random.Random | None = None
        self._ponder_after: tuple[SearchAgent, GameState] | None = None
        self._ponder: tuple[threading.Event, Future[SearchResult]] | None = None

    # --- config as it applies to the board ---------------------------------------------------------
    def size_key(self) -> int | None:
        """The board size for ``[size.N]`` config tables; None on a rectangular board."""
        return self.game.rows if self.game.rows == self.game.cols else None

    def section(self, name: str) -> dict[str, Any]:
        """Config table ``name`` as it applies to the current board size."""
        return self.config.section(name, self.size_key())

    @property
    def handicap_game(self) -> bool:
        """Whether the game began with handicap stones (the end-of-game rules' definition,
        ``is_handicap_game``): the agents of the config's ``[handicap]`` tables play it."""
        return is_handicap_game(self.game.state)

    def plays(self, rows: int, cols: int) -> bool:
        """Whether an agent of the config plays this board."""
        return self.agents.resolve(rows, cols) is not None

    def new_game(self) -> None:
        """A new game is on the board: fresh clocks, no last move, and the last game's freed
        memory given back (``dlgo.play.memory``)."""
        trim_heap()
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None

    # --- the game: read it, change it through these ------------------------------------------------
    @property
    def game(self) -> Game:
        """The game; change it through the methods below, never directly."""
        return self._game

    @contextmanager
    def _change(self) -> Iterator[None]:
        """A change of the game, under the lock; when it goes through (a refusal changes
        nothing), a move under way is dropped and every search stops."""
        with self.lock:
            yield
            self._generation += 1
            self._worker.stop()

    def play(self, player: Player, move: Move) -> GameState:
        """Play ``move`` for ``player``; ``IllegalMove`` changes nothing."""
        with self._change():
            return self._game.play(player, move)

    def undo(self) -> None:
        """Take back the last move (``CannotUndo`` without one); the last choice goes with it."""
        with self._change():
            self._game.undo()
            self.last_choice = None

    def clear(self, rows: int | None = None, cols: int | None = None) -> None:
        """An empty board, of ``rows`` x ``cols`` when given (call ``new_game`` for the clocks)."""
        with self._change():
            self._game.clear(rows, cols)

    def set_komi(self, komi: float) -> None:
        with self._change():
            self._game.set_komi(komi)

    def set_handicap(self, points: Iterable[Point], count_as_handicap: bool = True) -> None:
        """Black setup stones on the empty board (``BoardNotEmpty``, ``BadSetup`` otherwise)."""
        with self._change():
            self._game.set_handicap(points, count_as_handicap)
        if self.handicap_game:
            with suppress(PlayError):  # its build goes first: the opponent's move is next
                self.agents.request(self._game.rows, self._game.cols, handicap=True)

    def set_game(self, game: Game) -> None:
        """Play ``game`` from now on: a loaded record, a new game, or a saved copy put back."""
        with self._change():
            self._game = game

    # --- the move budget ---------------------------------------------------------------------------
    def budget_settings(self) -> BudgetSettings:
        return BudgetSettings.from_config(self.section("time"))

    def budget_seconds(self, player: Player) -> float | None:
        """Seconds ``player``'s next move may think (the clock's share); None: no limit."""
        return move_budget(self.clock.control, self.clock.clocks[player], self.budget_settings(), **self._phase(player))

    def unsure_seconds(self, player: Player) -> float | None:
        """Seconds ``player``'s next move may run on to while its best move is unsure (main time,
        ``time.unsure_factor``); None: no extension."""
        control, clock, settings = self.clock.control, self.clock.clocks[player], self.budget_settings()
        if not may_run_on(control, clock, settings):
            return None
        return move_budget(control, clock, settings, factor=settings.unsure_factor, **self._phase(player))

    def _phase(self, player: Player) -> dict:
        """What the clock's share depends on besides the clock: the board's emptiness, a pass, a clear result."""
        board = self.game.board
        points = board.num_rows * board.num_cols
        return {
            "empty": points - sum(1 for _ in board.stones()),
            "points": points,
            "opponent_passed": self.game.opponent_passed(player),
            "clear_result": self.last_winrate is not None and not (0.05 <= self.last_winrate <= 0.95),
        }

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

    def search_deadline(self, plan: MovePlan, deadline: float | None = None) -> float | None:
        """The deadline (``plan.deadline`` unless given) less the engine's own work after the
        search (at most a quarter of the move's time), so that the answer is out by then."""
        deadline = plan.deadline if deadline is None else deadline
        if deadline is None:
            return None
        own = self.overhead.estimate(plan.overhead_floor, plan.build.overhead)
        return deadline - min(own, 0.25 * (deadline - plan.started))

    def _set_search_deadlines(self, plan: MovePlan) -> None:
        budget = plan.budget
        budget.deadline = self.search_deadline(plan)
        if plan.unsure_deadline is not None and plan.deadline is not None and plan.unsure_deadline > plan.deadline:
            budget.unsure_deadline = self.search_deadline(plan, plan.unsure_deadline)

    def book_result(self, state: GameState) -> SearchResult | None:
        """The opening book's answer for ``state`` (``book.file`` of this board size), or None:
        no book, another komi or size, or a position it does not hold."""
        table = self.section("book")
        if not table["file"]:
            return None
        try:
            book = load_book(self.config.resolve_path(table["file"]))
        except BookError as e:  # checked at start-up; a file spoilt since costs the book, not the game
            log.warning("the opening book is not used: %s", e)
            return None
        return book.lookup(state, table["komi_tolerance"])

    # --- the move ----------------------------------------------------------------------------------
    def plan_move(self, player: Player, started: float, cleanup: bool = False) -> MovePlan:
        """Everything a move's search needs, set before it starts (``started``: when the front
        end began the move); ``UnsupportedSize``/``AgentBuildError`` when no agent plays the board."""
        _, _, build = self.agents.request(self.game.rows, self.game.cols, handicap=self.handicap_game)
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
        unsure = self.unsure_seconds(player)
        if unsure is not None:
            plan.unsure_deadline = self.deadline(player, started, unsure)
            plan.budget.unsure_visit_ratio = self.budget_settings().unsure_visit_ratio
        self._set_search_deadlines(plan)
        return plan

    def genmove(
        self,
        player: Player,
        on_progress: ProgressCallback | None = None,
        stop: threading.Event | None = None,
        commit: bool = True,
        *,
        started: float | None = None,
        cleanup: bool = False,
        progress_interval: float = 0.5,
    ) -> MoveFuture:
        """``player``'s move, searched and decided in the session's thread; played when
        ``commit`` (not a resignation), the clock charged either way. The move is planned here
        first: its refusals (``UnsupportedSize``, ``AgentBuildError``) are raised at once,
        before a front end begins its answer. ``started``: when the front end began the move,
        its time counts from there (default: now). ``on_progress`` gets the search's progress
        every ``progress_interval`` seconds, in the search thread. ``stop`` (the caller's), or
        ``stop()``, ends the search early with the best move found so far. The future resolves
        inside ``lock`` once the move is played."""
        self.stop_pondering()

        def make(move: MoveFuture, generation: int) -> None:
            plan = move.plan
            with self.agents.searching():  # builds nobody waits for yet do not compete with it
                choice, agent = self._decide(plan, on_progress, progress_interval)
            with self.lock:
                if generation != self._generation:
                    raise MoveAbandoned("the game changed while the move was searched: it was not played")
                move.elapsed = self._finish_move(plan, choice, agent, commit)
                move.agent = agent
                move.set_result(choice)  # inside the lock: its callbacks see the move played

        with self.lock:  # planned and queued before any change of the game can come between
            plan = self.plan_move(player, time.monotonic() if started is None else started, cleanup)
            if stop is not None:
                plan.budget.stop = stop
            assert plan.budget.stop is not None
            move = MoveFuture(plan)
            generation = self._generation
            self._worker.submit(lambda: make(move, generation), plan.budget.stop, move)
        return move

    def stop(self) -> None:
        """End the session's search now: a move is answered (and played) with the best found so
        far, an analysis or pondering ends."""
        self._worker.stop()

    def cancel(self) -> None:
        """Stop as ``stop`` does and drop a move under way: nothing is played, its future raises
        ``MoveAbandoned``."""
        with self.lock:
            self._generation += 1
            self._worker.stop()

    @property
    def searching(self) -> bool:
        """Whether a search runs or waits in the session's thread (pondering included)."""
        return self._worker.busy

    def _decide(
        self, plan: MovePlan, on_progress: ProgressCallback | None = None, progress_interval: float = 0.5
    ) -> tuple[MoveChoice, Agent | None]:
        """The move for ``plan`` and the agent that chose it (None: a quick move while the agent
        was still built), in the session's thread; ``plan.budget.stop`` ends the search early
        with the best move found so far."""
        budget, stop = plan.budget, plan.budget.stop
        assert stop is not None
        booked = None if plan.opponent_passed or plan.cleanup else self.book_result(plan.state)
        if booked is not None:  # no search, and no need to wait for the agent
            if on_progress is not None:
                on_progress(booked)
            rng = self._variety_rng(plan.settings) if plan.settings.variety.enabled else None
            return book_choice(booked, plan.settings, plan.move_number, rng), None
        agent = self._await_agent(plan.build, plan.started, budget.deadline, stop)
        if agent is None:  # still building: answer in time with what needs no agent
            move, why = quick_move(plan.state)
            return MoveChoice(move, f"quick move while agent {plan.build.name} is built: {why}"), None
        with self.agents.lend(plan.build) as lent:
            budget.max_visits = lent.visit_limit if isinstance(lent, SearchAgent) else None
            self._set_search_deadlines(plan)  # the agent's own measure, now that it is built
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

    def _finish_move(self, plan: MovePlan, choice: MoveChoice, agent: Agent | None, commit: bool = True) -> float:
        """After ``_decide``: the move played (when ``commit``; not a resignation), the clock
        charged, the resign streak and the engine's own time per move kept. Returns the
        seconds the move took from ``plan.started``."""
        self.finished = time.monotonic()
        elapsed = self.finished - plan.started
        budget = plan.budget
        # The search ran to its last deadline: what came after is the engine's own time. (Past
        # ``deadline`` but before ``unsure_deadline`` it stopped when sure: no measure.)
        last = budget.unsure_deadline if budget.unsure_deadline is not None else budget.deadline
        if last is not None and agent is not None and self.finished >= last:
            self.overhead.record(self.finished - last)
        if commit and not choice.move.is_resign:
            self._game.play(plan.player, choice.move)
            self._generation += 1  # a move searched for the position before is stale now
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
        agent_type, _, agent = self.agents.get(self.game.rows, self.game.cols, self.handicap_game)
        if not isinstance(agent, SearchAgent):
            raise NoAnalysis(f"agent '{agent_type.name}' does not search: no analysis")
        return agent

    def ownership_agent(self) -> SearchAgent | None:
        """The board's agent when its searches give the network's ownership map (an ownership
        head), waiting for its build; None otherwise or when no agent plays the board."""
        try:
            _, _, agent = self.agents.get(self.game.rows, self.game.cols, self.handicap_game)
        except PlayError:
            return None
        return agent if isinstance(agent, SearchAgent) and agent.network_ownership else None

    def analyze(
        self,
        budget: SearchBudget,
        player: Player | None = None,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
        ownership: bool = False,
    ) -> Future[SearchResult]:
        """A search of the position with ``player`` (default: the side to move) to move, in the
        session's thread, for analysis: nothing is played, no clock runs. The board's agent must
        search: ``NoAnalysis`` is raised here, after waiting for its build. ``budget`` says when
        the search ends, or ``stop()``. ``on_progress`` gets its progress every
        ``progress_interval`` seconds, or once at the end when that is 0. ``ownership``: the
        results carry the network's ownership, or for an agent without that head the playouts'
        (``playout_ownership``, estimated before the search)."""
        self.stop_pondering()
        agent = self.searching_agent()
        stop = budget.stop = budget.stop if budget.stop is not None else threading.Event()

        def search(state: GameState, player: Player) -> SearchResult:
            grid = self.playout_ownership(player) if ownership and not agent.network_ownership else None

            def report(result: SearchResult) -> None:
                assert on_progress is not None
                on_progress(result if grid is None else replace(result, ownership=grid))

            if on_progress is not None and progress_interval > 0:
                result = agent.search(state, budget, on_progress=report, progress_interval=progress_interval)
            else:
                result = agent.search(state, budget)
                if on_progress is not None:
                    report(result)
            return result if grid is None else replace(result, ownership=grid)

        with self.lock:  # the position read and the search queued before any change can come between
            side = self.game.state.next_player if player is None else player
            position = position_for(self.game.state, side)
            return self._worker.submit(lambda: search(position, side), stop)

    def playout_ownership(self, player: Player) -> np.ndarray:
        """Who owns each point at the end of random playouts from the position with ``player``
        to move (``analysis.ownership_playouts``), rows from the top: the map of an agent
        without an ownership head."""
        from dlgo.playout import estimate_ownership  # compiled kernels: not at start-up

        state = position_for(self.game.state, player)
        return estimate_ownership(state, self.section("analysis")["ownership_playouts"]).grid()

    def count(self, state: GameState | None = None) -> Count:
        """``state`` (the game's position by default) counted as a finished game is, under the
        session's rules (``rules``: by area, or by territory with prisoners): dead stones found by
        the network's ownership or by playouts, as ``scoring.dead_stones`` says. ``CannotScore``
        if counting fails. The pass decision asks it too, so the engine passes only into a count
        that its own final score confirms."""
        state = self.game.state if state is None else state
        return final_count(state, self.agents, (self.game.rows, self.game.cols), self.section("scoring"), self.rules)

    def counts_with_network(self) -> bool:
        """Whether the final count finds dead stones with the network (else with playouts)."""
        board = (self.game.rows, self.game.cols)
        return counting_build(self.agents, board, self.section("scoring")["dead_stones"]) is not None

    # --- pondering ---------------------------------------------------------------------------------
    def start_pondering(self) -> None:
        """After our committed move, search the opponent's position in the session's thread
        until ``stop_pondering``; agents that keep their tree (zero, alphago) then start the next
        move from it."""
        after, self._ponder_after = self._ponder_after, None
        if after is None or not self.config.get("engine.ponder"):
            return
        agent, state = after
        if state is not self.game.state or state.is_over():
            return
        stop = threading.Event()
        budget = SearchBudget(max_visits=self.section("analysis")["max_visits"], stop=stop)
        self._ponder = (stop, self._worker.submit(lambda: agent.search(state, budget), stop))

    def stop_pondering(self) -> None:
        """End pondering and wait for its search to stop (no-op when not pondering)."""
        if self._ponder is None:
            return
        stop, search = self._ponder
        self._ponder = None
        stop.set()
        error = search.exception()
        if error is not None:
            log.warning("pondering failed: %r", error)
