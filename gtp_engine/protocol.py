"""GTP version 2 wire format: input preprocessing, commands, responses, argument parsing.

Everything here is pure (no I/O): ``preprocess`` cleans one input line the way the spec asks,
``parse_command`` splits it into id, name and arguments, ``format_response`` builds the exact
text of one response (ending with its empty line), and the ``parse_*`` helpers turn arguments
into values or raise :class:`GtpError` with one of the canonical failure texts.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.play.errors import BadSetup, BoardNotEmpty, CannotScore, CannotUndo, IllegalMove, PlayError, UnsupportedSize
from dlgo.utils import COLS, coords_from_point, move_to_text

__all__ = [
    "GtpError",
    "Command",
    "preprocess",
    "parse_command",
    "format_response",
    "stream_head",
    "is_interrupt_line",
    "parse_color",
    "parse_vertex",
    "parse_move",
    "parse_int",
    "parse_float",
    "format_vertex",
    "format_move",
    "color_name",
    "UNKNOWN_COMMAND",
    "SYNTAX_ERROR",
    "ILLEGAL_MOVE",
    "UNACCEPTABLE_SIZE",
    "CANNOT_UNDO",
    "BOARD_NOT_EMPTY",
    "INVALID_STONES",
    "BAD_VERTEX_LIST",
    "CANNOT_LOAD",
    "CANNOT_SCORE",
]

# Canonical failure texts (GTP 2 spec; listed in gtp_engine/README.md).
UNKNOWN_COMMAND = "unknown command"
SYNTAX_ERROR = "syntax error"
ILLEGAL_MOVE = "illegal move"
UNACCEPTABLE_SIZE = "unacceptable size"
CANNOT_UNDO = "cannot undo"
BOARD_NOT_EMPTY = "board not empty"
INVALID_STONES = "invalid number of stones"
BAD_VERTEX_LIST = "bad vertex list"
CANNOT_LOAD = "cannot load file"
CANNOT_SCORE = "cannot score"

# Control characters except HT (\t) and LF (\n); DEL too.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_VERTEX = re.compile(r"([A-Za-z])([0-9]{1,2})")
_MAX_NUMBER_CHARS = 40  # longer numeric arguments are syntax errors, never slow conversions


class GtpError(Exception):
    """A command failed; ``str(error)`` is the text after ``?``."""


# The GTP words for the play layer's refusals (GTP 2, section 6.4); others say what they say.
_PLAY_ERROR_TEXT: dict[type[PlayError], str] = {
    IllegalMove: ILLEGAL_MOVE,
    CannotUndo: CANNOT_UNDO,
    BoardNotEmpty: BOARD_NOT_EMPTY,
    BadSetup: BAD_VERTEX_LIST,
    UnsupportedSize: UNACCEPTABLE_SIZE,
    CannotScore: CANNOT_SCORE,
}


def play_error_text(error: PlayError) -> str:
    """What follows ``?`` when the play layer refuses a command."""
    return _PLAY_ERROR_TEXT.get(type(error)) or str(error)


@dataclass(frozen=True)
class Command:
    id: str | None  # the id as echoed (digits without leading zeros), None when absent
    name: str
    args: tuple[str, ...]


def preprocess(line: str) -> str:
    """One raw input line -> the cleaned line ('' when the spec says to ignore it).

    Drops control characters except tab and newline (so ``\\r`` goes), everything from ``#`` on,
    turns tabs into spaces and strips surrounding white space.
    """
    line = _CONTROL.sub("", line)
    hash_at = line.find("#")
    if hash_at >= 0:
        line = line[:hash_at]
    return line.replace("\t", " ").replace("\n", " ").strip(" ")


def is_interrupt_line(line: str) -> bool:
    """GoGui's interrupt request: a comment line ``# interrupt``."""
    return _CONTROL.sub("", line).replace("\t", " ").strip() == "# interrupt"


def parse_command(line: str) -> Command:
    """A preprocessed, non-empty line -> Command. A leading all-digit token is the id."""
    tokens = [t for t in line.split(" ") if t]
    cmd_id: str | None = None
    if tokens and tokens[0].isascii() and tokens[0].isdigit():
        cmd_id = tokens[0].lstrip("0") or "0"
        tokens = tokens[1:]
    if not tokens:
        return Command(cmd_id, "", ())
    return Command(cmd_id, tokens[0], tuple(tokens[1:]))


