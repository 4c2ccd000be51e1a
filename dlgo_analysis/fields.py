"""The fields of an analysis query, each read and checked with KataGo's ranges and messages.

Every reader takes the query (``data``) and ``fail(field, message) -> ProtocolError``, which it
raises on a bad value; the messages are KataGo 1.17's (``katago analysis``) where it has one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

from dlgo.analysis.options import MoveFilter
from dlgo.analysis.perspective import REPORT_AS
from dlgo.analysis.positions import too_many_moves
from dlgo.goboard import MAX_SIZE, MIN_SIZE, Move
from dlgo.gotypes import Player, Point
from dlgo.rules import HANDICAP_BONUS
from dlgo.utils import point_from_coords

Fail = Callable[[str, str], Exception]
Warn = Callable[[str, str], None]

_PAIRS = 'Must be an array of pairs of the form: ["b" or "w", GTP board vertex]'
_MAX_VISITS = 2**50
_MAX_PRIORITY = 2**62
_XY = re.compile(r"^\(\s*(\d+)\s*,\s*(\d+)\s*\)$")
# overrideSettings read here; any other key is warned about and ignored
_SETTINGS = ("reportAnalysisWinratesAs", "maxTime", "wideRootNoise", "maxVisits")


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def board_size(data: dict[str, Any], fail: Fail) -> tuple[int, int]:
    """(rows, cols): boardYSize, boardXSize."""
    size = {}
    for name in ("boardXSize", "boardYSize"):  # KataGo's order: a query without either names X
        value = data.get(name)
        if not is_int(value) or not MIN_SIZE <= value <= MAX_SIZE:
            raise fail(name, f"Must provide an integer from {MIN_SIZE} to {MAX_SIZE}")
        size[name] = value
    return size["boardYSize"], size["boardXSize"]


def parse_player(text: Any) -> Player | None:
    if not isinstance(text, str):
        return None
    return {"b": Player.black, "black": Player.black, "w": Player.white, "white": Player.white}.get(text.lower())


def parse_location(text: str, rows: int, cols: int) -> Move | None:
    """A GTP vertex (``C3``, ``pass``) or KataGo's ``(x,y)`` (x from the left, y from the top,
    both from 0); None if it is neither or lies off the board."""
    if text.strip().lower() == "pass":
        return Move.pass_turn()
    xy = _XY.match(text.strip())
    if xy:
        point = Point(row=rows - int(xy.group(2)), col=int(xy.group(1)) + 1)
    else:
        try:
            point = point_from_coords(text)
        except ValueError:
            return None
    if not (1 <= point.row <= rows and 1 <= point.col <= cols):
        return None
    return Move.play(point)


def moves(
    data: dict[str, Any], name: str, rows: int, cols: int, fail: Fail, required: bool, passes: bool = True
) -> list[tuple[Player, Move]]:
    """``moves`` or ``initialStones``: [player, location] pairs (a list too long for the board is
    refused before it is read: ``dlgo.analysis.positions.max_moves``)."""
    if name not in data:
        if required:
            raise fail(name, "Must specify an array of [player,location] pairs")
        return []
    value = data[name]
    if isinstance(value, list):
        why = too_many_moves(len(value), rows, cols) if passes else None
        if not passes and len(value) > rows * cols:
            why = f"Too many setup stones: {len(value)}"
        if why:
            raise fail(name, why)
    if not isinstance(value, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair) for pair in value
    ):
        raise fail(name, _PAIRS)
    out = []
    for who, where in value:
        player = parse_player(who)
        if player is None:
            raise fail(name, f"Could not parse player: {who}")
        move = parse_location(where, rows, cols)
        if move is None or (move.is_pass and not passes):
            raise fail(name, f"Could not parse board location: {where}")
        out.append((player, move))
    return out


def player_field(data: dict[str, Any], fail: Fail) -> Player | None:
    if "initialPlayer" not in data:
        return None
    player = parse_player(data["initialPlayer"])
    if player is None:
        raise fail("initialPlayer", 'Must be "b" or "w"')
    return player


def komi(data: dict[str, Any], fail: Fail) -> float | None:
    if "komi" not in data:
        return None
    value = data["komi"]
    if not is_number(value) or abs(value) > 400 or (2 * value) != int(2 * value):
        raise fail("komi", "Must be a integer or half-integer from -400.0 to 400.0")
    return float(value)


def handicap_bonus(data: dict[str, Any], fail: Fail) -> str | None:
    if "whiteHandicapBonus" not in data:
        return None
    value = data["whiteHandicapBonus"]
    if not isinstance(value, str | int) or str(value).upper() not in HANDICAP_BONUS:
        raise fail("whiteHandicapBonus", 'Must be "0", "N", or "N-1"')
    return str(value).upper()


def turns(data: dict[str, Any], num_moves: int, fail: Fail) -> list[int]:
    """``analyzeTurns`` (default: the last turn), each once, in the order given."""
    if "analyzeTurns" not in data:
        return [num_moves]
    value = data["analyzeTurns"]
    if not isinstance(value, list) or not all(is_int(t) for t in value):
        raise fail("analyzeTurns", "Must specify an array of integers indicating turns to analyze")
    for t in value:
        if not 0 <= t <= num_moves:
            raise fail("analyzeTurns", f"Invalid turn number: {t}")
    return list(dict.fromkeys(value))


def priorities(data: dict[str, Any], turn_list: list[int], fail: Fail) -> list[int]:
    """The priority of each turn: ``priorities`` (one per ``analyzeTurns`` entry) or ``priority``."""
    if "priorities" in data:
        value = data["priorities"]
        if "analyzeTurns" not in data:
            raise fail("priorities", "Can only specify when also specifying analyzeTurns")
        if not isinstance(value, list) or not all(is_int(p) and abs(p) <= _MAX_PRIORITY for p in value):
            raise fail("priorities", "Must be a list of integers between -2^62 and 2^62")
        if len(value) != len(data["analyzeTurns"]):
            raise fail("priorities", "Must be the same length as analyzeTurns")
        by_turn = dict(zip(data["analyzeTurns"], value))
        return [by_turn[t] for t in turn_list]
    value = data.get("priority", 0)
    if not is_int(value) or abs(value) > _MAX_PRIORITY:
        raise fail("priority", "Must be a number between -2^62 and 2^62")
    return [value] * len(turn_list)


def max_visits(data: dict[str, Any], fail: Fail, default: int) -> int:
    value = data.get("maxVisits", default)
    if not is_int(value) or not 1 <= value <= _MAX_VISITS:
        raise fail("maxVisits", "Must be an integer from 1 to 2^50")
    return value


def integer(data: dict[str, Any], name: str, default: int, low: int, high: int, fail: Fail) -> int:
    value = data.get(name, default)
    if not is_int(value) or not low <= value <= high:
        raise fail(name, f"Must be an integer from {low} to {high}")
    return value


def number(data: dict[str, Any], name: str, default: float, low: float, high: float, fail: Fail, message: str) -> float:
    value = data.get(name, default)
    if not is_number(value) or not low <= value <= high:
        raise fail(name, message)
    return float(value)


def flag(data: dict[str, Any], name: str, fail: Fail) -> bool:
    value = data.get(name, False)
    if not isinstance(value, bool):
        raise fail(name, "Must be a boolean")
    return value


def report_every(data: dict[str, Any], fail: Fail) -> float | None:
    if "reportDuringSearchEvery" not in data:
        return None
    return number(
        data, "reportDuringSearchEvery", 0.0, 0.001, 1e6, fail, "Must be number of seconds from 0.001 to 1000000.0"
    )


def override_settings(data: dict[str, Any], fail: Fail, warn: Warn) -> dict[str, Any]:
    """The ``overrideSettings`` dlgo honours (``_SETTINGS``), checked; a warning names the others."""
    if "overrideSettings" not in data:
        return {}
    settings = data["overrideSettings"]
    if not isinstance(settings, dict):
        raise fail("overrideSettings", "Must be an object")

    def bad(message: str) -> Exception:
        return fail("overrideSettings", f"Could not set settings: {message}")

    out: dict[str, Any] = {}
    if "reportAnalysisWinratesAs" in settings:
        value = settings["reportAnalysisWinratesAs"]
        if not isinstance(value, str) or value.upper() not in REPORT_AS:
            raise bad(f"Could not parse config value for reportAnalysisWinratesAs: {value}")
        out["reportAnalysisWinratesAs"] = value.upper()
    for key, low, high in (("maxTime", 0.0, 1e20), ("wideRootNoise", 0.0, 5.0)):
        if key in settings:
            value = _as_float(settings[key])
            if value is None:
                raise bad(f"Could not parse '{settings[key]}' as double for key '{key}'")
            if not low <= value <= high:
                raise bad(f"Key '{key}' must be in the range {low:g} to {high:g}")
            out[key] = value
    if "maxVisits" in settings:
        value = _as_float(settings["maxVisits"])
        if value is None or value != int(value) or not 1 <= value <= _MAX_VISITS:
            raise bad("Key 'maxVisits' must be an integer from 1 to 2^50")
        out["maxVisits"] = int(value)
    ignored = sorted(k for k in settings if k not in _SETTINGS)
    if ignored:
        warn("overrideSettings", f"Unknown config params or not supported by dlgo, ignored: {', '.join(ignored)}")
    return out


def _as_float(value: Any) -> float | None:
    """A number, or a string holding one (KataGo reads config values as text)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            return None
    return float(value) if is_number(value) else None


