"""The count: ``final_score`` and ``final_status_list`` from one cached dead-stone estimate.

``scoring.dead_stones`` picks what reads the board: Monte Carlo playouts, or the ownership head
of the board's network (KataGo's; averaged over a search of ``scoring.network_visits``), which
"auto" uses whenever the board's agent has one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dlgo.deadstones import Count
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import SYNTAX_ERROR, Command, GtpError, format_vertex

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def count_game(engine: Engine) -> Count:
    """The count of the engine's position, as the session counts (``scoring``)."""
    return engine.session.count()


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
