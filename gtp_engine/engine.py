"""The GTP engine: command table, handlers and the main loop.

The engine owns the game (position, komi, handicap, undo history), the clocks and the agents.
Every handler checks all its arguments before it changes anything, and a failed command
leaves the game exactly as it was (the game is also restored if a handler fails unexpectedly).
Searches run in a worker thread while the main thread watches the input: analysis stops at
the next input line, ``genmove`` stops early at ``# interrupt`` or ``gogui-interrupt``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from dlgo import __version__
from dlgo.agent import registry
from dlgo.agent.base import Agent
from dlgo.goboard import MAX_SIZE, MIN_SIZE, GameState
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, free_handicap_points
from dlgo.search import SearchAgent, SearchBudget, SearchResult
from dlgo.utils import board_to_text
from gtp_engine.agent_pool import AgentBuild, AgentPool, Overhead
from gtp_engine.analysis import (
    AnalysisRequest,
    explain,
    gogui_dboard,
    gogui_pspairs,
    gogui_var,
    gtp_version,
    info_line,
    parse_analysis_args,
)
from gtp_engine.channel import Channel, Line, OutputClosed
from gtp_engine.chat import chat_line, send_chat
from gtp_engine.clock import BudgetSettings, Clock, TimeControl, move_budget, move_limit
from gtp_engine.config import Config
from gtp_engine.decision import DecisionSettings, MoveChoice, choose_move, resign_value
from gtp_engine.game import Game, position_for
from gtp_engine.protocol import (
    BAD_VERTEX_LIST,
    BOARD_NOT_EMPTY,
    CANNOT_LOAD,
    CANNOT_SCORE,
    INVALID_STONES,
    SYNTAX_ERROR,
    UNACCEPTABLE_SIZE,
    UNKNOWN_COMMAND,
    Command,
    GtpError,
    color_name,
    format_move,
    format_response,
    format_vertex,
    parse_color,
    parse_command,
    parse_float,
    parse_int,
    parse_move,
    parse_vertex,
    preprocess,
    stream_head,
)
from gtp_engine.quickmove import quick_move
from gtp_engine.scoring import count

__all__ = ["Engine", "COMMANDS"]

log = logging.getLogger(__name__)

# Command name -> method name, in the order ``list_commands`` shows them.
COMMANDS: dict[str, str] = {}


def _cannot_load(reason: str) -> str:
    """``cannot load file: <reason>``: the canonical text clients test for, then why, on one line."""
    reason = " ".join(reason.split())
    return f"{CANNOT_LOAD}: {reason[:300]}" if reason else CANNOT_LOAD


def command(*names: str) -> Callable[[Callable], Callable]:
    def register(fn: Callable) -> Callable:
        for name in names:
            COMMANDS[name] = fn.__name__
        return fn

    return register


class _Worker(threading.Thread):
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


# Seconds (at most 30% of the search time) left for a quick move, or a search worth the name,
# when a move's agent is late.
QUICK_MOVE_RESERVE = 0.2


class Engine:
    def __init__(self, config: Config, channel: Channel | None = None) -> None:
        self.config = config
        self.channel = channel
        size = config.get("engine.board_size")
        self.game = Game(size, size, config.get("engine.komi"), config.get("engine.handicap_compensation"))
        self.clock = Clock()
        self.agents = AgentPool(config)
        self.rules = "chinese"
        self.last_choice: MoveChoice | None = None
        self.last_winrate: float | None = None
        # resign_value of each move we generated and played, keyed by the GameState it made.
        # GameState hashes by identity and every move (genmove, play, undo+replay, loadsgf,
        # clear_board) makes new state objects, so walking back from the current position
        # finds exactly our own generated moves of the current line, with no bookkeeping in
        # the other commands; entries off the current line are dropped at the next record.
        self._move_values: dict[GameState, float | None] = {}
        self.quit_requested = False
        self._arrived = time.monotonic()  # when the current command's line arrived
        self._began = self._arrived  # when the engine began it: later if it waited behind a search
        self._searched = 0.0  # when the engine finished its last move generation
        self._overhead = Overhead()
        self._stop: threading.Event | None = None
        self._streaming = False  # the current response has begun (analysis, genmove_analyze)
        self._ponder_after: tuple[SearchAgent, GameState] | None = None  # (agent, position) to ponder on
        self._ponder: tuple[threading.Event, _Worker] | None = None
        if config.get("engine.preload"):
            self.agents.preload(self._sizes_named())

    def _sizes_named(self) -> list[int]:
        """Board sizes whose agents are built at start-up: the start-up size, every ``[size.N]``
        of the config, and one size the top-level agent plays if no other has it built."""
        start = self.config.get("engine.board_size")
        sizes = [start, *sorted(self.config.as_dict()["size"])]
        top = (self.config.agent_name(), self.config.section(self.config.agent_name()))
        if all(self.agents.resolve(n, n) != top for n in sizes):
            for n in (19, 13, 9, 7, *range(MIN_SIZE, MAX_SIZE + 1)):
                if self.agents.resolve(n, n) == top:
                    sizes.append(n)
                    break
        return list(dict.fromkeys(sizes))

    # --- main loop -------------------------------------------------------------------------
    def run(self) -> int:
        """Answer commands until ``quit`` or end of input; returns the exit status (0)."""
        assert self.channel is not None
        while not self.quit_requested:
            self._start_pondering()
            line = self.channel.next_line()
            self._stop_pondering()
            if line.text is None:
                log.info("end of input")
                break
            self.handle_line(line)
        return 0

    def handle_line(self, line: Line) -> None:
        text = preprocess(line.text or "")
        if not text:
            return
        self._arrived = line.arrived
        # A line that waited behind a move generation (commands sent ahead: a pipe, a GUI) starts
        # when the engine gets to it; waiting behind start-up or quick commands counts.
        self._began = max(line.arrived, self._searched)
        self.execute(parse_command(text))

    def _write(self, text: str) -> None:
        assert self.channel is not None
        self.channel.write(text)

    def execute(self, cmd: Command) -> None:
        if log.isEnabledFor(logging.DEBUG):
            log.debug("command: %s", " ".join([cmd.name, *cmd.args])[:500])
        method = COMMANDS.get(cmd.name)
        if method is None:
            self._write(format_response(False, cmd.id, UNKNOWN_COMMAND))
            return
        saved = self.game.copy()
        self._streaming = False
        try:
            text = getattr(self, method)(cmd)
        except GtpError as e:
            self.game = saved
            if self._streaming:
                log.warning("%s failed after its response began: %s", cmd.name, e)
                self._write("\n")
            else:
                self._write(format_response(False, cmd.id, str(e)))
            return
        except OutputClosed:
            raise
        except Exception as e:
            log.exception("command %r failed", cmd.name)
            self.game = saved
            if self._streaming:
                self._write("\n")
            else:
                self._write(format_response(False, cmd.id, f"internal error: {type(e).__name__}"))
            return
        if text is not None:
            self._write(format_response(True, cmd.id, text))

    # --- pondering ------------------------------------------------------------------------------
    def _start_pondering(self) -> None:
        """After our genmove, search the opponent's position until the next input line; agents
        that keep their tree (zero, alphago) then start the next genmove from it."""
        after, self._ponder_after = self._ponder_after, None
        if after is None or not self.config.get("engine.ponder"):
            return
        agent, state = after
        if state is not self.game.state or state.is_over():
            return
        stop = threading.Event()
        budget = SearchBudget(max_visits=self._section("analysis")["max_visits"], stop=stop)
        worker = _Worker(lambda: agent.search(state, budget))
        worker.start()
        self._ponder = (stop, worker)

    def _stop_pondering(self) -> None:
        if self._ponder is None:
            return
        stop, worker = self._ponder
        self._ponder = None
        stop.set()
        worker.join()
        if worker.error is not None:
            log.warning("pondering failed: %r", worker.error)

    def _begin_stream(self, cmd: Command) -> None:
        """Write the first line of a response that goes on while a search runs."""
        self._streaming = True
        self._write(stream_head(cmd.id))

    # --- helpers ---------------------------------------------------------------------------
    def _size_key(self) -> int | None:
        return self.game.rows if self.game.rows == self.game.cols else None

    def _section(self, name: str) -> dict[str, Any]:
        return self.config.section(name, self._size_key())

    def _args(self, cmd: Command, count_: int) -> tuple[str, ...]:
        if len(cmd.args) != count_:
            raise GtpError(SYNTAX_ERROR)
        return cmd.args

    def _decision_settings(self) -> DecisionSettings:
        return DecisionSettings.from_config(self._section("resign"), self._section("pass"))

    def _budget_settings(self) -> BudgetSettings:
        t = self._section("time")
        return BudgetSettings(
            lag_buffer=t["lag_buffer"],
            min_moves_left=t["min_moves_left"],
            moves_left_factor=t["moves_left_factor"],
            minimum=t["minimum_seconds"],
            move_overhead=t["move_overhead"],
            max_seconds=t["max_seconds"],
            default_seconds=t["default_seconds"],
        )

    def _budget_seconds(self, player: Player) -> float | None:
        settings = self._budget_settings()
        board = self.game.board
        points = board.num_rows * board.num_cols
        empty = points - sum(1 for _ in board.stones())
        clear = self.last_winrate is not None and not (0.05 <= self.last_winrate <= 0.95)
        return move_budget(
            self.clock.control,
            self.clock.clocks[player],
            settings,
            empty,
            points,
            opponent_passed=self.game.opponent_passed(player),
            clear_result=clear,
        )

    def _deadline(self, player: Player, started: float, seconds: float | None) -> float | None:
        """When the move that began at ``started`` with ``seconds`` to think must stop: its
        budget counts from when the engine began it, and when the controller reported our clock
        (time_left) the move also ends before that clock, counted from the report, runs out."""
        if seconds is None:
            return None
        deadline = started + seconds
        reported = self.clock.reported.get(player)
        if reported is not None:
            settings = self._budget_settings()
            limit = move_limit(self.clock.control, self.clock.clocks[player], settings)
            if limit is not None:
                deadline = min(deadline, max(reported + limit, started + settings.minimum))
        return deadline

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

    def _searching_agent(self) -> SearchAgent:
        agent_type, _, agent = self.agents.get(self.game.rows, self.game.cols)
        if not isinstance(agent, SearchAgent):
            raise GtpError(f"agent '{agent_type.name}' does not search: no analysis")
        return agent

    def _interrupt(self) -> None:
        stop = self._stop
        if stop is not None:
            log.info("interrupted")
            stop.set()

    # --- required commands -----------------------------------------------------------------
    @command("protocol_version")
    def cmd_protocol_version(self, cmd: Command) -> str:
        return "2"

    @command("name")
    def cmd_name(self, cmd: Command) -> str:
        return self.config.get("engine.name")

    @command("version")
    def cmd_version(self, cmd: Command) -> str:
        return gtp_version(__version__)  # Lizzie reads the first word (see analysis.gtp_version)

    @command("known_command")
    def cmd_known_command(self, cmd: Command) -> str:
        (name,) = self._args(cmd, 1)
        return "true" if name in COMMANDS else "false"

    @command("list_commands")
    def cmd_list_commands(self, cmd: Command) -> str:
        return "\n".join(COMMANDS)

    @command("quit")
    def cmd_quit(self, cmd: Command) -> str:
        self.quit_requested = True
        return ""

    @command("boardsize")
    def cmd_boardsize(self, cmd: Command) -> str:
        if len(cmd.args) == 1 and ":" in cmd.args[0]:
            args = tuple(cmd.args[0].split(":", 1))
        else:
            args = cmd.args
        if len(args) not in (1, 2):
            raise GtpError(SYNTAX_ERROR)
        cols = parse_int(args[0])
        rows = parse_int(args[1]) if len(args) == 2 else cols
        if not (MIN_SIZE <= rows <= MAX_SIZE and MIN_SIZE <= cols <= MAX_SIZE):
            raise GtpError(UNACCEPTABLE_SIZE)
        if self.agents.resolve(rows, cols) is None:
            raise GtpError(UNACCEPTABLE_SIZE)
        self.game.clear(rows, cols)
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None
        try:
            self.agents.request(rows, cols)  # its agent is built next, before the first genmove
        except GtpError:
            pass  # said at genmove
        return ""

    @command("clear_board")
    def cmd_clear_board(self, cmd: Command) -> str:
        self.game.clear()
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None
        return ""

    @command("komi")
    def cmd_komi(self, cmd: Command) -> str:
        (text,) = self._args(cmd, 1)
        value = parse_float(text)
        if abs(value) > 1000:
            raise GtpError(SYNTAX_ERROR)
        self.game.set_komi(value)
        return ""

    @command("play")
    def cmd_play(self, cmd: Command) -> str:
        color_text, vertex = self._args(cmd, 2)
        player = parse_color(color_text)
        move = parse_move(vertex, self.game.rows, self.game.cols)
        self.game.play(player, move)
        return ""

    @command("genmove")
    def cmd_genmove(self, cmd: Command) -> str:
        (color_text,) = self._args(cmd, 1)
        return format_move(self._generate(parse_color(color_text)).move)

    # --- handicap ---------------------------------------------------------------------------
    def _handicap_count(self, cmd: Command) -> int:
        (text,) = self._args(cmd, 1)
        n = parse_int(text)
        if not self.game.is_empty():
            raise GtpError(BOARD_NOT_EMPTY)
        return n

    @command("fixed_handicap")
    def cmd_fixed_handicap(self, cmd: Command) -> str:
        n = self._handicap_count(cmd)
        if self.game.rows != self.game.cols:
            raise GtpError(INVALID_STONES)
        try:
            points = fixed_handicap_points(self.game.rows, n)
        except ValueError:
            raise GtpError(INVALID_STONES) from None
        self.game.set_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    @command("place_free_handicap")
    def cmd_place_free_handicap(self, cmd: Command) -> str:
        n = self._handicap_count(cmd)
        if not (2 <= n < self.game.rows * self.game.cols) or self.game.rows != self.game.cols:
            raise GtpError(INVALID_STONES)
        try:
            points = free_handicap_points(self.game.rows, n)
        except ValueError:
            raise GtpError(INVALID_STONES) from None
        self.game.set_handicap(points)
        return " ".join(format_vertex(p) for p in points)

    @command("set_free_handicap")
    def cmd_set_free_handicap(self, cmd: Command) -> str:
        if not cmd.args:
            raise GtpError(SYNTAX_ERROR)
        points: list[Point] = []
        for text in cmd.args:
            try:
                points.append(parse_vertex(text, self.game.rows, self.game.cols))
            except GtpError:
                raise GtpError(BAD_VERTEX_LIST) from None
        if not self.game.is_empty():
            raise GtpError(BOARD_NOT_EMPTY)
        self.game.set_handicap(points, count_as_handicap=len(points) >= 2)
        return ""

    @command("undo")
    def cmd_undo(self, cmd: Command) -> str:
        self._args(cmd, 0)
        self.game.undo()
        self.last_choice = None
        return ""

    # --- time -------------------------------------------------------------------------------
    @command("time_settings")
    def cmd_time_settings(self, cmd: Command) -> str:
        main, byo, stones = self._args(cmd, 3)
        control = TimeControl.from_gtp(parse_float(main, 0.0), parse_float(byo, 0.0), parse_int(stones, 0))
        self.clock.set_control(control)
        log.info("time: %s", control.describe())
        return ""

    def _time_control(self, args: tuple[str, ...], kata: bool) -> TimeControl:
        if not args:
            raise GtpError(SYNTAX_ERROR)
        kind, rest = args[0].lower(), args[1:]
        numbers = {"none": 0, "absolute": 1, "canadian": 3, "byoyomi": 3, "byo-yomi": 3}
        if kata:
            numbers.update({"fischer": 2, "fischer-capped": 4})
        if kind not in numbers or len(rest) != numbers[kind]:
            raise GtpError(SYNTAX_ERROR)
        if kind == "none":
            return TimeControl("none")
        if kind == "fischer-capped":
            main, inc, cap, move_cap = (parse_float(x) for x in rest)
            if main < 0 or inc < 0:
                raise GtpError(SYNTAX_ERROR)
            return TimeControl("fischer", main, inc, 0, cap if cap >= 0 else None, move_cap if move_cap >= 0 else None)
        values = [parse_float(x, 0.0) for x in rest]
        if kind == "absolute":
            return TimeControl("absolute", values[0]) if values[0] > 0 else TimeControl("none")
        if kind == "fischer":
            return TimeControl("fischer", values[0], values[1])
        main, period = values[0], values[1]
        count_ = parse_int(rest[2], 0)
        if kind == "canadian":
            return TimeControl.from_gtp(main, period, count_)
        if count_ == 0 or period == 0:
            return TimeControl("absolute", main) if main > 0 else TimeControl("none")
        return TimeControl("byoyomi", main, period, count_)

    @command("kgs-time_settings")
    def cmd_kgs_time_settings(self, cmd: Command) -> str:
        self.clock.set_control(self._time_control(cmd.args, kata=False))
        log.info("time: %s", self.clock.control.describe())
        return ""

    @command("kata-list_time_settings")
    def cmd_kata_list_time_settings(self, cmd: Command) -> str:
        return "none absolute byoyomi canadian fischer fischer-capped"

    @command("kata-time_settings")
    def cmd_kata_time_settings(self, cmd: Command) -> str:
        self.clock.set_control(self._time_control(cmd.args, kata=True))
        log.info("time: %s", self.clock.control.describe())
        return ""

    @command("time_left")
    def cmd_time_left(self, cmd: Command) -> str:
        color_text, seconds, stones = self._args(cmd, 3)
        player = parse_color(color_text)
        self.clock.time_left(player, max(0.0, parse_float(seconds)), parse_int(stones, 0), at=self._arrived)
        return ""

    # --- scoring ----------------------------------------------------------------------------
    def _count(self):
        scoring = self._section("scoring")
        try:
            return count(self.game.state, scoring["playouts"], scoring["seed"])
        except Exception as e:
            log.exception("counting failed")
            raise GtpError(CANNOT_SCORE) from e

    @command("final_score")
    def cmd_final_score(self, cmd: Command) -> str:
        self._args(cmd, 0)
        return str(self._count().result)

    @command("final_status_list")
    def cmd_final_status_list(self, cmd: Command) -> str:
        (which,) = self._args(cmd, 1)
        which = which.lower()
        if which not in ("alive", "dead", "seki"):
            raise GtpError(SYNTAX_ERROR)
        groups = getattr(self._count().status, which)
        return "\n".join(" ".join(format_vertex(p) for p in group) for group in groups)

    # --- SGF --------------------------------------------------------------------------------
    @command("loadsgf")
    def cmd_loadsgf(self, cmd: Command) -> str:
        if len(cmd.args) not in (1, 2):
            raise GtpError(SYNTAX_ERROR)
        until = parse_int(cmd.args[1], minimum=1) if len(cmd.args) == 2 else None
        from dlgo.sgf import SgfError, read_game

        # Only a regular file, at most dlgo.sgf.MAX_FILE_BYTES, is read; a FIFO or a device fails
        # at once. What had to be repaired is logged by dlgo.sgf; the game is replayed as the
        # record's own rules allow (dlgo.sgf's module doc), not under this engine's superko.
        try:
            record = read_game(Path(cmd.args[0]))
        except SgfError as e:
            log.warning("loadsgf: %s", e)
            raise GtpError(_cannot_load(e.reason)) from None
        except (OSError, ValueError) as e:
            log.warning("loadsgf: %s", e)
            raise GtpError(_cannot_load(str(e))) from None
        rows, cols = record.board_size
        if self.agents.resolve(rows, cols) is None:
            log.warning("loadsgf: no agent plays %dx%d", rows, cols)
            raise GtpError(_cannot_load(f"no agent plays {rows}x{cols}"))
        last = len(record.moves) if until is None else min(len(record.moves), until - 1)
        states = record.states()
        # Setup stones after a move start the game afresh there, as in GNU Go: undo stops at them
        # and printsgf writes that position as its setup (the history before still counts for ko).
        start = max((i for i in record.setups if i <= last), default=0)
        if start:
            log.warning("loadsgf: setup stones after move %d: the game starts from that position", start)
        game = Game(rows, cols, record.komi, self.game.handicap_compensation)
        game.load(states[start], record.moves[start:last], record.handicap, states=states[start + 1 : last + 1])
        self.game = game
        self.clock.reset()
        self.last_choice, self.last_winrate = None, None
        return color_name(game.state.next_player)

    @command("printsgf")
    def cmd_printsgf(self, cmd: Command) -> str:
        if len(cmd.args) > 1:
            raise GtpError(SYNTAX_ERROR)
        from dlgo.sgf import write_game

        result = str(self._count().result) if self.game.state.is_over() else None
        text = write_game(
            self.game.moves,
            self.game.initial,
            result=result,
            handicap=self.game.handicap,
            komi=self.game.komi,
            application=f"{self.config.get('engine.name')}:{__version__}",
        )
        if cmd.args:
            try:
                Path(cmd.args[0]).write_text(text, encoding="utf-8")
            except OSError as e:
                log.warning("printsgf: %s", e)
                raise GtpError("cannot save file") from None
            return ""
        return text

    # --- more standard and KGS commands ------------------------------------------------------
    @command("reg_genmove")
    def cmd_reg_genmove(self, cmd: Command) -> str:
        (color_text,) = self._args(cmd, 1)
        return format_move(self._generate(parse_color(color_text), commit=False).move)

    @command("showboard")
    def cmd_showboard(self, cmd: Command) -> str:
        self._args(cmd, 0)
        game = self.game
        state = game.state
        lines = [
            board_to_text(state.board),
            f"next: {color_name(state.next_player)}  moves: {game.num_moves}  komi: {game.komi:g}",
            f"captured by black: {game.captures(Player.white)}  by white: {game.captures(Player.black)}",
        ]
        return "\n" + "\n".join(lines)

    @command("kgs-genmove_cleanup")
    def cmd_kgs_genmove_cleanup(self, cmd: Command) -> str:
        (color_text,) = self._args(cmd, 1)
        return format_move(self._generate(parse_color(color_text), cleanup=True).move)

    @command("kgs-rules")
    def cmd_kgs_rules(self, cmd: Command) -> str:
        (rules,) = self._args(cmd, 1)
        if rules.lower() not in ("chinese", "japanese", "aga", "new_zealand"):
            raise GtpError("unknown rules")
        self.rules = rules.lower()
        if self.rules != "chinese":
            log.info("rules %s: the engine counts area (Chinese) in any case", self.rules)
        return ""

    # --- gomill and cpu time -------------------------------------------------------------------
    @command("cputime")
    def cmd_cputime(self, cmd: Command) -> str:
        return f"{time.process_time():.3f}"

    @command("gomill-cpu_time")
    def cmd_gomill_cpu_time(self, cmd: Command) -> str:
        return f"{time.process_time():.3f}"

    @command("gomill-describe_engine")
    def cmd_gomill_describe_engine(self, cmd: Command) -> str:
        name = self.config.agent_name(self._size_key())
        params = self.config.section(name, self._size_key())
        lines = [
            f"{self.config.get('engine.name')} {__version__} (dlgo, Deep Learning and the Game of Go)",
            f"agent: {name}: {registry.get(name).doc}",
            "parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()),
            f"config: {self.config.path or 'built-in defaults'}",
            f"time: {self.clock.control.describe()}",
        ]
        return "\n".join(lines)

    @command("gomill-explain_last_move")
    def cmd_gomill_explain_last_move(self, cmd: Command) -> str:
        c = self.last_choice
        if c is None:
            return ""
        return explain(c.result, c.candidate, c.move, c.reason)

    # --- move generation ----------------------------------------------------------------------
    def _generate(
        self,
        player: Player,
        commit: bool = True,
        cleanup: bool = False,
        stream: tuple[Command, bool, AnalysisRequest] | None = None,
    ) -> MoveChoice:
        """Search and decide a move for ``player``; play it when ``commit`` (not a resignation).

        With ``stream`` (command, KataGo style, request) the response is begun here and info
        lines are written while the search runs.
        """
        started = self._began  # the move's time starts when the engine began it, not at its line
        agent_type, params, build = self.agents.request(self.game.rows, self.game.cols)
        state = position_for(self.game.state, player)
        seconds = self._budget_seconds(player)
        deadline = self._deadline(player, started, seconds)
        # The search stops early enough for the engine's own work after it to end by the deadline.
        floor = self._section("time")["move_overhead"]
        own = self._overhead.estimate(floor, build.overhead)
        search_deadline = None if deadline is None else deadline - min(own, 0.25 * (deadline - started))
        stop = threading.Event()
        budget = SearchBudget(max_visits=params.get("rounds"), deadline=search_deadline, stop=stop)
        settings = self._decision_settings()
        opponent_passed = self.game.opponent_passed(player)
        move_number = self.game.num_moves + 1
        previous_values = self._previous_values(player, settings.resign_consecutive_moves - 1)

        on_progress = None
        interval = 0.5
        if stream is not None:
            cmd, kata, request = stream
            interval = request.interval or 1.0
            if request.interval > 0:

                def on_progress(result: SearchResult) -> None:
                    line = info_line(result, kata, request, player)
                    if line:
                        self._write(line + "\n")

            self._begin_stream(cmd)

        used: list[Agent] = []

        def work() -> MoveChoice:
            agent = self._await_agent(build, started, search_deadline, stop)
            if agent is None:  # still building: answer in time with what needs no agent
                move, why = quick_move(state)
                return MoveChoice(move, f"quick move while agent {build.name} is built: {why}")
            used.append(agent)
            if deadline is not None:  # the agent's own measure, now that it is built
                own = self._overhead.estimate(floor, build.overhead)
                budget.deadline = deadline - min(own, 0.25 * (deadline - started))
            return choose_move(
                agent,
                state,
                budget,
                settings,
                move_number,
                opponent_passed,
                cleanup,
                on_progress,
                interval,
                previous_values,
            )

        worker = _Worker(work)
        self._stop = stop
        self.agents.idle.clear()
        try:
            worker.start()
            assert self.channel is not None
            self.channel.watch(worker, self._interrupt)
        finally:
            self._stop = None
            self.agents.idle.set()
        choice: MoveChoice = worker.outcome()
        self._searched = time.monotonic()
        elapsed = self._searched - started
        if budget.deadline is not None and used and self._searched >= budget.deadline:
            self._overhead.record(self._searched - budget.deadline)  # the search ran to its deadline
        agent = used[0] if used else None
        if commit and not choice.move.is_resign:
            self.game.play(player, choice.move)
            self._record_value(choice)
            if isinstance(agent, SearchAgent) and getattr(agent, "keeps_tree", False):
                self._ponder_after = (agent, self.game.state)
        if commit:
            self.clock.spend(player, elapsed)  # our own count until the controller reports again
        self.last_choice = choice
        if choice.candidate is not None:
            self.last_winrate = choice.candidate.winrate
        log.info(
            "%s %s -> %s in %.2f s (budget %s): %s",
            "genmove" if commit else "reg_genmove",
            color_name(player),
            format_move(choice.move),
            elapsed,
            "none" if seconds is None else f"{seconds:.2f} s",
            explain(choice.result, choice.candidate, choice.move, choice.reason),
        )
        if commit and self.config.get("chat.enabled"):
            send_chat(chat_line(self.config.get("chat.channel"), player, choice.candidate))
        if stream is not None:
            cmd, kata, request = stream
            if request.interval <= 0 and choice.result is not None:
                line = info_line(choice.result, kata, request, player)
                if line:
                    self._write(line + "\n")
            self._write(f"play {format_move(choice.move)}\n\n")
        return choice

    def _line(self) -> Iterator[tuple[GameState, Player]]:
        """(state, player who moved into it) of each move of the current line, latest first."""
        s: GameState | None = self.game.state
        while s is not None and s.previous_state is not None:
            if s.last_move is not None:  # position_for nodes (a player to move set) are no moves
                yield s, s.previous_state.next_player
            s = s.previous_state

    def _previous_values(self, player: Player, n: int) -> list[float | None]:
        """resign_value of ``player``'s last ``n`` moves in the current line (None: not generated)."""
        values: list[float | None] = []
        if n <= 0:
            return values
        for s, who in self._line():
            if who is player:
                values.append(self._move_values.get(s))
                if len(values) == n:
                    break
        return values

    def _record_value(self, choice: MoveChoice) -> None:
        line = {s for s, _ in self._line()}
        self._move_values = {s: v for s, v in self._move_values.items() if s in line}
        self._move_values[self.game.state] = resign_value(choice)

    def _genmove_analyze(self, cmd: Command, kata: bool) -> None:
        request = parse_analysis_args(cmd.args, self.game.rows, self.game.cols)
        player = request.player or self.game.state.next_player
        self._generate(player, stream=(cmd, kata, request))
        return None

    @command("genmove_analyze", "lz-genmove_analyze")
    def cmd_genmove_analyze(self, cmd: Command) -> None:
        return self._genmove_analyze(cmd, kata=False)

    @command("kata-genmove_analyze")
    def cmd_kata_genmove_analyze(self, cmd: Command) -> None:
        return self._genmove_analyze(cmd, kata=True)

    # --- analysis -----------------------------------------------------------------------------
    def _ownership_grid(self, player: Player):
        from dlgo.playout import estimate_ownership

        state = position_for(self.game.state, player)
        return estimate_ownership(state, self._section("analysis")["ownership_playouts"]).grid()

    def _analyze(self, cmd: Command, kata: bool) -> None:
        request = parse_analysis_args(cmd.args, self.game.rows, self.game.cols)
        agent = self._searching_agent()
        player = request.player or self.game.state.next_player
        state = position_for(self.game.state, player)
        stop = threading.Event()
        budget = SearchBudget(max_visits=self._section("analysis")["max_visits"], stop=stop)
        ownership_box: list = []

        def progress(result: SearchResult) -> None:
            own = ownership_box[0] if ownership_box else None
            line = info_line(result, kata, request, player, own)
            if line:
                self._write(line + "\n")

        def work() -> None:
            if request.ownership:
                ownership_box.append(self._ownership_grid(player))
            if request.interval > 0:
                agent.search(state, budget, on_progress=progress, progress_interval=request.interval)
            else:
                progress(agent.search(state, budget))

        self._begin_stream(cmd)
        worker = _Worker(work)
        worker.start()
        assert self.channel is not None
        self.channel.wait_for_input()
        stop.set()
        worker.join()
        self._write("\n")
        if isinstance(worker.error, OutputClosed):
            raise worker.error
        if worker.error is not None:
            log.error("analysis failed: %r", worker.error)
        return None

    @command("analyze", "lz-analyze")  # the same integer output format
    def cmd_analyze(self, cmd: Command) -> None:
        return self._analyze(cmd, kata=False)

    @command("kata-analyze")
    def cmd_kata_analyze(self, cmd: Command) -> None:
        return self._analyze(cmd, kata=True)

    # --- GoGui --------------------------------------------------------------------------------
    @command("gogui-analyze_commands")
    def cmd_gogui_analyze_commands(self, cmd: Command) -> str:
        return "\n".join(
            [
                "dboard/Ownership/dlgo-ownership",
                "pspairs/Best Moves (visits)/dlgo-visits",
                "var/Principal Variation/dlgo-pv",
                "string/Explain Last Move/gomill-explain_last_move",
                "string/Final Score/final_score",
                "plist/Dead Stones/final_status_list dead",
            ]
        )

    @command("gogui-interrupt")
    def cmd_gogui_interrupt(self, cmd: Command) -> str:
        return ""

    def _one_shot_search(self) -> tuple[SearchResult, Player]:
        agent = self._searching_agent()
        player = self.game.state.next_player
        state = position_for(self.game.state, player)
        analysis = self._section("analysis")
        stop = threading.Event()
        seconds = analysis["seconds"] or None
        budget = SearchBudget(
            max_visits=analysis["visits"],
            deadline=None if seconds is None else time.monotonic() + seconds,
            stop=stop,
        )
        worker = _Worker(lambda: agent.search(state, budget))
        self._stop = stop
        try:
            worker.start()
            assert self.channel is not None
            self.channel.watch(worker, self._interrupt)
        finally:
            self._stop = None
        return worker.outcome(), player

    @command("dlgo-ownership")
    def cmd_dlgo_ownership(self, cmd: Command) -> str:
        return gogui_dboard(self._ownership_grid(self.game.state.next_player))

    @command("dlgo-visits")
    def cmd_dlgo_visits(self, cmd: Command) -> str:
        result, _ = self._one_shot_search()
        return gogui_pspairs(result)

    @command("dlgo-pv")
    def cmd_dlgo_pv(self, cmd: Command) -> str:
        result, player = self._one_shot_search()
        return gogui_var(result, player)
