"""The analysis engine against KataGo itself: the same queries to ``katago analysis`` (1.17, its
small public test network, ../shared/tools/katago) and to ``python -m dlgo_analysis``, and their
answers compared: field names and JSON types, perspectives, orders, ownership and policy lengths
and orientation, turn numbers, the actions' answers, errors and warnings.

Skipped when KataGo cannot run here (it needs libzip4: ``apt-get install -y libzip4``). Searches
are small (9x9, 24 visits), so the whole file takes seconds.

Deliberate differences (docs/analysis.md, "Differences from KataGo"), asserted as such: an
unknown ``action`` gets our error with ``field`` and ``id`` where KataGo's has neither; board
sizes run to 25 (KataGo's build: 19); an illegal move's error adds the reason after KataGo's text.
"""

from __future__ import annotations

import time

import pytest
from analysis_client import (
    FILLED,
    HORIZONTAL,
    VERTICAL,
    JsonEngine,
    black_ahead_query,
    check_black_ahead,
    finals,
    katago_command,
    katago_unavailable,
    ours,
    query,
)

_REASON = katago_unavailable()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

# The fields docs/Analysis_Engine.md documents (KataGo adds undocumented ones; so do we).
DOC_TOP = {"id", "isDuringSearch", "turnNumber", "moveInfos", "rootInfo", "ownership", "policy"}
DOC_MOVE = {
    "move", "visits", "winrate", "scoreMean", "scoreStdev", "scoreLead", "scoreSelfplay", "prior", "utility", "lcb",
    "utilityLcb", "order", "pv", "pvVisits", "ownership", "edgeVisits", "pvEdgeVisits",
}  # fmt: skip
DOC_ROOT = {"winrate", "scoreLead", "scoreSelfplay", "utility", "visits", "thisHash", "symHash", "currentPlayer"}


@pytest.fixture(scope="module")
def both():
    engines = {"katago": JsonEngine(katago_command()), "dlgo": JsonEngine(ours("--threads", "2"))}
    yield engines
    for engine in engines.values():
        assert engine.close() == 0
        assert engine.bad_lines == []


def answers(both: dict, q: dict, count: int = 1) -> dict[str, list[dict]]:
    """Each engine's lines for ``q`` (until ``count`` final answers or errors)."""
    for engine in both.values():
        engine.send(q)
    return {name: engine.collect(q["id"], count, timeout=120) for name, engine in both.items()}


def final_of(both: dict, q: dict) -> dict[str, dict]:
    return {name: finals(lines)[-1] for name, lines in answers(both, q).items()}


def _kind(value) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, list):
        return "list[" + ",".join(sorted({_kind(v) for v in value})) + "]"
    return type(value).__name__


def _same_types(theirs: dict, mine: dict, documented: set[str]) -> None:
    for name in sorted(documented & set(theirs)):
        assert name in mine, f"{name} missing; KataGo has it"
        # a float that happens to be whole stays a float in JSON (1.0), so kinds compare exactly
        assert _kind(mine[name]) == _kind(theirs[name]), (name, theirs[name], mine[name])


def test_field_names_and_types_match(both):
    q = query(
        "fields",
        moves=[["B", "E5"], ["W", "C3"]],
        includeOwnership=True,
        includeMovesOwnership=True,
        includePolicy=True,
        includePVVisits=True,
    )
    got = final_of(both, q)
    kata, mine = got["katago"], got["dlgo"]
    assert DOC_TOP & set(kata) == DOC_TOP & set(mine) == DOC_TOP
    _same_types(kata["rootInfo"], mine["rootInfo"], DOC_ROOT)
    assert kata["moveInfos"] and mine["moveInfos"]
    for theirs in kata["moveInfos"][:3]:
        _same_types(theirs, mine["moveInfos"][0], DOC_MOVE)
    assert _kind(kata["ownership"]) == _kind(mine["ownership"]) == "list[float]"
    assert kata["turnNumber"] == mine["turnNumber"] == 2


@pytest.mark.parametrize("to_move", ["B", "W"])
@pytest.mark.parametrize("report_as", ["BLACK", "WHITE", "SIDETOMOVE"])
def test_both_report_black_ahead_from_the_same_side(both, report_as, to_move):
    q, sign = black_ahead_query(report_as, to_move)
    for name, got in final_of(both, q).items():
        check_black_ahead(got, sign, name)


