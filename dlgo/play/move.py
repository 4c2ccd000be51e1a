"""One move as a session makes it: its plan, set before the search starts, and its future.

``PlaySession.genmove`` plans the move in the caller's thread (a refusal, such as no agent for
the board, is raised there, before any answer begins), then searches, decides and plays it in
the session's search thread; the :class:`MoveFuture` it returns resolves to the choice.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass

from dlgo.agent.base import Agent
from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.play.agents import AgentBuild
from dlgo.play.decision import DecisionSettings, MoveChoice
from dlgo.search import SearchBudget

__all__ = ["MovePlan", "MoveFuture"]


@dataclass
class MovePlan:
    """One move's search as set before it starts: whose move, its time and its decision rules."""

    player: Player
    state: GameState  # the position with ``player`` to move
    cleanup: bool
    started: float  # when the front end began the move: its time counts from here
    seconds: float | None  # the move's budget; None: no time limit
    deadline: float | None  # when the answer is due
    overhead_floor: float  # time.move_overhead
    build: AgentBuild
    budget: SearchBudget
    settings: DecisionSettings
    opponent_passed: bool
    move_number: int
    previous_values: list[float | None]
    unsure_deadline: float | None = None  # when the answer is due if the search runs on while unsure


class MoveFuture(Future[MoveChoice]):
    """A move under way: resolves to its ``MoveChoice`` (played, when the move commits), or
    raises the session's error (``dlgo.play.errors``; ``MoveAbandoned`` when the game changed
    first). Besides the choice, what a front end reports about the move: its ``plan`` (whose
    move, its budget), and once resolved the ``elapsed`` seconds from ``plan.started`` and the
    ``agent`` that chose it (None: a quick move while the agent was still built)."""

    def __init__(self, plan: MovePlan) -> None:
        super().__init__()
        self.plan = plan
        self.elapsed: float | None = None
        self.agent: Agent | None = None
