"""The GTP engine: its state, the dispatcher and the main loop.

The engine owns the game (position, komi, handicap, undo history), the clocks and the agents.
Commands are looked up in one table (``gtp_engine.commands``); every handler checks all its
arguments before it changes anything, and a failed command leaves the game exactly as it was
(the game is also restored if a handler fails unexpectedly). Searches run in the session's
thread while the main thread watches the input (``search_runner``): analysis stops at the next
input line, ``genmove`` stops early at ``# interrupt`` or ``gogui-interrupt``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from dlgo.play.agents import AgentPool
from dlgo.play.clock import Clock
from dlgo.play.config import Config
from dlgo.play.decision import MoveChoice
from dlgo.play.errors import PlayError
from dlgo.play.game import Game
from dlgo.play.session import PlaySession
from gtp_engine.channel import Channel, Line, OutputClosed
from gtp_engine.commands import COMMANDS, Handler
from gtp_engine.protocol import (
    UNKNOWN_COMMAND,
    Command,
    GtpError,
    format_response,
    parse_command,
    play_error_text,
    preprocess,
    stream_head,
)
from gtp_engine.search_runner import SearchRunner

__all__ = ["Engine"]

log = logging.getLogger(__name__)


class Engine:
    """The GTP front end over one play session (``dlgo.play.session``): the dispatcher, the
    channel, and the command's timing; the game, clocks and agents are the session's."""

    def __init__(self, config: Config, channel: Channel | None = None) -> None:
        self.config = config
        self.channel = channel
        self.commands: dict[str, Handler] = COMMANDS
        self.session = PlaySession(config)
        self.runner = SearchRunner(self)
        self.quit_requested = False
        self.arrived = time.monotonic()  # when the current command's line arrived
        self.began = self.arrived  # when the engine began it: later if it waited behind a search
        self.streaming = False  # the current response has begun (analysis, genmove_analyze)
        if config.get("engine.preload"):
            self.agents.preload(self.agents.startup_sizes())

    # --- the session's parts, as the commands use them ----------------------------------------
    @property
    def game(self) -> Game:
        """The session's game, to read: commands change it through the session's methods."""
        return self.session.game

    @property
    def clock(self) -> Clock:
        return self.session.clock

    @property
    def agents(self) -> AgentPool:
        return self.session.agents

    @property
    def last_choice(self) -> MoveChoice | None:
        return self.session.last_choice

    # --- main loop -------------------------------------------------------------------------
    def run(self) -> int:
        """Answer commands until ``quit`` or end of input; returns the exit status (0)."""
        assert self.channel is not None
        while not self.quit_requested:
            self.session.start_pondering()
            line = self.channel.next_line()
            self.session.stop_pondering()
            if line.text is None:
                log.info("end of input")
                break
            self.handle_line(line)
        return 0

    def handle_line(self, line: Line) -> None:
        text = preprocess(line.text or "")
        if not text:
            return
        self.arrived = line.arrived
        # A line that waited behind a move generation (commands sent ahead: a pipe, a GUI) starts
        # when the engine gets to it; waiting behind start-up or quick commands counts.
        self.began = max(line.arrived, self.session.finished)
        self.execute(parse_command(text))

    def execute(self, cmd: Command) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("command: %s", " ".join([cmd.name, *cmd.args])[:500])
        handler = self.commands.get(cmd.name)
        if handler is None:
            self.write(format_response(False, cmd.id, UNKNOWN_COMMAND))
            return
        saved = self.game.copy()
        self.streaming = False
        try:
            text = handler(self, cmd)
        except (GtpError, PlayError) as e:
            self.session.set_game(saved)
            if self.streaming:
                log.warning("%s failed after its response began: %s", cmd.name, e)
                self.write("\n")
            else:
                self.write(format_response(False, cmd.id, play_error_text(e) if isinstance(e, PlayError) else str(e)))
            return
        except OutputClosed:
            raise
        except Exception as e:
            log.exception("command %r failed", cmd.name)
            self.session.set_game(saved)
            if self.streaming:
                self.write("\n")
            else:
                self.write(format_response(False, cmd.id, f"internal error: {type(e).__name__}"))
            return
        if text is not None:
            self.write(format_response(True, cmd.id, text))

    # --- what handlers share ------------------------------------------------------------------
    def write(self, text: str) -> None:
        assert self.channel is not None
        self.channel.write(text)

    def begin_stream(self, cmd: Command) -> None:
        """Write the first line of a response that goes on while a search runs."""
        self.streaming = True
        self.write(stream_head(cmd.id))

    def section(self, name: str) -> dict[str, Any]:
        """Config table ``name`` as it applies to the current board size."""
        return self.session.section(name)

    def new_game(self) -> None:
        """A new game is on the board (boardsize, clear_board, loadsgf)."""
        self.session.new_game()
