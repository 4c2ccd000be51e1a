"""The count: ``final_score`` and ``final_status_list`` from one cached dead-stone estimate."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dlgo.deadstones import Count, count
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import CANNOT_SCORE, SYNTAX_ERROR, Command, GtpError, format_vertex

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def count_game(engine: Engine) -> Count:
    """The count of the engine's position (``scoring.count``); GtpError(cannot score) if it fails."""
    scoring = engine.section("scoring")
    try:
        return count(engine.game.state, scoring["playouts"], scoring["seed"])
    except Exception as e:
        log.exception("counting failed")
        raise GtpError(CANNOT_SCORE) from e


def final_score(engine: Engine, cmd: Command) -> str:
    expect_args(cmd, 0)
    return str(count_game(engine).result)


def final_status_list(engine: Engine, cmd: Command) -> str:
    (which,) = expect_args(cmd, 1)
    which = which.lower()
    if which not in ("alive", "dead", "seki"):
        raise GtpError(SYNTAX_ERROR)
    groups = getattr(count_game(engine).status, which)
    return "\n".join(" ".join(format_vertex(p) for p in group) for group in groups)
