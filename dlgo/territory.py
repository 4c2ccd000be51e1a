"""Territory scoring (Japanese and Korean rules): territory plus prisoners, with komi.

A player's score is the empty points only its living stones surround, once the dead stones
are off (those points become its territory too), plus its prisoners: the opponent's stones it
captured during the game and the opponent's dead stones taken off at the end. Points in seki
count for nobody: an empty region that touches a string in seki is no one's territory, eyes
included (the Japanese rules of 1989, article 8; Korean rules count the same way).

The prisoners are read from the game's history: the stones each player placed (setup stones
and plays) less those still on the board. Under area scoring (``dlgo.scoring``) the same
position counts the stones instead of the prisoners; both differ by the difference in stones
played, a point at most in a game where each player moved in turn.
"""

from __future__ import annotations

from collections.abc import Iterable

from dlgo.geometry import BLACK, BORDER, EMPTY, WHITE
from dlgo.goboard import GameState
from dlgo.gotypes import Player, Point
from dlgo.scoring import GameResult, area_ownership

__all__ = ["territory_result", "stones_placed", "prisoners", "territory_offset"]


def stones_placed(state: GameState, player: Player) -> int:
    """Stones ``player`` put on the board in the game that led to ``state``: its setup stones
    and its plays."""
    placed = 0
    node: GameState | None = state
    while node is not None and node.previous_state is not None:
        move = node.last_move
        if move is not None and move.is_play and node.previous_state.next_player is player:
            placed += 1
        node = node.previous_state
    root = node if node is not None else state
    return placed + sum(1 for _, color in root.board.stones() if color is player)


def prisoners(state: GameState, player: Player, dead_stones: Iterable[Point] = ()) -> int:
    """The opponent's stones ``player`` holds at the end: captured in the game, and dead."""
    opponent = player.other
    on_board = sum(1 for _, color in state.board.stones() if color is opponent)
    captured = stones_placed(state, opponent) - on_board
    dead = sum(1 for p in set(dead_stones) if state.board.get(p) is opponent)
    return captured + dead


def territory_result(
    state: GameState, dead_stones: Iterable[Point] = (), seki_stones: Iterable[Point] = ()
) -> GameResult:
    """The territory count of ``state`` with ``dead_stones`` taken off and ``seki_stones`` in
    seki (see the module docstring), komi ``state.komi``."""
    dead = set(dead_stones)
    board = state.board
    geo = board.geometry
    colors = board.padded_colors
    owner = area_ownership(board, dead)
    in_seki = {geo.index(p) for p in seki_stones}
    counted = {BLACK: 0, WHITE: 0}
    seen: set[int] = set()
    for start in geo.on_board:
        if start in seen or not _open(colors[start], geo.points[start], dead):
            continue
        region, touches_seki = [], False
        stack = [start]
        seen.add(start)
        while stack:
            p = stack.pop()
            region.append(p)
            for n in geo.neighbors[p]:
                if n in in_seki:
                    touches_seki = True
                elif n not in seen and colors[n] != BORDER and _open(colors[n], geo.points[n], dead):
                    seen.add(n)
                    stack.append(n)
        side = owner[start]
        if side in counted and not touches_seki:
            counted[side] += len(region)
    return GameResult(
        counted[BLACK] + prisoners(state, Player.black, dead),
        counted[WHITE] + prisoners(state, Player.white, dead),
        komi=state.komi,
    )


def _open(color: int, point: Point | None, dead: set[Point]) -> bool:
    """An empty point, or one whose stone is dead (it is counted as the capturer's point)."""
    return point is not None and (color == EMPTY or point in dead)


def territory_offset(state: GameState) -> float:
    """Points to take from Black's area lead for its expected territory lead at the end.

    Territory and area counts of a finished game differ by the stones each side placed: Black's
    territory lead is its area lead less (Black's stones placed - White's). From ``state`` on
    the players alternate until two passes; the player to move places the last stone about half
    the time, so the difference grows by half a stone for it on average.
    """
    placed = stones_placed(state, Player.black) - stones_placed(state, Player.white)
    return placed + (0.5 if state.next_player is Player.black else -0.5)
