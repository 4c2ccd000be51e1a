"""Handicap stones: GNU Go's fixed layout, the engine's free placement, the controller's stones."""

from __future__ import annotations

from typing import TYPE_CHECKING

from dlgo.gotypes import Point
from dlgo.handicap import fixed_handicap_points, free_handicap_points
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import (
    BAD_VERTEX_LIST,
    BOARD_NOT_EMPTY,
    INVALID_STONES,
    SYNTAX_ERROR,
    Command,
    GtpError,
    format_vertex,
    parse_int,
    parse_vertex,
)

if TYPE_CHECKING:
    from gtp_engine.engine import Engine


def _handicap_count(engine: Engine, cmd: Command) -> int:
    (text,) = expect_args(cmd, 1)
    n = parse_int(text)
    if not engine.game.is_empty():
        raise GtpError(BOARD_NOT_EMPTY)
    return n


def fixed_handicap(engine: Engine, cmd: Command) -> str:
    n = _handicap_count(engine, cmd)
    if engine.game.rows != engine.game.cols:
        raise GtpError(INVALID_STONES)
    try:
        points = fixed_handicap_points(engine.game.rows, n)
    except ValueError:
        raise GtpError(INVALID_STONES) from None
    engine.session.set_handicap(points)
    return " ".join(format_vertex(p) for p in points)


def place_free_handicap(engine: Engine, cmd: Command) -> str:
    n = _handicap_count(engine, cmd)
    if not (2 <= n < engine.game.rows * engine.game.cols) or engine.game.rows != engine.game.cols:
        raise GtpError(INVALID_STONES)
    try:
        points = free_handicap_points(engine.game.rows, n)
    except ValueError:
        raise GtpError(INVALID_STONES) from None
    engine.session.set_handicap(points)
    return " ".join(format_vertex(p) for p in points)


def set_free_handicap(engine: Engine, cmd: Command) -> str:
    if not cmd.args:
        raise GtpError(SYNTAX_ERROR)
    points: list[Point] = []
    for text in cmd.args:
        try:
            points.append(parse_vertex(text, engine.game.rows, engine.game.cols))
        except GtpError:
            raise GtpError(BAD_VERTEX_LIST) from None
    if not engine.game.is_empty():
        raise GtpError(BOARD_NOT_EMPTY)
    engine.session.set_handicap(points, count_as_handicap=len(points) >= 2)
    return ""
