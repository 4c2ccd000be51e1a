"""A game record (setup stones, moves) replayed into the positions to analyse, one per turn.

Turn 0 is the position before ``moves[0]``, turn ``t`` the one after ``moves[t - 1]``, as in
KataGo's ``analyzeTurns``. The player to move at turn 0 is ``initial_player``, else the player
of the first move, else Black; at turn ``t > 0`` it is the opponent of the player of
``moves[t - 1]`` (a record may have one colour move twice: KataGo's choice, checked against it).

Each move must be legal under the record's rules (``RuleSet``): never on an occupied point or
an immediate ko retake; suicide only where the rules allow it; the repetition of an earlier
position only where they forbid simple ko alone (then the move is replayed as it is, and the
searches keep dlgo's superko from there). ``RecordError`` names the field and the move.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass, field

from dlgo.goboard import MAX_SIZE, MIN_SIZE, Board, GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import handicap_stone_count
from dlgo.rules import RuleSet
from dlgo.utils import move_to_text

__all__ = [
    "GameRecord",
    "RecordError",
    "RecordTurn",
    "ReplayCache",
    "replay",
    "max_moves",
    "too_many_moves",
    "handicap_stones",
    "white_bonus",
]


class RecordError(ValueError):
    """A record that cannot be replayed; ``field`` is the query field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def max_moves(rows: int, cols: int) -> int:
    """The longest record accepted: three moves per point (at least 400). Every position keeps
    the hashes of all before it for superko, so memory grows with the square of the length; real
    games stay far below (a 19x19 game has 200-350 moves)."""
    return max(400, 3 * rows * cols)


@dataclass
class GameRecord:
    """A game as the analysis engine's query gives it. ``komi`` None: the rules' default."""

    rows: int
    cols: int
    rules: RuleSet
    moves: list[tuple[Player, Move]] = field(default_factory=list)
    initial_stones: list[tuple[Player, Point]] = field(default_factory=list)
    initial_player: Player | None = None
    komi: float | None = None
    white_handicap_bonus: str | None = None  # "0", "N", "N-1"; None: the rules'

    @property
    def scoring_komi(self) -> float:
        """Komi plus White's points for handicap stones: what the searches count with."""
        komi = self.rules.default_komi if self.komi is None else self.komi
        return komi + white_bonus(self)


def handicap_stones(record: GameRecord) -> int:
    """KataGo's count of handicap stones: Black's setup stones plus Black's moves before White's
    first, when White has no setup stone; 0 when that is one stone or none."""
    return handicap_stone_count((player for player, _ in record.initial_stones), (player for player, _ in record.moves))


def white_bonus(record: GameRecord) -> float:
    rule = record.white_handicap_bonus or record.rules.handicap_bonus
    stones = handicap_stones(record)
    return float(stones if rule == "N" else max(0, stones - 1) if rule == "N-1" else 0)


def _setup(record: GameRecord) -> Board:
    """The board with the setup stones, placed in order (a point named twice takes the last
    colour; a stone that takes the last liberty of others captures them, as a move would)."""
    board = Board(record.rows, record.cols)
    last: dict[Point, Player] = {}
    for player, point in record.initial_stones:
        last.pop(point, None)
        last[point] = player
    for point, player in last.items():
        if not board.is_on_grid(point):
            raise RecordError("initialStones", f"Could not parse board location: {move_to_text(Move.play(point))}")
        if board.get(point) is not None:  # captured back in by an earlier stone? occupied: skip
            continue
        probe = GameState(board, player, None, None)
        if probe.is_move_self_capture(player, Move.play(point)):
            raise RecordError("initialStones", f"Setup stone without liberties: {move_to_text(Move.play(point))}")
        board.place_stone(player, point)
    return board


def too_many_moves(count: int, rows: int, cols: int) -> str | None:
    """Why a record of ``count`` moves is refused (None: it is not)."""
    limit = max_moves(rows, cols)
    return f"Too many moves: {count} (at most {limit} on {cols}x{rows})" if count > limit else None


def replay(record: GameRecord, cache: ReplayCache | None = None, upto: int | None = None) -> list[GameState]:
    """The position at every turn, ``len(record.moves) + 1`` of them (``upto``: turns 0 to
    ``upto`` only); RecordError if a move is illegal or the record too long. ``cache``: reuse
    the positions of a record replayed lately that begins the same way."""
    if not (MIN_SIZE <= record.rows <= MAX_SIZE and MIN_SIZE <= record.cols <= MAX_SIZE):
        raise RecordError("boardXSize", f"Must provide an integer from {MIN_SIZE} to {MAX_SIZE}")
    why = too_many_moves(len(record.moves), record.rows, record.cols)
    if why:
        raise RecordError("moves", why)
    if len(record.initial_stones) > record.rows * record.cols:
        raise RecordError("initialStones", f"Too many setup stones: {len(record.initial_stones)}")
    first = record.initial_player or (record.moves[0][0] if record.moves else Player.black)
    key = (record.rows, record.cols, record.rules, record.scoring_komi, first, tuple(record.initial_stones))
    moves = tuple(record.moves if upto is None else record.moves[:upto])
    done, states = cache.lookup(key, moves) if cache is not None else (0, [])
    if not states:
        states = [GameState.from_position(_setup(record), first, record.scoring_komi)]
    state = states[-1]
    for i in range(done, len(moves)):
        player, move = moves[i]
        state = _play(state, player, move, record.rules, i)
        states.append(state)
    if cache is not None:
        cache.keep(key, moves, states)
    return list(states)


