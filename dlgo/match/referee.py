"""The referee of one game between two GTP engines.

It keeps its own :class:`~dlgo.goboard.GameState` (situational superko, no suicide), asks the
player to move for ``genmove``, checks the answer, and forwards the move to the other player
with ``play``. Whatever goes wrong with a player ends the game as that player's loss, with the
reason recorded (see :mod:`dlgo.match.record`): it never raises for an engine's failure.

Time: with ``GameRules.clock`` the referee keeps both clocks, announces them with
``time_settings`` and sends ``time_left`` before each ``genmove``; a player whose move takes
longer than its clock allows loses on time. With ``seconds_per_move`` or ``visits`` the budget
goes to our engine as ``--set`` overrides (and to other engines that take GTP time commands as
``time_settings 0 S 1``), and a player silent for ``move_timeout`` seconds has hung and loses.
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass, field
from pathlib import Path

from dlgo.goboard import GameState
from dlgo.gotypes import Player
from dlgo.handicap import fixed_handicap_points, handicap_game, max_fixed_handicap
from dlgo.match.gnugo_count import GnuGoScorer, count_with_dead, parse_vertex_list, result_winner
from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.openings import Opening, opening_for_game
from dlgo.match.players import PlayerSpec
from dlgo.match.record import GameRecord, parse_move, winner_result
from dlgo.match.referee_clock import ClockSettings, RefereeClock
from dlgo.utils import coords_from_point, move_to_text

__all__ = ["GameRules", "play_game"]

_WORD = {"B": "black", "W": "white"}
_OTHER = {"B": "W", "W": "B"}


@dataclass(frozen=True)
class GameRules:
    """Everything about one game except who plays it."""

    size: int = 9
    komi: float = 7.5
    handicap: int = 0
    handicap_type: str = "fixed"  # "fixed" (fixed_handicap) or "free" (place/set_free_handicap)
    seconds_per_move: float | None = None
    visits: int | None = None
    clock: ClockSettings | None = None
    move_timeout: float | None = None  # hang detection outside a clock; None: a default from the budget
    command_timeout: float = 60.0  # setup commands, play, final_status_list
    lag_allowance: float = 0.2  # seconds per move not charged to a clock (pipes, process switches)
    max_moves: int | None = None  # None: 3 x the board's points
    dead_stones: str = "union"  # "union" or "agreed"
    openings: tuple[Opening, ...] = ()  # start positions, one per pair of games (dlgo.match.openings)

    def __post_init__(self) -> None:
        if not 2 <= self.size <= 25:
            raise ValueError(f"board size {self.size} is not 2..25")
        if self.handicap_type not in ("fixed", "free"):
            raise ValueError("handicap_type must be 'fixed' or 'free'")
        if self.handicap == 1 or self.handicap < 0:
            raise ValueError("handicap must be 0 or at least 2 stones")
        if self.handicap and self.handicap_type == "fixed" and self.handicap > max_fixed_handicap(self.size):
            most = max_fixed_handicap(self.size)
            raise ValueError(f"at most {most} fixed handicap stones on {self.size}x{self.size}")
        if self.dead_stones not in ("union", "agreed"):
            raise ValueError("dead_stones must be 'union' or 'agreed'")
        if self.openings and self.handicap:
            raise ValueError("openings and handicap stones exclude each other")

    @property
    def move_limit(self) -> int:
        return self.max_moves if self.max_moves is not None else 3 * self.size * self.size

    def genmove_timeout(self) -> float:
        """How long a genmove may take outside a clock before the player counts as hung."""
        if self.move_timeout is not None:
            return self.move_timeout
        if self.seconds_per_move is not None:
            return max(60.0, 10 * self.seconds_per_move)
        return 600.0

    def describe_time(self) -> str:
        parts = []
        if self.clock is not None:
            parts.append(f"clock {self.clock.describe()}")
        if self.seconds_per_move is not None:
            parts.append(f"{self.seconds_per_move:g} s/move")
        if self.visits is not None:
            parts.append(f"{self.visits} visits/move")
        return ", ".join(parts) or "engines' own defaults"

    def to_json(self) -> dict:
        return {
            "size": self.size,
            "komi": self.komi,
            "handicap": self.handicap,
            "handicap_type": self.handicap_type,
            "seconds_per_move": self.seconds_per_move,
            "visits": self.visits,
            "clock": self.clock.to_json() if self.clock else None,
            "move_timeout": self.move_timeout,
            "command_timeout": self.command_timeout,
            "lag_allowance": self.lag_allowance,
            "max_moves": self.max_moves,
            "dead_stones": self.dead_stones,
            "openings": [o.to_json() for o in self.openings],
        }

    @classmethod
    def from_json(cls, data: dict) -> GameRules:
        values = dict(data)
        if values.get("clock"):
            values["clock"] = ClockSettings(**values["clock"])
        values["openings"] = tuple(Opening.from_json(o) for o in values.get("openings") or ())
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in values.items() if k in known})


class _GameOver(Exception):
    def __init__(self, winner: str | None, reason: str, detail: str = "", fault: str | None = None) -> None:
        super().__init__(reason)
        self.winner = winner
        self.reason = reason
        self.detail = detail
        self.fault = fault


def _forfeit(colour: str, reason: str, detail: str) -> _GameOver:
    return _GameOver(_OTHER[colour], reason, detail, fault=colour)


@dataclass
class _Seat:
    colour: str
    spec: PlayerSpec
    proc: GtpProcess
    clock: RefereeClock | None = None
    name: str = ""
    notes: list[str] = field(default_factory=list)

    def command(self, text: str, timeout: float, required: bool = True) -> tuple[bool, str]:
        """Send a command; engine failures end the game, a ``?`` only when ``required``."""
        try:
            ok, answer = self.proc.ask(text, timeout)
        except GtpClientError as e:
            raise _forfeit(self.colour, e.kind, e.message) from None
        if not ok and required:
            raise _forfeit(self.colour, "refused", f"{self.spec.label}: {text!r} failed: ? {answer}")
        return ok, answer


def play_game(
    black: PlayerSpec,
    white: PlayerSpec,
    rules: GameRules,
    *,
    index: int = 0,
    scorer: GnuGoScorer | None = None,
    log_dir: str | Path | None = None,
) -> GameRecord:
    """Play one game to its end and return its record; engines are closed afterwards."""
    record = GameRecord(
        index=index,
        black=black.label,
        white=white.label,
        size=rules.size,
        komi=rules.komi,
        handicap=rules.handicap,
        time_control=rules.describe_time(),
        started=datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
    )
    started = time.monotonic()
    seats: dict[str, _Seat] = {}
    try:
        try:
            for colour, spec in (("B", black), ("W", white)):
                log = None
                if log_dir is not None:
                    log = Path(log_dir) / f"game-{index + 1:04d}-{colour}-{_safe(spec.label)}.log"
                argv = spec.argv_for(rules.size, rules.seconds_per_move, rules.visits)
                proc = GtpProcess(argv, f"{spec.label} ({_WORD[colour]})", cwd=spec.cwd, stderr_path=log)
                seat = _Seat(colour, spec, proc, RefereeClock(rules.clock) if rules.clock else None)
                seats[colour] = seat
                try:
                    proc.start()
                except GtpClientError as e:
                    raise _forfeit(colour, "crash", e.message) from None
            state = _setup(record, seats, rules)
            state = _play_moves(record, seats, rules, state)
            _count(record, seats, rules, state, scorer)
        except _GameOver as over:
            record.winner = over.winner
            record.reason = over.reason
            record.detail = over.detail
            record.fault = over.fault
            if over.winner is not None:
                record.result = winner_result(over.winner, over.reason)
    finally:
        for seat in seats.values():
            seat.proc.close()
        record.duration = round(time.monotonic() - started, 3)
    return record


def _safe(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in label)[:40]


def _setup(record: GameRecord, seats: dict[str, _Seat], rules: GameRules) -> GameState:
    t = rules.command_timeout
    for seat in seats.values():
        name = seat.command("name", t, required=False)
        version = seat.command("version", t, required=False)
        seat.name = " ".join(text for ok, text in (name, version) if ok and text)
        seat.command(f"boardsize {rules.size}", t)
        seat.command("clear_board", t)
        seat.command(f"komi {rules.komi:g}", t)
    record.black_name, record.white_name = seats["B"].name, seats["W"].name

    if rules.handicap:
        stones = _handicap(seats, rules)
        record.handicap_stones = [coords_from_point(p) for p in stones]
        state = handicap_game(rules.size, stones, rules.komi)
    else:
        state = GameState.new_game(rules.size, rules.komi)

    opening = opening_for_game(rules.openings, record.index)
    if opening is not None:
        state = _play_opening(record, seats, rules, state, opening)

    for seat in seats.values():
        if rules.clock is not None:
            ok, _ = seat.command(rules.clock.gtp(), t, required=False)
            if not ok and (fallback := rules.clock.gtp_fallback()):
                seat.command(fallback, t, required=False)
        elif rules.seconds_per_move is not None and seat.spec.time_commands:
            seat.command(f"time_settings 0 {rules.seconds_per_move:g} 1", t, required=False)
    return state


def _play_opening(
    record: GameRecord, seats: dict[str, _Seat], rules: GameRules, state: GameState, opening: Opening
) -> GameState:
    """The opening's moves, played into both engines; they count as moves of no one's time."""
    record.opening = opening.name
    for colour, vertex in opening.moves:
        move = parse_move(vertex)
        player = Player.black if colour == "B" else Player.white
        reason = state.illegal_reason(player, move)
        if reason is not None:  # load_openings checked it: a referee bug, not a player's fault
            raise RuntimeError(f"opening {opening.name}: {colour} {vertex} is illegal: {reason}")
        state = state.play_as(player, move)
        for seat in seats.values():
            seat.command(f"play {_WORD[colour]} {vertex}", rules.command_timeout)
        record.moves.append([colour, vertex])
        record.times.append(0.0)
        record.opening_moves += 1
    return state


def _handicap(seats: dict[str, _Seat], rules: GameRules) -> list:
    t = rules.command_timeout
    n = rules.handicap
    if rules.handicap_type == "fixed":
        expected = set(fixed_handicap_points(rules.size, n))
        for colour in ("B", "W"):
            _, answer = seats[colour].command(f"fixed_handicap {n}", t)
            try:
                placed = set(parse_vertex_list(answer))
            except ValueError:
                raise _forfeit(colour, "protocol", f"fixed_handicap {n} answered {answer!r}") from None
            if placed != expected:
                raise _forfeit(colour, "refused", f"fixed_handicap {n} placed {answer!r}, not the standard stones")
        return sorted(expected, key=lambda p: (-p.row, p.col))
    _, answer = seats["B"].command(f"place_free_handicap {n}", t)
    try:
        points = parse_vertex_list(answer)
    except ValueError:
        raise _forfeit("B", "protocol", f"place_free_handicap {n} answered {answer!r}") from None
    on_board = all(1 <= p.row <= rules.size and 1 <= p.col <= rules.size for p in points)
    if len(points) != n or len(set(points)) != n or not on_board:
        raise _forfeit("B", "illegal", f"place_free_handicap {n} answered {answer!r}: not {n} distinct points")
    seats["W"].command("set_free_handicap " + " ".join(coords_from_point(p) for p in points), t)
    return points


def _play_moves(record: GameRecord, seats: dict[str, _Seat], rules: GameRules, state: GameState) -> GameState:
    colour = "B" if state.next_player == Player.black else "W"  # White after handicap stones or an opening
    passes = 0
    while True:
        seat, other = seats[colour], seats[_OTHER[colour]]
        if seat.clock is not None:
            for c in ("B", "W"):
                seconds, stones = seats[c].clock.time_left()
                seat.command(f"time_left {_WORD[c]} {int(seconds)} {stones}", rules.command_timeout, required=False)
            allowed = seat.clock.max_thinking_time() + rules.lag_allowance
            timeout = allowed + 2.0
        else:
            timeout = rules.genmove_timeout()

        began = time.monotonic()
        try:
            ok, answer = seat.proc.ask(f"genmove {_WORD[colour]}", timeout)
        except GtpClientError as e:
            if e.kind == "timeout" and seat.clock is not None:
                raise _GameOver(
                    other.colour,
                    "time",
                    f"{seat.spec.label}: no move within {timeout:.1f} s, {allowed:.1f} s left on its clock",
                    fault=colour,
                ) from None
            raise _forfeit(colour, e.kind, e.message) from None
        elapsed = time.monotonic() - began
        if not ok:
            raise _forfeit(colour, "refused", f"{seat.spec.label}: genmove {_WORD[colour]} failed: ? {answer}")

        if seat.clock is not None and not seat.clock.spend(max(0.0, elapsed - rules.lag_allowance)):
            raise _GameOver(
                other.colour, "time", f"{seat.spec.label} took {elapsed:.2f} s, {allowed:.2f} s were left", fault=colour
            )

        words = answer.split()
        try:
            if len(words) != 1:
                raise ValueError(answer)
            move = parse_move(words[0])
        except ValueError:
            raise _forfeit(colour, "protocol", f"{seat.spec.label}: genmove answered {answer[:100]!r}") from None
        if move.is_resign:
            raise _GameOver(other.colour, "resign", f"{seat.spec.label} resigned")

        vertex = move_to_text(move)
        reason = state.illegal_reason(state.next_player, move)
        if reason is not None:
            raise _forfeit(
                colour, "illegal", f"{seat.spec.label} played {vertex} at move {len(record.moves) + 1}: {reason}"
            )
        state = state.apply_move(move)
        record.moves.append([colour, vertex])
        record.times.append(round(elapsed, 3))

        ok, answer = other.command(f"play {_WORD[colour]} {vertex}", rules.command_timeout, required=False)
        if not ok:
            raise _forfeit(
                other.colour, "refused", f"{other.spec.label} rejected the legal move {colour} {vertex}: ? {answer}"
            )

        passes = passes + 1 if move.is_pass else 0
        if passes >= 2:
            record.reason = "score"
            return state
        if len(record.moves) >= rules.move_limit:
            record.reason = "move-limit"
            record.detail = f"stopped after {len(record.moves)} moves"
            return state
        colour = _OTHER[colour]


def _count(
    record: GameRecord, seats: dict[str, _Seat], rules: GameRules, state: GameState, scorer: GnuGoScorer | None
) -> None:
    lists: dict[str, list | None] = {}
    notes = []
    for colour, seat in seats.items():
        try:
            ok, answer = seat.proc.ask("final_status_list dead", rules.command_timeout)
        except GtpClientError as e:
            lists[colour], ok = None, False
            notes.append(f"{seat.spec.label}: final_status_list: {e.message}")
            continue
        if not ok:
            lists[colour] = None
            continue
        try:
            lists[colour] = parse_vertex_list(answer)
        except ValueError:
            lists[colour] = None
            notes.append(f"{seat.spec.label}: unreadable final_status_list answer {answer[:80]!r}")
    result, dead = count_with_dead(
        state, [lists["B"], lists["W"]], rules.dead_stones, handicap=len(record.handicap_stones)
    )
    scoring: dict = {
        "dead_listed_by_black": _vertices(lists["B"]),
        "dead_listed_by_white": _vertices(lists["W"]),
        "dead_removed": _vertices(dead),
        "dead_policy": rules.dead_stones,
        "referee_result": result,
        "gnugo_result": None,
        "agree": None,
    }
    if notes:
        scoring["notes"] = notes
    if scorer is not None and scorer.available:
        try:
            gnugo = scorer.score(rules.size, rules.komi, record.handicap_stones, record.moves)
        except GtpClientError as e:
            scoring["gnugo_error"] = e.message
        else:
            scoring["gnugo_result"] = gnugo
            scoring["agree"] = result_winner(gnugo) == result_winner(result)
    record.scoring = scoring
    record.result = result
    record.winner = result_winner(result)


def _vertices(points: list | None) -> list[str] | None:
    if points is None:
        return None
    return [coords_from_point(p) for p in sorted(points)]
