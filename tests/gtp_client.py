"""Test helpers for the GTP engine (not a test module).

- :class:`EngineProcess` starts ``python -m gtp_engine`` through the one GTP client,
  :class:`dlgo.match.gtp_client.GtpProcess`, with timeouts; every response is checked for the
  exact wire format on the way in.
- :class:`InProcessEngine` runs an :class:`Engine` in this process for fast command-level tests.
- :func:`parse_response` is the strict response parser both use.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from dlgo.match.gtp_client import GtpClientError, GtpProcess

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

_FIRST_LINE = re.compile(r"([=?])([0-9]*)(?: (.*))?")


@dataclass
class Response:
    ok: bool
    id: str | None
    text: str  # the body: first line's text and the following lines, joined by newlines
    raw: str  # exactly what came over the wire, final empty line included

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n") if self.text else []


class MalformedResponse(AssertionError):
    pass


def parse_response(raw: str) -> Response:
    """Check and parse one complete response (ending with ``\\n\\n``)."""
    if not raw.endswith("\n\n") or raw.endswith("\n\n\n"):
        raise MalformedResponse(f"response must end with exactly one empty line: {raw!r}")
    lines = raw[:-2].split("\n")
    if any(line.strip() == "" for line in lines[1:]):
        raise MalformedResponse(f"empty line inside a response: {raw!r}")
    if "\r" in raw or any(ord(ch) < 32 and ch not in "\n" for ch in raw):
        raise MalformedResponse(f"control character in a response: {raw!r}")
    m = _FIRST_LINE.fullmatch(lines[0])
    if m is None:
        raise MalformedResponse(f"bad first line {lines[0]!r}")
    first = m.group(3) or ""
    if first != first.strip() and first.strip():
        raise MalformedResponse(f"stray white space in {lines[0]!r}")
    body = [first] if first else []
    if len(lines) > 1:
        body = ([first] if first else [""]) + lines[1:]
    text = "\n".join(body).strip("\n")
    return Response(m.group(1) == "=", m.group(2) or None, text, raw)


class EngineProcess:
    """``python -m gtp_engine`` in a subprocess, through the one GTP client (:class:`GtpProcess`),
    read line by line so that every response's exact wire format is checked."""

    def __init__(self, *sets: str, config: str | None = "configs/engine/mcts.toml", args: tuple[str, ...] = ()) -> None:
        cmd = [PYTHON, "-m", "gtp_engine"]
        if config is not None:
            cmd += ["--config", str(ROOT / config)]
        for s in sets:
            cmd += ["--set", s]
        cmd += list(args)
        fd, self._stderr_path = tempfile.mkstemp(prefix="dlgo-engine-", suffix=".log")
        os.close(fd)
        self.started = time.monotonic()
        # Strict decoding: output that is not UTF-8 ends the stream, so a test sees it.
        self.gtp = GtpProcess(cmd, "engine", cwd=ROOT, stderr_path=self._stderr_path, decode_errors="strict")
        self.gtp.start()
        self._peeked: list[str | None] = []

    @property
    def proc(self) -> subprocess.Popen:
        process = self.gtp.process
        assert process is not None
        return process

    def send(self, text: str) -> None:
        """Write raw text (add the line end yourself)."""
        self.gtp.write_raw(text)

    def _get(self, timeout: float) -> str | None:
        if self._peeked:
            return self._peeked.pop()
        return self.gtp.read_line(timeout)

    def read_line(self, timeout: float = 30.0) -> str:
        try:
            line = self._get(timeout)
        except TimeoutError:
            raise TimeoutError(f"no output within {timeout} s; stderr:\n{self.stderr()}") from None
        if line is None:
            raise EOFError(f"engine output closed; stderr:\n{self.stderr()}")
        return line

    def read_response(self, timeout: float = 30.0) -> Response:
        deadline = time.monotonic() + timeout
        raw = ""
        while True:
            line = self.read_line(max(0.01, deadline - time.monotonic()))
            if line == "\n" and not raw:
                raise MalformedResponse("empty line before a response")
            raw += line
            if line == "\n":
                return parse_response(raw)

    def command(self, line: str, timeout: float = 30.0, eol: str = "\n") -> Response:
        self.send(line + eol)
        return self.read_response(timeout)

    def ok(self, line: str, timeout: float = 30.0) -> str:
        r = self.command(line, timeout)
        assert r.ok, f"{line!r} failed: {r.text!r}"
        return r.text

    def fail(self, line: str, timeout: float = 30.0) -> str:
        r = self.command(line, timeout)
        assert not r.ok, f"{line!r} should fail, answered {r.text!r}"
        return r.text

    def no_output(self, wait: float = 0.3) -> bool:
        """True when nothing (or only the end of output) arrives within ``wait`` seconds."""
        try:
            line = self._get(wait)
        except TimeoutError:
            return True
        self._peeked.append(line)
        return line is None

    def stderr(self) -> str:
        with open(self._stderr_path, "rb") as f:
            return f.read().decode("utf-8", errors="replace")

    def close(self, timeout: float = 10.0) -> int:
        """``quit``, wait up to ``timeout`` seconds for the engine to exit, then kill; its status."""
        proc = self.proc
        if proc.poll() is None:
            try:
                self.send("quit\n")
            except GtpClientError:
                pass
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        self.gtp.kill()  # kills what is left, closes the pipes and the log
        return proc.returncode

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
        os.unlink(self._stderr_path)


