"""KataGo's analysis queries, read and checked: one JSON object per line (docs/Analysis_Engine.md).

``parse_line`` returns an ``Action`` (``query_version``, ``clear_cache``, ``terminate``,
``terminate_all``, ``query_models``) or a ``Query`` (the positions to analyse and a
``TurnOptions``) with the warnings to send first, or raises ``ProtocolError``. Every message
is KataGo's own where KataGo has one (checked against ``katago analysis`` 1.17 by
tests/test_analysis_conformance.py), so clients that match on them keep working; the errors of a
query name its field and its id: ``{"error": ..., "field": ..., "id": ...}``. Fields are checked
in ``dlgo_analysis.fields``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from dlgo.analysis import GameRecord, RecordError, TurnOptions, replay
from dlgo.analysis.options import DEFAULT_PV_LENGTH
from dlgo.analysis.positions import RecordTurn, ReplayCache
from dlgo.rules import RulesError, parse_rules
from dlgo_analysis import fields as f

__all__ = ["ProtocolError", "Action", "Query", "parse_line", "ACTIONS", "Limits"]

ACTIONS = ("query_version", "query_models", "clear_cache", "terminate", "terminate_all")

# The query fields KataGo reads (a field outside these draws its "unused field" warning).
_QUERY_FIELDS = {
    "id", "moves", "initialStones", "initialPlayer", "rules", "komi", "whiteHandicapBonus", "boardXSize",
    "boardYSize", "analyzeTurns", "maxVisits", "rootPolicyTemperature", "rootFpuReductionMax", "analysisPVLen",
    "includeOwnership", "includeOwnershipStdev", "includeMovesOwnership", "includeMovesOwnershipStdev",
    "includePolicy", "includePVVisits", "includeNoResultValue", "avoidMoves", "allowMoves", "overrideSettings",
    "reportDuringSearchEvery", "priority", "priorities",
}  # fmt: skip
# Fields KataGo knows that dlgo reads but cannot honour (a warning when they ask for something).
_UNSUPPORTED = {
    "rootFpuReductionMax": "dlgo's search has no root first-play-urgency setting",
    "includeOwnershipStdev": "dlgo's searches keep no ownership spread",
    "includeMovesOwnershipStdev": "dlgo's searches keep no ownership spread",
    "includeNoResultValue": "dlgo's networks have no no-result head",
}


class ProtocolError(ValueError):
    """A line or query KataGo would refuse; ``as_json`` is the answer."""

    def __init__(self, message: str, field: str | None = None, query_id: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.query_id = query_id

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": str(self)}
        if self.field is not None:
            out["field"] = self.field
        if self.query_id is not None:
            out["id"] = self.query_id
        return out


@dataclass
class Action:
    """A special action; ``raw`` is the query as sent (answers echo it)."""

    name: str
    query_id: str
    raw: dict[str, Any]
    terminate_id: str | None = None
    turns: set[int] | None = None


@dataclass
class Limits:
    """What the engine allows beyond KataGo's ranges: ``visit_cap(rows, cols)`` (more visits are
    cut to it, with a warning), the default ``max_visits`` and ``report_as``."""

    visit_cap: Callable[[int, int], int] | None = None
    max_visits: int = 500
    report_as: str = "BLACK"


@dataclass
class Query:
    """The turns to analyse (turn number, the record's turn, replayed when searched), how, and
    the warnings to send first."""

    query_id: str
    rows: int
    cols: int
    turns: list[tuple[int, RecordTurn]]
    options: TurnOptions
    priorities: list[int]
    warnings: list[dict[str, Any]] = field(default_factory=list)


def parse_line(line: str, limits: Limits | None = None, replays: ReplayCache | None = None) -> Action | Query:
    """One input line; ``ProtocolError`` if it is no valid request. ``replays``: records replayed
    lately, whose positions a query beginning the same way shares."""
    try:
        data = json.loads(line, parse_int=_parse_int)
    except (json.JSONDecodeError, RecursionError) as e:
        raise ProtocolError(f"could not parse input line as json request: {e}") from None
    if not isinstance(data, dict):
        raise ProtocolError(f"Request line was valid json but was not an object, ignoring: {line.strip()[:200]}")
    query_id = data.get("id")
    if not isinstance(query_id, str):
        raise ProtocolError('Request must have a string "id" field')
    for name, value in data.items():
        if _holds_oversized(value):
            raise ProtocolError(f"An integer of more than {_MAX_DIGITS} digits", name, query_id)
    if "action" in data:
        return _action(data, query_id)
    return _query(data, query_id, limits or Limits(), replays)


class _Oversized:
    """An integer too long for Python to convert (``sys.get_int_max_str_digits``): kept as its
    length, so that the error can name the field it came in."""

    def __init__(self, digits: int) -> None:
        self.digits = digits


_MAX_DIGITS = sys.get_int_max_str_digits() or 4300


def _parse_int(text: str) -> int | _Oversized:
    digits = len(text.lstrip("-"))
    return int(text) if digits <= _MAX_DIGITS else _Oversized(digits)


def _holds_oversized(value: Any) -> bool:
    """Whether ``value`` holds an ``_Oversized`` at any depth (a walk without recursion: the
    nesting is as deep as the JSON parser allowed)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Oversized):
            return True
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return False