def test_moves_are_ranked_the_same_way(both):
    for name, got in final_of(both, query("order", moves=[["B", "E5"]], maxVisits=40)).items():
        orders = [m["order"] for m in got["moveInfos"]]
        assert orders == list(range(len(orders))), name
        # KataGo lists a move's symmetric images with its visits (isSymmetryOf): no visit sum to compare
        assert all(m["visits"] >= 1 and m["pv"][0] == m["move"] for m in got["moveInfos"]), name


@pytest.mark.parametrize(("stones", "rows"), [(VERTICAL, 9), (HORIZONTAL, 9), (FILLED, 9), ("rect", 7)])
def test_ownership_and_policy_have_the_same_length_and_orientation(both, stones, rows):
    if stones == "rect":
        stones = [["B", f"F{r}"] for r in range(1, 8)] + [["W", f"H{r}"] for r in range(1, 8)]
    q = query(
        f"map{len(stones)}-{rows}", boardYSize=rows, initialStones=stones, includeOwnership=True, includePolicy=True
    )
    got = final_of(both, q)
    kata, mine = got["katago"], got["dlgo"]
    assert len(kata["ownership"]) == len(mine["ownership"]) == 9 * rows
    assert len(kata["policy"]) == len(mine["policy"]) == 9 * rows + 1
    illegal = {name: {i for i, p in enumerate(g["policy"]) if p == -1} for name, g in got.items()}
    assert illegal["katago"] == illegal["dlgo"]  # the occupied points (and suicides), at the same indices
    sure = [i for i in range(9 * rows) if abs(kata["ownership"][i]) > 0.8 and abs(mine["ownership"][i]) > 0.8]
    assert len(sure) >= 2 * rows
    assert all((kata["ownership"][i] > 0) == (mine["ownership"][i] > 0) for i in sure)


def test_turn_numbers_and_players_to_move_match(both):
    q = query("turns", moves=[["B", "E5"], ["B", "E6"], ["W", "C3"]], analyzeTurns=[3, 0, 2, 1])
    got = answers(both, q, count=4)
    players = {
        name: {d["turnNumber"]: d["rootInfo"]["currentPlayer"] for d in finals(lines)} for name, lines in got.items()
    }
    assert players["katago"] == players["dlgo"] == {0: "B", 1: "W", 2: "W", 3: "B"}


def test_actions_answer_alike(both):
    for request in (
        {"id": "c", "action": "clear_cache"},
        {"id": "t", "action": "terminate", "terminateId": "none", "turnNumbers": [1, 2]},
        {"id": "ta", "action": "terminate_all"},
    ):
        got = answers(both, request)
        assert got["katago"] == got["dlgo"] == [request]
    got = answers(both, {"id": "v", "action": "query_version"})
    assert set(got["katago"][0]) <= set(got["dlgo"][0])
    got = answers(both, {"id": "m", "action": "query_models"})
    theirs, mine = got["katago"][0]["models"][0], got["dlgo"][0]["models"]
    assert mine and all(set(theirs) <= set(m) for m in mine)
    assert all(_kind(m[k]) == _kind(theirs[k]) for m in mine for k in theirs if k != "name")


ERRORS = [
    "not json",
    "[1,2]",
    {"moves": []},
    {"id": 3, "action": "query_version"},
    {"id": "x", "action": "terminate"},
    {"id": "x", "action": "terminate", "terminateId": "y", "turnNumbers": "1"},
    {"id": "x", "rules": "chinese", "boardXSize": 9, "boardYSize": 9},
    query("x", rules=None),
    query("x", rules="foo"),
    query("x", boardXSize=None),
    query("x", boardXSize=30),
    query("x", moves=[["B", "E5"], ["W", "E5"]]),
    query("x", moves=[["B", "Z5"]]),
    query("x", moves=[["X", "E5"]]),
    query("x", moves=[["B"]]),
    query("x", initialStones="x"),
    query("x", initialPlayer="Q"),
    query("x", komi=7.3),
    query("x", komi="7"),
    query("x", maxVisits=0),
    query("x", maxVisits="10"),
    query("x", analyzeTurns=[5]),
    query("x", analyzeTurns="0"),
    query("x", includeOwnership="yes"),
    query("x", analysisPVLen=-1),
    query("x", rootPolicyTemperature=-1),
    query("x", reportDuringSearchEvery=0),
    query("x", priority="x"),
    query("x", priorities=[1]),
    query("x", avoidMoves=[{"player": "B", "moves": ["E5"]}]),
    query("x", avoidMoves=[{"player": "B", "moves": ["Z5"], "untilDepth": 1}]),
    query("x", avoidMoves=[{"player": "B", "moves": ["E5"], "untilDepth": 0}]),
    query("x", overrideSettings=5),
    query("x", overrideSettings={"reportAnalysisWinratesAs": "bad"}),
]
# KataGo's message, word for word, except where dlgo's board sizes or reasons differ by design
_OWN_WORDS = {"boardXSize": "Must provide an integer from 2 to ", "moves": None}


