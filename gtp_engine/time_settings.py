"""The GTP time-settings commands' arguments: ``time_settings`` (GTP 2), ``kgs-time_settings``
and ``kata-time_settings``, read into the play layer's :class:`~dlgo.play.clock.TimeControl`."""

from __future__ import annotations

from collections.abc import Sequence

from dlgo.play.clock import TimeControl
from gtp_engine.protocol import SYNTAX_ERROR, GtpError, parse_float, parse_int

__all__ = ["parse_gtp_time_settings", "parse_time_settings", "KATA_TIME_SYSTEMS"]

# What ``kata-list_time_settings`` answers: the systems ``kata-time_settings`` reads.
KATA_TIME_SYSTEMS = ("none", "absolute", "byoyomi", "canadian", "fischer", "fischer-capped")


def parse_gtp_time_settings(args: Sequence[str]) -> TimeControl:
    """``time_settings MAIN BYO STONES`` (GTP 2); GtpError(syntax error) on bad arguments."""
    if len(args) != 3:
        raise GtpError(SYNTAX_ERROR)
    main, byo, stones = args
    return TimeControl.from_gtp(parse_float(main, 0.0), parse_float(byo, 0.0), parse_int(stones, 0))


def parse_time_settings(args: Sequence[str], kata: bool) -> TimeControl:
    """``kgs-time_settings`` (``kata`` False) or ``kata-time_settings`` (True) arguments: a system
    name and its numbers; KataGo's also has ``fischer`` and ``fischer-capped`` (negative caps:
    none). GtpError(syntax error) on bad arguments."""
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
    count = parse_int(rest[2], 0)
    if kind == "canadian":
        return TimeControl.from_gtp(main, period, count)
    # KGS byo-yomi with no periods (or empty ones) is main time alone.
    if count == 0 or period == 0:
        return TimeControl("absolute", main) if main > 0 else TimeControl("none")
    return TimeControl("byoyomi", main, period, count)