def move_filters(data: dict[str, Any], rows: int, cols: int, fail: Fail, warn: Warn) -> tuple[MoveFilter, ...]:
    """``avoidMoves`` and ``allowMoves``: per player, the moves the root may not (may only) play."""
    out: list[MoveFilter] = []
    for name, allow in (("avoidMoves", False), ("allowMoves", True)):
        if name not in data:
            continue
        value = data[name]
        shape = isinstance(value, list) and all(
            isinstance(d, dict) and {"player", "moves", "untilDepth"} <= set(d) and isinstance(d["moves"], list)
            for d in value
        )
        if not shape:
            raise fail(name, "Must be a list of dicts with subfields 'player', 'moves', 'untilDepth'")
        seen: dict[Player, set] = {}
        for entry in value:
            player = parse_player(entry["player"])
            if player is None:
                raise fail("player", f"Could not parse player: {entry['player']}")
            depth = entry["untilDepth"]
            if not is_int(depth) or depth < 1:
                raise fail("untilDepth", "Must be a positive integer")
            if depth > 1:
                warn("untilDepth", f"dlgo restricts the first move only: untilDepth {depth} is taken as 1")
            keys = set()
            for text in entry["moves"]:
                move = parse_location(text, rows, cols) if isinstance(text, str) else None
                if move is None:
                    raise fail("moves", f"Could not parse board location: {text}")
                keys.add((move.point.row, move.point.col) if move.is_play else None)
            if allow and player in seen:
                raise fail(name, "Cannot specify allowMoves more than once for the same player")
            seen.setdefault(player, set()).update(keys)
        out += [MoveFilter(player, frozenset(keys), allow) for player, keys in seen.items()]
    return tuple(out)
