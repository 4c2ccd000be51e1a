"""The count: ``final_score`` and ``final_status_list`` from one cached dead-stone estimate.

``scoring.dead_stones`` picks what reads the board: Monte Carlo playouts, or the ownership head
of the board's network (KataGo's; averaged over a search of ``scoring.network_visits``), which
"auto" uses whenever the board's agent has one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dlgo.deadstones import Count, count, ownership_count
from dlgo.goboard import GameState
from dlgo.search import SearchAgent, SearchBudget
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import CANNOT_SCORE, SYNTAX_ERROR, Command, GtpError, format_vertex

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def ownership_agent(engine: Engine) -> SearchAgent | None:
    """The board's agent when ``scoring.dead_stones`` has its network find dead stones, else None
    (the playouts do)."""
    method = engine.section("scoring")["dead_stones"]
    if method == "playouts":
        return None
    agent = engine.runner.ownership_agent()
    if agent is None and method == "network":
        log.warning("scoring.dead_stones = network, but the board's agent has no ownership head: playouts count")
    return agent


def count_game(engine: Engine) -> Count:
    """The count of the engine's position (``scoring.count``); GtpError(cannot score) if it fails."""
    return count_position(engine, engine.game.state)


def count_position(engine: Engine, state: GameState) -> Count:
    """``state`` counted the way ``final_score`` counts (the ``scoring`` section); GtpError(cannot
    score) if it fails. The pass decision uses it too, so the engine passes only into a count
    that its own ``final_score`` confirms."""
    scoring = engine.section("scoring")
    try:
        agent = ownership_agent(engine)
        if agent is None:
            return count(state, scoring["playouts"], scoring["seed"])
        visits = scoring["network_visits"]

        def ownership():
            # The board as a game going on (a finished game has nothing left to search).
            board = GameState.from_position(state.board, state.next_player, state.komi)
            return agent.search(board, SearchBudget(max_visits=visits)).ownership

        return ownership_count(state, ("network", id(agent), visits), ownership)
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