def _action(data: dict[str, Any], query_id: str) -> Action:
    name = data["action"]
    if name not in ACTIONS:
        raise ProtocolError(
            "'action' field must be " + " or ".join(f"'{a}'" for a in ACTIONS), field="action", query_id=query_id
        )
    action = Action(name, query_id, data)
    if name == "terminate":
        if not isinstance(data.get("terminateId"), str):
            raise ProtocolError(
                'Requests for a terminate action must have a string "terminateId" field', "terminateId", query_id
            )
        action.terminate_id = data["terminateId"]
    if name in ("terminate", "terminate_all") and "turnNumbers" in data:
        turns = data["turnNumbers"]
        if not isinstance(turns, list) or not all(f.is_int(t) for t in turns):
            raise ProtocolError(
                "If provided, must be an array of integers indicating turns to terminate", "turnNumbers", query_id
            )
        action.turns = set(turns)
    return action


def _query(data: dict[str, Any], query_id: str, limits: Limits, replays: ReplayCache | None) -> Query:
    warnings: list[dict[str, Any]] = []

    def warn(name: str, message: str) -> None:
        warnings.append({"field": name, "id": query_id, "warning": message})

    def fail(name: str, message: str) -> ProtocolError:
        return ProtocolError(message, name, query_id)

    for name in data:
        if name not in _QUERY_FIELDS:
            warn(name, "Unexpected or unused field, do you have a typo?")
    rows, cols = f.board_size(data, fail)
    moves = f.moves(data, "moves", rows, cols, fail, required=True)
    stones = f.moves(data, "initialStones", rows, cols, fail, required=False, passes=False)
    try:
        rules = parse_rules(data.get("rules"))
    except RulesError as e:
        raise fail("rules", str(e)) from None
    if rules.warning():
        warn("rules", rules.warning())
    record = GameRecord(
        rows,
        cols,
        rules,
        moves=moves,
        initial_stones=[(player, move.point) for player, move in stones],
        initial_player=f.player_field(data, fail),
        komi=f.komi(data, fail),
        white_handicap_bonus=f.handicap_bonus(data, fail),
    )
    turns = f.turns(data, len(moves), fail)
    priorities = f.priorities(data, turns, fail)
    options = replace(_options(data, rows, cols, limits, warn, fail), territory=not rules.area)
    for name, why in _UNSUPPORTED.items():
        if data.get(name) not in (None, False):
            warn(name, f"Not supported, ignored: {why}")
    try:
        replay(record, replays)  # checked now, to answer at once; replayed again when searched
    except RecordError as e:
        raise fail(e.field, str(e)) from None
    return Query(
        query_id, rows, cols, [(t, RecordTurn(record, t, replays)) for t in turns], options, priorities, warnings
    )


def _options(data: dict[str, Any], rows: int, cols: int, limits: Limits, warn, fail) -> TurnOptions:
    settings = f.override_settings(data, fail, warn)
    visits = f.max_visits(data, fail, settings.get("maxVisits", limits.max_visits))
    cap = limits.visit_cap(rows, cols) if limits.visit_cap is not None else None
    if cap is not None and visits > cap:
        warn("maxVisits", f"Capped at {cap} visits (analysis.max_visits of the engine's config)")
        visits = cap
    temperature = f.number(data, "rootPolicyTemperature", 1.0, 0.01, 100.0, fail, "Must be a number from 0.01 to 100.0")
    wide = settings.get("wideRootNoise", 0.0)
    return TurnOptions(
        max_visits=visits,
        max_time=settings.get("maxTime") or None,
        report_as=settings.get("reportAnalysisWinratesAs", limits.report_as),
        pv_length=f.integer(data, "analysisPVLen", DEFAULT_PV_LENGTH, 1, 1000, fail),
        include_ownership=f.flag(data, "includeOwnership", fail),
        include_moves_ownership=f.flag(data, "includeMovesOwnership", fail),
        include_policy=f.flag(data, "includePolicy", fail),
        include_pv_visits=f.flag(data, "includePVVisits", fail),
        root_temperature=temperature * (1.0 + 4.0 * wide),
        filters=f.move_filters(data, rows, cols, fail, warn),
        report_every=f.report_every(data, fail),
    )