# The most moves a record may hold per byte budget of a queued turn: a record's moves as
# Python objects (tuples, moves, points), measured with tracemalloc on a 400-move 19x19 record.
RECORD_BYTES_PER_MOVE = 200


@dataclass(frozen=True, eq=False)
class RecordTurn:
    """Turn ``turn`` of ``record``, replayed only when its search starts: a queued turn holds
    the record's moves (``RECORD_BYTES_PER_MOVE`` each), not its positions, whose superko
    hashes grow with the square of the game's length (40 MB for a 1,000-move 19x19 record).
    ``cache``: the replays that turns of the same game share."""

    record: GameRecord
    turn: int
    cache: ReplayCache | None = None

    @property
    def rows(self) -> int:
        return self.record.rows

    @property
    def cols(self) -> int:
        return self.record.cols

    @property
    def held_bytes(self) -> int:
        return RECORD_BYTES_PER_MOVE * (len(self.record.moves) + len(self.record.initial_stones) + 1)

    def state(self) -> GameState:
        """The position of this turn (RecordError if the record cannot be replayed)."""
        return replay(self.record, self.cache, upto=self.turn)[-1]

    def follows(self, before: RecordTurn) -> bool:
        """Is this the position one move after ``before`` in the same game?"""
        if self.turn != before.turn + 1:
            return False
        if self.record is before.record:
            return True
        mine, theirs = self.record, before.record
        return (mine.rows, mine.cols, mine.rules, mine.scoring_komi, mine.initial_player, mine.initial_stones) == (
            theirs.rows,
            theirs.cols,
            theirs.rules,
            theirs.scoring_komi,
            theirs.initial_player,
            theirs.initial_stones,
        ) and mine.moves[: before.turn] == theirs.moves[: before.turn]


class ReplayCache:
    """The last ``size`` replays, at most ``max_positions`` positions in all, so that records
    sharing their beginning share its positions. Safe to use from several threads.

    A client reviewing a game sends one query per move, each with every move before it (KaTrain
    does): replayed apart, 300 queries of a 300-move 19x19 game would hold 45,000 positions
    (14 KB each, 600 MB) while they wait; sharing the game's positions (they are immutable) they
    hold 300. The bound on positions keeps a few long distinct records from holding gigabytes."""

    def __init__(self, size: int = 8, max_positions: int = 2000) -> None:
        self.size = size
        self.max_positions = max_positions
        self._entries: OrderedDict[int, tuple[tuple, tuple, list[GameState]]] = OrderedDict()
        self._ids = itertools.count()
        self._lock = threading.Lock()

    def lookup(self, key: tuple, moves: tuple) -> tuple[int, list[GameState]]:
        """(moves already played, their positions: a new list) of the kept replay sharing the
        longest beginning with ``moves``; (0, []) when none shares the setup."""
        with self._lock:
            return self._lookup(key, moves)

    def _lookup(self, key: tuple, moves: tuple) -> tuple[int, list[GameState]]:
        best, best_n = None, -1
        for entry, (k, kept, _) in self._entries.items():
            if k != key:
                continue
            n = 0
            for a, b in zip(kept, moves):
                if a != b:
                    break
                n += 1
            if n > best_n:
                best, best_n = entry, n
        if best is None:
            return 0, []
        self._entries.move_to_end(best)
        return best_n, list(self._entries[best][2][: best_n + 1])

    def keep(self, key: tuple, moves: tuple, states: list[GameState]) -> None:
        with self._lock:
            for entry, (k, kept, _) in list(self._entries.items()):
                if k == key and kept[: len(moves)] == moves:
                    return  # a longer (or the same) record has these positions already
                if k == key and moves[: len(kept)] == kept:
                    del self._entries[entry]  # this one extends it
            self._entries[next(self._ids)] = (key, moves, states)
            while len(self._entries) > 1 and (len(self._entries) > self.size or self._positions() > self.max_positions):
                self._entries.popitem(last=False)

    def _positions(self) -> int:
        return sum(len(states) for _, _, states in self._entries.values())


def _play(state: GameState, player: Player, move: Move, rules: RuleSet, index: int) -> GameState:
    reason = state.illegal_reason(player, move)
    if reason is not None:
        allowed = (reason == "suicide" and rules.suicide) or (reason.startswith("superko") and rules.simple_ko)
        if not allowed:
            raise RecordError("moves", f"Illegal move {index}: {move_to_text(move)} ({reason})")
    return state.play_as(player, move)
