"""The GTP front end's searches: in a worker thread while the main thread watches the input.

The move itself (budget, agent, search, decision, the clock charged) is the play layer's
(``dlgo.play.session.PlaySession``); this module runs it the GTP way: ``genmove`` and its forms
stop early at ``# interrupt`` or ``gogui-interrupt``, analysis searches run until the next input
line, the log and chat lines are written after each move.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from dlgo.gotypes import Player
from dlgo.play.decision import MoveChoice
from dlgo.play.session import MovePlan, SearchThread
from dlgo.search import ProgressCallback
from gtp_engine.analysis_formats import explain
from gtp_engine.chat import chat_line, send_chat, send_lines, variation_lines
from gtp_engine.protocol import color_name, format_move

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

__all__ = ["SearchRunner"]

log = logging.getLogger(__name__)

T = TypeVar("T")


class SearchRunner:
    """The engine's searches in worker threads, stopped by the input (interrupts, next line)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._stop: threading.Event | None = None

    # --- the move path ----------------------------------------------------------------------------
    def plan_move(self, player: Player, cleanup: bool = False) -> MovePlan:
        """The session's plan for ``player``'s move, its time counted from when the engine began
        the command (before any streamed answer begins: the play layer's refusals come here)."""
        return self.engine.session.plan_move(player, self.engine.began, cleanup)

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
        """Run ``plan``'s search and decision while watching the input for an interrupt; play the
        move when ``commit`` (not a resignation), charge the clock, log it and chat it."""
        session = self.engine.session
        assert plan.budget.stop is not None
        choice, agent = self.run_interruptible(
            lambda: session.decide(plan, on_progress, progress_interval), plan.budget.stop, pause_builds=True
        )
        elapsed = session.finish_move(plan, choice, agent, commit)
        log.info(
            "%s %s -> %s in %.2f s (budget %s): %s",
            "genmove" if commit else "reg_genmove",
            color_name(plan.player),
            format_move(choice.move),
            elapsed,
            "none" if plan.seconds is None else f"{plan.seconds:.2f} s",
            explain(choice.result, choice.candidate, choice.move, choice.reason),
        )
        if commit and self.engine.config.get("chat.variations") and not choice.move.is_resign:
            send_lines(variation_lines(choice.result))
        if commit and self.engine.config.get("chat.enabled"):
            send_chat(chat_line(self.engine.config.get("chat.channel"), plan.player, choice.candidate))
        return choice

    # --- running searches -------------------------------------------------------------------------
    def run_interruptible(self, fn: Callable[[], T], stop: threading.Event, pause_builds: bool = False) -> T:
        """``fn()`` in a worker while the main thread watches the input for an interrupt, which
        sets ``stop``; its value, or its exception raised here. ``pause_builds``: background
        agent builds wait meanwhile (a move's search has the machine)."""
        worker = SearchThread(fn, name="gtp-search")
        self._stop = stop
        agents = self.engine.session.agents
        if pause_builds:
            agents.idle.clear()
        try:
            worker.start()
            assert self.engine.channel is not None
            self.engine.channel.watch(worker, self.interrupt)
        finally:
            self._stop = None
            if pause_builds:
                agents.idle.set()
        return worker.outcome()

    def run_until_input(self, fn: Callable[[], Any], stop: threading.Event) -> BaseException | None:
        """``fn()`` in a worker until the next input line arrives, then ``stop`` it; what it raised."""
        worker = SearchThread(fn, name="gtp-analysis")
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