class InProcessEngine:
    """An Engine in this process; ``ask(line)`` runs one input line and parses the response."""

    def __init__(self, *sets: str, config: str | None = "configs/engine/mcts.toml") -> None:
        from dlgo.play.config import load_config
        from gtp_engine.channel import Channel
        from gtp_engine.engine import Engine

        cfg = load_config(str(ROOT / config) if config else None, sets)
        r, w = os.pipe()
        self._stdin_w = os.fdopen(w, "wb")
        self._out = io.BytesIO()
        self.channel = Channel(os.fdopen(r, "rb"), self._out)
        self.engine = Engine(cfg, self.channel)

    def ask_raw(self, line: str) -> str:
        from gtp_engine.channel import Line

        start = len(self._out.getvalue())
        self.engine.handle_line(Line(line, time.monotonic()))
        return self._out.getvalue()[start:].decode("utf-8")

    def ask(self, line: str) -> Response | None:
        """The parsed response, or None when the line needs none (blank, comment)."""
        raw = self.ask_raw(line)
        return parse_response(raw) if raw else None

    def ok(self, line: str) -> str:
        r = self.ask(line)
        assert r is not None and r.ok, f"{line!r} failed: {r}"
        return r.text

    def fail(self, line: str) -> str:
        r = self.ask(line)
        assert r is not None and not r.ok, f"{line!r} should fail: {r}"
        return r.text

    def board_signature(self) -> tuple:
        game = self.engine.game
        return (
            game.rows,
            game.cols,
            game.komi,
            game.handicap,
            tuple(sorted((p, c.value) for p, c in game.state.board.stones())),
            tuple((who.value, str(m)) for who, m in game.moves),
            game.state.next_player,
        )

    def close(self) -> None:
        try:
            self._stdin_w.close()
        except OSError:
            pass


# --- a referee for games against GNU Go ---------------------------------------------------------

_COLS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def board_from_showboard(text: str) -> dict[str, str]:
    """Stones from our ``showboard`` body: vertex -> 'black'/'white'."""
    stones = {}
    for line in text.split("\n"):
        tokens = line.split()
        if len(tokens) < 2 or not tokens[0].isdigit() or not all(t in ".xo" for t in tokens[1:]):
            continue
        row = int(tokens[0])
        for col, mark in enumerate(tokens[1:]):
            if mark != ".":
                stones[f"{_COLS[col]}{row}"] = "black" if mark == "x" else "white"
    return stones


@dataclass
class GameAgainstGnuGo:
    """One game refereed by :func:`play_against_gnugo` (the match library has its own GameRecord)."""

    moves: list[tuple[str, str]]  # (colour, vertex) in order
    winner: str | None  # 'black'/'white' when someone resigned, else None
    resigned: str | None  # who resigned
    engine_times: list[float]  # wall seconds of each engine genmove, as the referee saw them
    ended_by_passes: bool
    engine_time_left: float | None = None  # with a clock: what the engine had left at the end


