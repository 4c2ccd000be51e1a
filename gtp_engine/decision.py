"""From a position to the move the engine answers: search, then the pass/resign/cleanup rules.

- The opponent passed and we win the area count (dead stones removed): pass at once.
- The opponent passed and we lose the count: play on while a move has some hope (win rate at
  least the resign threshold), else resign (when allowed) or pass.
- Never pass while the game is undecided: when the search prefers pass but neutral points are
  left (dame), play the best other move.
- Resign only when clearly lost: win rate under the threshold after a minimum move number,
  with a lower threshold and a later minimum for White in a handicap game, never on a search
  too small to mean anything, and only when our previous ``consecutive_moves - 1`` moves in
  this game line were under it too (the caller passes their values, see :func:`resign_value`).
- Cleanup (``kgs-genmove_cleanup``): never pass while the opponent's dead stones are on the
  board; capture them instead.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.deadstones import count, has_neutral_points
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import CandidateInfo, SearchAgent, SearchBudget, SearchResult

__all__ = ["MoveChoice", "DecisionSettings", "choose_move", "emergency_move", "resign_value"]

log = logging.getLogger(__name__)

MIN_RESIGN_VISITS = 100
MIN_SEARCH_VISITS = 32  # searched even when the clock is already spent


@dataclass
class MoveChoice:
    move: Move
    reason: str
    result: SearchResult | None = None
    candidate: CandidateInfo | None = None


@dataclass(frozen=True)
class DecisionSettings:
    resign_enabled: bool = True
    resign_threshold: float = 0.1
    resign_min_move: int = 0
    handicap_threshold: float = 0.02
    handicap_min_move: int = 0
    resign_consecutive_moves: int = 3
    pass_playouts: int = 400
    only_when_settled: bool = True

    @classmethod
    def from_config(cls, resign: Mapping[str, Any], passing: Mapping[str, Any]) -> DecisionSettings:
        return cls(
            resign_enabled=resign["enabled"],
            resign_threshold=resign["threshold"],
            resign_min_move=resign["min_move"],
            handicap_threshold=resign["handicap_threshold"],
            handicap_min_move=resign["handicap_min_move"],
            resign_consecutive_moves=resign["consecutive_moves"],
            pass_playouts=passing["playouts"],
            only_when_settled=passing["only_when_settled"],
        )


def _is_handicap_game(state: GameState) -> bool:
    root = state.root()
    stones = [p for _, p in root.board.stones()]
    return root.next_player is Player.white and len(stones) >= 2 and all(p is Player.black for p in stones)


def resign_value(choice: MoveChoice) -> float | None:
    """What a played move tells the resign streak: the larger of the best move's and the root's
    win rate (both are below a threshold exactly when it is), or None when no real search
    backs the move (it then breaks the streak)."""
    result = choice.result
    if result is None or not result.candidates or result.visits < MIN_RESIGN_VISITS:
        return None
    return max(result.candidates[0].winrate, result.winrate)


def _should_resign(
    state: GameState,
    result: SearchResult,
    best: CandidateInfo,
    move_number: int,
    s: DecisionSettings,
    previous: Sequence[float | None] = (),
) -> bool:
    if not s.resign_enabled or result.visits < MIN_RESIGN_VISITS:
        return False
    points = state.board.num_rows * state.board.num_cols
    threshold = s.resign_threshold
    min_move = s.resign_min_move or points // 4
    if state.next_player is Player.white and _is_handicap_game(state):
        threshold = min(threshold, s.handicap_threshold)
        min_move = max(min_move, s.handicap_min_move or points // 2)
    if move_number < min_move:
        return False
    if not (best.winrate < threshold and result.winrate < threshold):
        return False
    earlier = list(previous[: s.resign_consecutive_moves - 1])
    return len(earlier) == s.resign_consecutive_moves - 1 and all(v is not None and v < threshold for v in earlier)


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


def _capture_in_atari(state: GameState) -> Move | None:
    """A legal capture of the opponent's biggest string in atari, if any.

    Under area scoring taking stones off costs nothing, and a position with no string in atari
    is one both programs count the same way.
    """
    board = state.board
    best: tuple[int, Move] | None = None
    seen: set[int] = set()
    for point, color in board.stones():
        if color is state.next_player:
            continue
        string = board.get_go_string(point)
        if string is None or id(string) in seen:
            continue
        seen.add(id(string))
        if string.num_liberties == 1:
            move = Move.play(next(iter(string.liberties)))
            size = len(string.stones)
            if state.is_valid_move(move) and (best is None or size > best[0]):
                best = (size, move)
    return None if best is None else best[1]


def _cleanup_choice(state: GameState, cands: list[CandidateInfo], settings: DecisionSettings) -> MoveChoice | None:
    """The move that removes the opponent's dead stones, or None when none are left."""
    counted = count(state, settings.pass_playouts)
    dead = counted.dead_of(state.next_player.other, state)
    if not dead:
        return None
    board = state.board
    targets: set[Point] = set()
    for group in dead:
        string = board.get_go_string(group[0])
        if string is not None:
            targets |= set(string.liberties)
    for c in cands:
        if c.move.is_play and c.move.point in targets:
            return MoveChoice(c.move, "cleanup: capturing dead stones", candidate=c)
    for p in sorted(targets):
        move = Move.play(p)
        if state.is_valid_move(move):
            return MoveChoice(move, "cleanup: capturing dead stones")
    non_pass = [c for c in cands if not c.move.is_pass]
    if non_pass:
        return MoveChoice(non_pass[0].move, "cleanup: dead stones left", candidate=non_pass[0])
    return None


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
) -> MoveChoice:
    """The engine's move for ``state.next_player`` (``state`` must have that player to move).

    ``previous_values``: :func:`resign_value` of our own earlier moves in this game line, the
    latest first, None for a move we did not generate; the resign rule needs
    ``settings.resign_consecutive_moves - 1`` of them below the threshold.
    """
    player = state.next_player
    if opponent_passed and not cleanup:
        counted = count(state, settings.pass_playouts)
        if counted.wins(player):
            capture = _capture_in_atari(state)
            if capture is not None:
                return MoveChoice(capture, "capturing stones in atari before passing")
            return MoveChoice(Move.pass_turn(), f"the opponent passed and we win the count ({counted.result})")

    if not isinstance(agent, SearchAgent):
        move = agent.select_move(state)
        if move.is_pass and cleanup:
            choice = _cleanup_choice(state, [], settings)
            if choice is not None:
                return choice
        return MoveChoice(move, f"chosen by {type(agent).__name__}")

    if on_progress is None:
        result = agent.search(state, budget)
    else:
        result = agent.search(state, budget, on_progress=on_progress, progress_interval=progress_interval)
    cands = result.candidates
    if not cands:
        # The clock ran out before the search began (agent build, dead-stone count): a tiny
        # search still beats a random move and costs milliseconds.
        result = agent.search(state, SearchBudget(max_visits=MIN_SEARCH_VISITS, stop=budget.stop))
        cands = result.candidates
    if not cands:
        move = emergency_move(state)
        return MoveChoice(move, "no search result: a quick legal move", result)
    best = cands[0]
    non_pass = [c for c in cands if not c.move.is_pass]

    def pick(c: CandidateInfo, reason: str) -> MoveChoice:
        return MoveChoice(c.move, reason, result, c)

    if cleanup:
        choice = _cleanup_choice(state, cands, settings)
        if choice is not None:
            choice.result = result
            return choice
        if best.move.is_pass and non_pass and has_neutral_points(state, count(state, settings.pass_playouts)):
            return pick(non_pass[0], "cleanup: neutral points left")
        return pick(best, "cleanup: nothing left to capture")

    if _should_resign(state, result, best, move_number, settings, previous_values):
        return MoveChoice(Move.resign(), f"win rate {best.winrate:.3f} is below the resign threshold", result, best)

    if opponent_passed:
        # We lose the count (else we would have passed above): a pass would end the game lost.
        hopeful = [c for c in non_pass if c.winrate >= settings.resign_threshold]
        if hopeful:
            return pick(hopeful[0], "the opponent passed but we lose the count: playing on")
        if settings.resign_enabled:
            return MoveChoice(Move.resign(), "the opponent passed, we lose the count and no move helps", result)
        if non_pass:
            return pick(non_pass[0], "the opponent passed and we lose the count: playing on anyway")
        return MoveChoice(Move.pass_turn(), "the opponent passed and no move is left", result)

    if best.move.is_pass and non_pass and settings.only_when_settled:
        counted = count(state, settings.pass_playouts)
        if has_neutral_points(state, counted):
            return pick(non_pass[0], "not passing while neutral points are left")
    return pick(best, "best search move")
