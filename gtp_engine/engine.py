"""The GTP engine: its state, the dispatcher and the main loop.

The engine owns the game (position, komi, handicap, undo history), the clocks and the agents.
Commands are looked up in one table (``gtp_engine.commands``); every handler checks all its
arguments before it changes anything, and a failed command leaves the game exactly as it was
(the game is also restored if a handler fails unexpectedly). Searches run in a worker thread
while the main thread watches the input (``search_runner``): analysis stops at the next input
line, ``genmove`` stops early at ``# interrupt`` or ``gogui-interrupt``.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from gtp_engine.agent_pool import AgentPool
from gtp_engine.channel import Channel, Line, OutputClosed
from gtp_engine.commands import COMMANDS, Handler
from gtp_engine.config import Config
from gtp_engine.decision import MoveChoice
from gtp_engine.game import Game
from gtp_engine.memory import trim_heap
from gtp_engine.protocol import (
    UNKNOWN_COMMAND,
    Command,
    GtpError,
    format_response,
    parse_command,
    preprocess,
    stream_head,
)
from gtp_engine.search_runner import SearchRunner
from gtp_engine.time_control import Clock

__all__ = ["Engine"]

log = logging.getLogger(__name__)


class Engine:
    """The engine's state (game, clocks, agents, the last move's choice) and its dispatcher."""

    def __init__(self, config: Config, channel: Channel | None = None) -> None:
        self.config = config
        self.channel = channel
        self.commands: dict[str, Handler] = COMMANDS
        size = config.get("engine.board_size")
        self.game = Game(size, size, config.get("engine.komi"), config.get("engine.handicap_compensation"))
        self.clock = Clock()
        self.agents = AgentPool(config)
        self.runner = SearchRunner(self)
        self.rules = "chinese"
        self.last_choice: MoveChoice | None = None
        self.last_winrate: float | None = None
        self.quit_requested = False
        self.arrived = time.monotonic()  # when the current command's line arrived
        self.began = self.arrived  # when the engine began it: later if it waited behind a search
        self.streaming = False  # the current response has begun (analysis, genmove_analyze)
        if config.get("engine.preload"):
            self.agents.preload(self.agents.startup_sizes())

    # --- main loop -------------------------------------------------------------------------
    def run(self) -> int:
        """Answer commands until ``quit`` or end of input; returns the exit status (0)."""
        assert self.channel is not None
        while not self.quit_requested:
            self.runner.start_pondering()
            line = self.channel.next_line()
            self.runner.stop_pondering()
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
        self.began = max(line.arrived, self.runner.finished)
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
        except GtpError as e:
            self.game = saved
            if self.streaming:
                log.warning("%s failed after its response began: %s", cmd.name, e)
                self.write("\n")
            else:
                self.write(format_response(False, cmd.id, str(e)))
            return
        except OutputClosed:
            raise
        except Exception as e:
            log.exception("command %r failed", cmd.name)
            self.game = saved
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

    def size_key(self) -> int | None:
        """The board size for ``[size.N]`` config tables; None on a rectangular board."""
        return self.game.rows if self.game.rows == self.game.cols else None

    def section(self, name: str) -> dict[str, Any]:
        """Config table ``name`` as it applies to the current board size."""
        return self.config.section(name, self.size_key())

    def new_game(self) -> None:
        """A new game is on the board (boardsize, clear_board, loadsgf): fresh clocks, no last move,
        and the last game's freed memory given back (``gtp_engine.memory``)."""
        trim_heap()
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None