def _clean_lines(text: str) -> list[str]:
    lines = [_CONTROL.sub("", ln).replace("\t", " ").rstrip() for ln in text.split("\n")]
    return [ln for ln in lines if ln.strip()]


def format_response(ok: bool, cmd_id: str | None, text: str = "") -> str:
    """The full response: ``=id text`` or ``?id text`` and exactly one empty line after it.

    The ``=``/``?`` and id are always followed by a space, as GNU Go, Leela Zero and KataGo
    write them, also when the text is empty (``= \n\n``) or starts on the next line: GoGui's
    client takes everything after the first space of the response as the answer, so ``=``
    then a newline would lose the first value (its board parser then reports "Incomplete
    string board"), and an empty ``=5`` would read as the answer ``5``.

    Empty lines inside ``text`` are dropped (they would end the response early). A ``text``
    that starts with a newline keeps its body on the lines after ``= `` (``showboard``, GoGui
    ``dboard`` answers).
    """
    head = ("=" if ok else "?") + (cmd_id or "") + " "
    body_first = text.startswith("\n")
    lines = _clean_lines(text)
    if not lines:
        return head + "\n\n"
    if body_first:
        return head + "\n" + "\n".join(lines) + "\n\n"
    return head + "\n".join(lines) + "\n\n"


def stream_head(cmd_id: str | None) -> str:
    """First line of a response that streams while a search runs (``lz-analyze``,
    ``kata-analyze``, ``genmove_analyze``): ``=`` and the id alone, as Leela Zero and KataGo
    open them; Lizzie and Sabaki then read ``info`` lines until the empty line."""
    return "=" + (cmd_id or "") + "\n"


# --- arguments ---------------------------------------------------------------------------------


def parse_color(text: str) -> Player:
    low = text.lower()
    if low in ("b", "black"):
        return Player.black
    if low in ("w", "white"):
        return Player.white
    raise GtpError(SYNTAX_ERROR)


def color_name(player: Player) -> str:
    return "black" if player is Player.black else "white"


def parse_vertex(text: str, rows: int, cols: int) -> Point:
    """A board point from ``D4``/``d4``; GtpError(syntax error) for text that is no vertex,
    GtpError(illegal move) for a well-formed vertex off this board. ``pass`` is no point."""
    m = _VERTEX.fullmatch(text)
    if m is None:
        raise GtpError(SYNTAX_ERROR)
    letter = m.group(1).upper()
    if letter == "I":
        raise GtpError(SYNTAX_ERROR)
    col = COLS.index(letter) + 1
    row = int(m.group(2))
    if not (1 <= row <= rows and 1 <= col <= cols):
        raise GtpError(ILLEGAL_MOVE)
    return Point(row, col)


def parse_move(text: str, rows: int, cols: int) -> Move:
    """A vertex or ``pass`` (any case) as a Move."""
    if text.lower() == "pass":
        return Move.pass_turn()
    return Move.play(parse_vertex(text, rows, cols))


def parse_int(text: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """An integer argument; GtpError(syntax error) for anything else, or out of the range."""
    if len(text) > _MAX_NUMBER_CHARS or not re.fullmatch(r"[+-]?[0-9]+", text):
        raise GtpError(SYNTAX_ERROR)
    value = int(text)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise GtpError(SYNTAX_ERROR)
    return value


def parse_float(text: str, minimum: float | None = None) -> float:
    """A finite float argument (``7.5``, ``-3``, ``1e2``); GtpError(syntax error) otherwise."""
    if len(text) > _MAX_NUMBER_CHARS or not re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?", text):
        raise GtpError(SYNTAX_ERROR)
    value = float(text)
    if not math.isfinite(value) or (minimum is not None and value < minimum):
        raise GtpError(SYNTAX_ERROR)
    return value


# GTP writes vertices and moves exactly as dlgo's text helpers do.
format_vertex = coords_from_point
format_move = move_to_text