@dataclass
class SimClock:
    """The referee's clock for the engine; ``commands`` set it up, ``before_move`` reports it."""

    system: str  # "absolute" or "byoyomi"
    main: float
    period: float = 0.0
    periods: int = 0
    remaining: float = 0.0
    periods_left: int = 0
    in_byoyomi: bool = False

    def __post_init__(self) -> None:
        self.remaining = self.main
        self.periods_left = self.periods
        self.in_byoyomi = self.main <= 0

        if self.in_byoyomi:
            self.remaining = self.period

    def setup_commands(self) -> list[str]:
        if self.system == "absolute":
            return [f"time_settings {int(self.main)} 0 0"]
        return [f"kgs-time_settings byoyomi {int(self.main)} {int(self.period)} {self.periods}"]

    def time_left_command(self, colour: str) -> str:
        # Like gtp2ogs: whole seconds, rounded down; periods left only while in byo-yomi.
        stones = self.periods_left if self.in_byoyomi else 0
        return f"time_left {colour} {int(max(0.0, self.remaining))} {stones}"

    def charge(self, seconds: float) -> bool:
        """Charge one move's time; False when the flag fell."""
        if self.system == "absolute":
            self.remaining -= seconds
            return self.remaining >= 0
        if not self.in_byoyomi:
            self.remaining -= seconds
            if self.remaining >= 0:
                return True
            seconds = -self.remaining
            self.in_byoyomi = True
            self.remaining = self.period
        while seconds > self.period:
            seconds -= self.period
            self.periods_left -= 1
            if self.periods_left <= 0:
                return False
        self.remaining = self.period
        return True


def play_against_gnugo(
    engine: EngineProcess,
    gnugo,
    engine_colour: str = "black",
    size: int = 9,
    komi: float = 7.5,
    max_moves: int = 250,
    clock: SimClock | None = None,
    startup_seconds: float = 0.0,
    handicap: int = 0,
) -> GameAgainstGnuGo:
    """Referee one game: every move is checked by the other side; raises AssertionError on any
    illegal move, failed command or lost flag."""
    engine.ok(f"boardsize {size}")
    engine.ok("clear_board")
    engine.ok(f"komi {komi}")
    gnugo.new_game(size, komi)
    colour = "black"
    if handicap:
        vertices = engine.ok(f"fixed_handicap {handicap}")
        assert gnugo.send(f"fixed_handicap {handicap}") == vertices, "handicap layouts differ"
        colour = "white"
    if clock is not None:
        for line in clock.setup_commands():
            engine.ok(line)
        assert clock.charge(startup_seconds), "the engine's start-up alone used the whole clock"
    moves: list[tuple[str, str]] = []
    times: list[float] = []
    passes = 0
    while len(moves) < max_moves:
        if colour == engine_colour:
            if clock is not None:
                engine.ok(clock.time_left_command(colour))
            started = time.monotonic()
            vertex = engine.ok(f"genmove {colour}", timeout=120)
            spent = time.monotonic() - started
            times.append(spent)
            if clock is not None:
                assert clock.charge(spent), f"the engine lost on time at move {len(moves) + 1} ({spent:.2f} s)"
            if vertex.lower() == "resign":
                return GameAgainstGnuGo(moves, _other(colour), colour, times, False, clock and clock.remaining)
            ok, answer = gnugo.ask(f"play {colour} {vertex}")
            assert ok, f"GNU Go says our {colour} {vertex} is illegal ({answer}) after {moves}"
        else:
            vertex = gnugo.send(f"genmove {colour}")
            if vertex.lower() == "resign":
                return GameAgainstGnuGo(moves, _other(colour), colour, times, False, clock and clock.remaining)
            r = engine.command(f"play {colour} {vertex}")
            assert r.ok, f"the engine refused GNU Go's {colour} {vertex}: {r.text} after {moves}"
        moves.append((colour, vertex.upper()))
        passes = passes + 1 if vertex.lower() == "pass" else 0
        if passes == 2:
            return GameAgainstGnuGo(moves, None, None, times, True, clock and clock.remaining)
        colour = _other(colour)
    return GameAgainstGnuGo(moves, None, None, times, False, clock and clock.remaining)


def _other(colour: str) -> str:
    return "white" if colour == "black" else "black"


def gnugo_stones(gnugo) -> dict[str, str]:
    stones = {}
    for colour in ("black", "white"):
        for vertex in gnugo.send(f"list_stones {colour}").split():
            stones[vertex.upper()] = colour
    return stones
