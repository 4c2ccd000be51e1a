"""A static check on top of the Monte Carlo dead-stone estimate: groups with two eyes live.

Random playouts fill two- and three-point eyes and play into false shapes, so they call some
living groups dead (a group whose eye space is two separate regions, or whose strings are held
together only by shared eyes). Here, for each colour:

- an *eye region* is a maximal area of points that are not that colour's stones, enclosed by
  its stones and the edge, holding at least one empty point, and either small (at most
  ``SMALL_REGION`` points, too small for an enemy group to live in) or holding no enemy stone
  the estimate calls alive; a one-point region is not an eye when it is false (enemy stones on
  two diagonals, one at the edge, and more than one string around it), and no region is an eye
  while a string around it is in atari with its last liberty inside (the enemy captures there);
- strings bordering the same eye region form one chain (the enemy cannot cut them apart
  without filling that region);
- a chain bordering two or more eye regions lives: its strings are taken off the dead list, and
  enemy stones inside its small eye regions are dead.
"""

from __future__ import annotations

from dataclasses import dataclass

from dlgo.goboard import BLACK, EMPTY, WHITE, GameState
from dlgo.gostring import GoString
from dlgo.gotypes import Point

__all__ = ["refine_dead", "SMALL_REGION"]

SMALL_REGION = 6


@dataclass
class _Region:
    points: list[int]
    borders: set[int]  # ids of own strings next to it
    enemy: list[GoString]
    eye: bool = False


def _find(parent: dict[int, int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def _regions(state: GameState, color: int, dead: set[int]) -> list[_Region]:
    board = state.board
    geo, colors, string_at = board.geometry, board.padded_colors, board.go_string_at_index
    seen: set[int] = set()
    out = []
    for start in geo.on_board:
        if colors[start] == color or start in seen:
            continue
        seen.add(start)
        stack, points, borders, enemy_ids, enemy = [start], [], set(), set(), []
        border_strings: list[GoString] = []
        while stack:
            p = stack.pop()
            points.append(p)
            if colors[p] != EMPTY and id(string_at(p)) not in enemy_ids:
                enemy_ids.add(id(string_at(p)))
                enemy.append(string_at(p))
            for n in geo.neighbors[p]:
                if colors[n] == color:
                    if id(string_at(n)) not in borders:
                        borders.add(id(string_at(n)))
                        border_strings.append(string_at(n))
                elif n not in seen:
                    seen.add(n)
                    stack.append(n)
        region = _Region(points, borders, enemy)
        has_empty = any(colors[p] == EMPTY for p in points)
        small = len(points) <= SMALL_REGION
        enemy_alive = any(s.stone_indices.isdisjoint(dead) for s in enemy)
        region.eye = (
            bool(borders)
            and has_empty
            and (small or not enemy_alive)
            and not _false_eye(state, region, color, dead)
            and not _border_in_atari_inside(border_strings, set(points))
        )
        out.append(region)
    return out


def _border_in_atari_inside(border_strings: list[GoString], points: set[int]) -> bool:
    # The enemy takes a bordering string whose last liberty lies in the region by playing there
    # (a capture is never suicide), so the region is no eye: it may even be the enemy's.
    return any(s.num_liberties == 1 and not s.liberty_indices.isdisjoint(points) for s in border_strings)


def _false_eye(state: GameState, region: _Region, color: int, dead: set[int]) -> bool:
    if len(region.points) != 1 or len(region.borders) < 2:
        return False
    board = state.board
    geo, colors = board.geometry, board.padded_colors
    p = region.points[0]
    enemy = 3 - color
    bad = sum(1 for d in geo.diagonals[p] if colors[d] == enemy and d not in dead)
    return bad >= (1 if geo.off_board_diagonals[p] else 2)


def refine_dead(state: GameState, dead_points: list[Point]) -> list[Point]:
    """The dead stones after the two-eye check (see the module docstring)."""
    board = state.board
    geo = board.geometry
    dead = {geo.index(p) for p in dead_points}
    revived: set[int] = set()
    killed: set[int] = set()
    for color in (BLACK, WHITE):
        regions = _regions(state, color, dead)
        parent: dict[int, int] = {}
        by_id: dict[int, GoString] = {}
        for idx in geo.on_board:
            s = board.go_string_at_index(idx)
            if s is not None and s.color.value == color and id(s) not in parent:
                parent[id(s)] = id(s)
                by_id[id(s)] = s
        for region in regions:
            if region.eye:
                first, *rest = region.borders
                for other in rest:
                    parent[_find(parent, other)] = _find(parent, first)
        eyes: dict[int, list[_Region]] = {}
        for region in regions:
            if region.eye:
                root = _find(parent, next(iter(region.borders)))
                eyes.setdefault(root, []).append(region)
        for root, chain_eyes in eyes.items():
            if len(chain_eyes) < 2:
                continue
            for sid, s in by_id.items():
                if _find(parent, sid) == root:
                    revived |= s.stone_indices & dead
            for region in chain_eyes:
                if len(region.points) <= SMALL_REGION:
                    for s in region.enemy:
                        killed |= s.stone_indices - dead
    final = (dead - revived) | killed
    return [geo.points[i] for i in geo.on_board if i in final]