@pytest.mark.parametrize("request_", ERRORS, ids=[f"error{i}" for i in range(len(ERRORS))])
def test_errors_have_the_same_keys_field_and_words(both, request_):
    if isinstance(request_, dict):
        request_ = {k: v for k, v in request_.items() if v is not None}
    got = {}
    for name, engine in both.items():
        engine.send(request_)
        got[name] = engine.wait_for(lambda lines: bool(lines), keep=lambda d: "error" in d, timeout=30)[0]
    kata, mine = got["katago"], got["dlgo"]
    assert set(kata) == set(mine), (kata, mine)
    assert kata.get("field") == mine.get("field") and kata.get("id") == mine.get("id")
    field = kata.get("field")
    if field == "boardXSize":
        assert kata["error"].startswith(_OWN_WORDS[field]) and mine["error"].startswith(_OWN_WORDS[field])
    elif field == "moves":
        assert mine["error"].startswith(kata["error"]), (kata, mine)
    elif "json request" in kata["error"]:
        assert "could not parse input line as json request" in mine["error"]
    else:
        assert mine["error"] == kata["error"], (kata, mine)


def test_an_unknown_action_is_our_one_error_with_more_keys(both):
    got = {}
    for name, engine in both.items():
        engine.send({"id": "x", "action": "dance"})
        got[name] = engine.wait_for(lambda lines: bool(lines), keep=lambda d: "error" in d, timeout=30)[0]
    assert set(got["katago"]) == {"error"} and set(got["dlgo"]) == {"error", "field", "id"}
    assert got["katago"]["error"] == got["dlgo"]["error"]


def test_warnings_have_the_same_keys(both):
    q = query("warn", fooBar=1, overrideSettings={"noSuchParam": 1})
    got = answers(both, q)
    for name in both:
        warned = {d["field"]: set(d) for d in got[name] if "warning" in d}
        assert warned == {"fooBar": {"field", "id", "warning"}, "overrideSettings": {"field", "id", "warning"}}, name


def test_terminated_queued_turns_answer_no_results_alike(both):
    """Two long searches fill both engines' two analysis threads; a third query waits, then
    ``terminate_all`` ends all: the waiting one answers ``noResults``, the others what they had."""
    for engine in both.values():
        engine.send(query("long1", maxVisits=1000000), query("long2", maxVisits=1000000))
    time.sleep(1.5)
    for engine in both.values():
        engine.send(query("waiting"))
        engine.send({"id": "stop", "action": "terminate_all"})
    for name, engine in both.items():
        waiting = engine.collect("waiting", timeout=60)[-1]
        assert waiting == {"id": "waiting", "isDuringSearch": False, "noResults": True, "turnNumber": 0}, name
        for long_id in ("long1", "long2"):
            stopped = finals(engine.collect(long_id, timeout=60))[-1]
            assert 1 <= stopped["rootInfo"]["visits"] < 1000000, name
        assert engine.collect("stop")[0]["action"] == "terminate_all"


def test_reports_during_the_search_alike(both):
    answers(both, {"id": "fresh", "action": "clear_cache"})  # no cached positions: a search of some length
    q = query("during", moves=[["B", "C3"], ["W", "G7"], ["B", "D7"]], maxVisits=500, reportDuringSearchEvery=0.01)
    for name, lines in answers(both, q).items():
        assert any(d["isDuringSearch"] for d in lines), name
        assert lines[-1]["isDuringSearch"] is False and len(finals(lines)) == 1, name


def test_both_finish_the_queue_at_the_end_of_the_input():
    for command in (katago_command(), ours("--threads", "1")):
        engine = JsonEngine(command)
        engine.send(*[query(f"end{i}", maxVisits=30) for i in range(3)])
        assert engine.close(timeout=120) == 0
        done = engine.wait_for(lambda got: len(got) == 3, keep=lambda d: d.get("isDuringSearch") is False, timeout=5)
        assert sorted(d["id"] for d in done) == ["end0", "end1", "end2"]
