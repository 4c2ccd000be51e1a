"""The GTP front end's searches: the session runs them in its own thread while the main thread
watches the input.

The move itself (budget, agent, search, decision, the move played, the clock charged) is the
play layer's (``PlaySession.genmove``); this module waits for it the GTP way: ``genmove`` and
its forms stop early at ``# interrupt`` or ``gogui-interrupt``, analysis searches run until the
next input line, the log and chat lines are written after each move.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from dlgo.gotypes import Player
from dlgo.play.decision import MoveChoice
from dlgo.play.move import MoveFuture
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
    """Waits for the session's searches, stopped by the input (interrupts, next line)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    # --- the move path ----------------------------------------------------------------------------
    def start_move(
        self,
        player: Player,
        commit: bool = True,
        cleanup: bool = False,
        on_progress: ProgressCallback | None = None,
        progress_interval: float = 0.5,
    ) -> MoveFuture:
        """The session's move for ``player``, under way, its time counted from when the engine
        began the command; the play layer's refusals are raised here, before any streamed
        answer begins."""
        return self.engine.session.genmove(
            player,
            on_progress,
            commit=commit,
            started=self.engine.began,
            cleanup=cleanup,
            progress_interval=progress_interval,
        )

    def genmove(self, player: Player, commit: bool = True, cleanup: bool = False) -> MoveChoice:
        """Search and decide a move for ``player``; play it when ``commit`` (not a resignation)."""
        return self.finish_move(self.start_move(player, commit, cleanup), commit)

    def finish_move(self, move: MoveFuture, commit: bool = True) -> MoveChoice:
        """Wait for ``move`` while watching the input for an interrupt (the session plays it,
        when ``commit``, and charges the clock), then log it and chat it."""
        choice = self.run_interruptible(move)
        plan = move.plan
        log.info(
            "%s %s -> %s in %.2f s (budget %s): %s",
            "genmove" if commit else "reg_genmove",
            color_name(plan.player),
            format_move(choice.move),
            move.elapsed,
            "none" if plan.seconds is None else f"{plan.seconds:.2f} s",
            explain(choice.result, choice.candidate, choice.move, choice.reason),
        )
        if commit and self.engine.config.get("chat.variations") and not choice.move.is_resign:
            send_lines(variation_lines(choice.result))
        if commit and self.engine.config.get("chat.enabled"):
            send_chat(chat_line(self.engine.config.get("chat.channel"), plan.player, choice.candidate))
        return choice

    # --- waiting for searches ---------------------------------------------------------------------
    def run_interruptible(self, search: Future[T]) -> T:
        """Wait for the session's ``search`` while the main thread watches the input for an
        interrupt, which stops it; its value, or its exception raised here."""
        assert self.engine.channel is not None
        self.engine.channel.watch(search, self.interrupt)
        return search.result()

    def run_until_input(self, search: Future[Any]) -> BaseException | None:
        """Let the session's ``search`` run until the next input line arrives, then stop it;
        what it raised."""
        assert self.engine.channel is not None
        self.engine.channel.wait_for_input()
        self.engine.session.stop()
        return search.exception()

    def interrupt(self) -> None:
        log.info("interrupted")
        self.engine.session.stop()
