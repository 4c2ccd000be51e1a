"""The final count as a session makes it: dead stones found by the board agent's network
(its ownership head) or by playouts, as ``scoring.dead_stones`` says, then the result by area
or by territory with prisoners (the session's rules).

``PlaySession.count`` calls these with its own parts; the pass decision asks the same count,
so the engine passes only into a count that its own final score confirms.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from dlgo.deadstones import Count, count, ownership_count
from dlgo.goboard import GameState
from dlgo.play.agents import AgentBuild, AgentPool
from dlgo.play.errors import CannotScore, PlayError
from dlgo.rules import RuleSet
from dlgo.search import SearchAgent, SearchBudget
from dlgo.territory import territory_result

__all__ = ["final_count", "area_count", "counting_build"]

log = logging.getLogger(__name__)


def final_count(
    state: GameState, agents: AgentPool, board: tuple[int, int], scoring: Mapping[str, Any], rules: RuleSet
) -> Count:
    """``state`` counted as a finished game is, under ``rules``; ``board``: the game's rows and
    columns, whose agent counts; ``CannotScore`` if counting fails."""
    counted = area_count(state, agents, board, scoring)
    if rules.area:
        return counted
    seki = [p for group in counted.status.seki for p in group]
    return replace(counted, result=territory_result(state, counted.dead_stones(), seki))


def area_count(state: GameState, agents: AgentPool, board: tuple[int, int], scoring: Mapping[str, Any]) -> Count:
    """The area count of ``state``, dead stones found as ``scoring.dead_stones`` says."""
    try:
        build = counting_build(agents, board, scoring["dead_stones"])
        if build is None:
            return count(state, scoring["playouts"], scoring["seed"])
        visits = scoring["network_visits"]

        def ownership():
            # The board as a game going on (a finished game has nothing left to search).
            position = GameState.from_position(state.board, state.next_player, state.komi)
            with agents.lend(build) as agent:
                return agent.search(position, SearchBudget(max_visits=visits)).ownership

        return ownership_count(state, ("network", id(build), visits), ownership)
    except Exception as e:
        log.exception("counting failed")
        raise CannotScore(f"counting failed: {e}") from e


def counting_build(agents: AgentPool, board: tuple[int, int], method: str) -> AgentBuild | None:
    """The build of the board's agent when its network finds the dead stones (``method`` and
    an ownership head), waiting for it; None when playouts count."""
    if method == "playouts":
        return None
    try:
        _, _, build = agents.request(*board)
        build.done.wait()
        agent = build.result()
    except PlayError:
        agent = None
    if isinstance(agent, SearchAgent) and agent.network_ownership:
        return build
    if method == "network":
        log.warning("scoring.dead_stones = network, but the board's agent has no ownership head: playouts count")
    return None
