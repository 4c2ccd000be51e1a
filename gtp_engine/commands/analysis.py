"""Analysis: Leela Zero / KataGo streams (``analyze``, ``genmove_analyze`` and their forms) and
GoGui's analyze commands (ownership, visits, principal variation, interrupt).

The output formats are ``gtp_engine.analysis_formats``'s; the searches are the session's
(``PlaySession.genmove``, ``PlaySession.analyze``), waited for by ``SearchRunner``.
Ownership maps come from the search when the network has an ownership head (KataGo's, averaged
over the search tree; ``SearchAgent.network_ownership``), else from Monte Carlo playouts.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING, TypeVar

from dlgo.gotypes import Player
from dlgo.play.move import MoveFuture
from dlgo.search import SearchBudget, SearchResult
from gtp_engine.analysis_formats import gogui_dboard, gogui_pspairs, gogui_var, info_line, parse_analysis_args
from gtp_engine.channel import OutputClosed
from gtp_engine.protocol import Command, format_move

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)

T = TypeVar("T")

# GoGui's Analyze menu: type/label/command.
GOGUI_ANALYZE_COMMANDS = (
    "dboard/Ownership/dlgo-ownership",
    "pspairs/Best Moves (visits)/dlgo-visits",
    "var/Principal Variation/dlgo-pv",
    "string/Explain Last Move/gomill-explain_last_move",
    "string/Final Score/final_score",
    "plist/Dead Stones/final_status_list dead",
)


def _open_stream(engine: Engine, cmd: Command, start: Callable[[Callable[[str], None]], Future[T]]) -> Future[T]:
    """Start a search whose info lines stream as ``cmd``'s answer: ``start(write)`` raises the
    play layer's refusals before the answer begins, and ``write`` holds the search's lines
    until the answer's first line is out (the search starts first, in the session's thread)."""
    opened = threading.Lock()

    def write(line: str) -> None:
        with opened:
            engine.write(line + "\n")

    with opened:
        search = start(write)
        engine.begin_stream(cmd)
    return search


# --- streams --------------------------------------------------------------------------------------
def _genmove_analyze(engine: Engine, cmd: Command, kata: bool) -> None:
    """``genmove`` with info lines while it thinks (a line per interval, or one at the end),
    then ``play VERTEX``."""
    request = parse_analysis_args(cmd.args, engine.game.rows, engine.game.cols)
    player = request.player or engine.game.state.next_player

    def start(write: Callable[[str], None]) -> MoveFuture:
        def write_info(result: SearchResult) -> None:
            line = info_line(result, kata, request, player)
            if line:
                write(line)

        on_progress = write_info if request.interval > 0 else None
        return engine.runner.start_move(player, on_progress=on_progress, progress_interval=request.interval or 1.0)

    move = _open_stream(engine, cmd, start)
    choice = engine.runner.finish_move(move)
    if request.interval <= 0 and choice.result is not None:
        line = info_line(choice.result, kata, request, player)
        if line:
            engine.write(line + "\n")
    engine.write(f"play {format_move(choice.move)}\n\n")
    return None


def genmove_analyze(engine: Engine, cmd: Command) -> None:
    return _genmove_analyze(engine, cmd, kata=False)


def kata_genmove_analyze(engine: Engine, cmd: Command) -> None:
    return _genmove_analyze(engine, cmd, kata=True)


def _analyze(engine: Engine, cmd: Command, kata: bool) -> None:
    """Search the position and stream info lines until the next input line."""
    request = parse_analysis_args(cmd.args, engine.game.rows, engine.game.cols)
    player = request.player or engine.game.state.next_player
    budget = SearchBudget(max_visits=engine.section("analysis")["max_visits"])

    def start(write: Callable[[str], None]) -> Future[SearchResult]:
        def progress(result: SearchResult) -> None:
            line = info_line(result, kata, request, player)
            if line:
                write(line)

        return engine.session.analyze(budget, player, progress, request.interval, ownership=request.ownership)

    error = engine.runner.run_until_input(_open_stream(engine, cmd, start))
    engine.write("\n")
    if isinstance(error, OutputClosed):
        raise error
    if error is not None:
        log.error("analysis failed: %r", error)
    return None


def analyze(engine: Engine, cmd: Command) -> None:  # analyze and lz-analyze: one integer format
    return _analyze(engine, cmd, kata=False)


def kata_analyze(engine: Engine, cmd: Command) -> None:
    return _analyze(engine, cmd, kata=True)


# --- GoGui ----------------------------------------------------------------------------------------
def gogui_analyze_commands(engine: Engine, cmd: Command) -> str:
    return "\n".join(GOGUI_ANALYZE_COMMANDS)


def gogui_interrupt(engine: Engine, cmd: Command) -> str:
    return ""  # a search in progress was already stopped when the line arrived (Channel.watch)


def _one_shot_search(engine: Engine) -> tuple[SearchResult, Player]:
    """A search of ``analysis.visits`` / ``analysis.seconds`` for GoGui, stopped by an interrupt."""
    engine.session.searching_agent()  # its build first: the seconds are the search's
    player = engine.game.state.next_player
    analysis = engine.section("analysis")
    seconds = analysis["seconds"] or None
    budget = SearchBudget(
        max_visits=analysis["visits"],
        deadline=None if seconds is None else time.monotonic() + seconds,
    )
    return engine.runner.run_interruptible(engine.session.analyze(budget, player)), player


def dlgo_ownership(engine: Engine, cmd: Command) -> str:
    """The network's ownership averaged over a one-shot search when it has that head, else playouts'."""
    if not engine.game.state.is_over() and engine.session.ownership_agent() is not None:
        result, _ = _one_shot_search(engine)
        if result.ownership is not None:
            return gogui_dboard(result.ownership)
    return gogui_dboard(engine.session.playout_ownership(engine.game.state.next_player))


def dlgo_visits(engine: Engine, cmd: Command) -> str:
    result, _ = _one_shot_search(engine)
    return gogui_pspairs(result)


def dlgo_pv(engine: Engine, cmd: Command) -> str:
    result, player = _one_shot_search(engine)
    return gogui_var(result, player)
