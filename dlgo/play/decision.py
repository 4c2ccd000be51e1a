"""From a position to the move the engine answers: the search, then the end-of-game rules.

The rules themselves (pass, resign, cleanup, handicap patience) are ``dlgo.agent.termination``'s,
shared with ``MCTSAgent`` and Zero self-play; this module is the engine's glue: its config keys
(:class:`DecisionSettings`), its cached counts (``dlgo.deadstones``), a spent clock, agents
that do not search, and the answer with the search result behind it (:class:`MoveChoice`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.settling import settling_moves
from dlgo.agent.termination import (
    Decision,
    EndOfGamePolicy,
    ResignPolicy,
    cleanup_move,
    decide_after_search,
    pass_when_opponent_passed,
    resign_signal,
    settle_after_pass,
)
from dlgo.deadstones import Count, count, has_neutral_points
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Point
from dlgo.search import CandidateInfo, SearchAgent, SearchBudget, SearchResult
from dlgo.search.variety import VarietySettings, vary_move

__all__ = ["MoveChoice", "DecisionSettings", "book_choice", "choose_move", "emergency_move", "resign_value"]

log = logging.getLogger(__name__)

MIN_SEARCH_VISITS = 32  # searched even when the clock is already spent


@dataclass
class MoveChoice:
    move: Move
    reason: str
    result: SearchResult | None = None
    candidate: CandidateInfo | None = None

    @classmethod
    def of(cls, decision: Decision, result: SearchResult | None = None) -> MoveChoice:
        return cls(decision.move, decision.reason, result, decision.candidate)


@dataclass(frozen=True)
class DecisionSettings:
    resign_enabled: bool = True
    resign_threshold: float = 0.1
    resign_min_move: int = 0
    handicap_threshold: float = 0.02
    handicap_min_move: int = 0
    resign_consecutive_moves: int = 3
    resign_min_score_difference: float = 0.0
    pass_playouts: int = 400
    only_when_settled: bool = True
    variety: VarietySettings = VarietySettings()
    area_scoring: bool = True

    @classmethod
    def from_config(
        cls,
        resign: Mapping[str, Any],
        passing: Mapping[str, Any],
        variety: Mapping[str, Any] | None = None,
        area_scoring: bool = True,
    ) -> DecisionSettings:
        return cls(
            area_scoring=area_scoring,
            variety=VarietySettings.from_config(variety or {}),
            resign_enabled=resign["enabled"],
            resign_threshold=resign["threshold"],
            resign_min_move=resign["min_move"],
            handicap_threshold=resign["handicap_threshold"],
            handicap_min_move=resign["handicap_min_move"],
            resign_consecutive_moves=resign["consecutive_moves"],
            resign_min_score_difference=resign["min_score_difference"],
            pass_playouts=passing["playouts"],
            only_when_settled=passing["only_when_settled"],
        )

    def policy(self) -> EndOfGamePolicy:
        """The end-of-game rules these settings stand for (config 0: the board-size default)."""
        resign = ResignPolicy(
            enabled=self.resign_enabled,
            threshold=self.resign_threshold,
            min_move=self.resign_min_move or None,
            handicap_threshold=self.handicap_threshold,
            handicap_min_move=self.handicap_min_move or None,
            consecutive_moves=self.resign_consecutive_moves,
            min_score_difference=self.resign_min_score_difference,
        )
        return EndOfGamePolicy(resign=resign, only_when_settled=self.only_when_settled, area_scoring=self.area_scoring)


def resign_value(choice: MoveChoice) -> float | None:
    """What a played move tells the resign streak (``termination.resign_signal`` of its search),
    or None when no real search backs the move (it then breaks the streak)."""
    return None if choice.result is None else resign_signal(choice.result)


def emergency_move(state: GameState, rng: random.Random | None = None) -> Move:
    """A legal play that does not fill our own eye, or pass: when a search found nothing."""
    rng = rng or random.Random()
    board = state.board
    points = [Point(r, c) for r in range(1, board.num_rows + 1) for c in range(1, board.num_cols + 1)]
    rng.shuffle(points)
    for p in points:
        move = Move.play(p)
        if board.get(p) is None and not is_point_an_eye(board, p, state.next_player) and state.is_valid_move(move):
            return move
    return Move.pass_turn()


@dataclass(frozen=True)
class _EngineReferee:
    """The termination rules' counts, from the engine's cache (one estimate per position)."""

    playouts: int

    def count(self, state: GameState) -> Count:
        return count(state, self.playouts)

    def has_neutral_points(self, state: GameState) -> bool:
        return has_neutral_points(state, count(state, self.playouts))


def _final_count(state: GameState, referee: _EngineReferee, final_count: Callable[[GameState], Count] | None) -> Count:
    if final_count is not None:
        try:
            # the position both passes leave: the one the game's end counts (its player to move too)
            return final_count(state.apply_move(Move.pass_turn()))
        except Exception:  # the scoring count failed: the referee's own still decides
            log.exception("the final count failed; the pass decision uses the referee's count")
    return referee.count(state)


def _as_if_no_one_passed(state: GameState) -> GameState:
    """``state`` (the opponent just passed, and we lose the count) as the tree should see it.

    In the tree our pass would end the game at once, scored with every stone on the board alive,
    so the tree rates that pass, and any move that keeps the board as it is, as won where the
    count says lost; the engine then played on by filling its own eyes until its groups died
    (GNU Go level 10 matches: B+16 became B+74). The same board and history with no last move
    searches the board as if play went on; every move legal here is legal there.
    """
    return GameState(state.board, state.next_player, state, None, state.komi)


def choose_move(
    agent: Agent,
    state: GameState,
    budget: SearchBudget,
    settings: DecisionSettings,
    move_number: int,
    opponent_passed: bool,
    cleanup: bool = False,
    on_progress: Callable[[SearchResult], None] | None = None,
    progress_interval: float = 0.5,
    previous_values: Sequence[float | None] = (),
    final_count: Callable[[GameState], Count] | None = None,
    rng: random.Random | None = None,
) -> MoveChoice:
    """The engine's move for ``state.next_player`` (``state`` must have that player to move).

    ``previous_values``: :func:`resign_value` of our own earlier moves in this game line, the
    latest first, None for a move we did not generate; the resign rule needs
    ``settings.resign_consecutive_moves - 1`` of them below the threshold. ``final_count``: the
    count that scores the game once both passed; passing after the opponent's pass ends the game,
    so that decision asks it of the position the two passes leave (the referee's cheaper count
    otherwise), and the engine never passes into a count it then loses. ``rng``: what draws a
    varied opening move (``settings.variety``, ``dlgo.search.variety``); None plays the best.
    """
    referee = _EngineReferee(settings.pass_playouts)
    searched = state
    counted: Count | None = None
    if opponent_passed and not cleanup:
        counted = _final_count(state, referee, final_count)
        decision = pass_when_opponent_passed(state, counted)
        if decision is not None:
            return MoveChoice.of(decision)
        searched = _as_if_no_one_passed(state)

    if not isinstance(agent, SearchAgent):
        move = agent.select_move(state)
        if counted is not None:  # the opponent passed and we lose the count
            if move.is_play and move.point in settling_moves(state, counted.status).points:
                return MoveChoice(move, f"chosen by {type(agent).__name__}: it can still change the count")
            return MoveChoice.of(settle_after_pass(state, [], settings.policy(), counted))
        if move.is_pass and cleanup:
            decision = cleanup_move(state, [], referee.count(state))
            if decision is not None:
                return MoveChoice.of(decision)
        return MoveChoice(move, f"chosen by {type(agent).__name__}")

    if on_progress is None:
        result = agent.search(searched, budget)
    else:
        result = agent.search(searched, budget, on_progress=on_progress, progress_interval=progress_interval)
    if not result.candidates:
        # The clock ran out before the search began (agent build, dead-stone count): a tiny
        # search still beats a random move and costs milliseconds.
        result = agent.search(searched, SearchBudget(max_visits=MIN_SEARCH_VISITS, stop=budget.stop))
    if not result.candidates:
        move = emergency_move(state)
        return MoveChoice(move, "no search result: a quick legal move", result)
    decision = decide_after_search(
        state, result, settings.policy(), referee, move_number, opponent_passed, cleanup, previous_values, counted
    )
    if rng is not None and not (cleanup or opponent_passed) and decision.candidate is result.candidates[0]:
        varied = vary_move(result, settings.variety, move_number, rng)
        if varied is not None and varied is not decision.candidate:
            return MoveChoice(varied.move, "a near-best opening move, for variety", result, varied)
    return MoveChoice.of(decision, result)


def book_choice(
    result: SearchResult, settings: DecisionSettings, move_number: int, rng: random.Random | None = None
) -> MoveChoice:
    """The move for an opening position that the book holds (``result``, its long search, as
    ``dlgo.search.book`` looks it up): its best move, or the variety draw among its near-best
    (``rng``, as after a search). Never a pass or a resignation: the book holds none."""
    best = result.candidates[0]
    if rng is not None:
        varied = vary_move(result, settings.variety, move_number, rng)
        if varied is not None and varied is not best:
            return MoveChoice(varied.move, "a near-best move of the opening book, for variety", result, varied)
    return MoveChoice(best.move, "the opening book's move", result, best)
