"""What is still worth playing once the opponent has passed: the moves that can change the count.

After a pass a player who loses the count has two honest choices: play a move that can still
change the result, or give up. A move inside its own territory changes nothing under area
counting and costs a point under territory counting; a move in its own true eye can kill its
own group. An engine whose value head misjudged the position (a win rate of 80-90% in a game
that the count, its own and GNU Go's, calls lost by two points) filled its own area and then
its eyes until its groups died. The rule every playout engine has, never fill your own eye,
and the count's own view of the board say which moves are left (:func:`settling_moves`):

- an empty point nobody owns (dame), unless it is a liberty of a seki, whose filling loses it;
- a liberty of a string whose life the count is not sure of (``GroupStatus.unsettled``) and
  whose status can still turn our way: one of ours that it calls dead, or one of the
  opponent's that it lets live;
- an empty point the count is not sure of and does not give us (``GroupStatus.open_points``): a
  loosely surrounded area of the opponent's, where a move can still reduce or invade it;
- the capture of a living opponent string in atari, the escape of an own living one;
- a liberty in a capturing race the count may have misread: one of our strings that it calls
  dead beside one of the opponent's that it lets live with no more liberties than ours.

A move that leaves its own string in atari without capturing (a self-atari) is none of these,
nor is a point of one's own true eye. When nothing is left, the count can no longer change
(:func:`is_settled`) and the player resigns a lost count instead of playing on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from dlgo.agent.helpers import is_point_an_eye
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.scoring import GameResult, area_ownership

__all__ = ["CountedStatus", "SettlingMoves", "settling_moves", "is_settled", "own_territory"]


class CountedStatus(Protocol):
    """What the settling rules read of a dead-stone count (``dlgo.deadstones.GroupStatus``)."""

    @property
    def alive(self) -> list[list[Point]]: ...

    @property
    def dead(self) -> list[list[Point]]: ...

    @property
    def seki(self) -> list[list[Point]]: ...

    @property
    def unsettled(self) -> list[list[Point]]: ...

    @property
    def open_points(self) -> list[Point]: ...

    def dead_stones(self) -> list[Point]: ...


@dataclass(frozen=True)
class SettlingMoves:
    """The moves of the player to move that can still change the count, by kind."""

    neutral: frozenset[Point]
    disputed: frozenset[Point]
    tactical: frozenset[Point]

    @property
    def points(self) -> frozenset[Point]:
        return self.neutral | self.disputed | self.tactical

    def __bool__(self) -> bool:
        return bool(self.points)

    def in_order(self) -> list[Point]:
        """Tactics first (a capture, an escape or a race is worth most), then disputed strings,
        then dame; each in board order."""
        seen: list[Point] = []
        for group in (self.tactical, self.disputed, self.neutral):
            seen.extend(p for p in sorted(group) if p not in seen)
        return seen


def own_territory(state: GameState, status: CountedStatus, player: Player) -> frozenset[Point]:
    """The empty points the count gives ``player`` once its dead stones are off."""
    board = state.board
    geo = board.geometry
    owner = area_ownership(board, status.dead_stones())
    return frozenset(
        geo.points[i] for i in geo.on_board if owner[i] == player.value and board.get(geo.points[i]) is None
    )


def settling_moves(state: GameState, status: CountedStatus) -> SettlingMoves:
    """The legal moves of ``state.next_player`` that can change the count (module docstring)."""
    board = state.board
    geo = board.geometry
    player = state.next_player
    owner = area_ownership(board, status.dead_stones())
    seki_liberties = _liberties(state, status.seki)
    neutral = {
        geo.points[i]
        for i in geo.on_board
        if owner[i] == 0 and board.get(geo.points[i]) is None and geo.points[i] not in seki_liberties
    }
    in_seki = {p for group in status.seki for p in group}
    dead = set(status.dead_stones())
    # A doubtful string whose status can still turn our way: ours that the count calls dead,
    # the opponent's that it lets live. Saving a string it already calls alive, or killing one it
    # already calls dead, changes nothing.
    doubtful = [g for g in status.unsettled if g[0] not in in_seki and ((board.get(g[0]) is player) == (g[0] in dead))]
    # An empty point in doubt that the count does not give us: an open area to reduce or invade.
    disputed = _liberties(state, doubtful) | {
        p for p in status.open_points if owner[geo.index(p)] == player.other.value
    }
    tactical = _captures(state, status) | _escapes(state, status) | _races(state, status)

    def playable(points: Iterable[Point]) -> frozenset[Point]:
        return frozenset(p for p in points if _is_sound_play(state, p, player))

    return SettlingMoves(playable(neutral), playable(disputed), playable(tactical))


def is_settled(moves: SettlingMoves, result: GameResult, player: Player, dame_score: bool = True) -> bool:
    """Can no move of ``player`` change who wins the count? True when nothing can change it, or
    when only dame are left and they are too few to make up the margin (``dame_score``: a dame
    is a point, as under area scoring; under territory scoring it is worth nothing)."""
    if not moves:
        return True
    if moves.disputed or moves.tactical or result.winner is player:
        return False
    return (len(moves.neutral) if dame_score else 0) < result.winning_margin


def _liberties(state: GameState, groups: Iterable[list[Point]]) -> set[Point]:
    out: set[Point] = set()
    for group in groups:
        string = state.board.get_go_string(group[0])
        if string is not None:
            out |= string.liberties
    return out


def _captures(state: GameState, status: CountedStatus) -> set[Point]:
    """The liberty of every opponent string in atari that the count calls alive (taking stones
    it already calls dead changes nothing)."""
    board = state.board
    dead = set(status.dead_stones())
    out: set[Point] = set()
    for point, color in board.stones():
        if color is not state.next_player and point not in dead:
            string = board.get_go_string(point)
            if string is not None and string.num_liberties == 1:
                out |= string.liberties
    return out


def _escapes(state: GameState, status: CountedStatus) -> set[Point]:
    """The liberty of every own string in atari that the count calls alive."""
    board = state.board
    dead = set(status.dead_stones())
    out: set[Point] = set()
    for point, color in board.stones():
        if color is state.next_player and point not in dead:
            string = board.get_go_string(point)
            if string is not None and string.num_liberties == 1:
                out |= string.liberties
    return out


def _races(state: GameState, status: CountedStatus) -> set[Point]:
    """The liberties of each capturing race the count may have misread: one of our strings it
    calls dead beside one of the opponent's that it lets live with no more liberties (we move
    first, so we may win it). Playouts misread such races (a false eye, shared liberties); a
    move there is in the opponent's area or on a shared liberty, never in our own territory."""
    board = state.board
    player = state.next_player
    dead = set(status.dead_stones())
    out: set[Point] = set()
    for group in status.dead:
        ours = board.get_go_string(group[0])
        if ours is None or ours.color is not player:
            continue
        for stone in ours.stones:
            for n in stone.neighbors():
                if board.is_on_grid(n) and board.get(n) is player.other and n not in dead:
                    theirs = board.get_go_string(n)
                    if theirs is not None and theirs.num_liberties <= ours.num_liberties:
                        out |= theirs.liberties | ours.liberties
    return out


def _is_sound_play(state: GameState, point: Point, player: Player) -> bool:
    """Legal, not in our own true eye, and not a self-atari that captures nothing."""
    if is_point_an_eye(state.board, point, player):
        return False
    move = Move.play(point)
    if not state.is_valid_move(move):
        return False
    board = state.board
    captures = any(
        board.get(n) is player.other and board.get_go_string(n).num_liberties == 1
        for n in point.neighbors()
        if board.is_on_grid(n)
    )
    if captures:
        return True
    string = state.apply_move(move).board.get_go_string(point)
    return string is not None and string.num_liberties >= 2
