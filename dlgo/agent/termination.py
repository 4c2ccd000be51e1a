"""When a game ends: resigning and passing, the one policy every player in dlgo uses (book 8.5).

The book wraps an agent in a termination strategy: pass when the opponent passes, resign on a
large margin. Those strategies are here (``TerminationAgent``, ``get``), with two corrections:
passing into a lost count is a real mistake, so a pass answers a pass only when the count with
dead stones removed (Monte Carlo estimate) is a win, and the margin for resigning is counted the
same way.

Everything that decides the end of a game around a search lives here too, so the GTP engine
(``dlgo.play.decision``), ``MCTSAgent`` and Zero self-play follow one set of rules:

- :func:`is_handicap_game`: White moves first on a board of at least two Black stones (set up, or
  played as Black's first moves).
- :class:`ResignPolicy`: resign only when clearly lost (a value under the threshold from a
  minimum move number on, and on the previous ``consecutive_moves - 1`` own moves too), with a
  lower threshold and a later minimum move for White in a handicap game.
- Passing: answer a pass with a pass only when we win the count (:func:`wins_count`,
  :func:`pass_when_opponent_passed`), never pass while neutral points are left or on a lucky
  pass of a small search (:func:`is_lucky_pass`, :func:`clear_pass_or_best_play`), and in cleanup mode
  (``kgs-genmove_cleanup``) never pass while the opponent's dead stones are on the board
  (:func:`cleanup_move`). :func:`decide_after_search` puts the rules in the engine's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from dlgo.agent.base import Agent
from dlgo.agent.helpers import is_point_an_eye
from dlgo.agent.settling import CountedStatus, is_settled, settling_moves
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import handicap_stone_count
from dlgo.scoring import GameResult

if TYPE_CHECKING:  # the rules read search results; the search wing builds on agents, not back
    from dlgo.search.base import CandidateInfo, SearchResult

__all__ = [
    "TerminationStrategy",
    "PassWhenOpponentPasses",
    "ResignLargeMargin",
    "TerminationAgent",
    "get",
    "is_handicap_game",
    "ResignPolicy",
    "MIN_RESIGN_VISITS",
    "resign_score_lead",
    "resign_signal",
    "wins_count",
    "clear_pass_or_best_play",
    "is_lucky_pass",
    "PositionCount",
    "Referee",
    "Decision",
    "EndOfGamePolicy",
    "capture_in_atari",
    "pass_when_opponent_passed",
    "cleanup_move",
    "decide_after_search",
    "settle_after_pass",
]

# A win rate from fewer visits than this means too little to resign on.
MIN_RESIGN_VISITS = 100


# --- the book's termination strategies (book 8.5) -----------------------------------------------


def wins_count(game_state: GameState, num_playouts: int = 400) -> bool:
    """Would the player to move win if the game ended now, with dead stones taken off?"""
    from dlgo.deadstones import final_result  # compiled playouts: loaded on first use

    return final_result(game_state, num_playouts).winner == game_state.next_player


class TerminationStrategy:
    def should_pass(self, game_state: GameState) -> bool:
        return False

    def should_resign(self, game_state: GameState) -> bool:
        return False


class PassWhenOpponentPasses(TerminationStrategy):
    def __init__(self, only_when_winning: bool = True, num_playouts: int = 400) -> None:
        self.only_when_winning = only_when_winning
        self.num_playouts = num_playouts

    def should_pass(self, game_state: GameState) -> bool:
        last = game_state.last_move
        if last is None or not last.is_pass:
            return False
        if not self.only_when_winning:
            return True
        return wins_count(game_state, self.num_playouts)


class ResignLargeMargin(TerminationStrategy):
    """Resign after ``cut_off_move`` when behind by more than ``margin`` points."""

    def __init__(self, own_color: Player, cut_off_move: int, margin: float, num_playouts: int = 200) -> None:
        self.own_color = own_color
        self.cut_off_move = cut_off_move
        self.margin = margin
        self.num_playouts = num_playouts

    def should_resign(self, game_state: GameState) -> bool:
        if game_state.move_number < self.cut_off_move:
            return False
        from dlgo.deadstones import final_result

        result = final_result(game_state, self.num_playouts)
        return result.winner not in (None, self.own_color) and result.winning_margin > self.margin


class _Combined(TerminationStrategy):
    def __init__(self, *strategies: TerminationStrategy) -> None:
        self.strategies = strategies

    def should_pass(self, game_state: GameState) -> bool:
        return any(s.should_pass(game_state) for s in self.strategies)

    def should_resign(self, game_state: GameState) -> bool:
        return any(s.should_resign(game_state) for s in self.strategies)


class TerminationAgent(Agent):
    def __init__(self, agent: Agent, strategy: TerminationStrategy | None = None) -> None:
        self.agent = agent
        self.strategy = strategy if strategy is not None else PassWhenOpponentPasses()

    def select_move(self, game_state: GameState) -> Move:
        if self.strategy.should_pass(game_state):
            return Move.pass_turn()
        if self.strategy.should_resign(game_state):
            return Move.resign()
        return self.agent.select_move(game_state)


def get(name: str, own_color: Player | None = None, **kwargs) -> TerminationStrategy:
    """By name: ``opponent_passes``, ``resign_large_margin`` or ``both``."""
    if name == "opponent_passes":
        return PassWhenOpponentPasses(**kwargs)
    if own_color is None:
        raise ValueError(f"termination strategy {name!r} needs own_color")
    if name == "resign_large_margin":
        return ResignLargeMargin(own_color, **kwargs)
    if name == "both":
        return _Combined(PassWhenOpponentPasses(), ResignLargeMargin(own_color, **kwargs))
    raise ValueError(f"unknown termination strategy {name!r}")


# --- resigning ----------------------------------------------------------------------------------


def is_handicap_game(game_state: GameState) -> bool:
    """A handicap game: the game line starts with White to move on at least two stones, all Black,
    or, from an empty board, with two or more Black moves before White's first (how gtp2ogs sends
    OGS's fixed handicap: ``play black`` for each stone; KataGo counts them alike,
    ``dlgo.handicap.handicap_stone_count``).

    One Black stone is a setup position, not a handicap (GTP's handicap commands place two or
    more), and a start with White stones on the board is a setup position too.
    """
    line = _game_line(game_state)
    root = line[0]
    stones = [color for _, color in root.board.stones()]
    if stones:
        return root.next_player is Player.white and len(stones) >= 2 and all(c is Player.black for c in stones)
    movers = (state.previous_state.next_player for state in line[1:] if state.last_move is not None)
    return handicap_stone_count((), movers) > 0


def _game_line(game_state: GameState) -> list[GameState]:
    """The states from the root to ``game_state``, in order."""
    line = [game_state]
    while line[-1].previous_state is not None:
        line.append(line[-1].previous_state)
    return line[::-1]


@dataclass(frozen=True)
class ResignPolicy:
    """Resign only when clearly lost, and only after a run of lost moves.

    ``value`` is the resign signal of a move, the player to move's estimate in the threshold's
    units (a win rate in [0, 1] for the engine and MCTS, a value in [-1, 1] for Zero self-play).
    ``min_move`` None: a quarter of the board's points; ``handicap_min_move`` None: half of them.
    White in a handicap game resigns later and on a lower threshold: its opponent started ahead
    and may still go wrong. ``min_score_difference`` (points, 0: off): never resign while the
    network's score head says we are behind by less than this (KataGo's
    ``resignMinScoreDifference``): a value head that learned from stronger or weaker players
    misjudges close games, and a game lost by two points may still be won.
    """

    enabled: bool = True
    threshold: float = 0.1
    min_move: int | None = None
    handicap_threshold: float = 0.02
    handicap_min_move: int | None = None
    consecutive_moves: int = 3
    min_score_difference: float = 0.0

    def applies_to_handicap(self, game_state: GameState) -> bool:
        return game_state.next_player is Player.white and is_handicap_game(game_state)

    def threshold_for(self, game_state: GameState) -> float:
        if self.applies_to_handicap(game_state):
            return min(self.threshold, self.handicap_threshold)
        return self.threshold

    def first_move_for(self, game_state: GameState) -> int:
        """The first move number at which the player to move may resign."""
        points = game_state.board.num_rows * game_state.board.num_cols
        first = points // 4 if self.min_move is None else self.min_move
        if self.applies_to_handicap(game_state):
            later = points // 2 if self.handicap_min_move is None else self.handicap_min_move
            first = max(first, later)
        return first

    def is_lost(
        self,
        game_state: GameState,
        move_number: int,
        value: float | None,
        previous: Sequence[float | None] = (),
        score_lead: float | None = None,
    ) -> bool:
        """Is the game lost for the player to move, whether or not resigning is enabled?

        ``previous``: the resign signals of its own earlier moves in this game line, the latest
        first, None for a move that breaks the run (one not backed by a search of its own); the
        ``consecutive_moves - 1`` latest must be below the threshold that applies now.
        ``score_lead``: the points the player to move leads by now (:func:`resign_score_lead`),
        None where no score head backs the search (the win rates alone decide).
        """
        threshold = self.threshold_for(game_state)
        if value is None or move_number < self.first_move_for(game_state) or not value < threshold:
            return False
        if self.is_close(score_lead):
            return False
        earlier = list(previous[: self.consecutive_moves - 1])
        return len(earlier) == self.consecutive_moves - 1 and all(v is not None and v < threshold for v in earlier)

    def is_close(self, score_lead: float | None) -> bool:
        """Does the score say the game is too close to resign, whatever the win rate?"""
        return self.min_score_difference > 0 and score_lead is not None and score_lead > -self.min_score_difference

    def should_resign(
        self,
        game_state: GameState,
        move_number: int,
        value: float | None,
        previous: Sequence[float | None] = (),
        score_lead: float | None = None,
    ) -> bool:
        return self.enabled and self.is_lost(game_state, move_number, value, previous, score_lead)


def resign_signal(result: SearchResult) -> float | None:
    """What a search tells the resign rule: the larger of the best move's and the root's win rate
    (both are below a threshold exactly when it is), or None when the search is too small to mean
    anything."""
    if not result.candidates or result.visits < MIN_RESIGN_VISITS:
        return None
    return max(result.candidates[0].winrate, result.winrate)


def resign_score_lead(result: SearchResult) -> float | None:
    """The points the player to move leads by, for the resign rule: the larger of the best move's
    and the root's score (as :func:`resign_signal` takes the larger win rate), or None when the
    search has no score (no score head)."""
    best = result.candidates[0].score_lead if result.candidates else None
    known = [lead for lead in (result.score_lead, best) if lead is not None]
    return max(known) if known else None


# --- passing ------------------------------------------------------------------------------------


def clear_pass_or_best_play(candidates: list[CandidateInfo], root_visits: int) -> CandidateInfo:
    """Keep a pass (the first candidate) that the search clearly prefers; else the best real move.

    With few visits per move every candidate gets one or two rollouts, and a lucky pass would end
    the game (or hand over a move) while it is undecided.
    """
    pass_info = candidates[0]
    plays = [c for c in candidates if not c.move.is_pass]
    if not plays:
        return pass_info
    clearly_best = not is_lucky_pass(pass_info, root_visits) and pass_info.winrate > plays[0].winrate
    return pass_info if clearly_best else plays[0]


def is_lucky_pass(pass_info: CandidateInfo, root_visits: int) -> bool:
    """Has the search's best candidate, a pass, too few visits to trust: under 10, or under a
    tenth of the search? On an open board a small search gives each of a hundred moves two or
    three visits, and a pass that won its few by chance would hand the opponent a free move."""
    return pass_info.visits < max(10, root_visits // 10)


class PositionCount(Protocol):
    """A position counted as if the game ended now, dead stones removed."""

    @property
    def result(self) -> GameResult: ...

    @property
    def status(self) -> CountedStatus: ...

    def wins(self, player: Player) -> bool: ...

    def dead_of(self, player: Player, state: GameState) -> list[list[Point]]: ...


class Referee(Protocol):
    """Counts positions for the pass rules (the GTP engine's caches its dead-stone estimates)."""

    def count(self, state: GameState) -> PositionCount: ...

    def has_neutral_points(self, state: GameState) -> bool: ...


@dataclass
class Decision:
    """A move chosen by the end-of-game rules, why, and the search candidate behind it if any."""

    move: Move
    reason: str
    candidate: CandidateInfo | None = None


@dataclass(frozen=True)
class EndOfGamePolicy:
    """The engine's rules: ``resign``, ``only_when_settled``: no pass while dame are left, and
    ``area_scoring``: whether the count is by area (a dame is then worth a point) or by territory."""

    resign: ResignPolicy = field(default_factory=ResignPolicy)
    only_when_settled: bool = True
    area_scoring: bool = True


def capture_in_atari(state: GameState, dead: frozenset[Point] | set[Point] = frozenset()) -> Move | None:
    """A legal capture of the opponent's biggest string in atari, if any, among those not in
    ``dead`` (stones the count already takes off).

    A living string in atari is one the two programs of a game may count differently; taking it
    settles that. Taking a dead one is a move inside our own territory: a point under territory
    counting, and nothing the count needs.
    """
    board = state.board
    best: tuple[int, Move] | None = None
    seen: set[int] = set()
    for point, color in board.stones():
        if color is state.next_player or point in dead:
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


def pass_when_opponent_passed(state: GameState, counted: PositionCount) -> Decision | None:
    """The opponent passed: pass when we win the count (taking stones in atari first), else None.

    Also None while the count is open: more points left to settle than its margin (an opponent
    that passes on an almost empty board, which a referee that removes dead stones counts
    otherwise). The search then settles them (:func:`settle_after_pass`).
    """
    if not counted.wins(state.next_player):
        return None
    moves = settling_moves(state, counted.status)
    if len(moves.neutral | moves.disputed) >= counted.result.winning_margin:
        return None
    capture = capture_in_atari(state, set(counted.status.dead_stones()))
    if capture is not None:
        return Decision(capture, "capturing living stones in atari before passing")
    return Decision(Move.pass_turn(), f"the opponent passed and we win the count ({counted.result})")


def cleanup_move(state: GameState, candidates: list[CandidateInfo], counted: PositionCount) -> Decision | None:
    """Cleanup mode: the move that removes the opponent's dead stones, or None when none are left."""
    dead = counted.dead_of(state.next_player.other, state)
    if not dead:
        return None
    board = state.board
    # each liberty of a dead string, with the liberties that string has left: the string nearest
    # capture first, so that a limited number of cleanup moves finishes strings one by one
    shortest: dict[Point, int] = {}
    for group in dead:
        string = board.get_go_string(group[0])
        if string is not None:
            for p in string.liberties:
                shortest[p] = min(shortest.get(p, string.num_liberties), string.num_liberties)
    targets = set(shortest)
    for c in candidates:
        if c.move.is_play and c.move.point in targets:
            return Decision(c.move, "cleanup: capturing dead stones", c)
    for p in sorted(targets, key=lambda p: (shortest[p], p)):
        move = Move.play(p)
        if state.is_valid_move(move):
            return Decision(move, "cleanup: capturing dead stones")
    non_pass = [c for c in candidates if not c.move.is_pass]
    if non_pass:
        return Decision(non_pass[0].move, "cleanup: dead stones left", non_pass[0])
    return None


def decide_after_search(
    state: GameState,
    result: SearchResult,
    policy: EndOfGamePolicy,
    referee: Referee,
    move_number: int,
    opponent_passed: bool,
    cleanup: bool = False,
    previous_values: Sequence[float | None] = (),
    counted: PositionCount | None = None,
) -> Decision:
    """The move for ``state.next_player`` from a search with at least one candidate.

    The caller has already passed when the opponent passed and we win the count
    (:func:`pass_when_opponent_passed`, outside cleanup). ``previous_values``: the
    :func:`resign_signal` of our earlier moves, the latest first (see :meth:`ResignPolicy.is_lost`).
    ``counted``: the count that decided not to pass after the opponent's pass (the referee's
    count of ``state`` when None). A play into our own true eye is never chosen.
    """
    cands = [c for c in result.candidates if not _fills_own_eye(state, c.move)] or result.candidates
    best = cands[0]
    non_pass = [c for c in cands if not c.move.is_pass]

    if cleanup:
        choice = cleanup_move(state, cands, referee.count(state))
        if choice is not None:
            return choice
        if best.move.is_pass and non_pass and referee.has_neutral_points(state):
            return Decision(non_pass[0].move, "cleanup: neutral points left", non_pass[0])
        return Decision(best.move, "cleanup: nothing left to capture", best)

    lead = resign_score_lead(result)
    if policy.resign.should_resign(state, move_number, resign_signal(result), previous_values, lead):
        behind = "" if lead is None else f", {-lead:.1f} points behind"
        return Decision(Move.resign(), f"win rate {best.winrate:.3f} is below the resign threshold{behind}", best)

    if opponent_passed:
        # We lose the count, or it is still open (else we would have passed already).
        return settle_after_pass(state, non_pass, policy, counted or referee.count(state))

    if best.move.is_pass and non_pass and is_lucky_pass(best, result.visits):
        return Decision(non_pass[0].move, "a pass with too few visits to trust: playing", non_pass[0])
    if best.move.is_pass and non_pass and policy.only_when_settled and referee.has_neutral_points(state):
        return Decision(non_pass[0].move, "not passing while neutral points are left", non_pass[0])
    return Decision(best.move, "best search move", best)


def _fills_own_eye(state: GameState, move: Move) -> bool:
    return move.is_play and is_point_an_eye(state.board, move.point, state.next_player)


def settle_after_pass(
    state: GameState, non_pass: list[CandidateInfo], policy: EndOfGamePolicy, counted: PositionCount
) -> Decision:
    """The opponent passed and we lose ``counted``, or it is still open: a move that can still
    change the count (``dlgo.agent.settling``), the search's best of them first; resign (or pass,
    when resigning is off or we win) once none is left or none has a hope. Never a move inside our
    own territory: the search's value, which can misjudge a settled game, is asked only which
    settling move to play. ``non_pass``: the search's candidates other than a pass, best first
    (may be empty).
    """
    moves = settling_moves(state, counted.status)
    threshold = policy.resign.threshold
    winning = counted.wins(state.next_player)
    give_up = Move.resign() if policy.resign.enabled and not winning else Move.pass_turn()
    if is_settled(moves, counted.result, state.next_player, dame_score=policy.area_scoring):
        return Decision(give_up, f"the opponent passed and the count ({counted.result}) can no longer change")
    why = (
        f"the opponent passed and the count ({counted.result}) is still open: settling"
        if winning
        else f"the opponent passed but we lose the count ({counted.result}): settling"
    )
    useful = [c for c in non_pass if c.move.point in moves.points]
    hopeful = [c for c in useful if c.winrate >= threshold]
    if hopeful:
        return Decision(hopeful[0].move, why, hopeful[0])
    if policy.resign.enabled and not winning and non_pass and all(c.winrate < threshold for c in non_pass):
        return Decision(Move.resign(), f"the opponent passed, we lose the count ({counted.result}) and no move helps")
    if useful:
        return Decision(useful[0].move, why, useful[0])
    # The search gave none of them a visit (its value may call the game won): the rules' order.
    return Decision(Move.play(moves.in_order()[0]), why)
