"""The analysis engine (``python -m dlgo_analysis``): KataGo's JSON analysis protocol, field by
field, on the 9x9 network (docs/analysis.md; docs/Analysis_Engine.md of KataGo for the protocol).
The comparisons with ``katago analysis`` itself are in tests/test_analysis_conformance.py; the
library below the engine (rules, replay, perspectives, the shared network) is tested at the end.
"""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from analysis_client import (
    HORIZONTAL,
    MCTS,
    ROOT,
    VERTICAL,
    ZERO_9,
    JsonEngine,
    black_ahead_query,
    check_black_ahead,
    finals,
    index,
    ours,
    query,
)

NUMBER = (int, float)
MOVE_FIELDS = {
    "move": str, "visits": int, "edgeVisits": int, "winrate": NUMBER, "scoreLead": NUMBER, "scoreMean": NUMBER,
    "scoreSelfplay": NUMBER, "scoreStdev": NUMBER, "prior": NUMBER, "utility": NUMBER, "lcb": NUMBER,
    "utilityLcb": NUMBER, "order": int, "pv": list,
}  # fmt: skip
ROOT_FIELDS = {
    "winrate": NUMBER, "scoreLead": NUMBER, "scoreSelfplay": NUMBER, "scoreStdev": NUMBER, "utility": NUMBER,
    "visits": int, "currentPlayer": str, "thisHash": str, "symHash": str,
}  # fmt: skip


@pytest.fixture(scope="module")
def engine():
    # most visits first, so the visits-sorted check holds (zero-9x9.toml orders by lcb, where two
    # threads can put a move of fewer visits first)
    e = JsonEngine(ours("--threads", "2", "--set", "zero.select_by=visits"))
    yield e
    assert e.close() == 0
    assert e.bad_lines == []


def final(engine: JsonEngine, q: dict, timeout: float = 60.0) -> dict:
    lines = engine.ask(q, timeout=timeout)
    assert "error" not in lines[-1], lines[-1]
    return finals(lines)[-1]


# --- answers --------------------------------------------------------------------------------------
def test_an_answer_has_katagos_fields_and_types(engine):
    got = final(engine, query("fields", moves=[["B", "E5"], ["W", "C3"]], includePVVisits=True))
    assert {"id", "isDuringSearch", "turnNumber", "moveInfos", "rootInfo"} <= set(got)
    assert got["id"] == "fields" and got["turnNumber"] == 2 and got["isDuringSearch"] is False
    assert got["moveInfos"], got
    for info in got["moveInfos"]:
        for name, kind in MOVE_FIELDS.items():
            assert isinstance(info[name], kind), (name, info)
        assert all(isinstance(x, int) for x in info["pvVisits"]) and len(info["pvVisits"]) == len(info["pv"])
        assert info["pv"][0] == info["move"] and 0 <= info["winrate"] <= 1 and 0 <= info["prior"] <= 1
    for name, kind in ROOT_FIELDS.items():
        assert isinstance(got["rootInfo"][name], kind), (name, got["rootInfo"])
    assert got["rootInfo"]["visits"] == 24 and got["rootInfo"]["currentPlayer"] == "B"
    assert len(got["rootInfo"]["thisHash"]) == 32


def test_moves_are_sorted_by_order_and_pvs_cut_to_the_asked_length(engine):
    got = final(engine, query("order", maxVisits=60, analysisPVLen=2))
    orders = [m["order"] for m in got["moveInfos"]]
    assert orders == list(range(len(orders)))
    visits = [m["visits"] for m in got["moveInfos"]]
    assert visits == sorted(visits, reverse=True)
    assert sum(visits) <= got["rootInfo"]["visits"]
    assert all(1 <= len(m["pv"]) <= 3 for m in got["moveInfos"])


@pytest.mark.parametrize(
    ("stones", "black_points", "white_points"),
    [(VERTICAL, ["A9", "E9", "E1"], ["J9", "J1"]), (HORIZONTAL, ["A9", "A5", "J5"], ["A1", "J1"])],
    ids=["vertical", "horizontal"],
)
def test_ownership_and_policy_are_row_major_from_the_top_left(engine, stones, black_points, white_points):
    got = final(engine, query("own", initialStones=stones, includeOwnership=True, includePolicy=True))
    own, policy = got["ownership"], got["policy"]
    assert len(own) == 81 and len(policy) == 82
    assert all(own[index(v)] > 0.2 for v in black_points), own
    assert all(own[index(v)] < -0.5 for v in white_points), own
    occupied = {index(v) for _, v in stones}
    assert {i for i, p in enumerate(policy[:81]) if p == -1} == occupied
    assert policy[81] >= 0 and math.isclose(sum(p for p in policy if p >= 0), 1.0, abs_tol=1e-4)


def test_a_rectangular_board_keeps_its_rows_and_columns(engine):
    """9 wide, 7 tall: a transposed or flipped map would put Black's side elsewhere."""
    stones = [["B", f"F{r}"] for r in range(1, 8)] + [["W", f"H{r}"] for r in range(1, 8)]
    got = final(engine, query("rect", boardYSize=7, initialStones=stones, includeOwnership=True, includePolicy=True))
    own, policy = got["ownership"], got["policy"]
    assert len(own) == 63 and len(policy) == 64
    assert own[index("E7", 9, 7)] > 0.5 and own[index("E1", 9, 7)] > 0.5
    assert own[index("J7", 9, 7)] < -0.5 and own[index("J1", 9, 7)] < -0.5
    assert {i for i, p in enumerate(policy[:63]) if p == -1} == {index(v, 9, 7) for _, v in stones}


@pytest.mark.parametrize("to_move", ["B", "W"])
@pytest.mark.parametrize("report_as", ["BLACK", "WHITE", "SIDETOMOVE"])
def test_values_come_from_the_side_report_as_names(engine, report_as, to_move):
    q, sign = black_ahead_query(report_as, to_move)
    got = final(engine, q)
    check_black_ahead(got, sign)
    assert got["rootInfo"]["currentPlayer"] == to_move
    assert got["rootInfo"]["utility"] * sign > 0.5


def test_score_and_win_rate_follow_the_komi(engine):
    # The 9x9 network learned at komi 7 only; its answers are moved to the query's komi.
    got = {
        k: final(engine, query(f"komi-{k}", moves=[["B", "E5"]], komi=k, maxVisits=50))["rootInfo"] for k in (5, 7, 9)
    }
    assert got[5]["scoreLead"] - got[9]["scoreLead"] == pytest.approx(4.0, abs=1.5)  # Black's view
    assert got[5]["winrate"] > got[7]["winrate"] > got[9]["winrate"]


def test_analyze_turns_answers_each_turn_with_katagos_player_to_move(engine):
    """A record may have one colour move twice: the player to move after a move is its opponent."""
    moves = [["B", "E5"], ["B", "E6"], ["W", "C3"]]
    lines = engine.ask(query("turns", moves=moves, analyzeTurns=[3, 0, 2, 1]), count=4)
    got = {d["turnNumber"]: d["rootInfo"]["currentPlayer"] for d in finals(lines)}
    assert got == {0: "B", 1: "W", 2: "W", 3: "B"}
    assert final(engine, query("last", moves=moves))["turnNumber"] == 3
    first = final(engine, query("white-first", moves=[["W", "E5"]], analyzeTurns=[0]))
    assert first["rootInfo"]["currentPlayer"] == "W"


def test_no_turns_to_analyse_means_no_answer(engine):
    engine.send(query("nothing", analyzeTurns=[]))
    assert engine.ask({"id": "after", "action": "query_version"})[0]["id"] == "after"
    engine.send(query("something", maxVisits=2))
    assert finals(engine.collect("something"))
    assert not [d for d in list(engine.lines.queue) if d.get("id") == "nothing"]


def test_reports_during_the_search_end_with_one_final_answer(engine):
    lines = engine.ask(query("during", maxVisits=3000, reportDuringSearchEvery=0.05), timeout=120)
    during = [d for d in lines if d["isDuringSearch"]]
    assert during and lines[-1]["isDuringSearch"] is False and len(finals(lines)) == 1
    assert all(d["turnNumber"] == 0 and d["moveInfos"] for d in during)
    assert during[0]["rootInfo"]["visits"] <= lines[-1]["rootInfo"]["visits"] == 3000


def test_pv_visits_and_each_moves_ownership(engine):
    got = final(engine, query("pvv", maxVisits=60, includePVVisits=True, includeMovesOwnership=True))
    for info in got["moveInfos"]:
        assert info["pvVisits"][0] == info["visits"]
        assert info["pvVisits"] == sorted(info["pvVisits"], reverse=True)
        assert len(info["ownership"]) == 81
    assert "ownership" not in got  # only asked per move


def test_avoid_and_allow_moves_restrict_the_root(engine):
    allowed = final(engine, query("allow", allowMoves=[{"player": "B", "moves": ["A1", "J9"], "untilDepth": 1}]))
    assert {m["move"] for m in allowed["moveInfos"]} <= {"A1", "J9"}
    avoided = ["E5", "D4", "F4", "D6", "F6", "C3", "G7"]
    avoid = final(engine, query("avoid", avoidMoves=[{"player": "B", "moves": avoided, "untilDepth": 1}]))
    assert avoid["moveInfos"] and not {m["move"] for m in avoid["moveInfos"]} & set(avoided)


def test_root_policy_temperature_widens_the_search(engine):
    def moves(temperature: float) -> int:
        got = final(engine, query(f"t{temperature}", maxVisits=80, rootPolicyTemperature=temperature))
        return len(got["moveInfos"])

    assert moves(100.0) > moves(0.01) + 5


# --- actions --------------------------------------------------------------------------------------
def test_actions_echo_the_request(engine):
    version = engine.ask({"id": "v", "action": "query_version"})[0]
    assert version["action"] == "query_version" and isinstance(version["version"], str) and "git_hash" in version
    assert engine.ask({"id": "c", "action": "clear_cache"})[0] == {"id": "c", "action": "clear_cache"}
    models = engine.ask({"id": "m", "action": "query_models"})[0]["models"]
    assert models and all({"name", "internalName", "maxBatchSize"} <= set(m) for m in models)
    request = {"id": "t", "action": "terminate", "terminateId": "nothing", "turnNumbers": [1]}
    assert engine.ask(request)[0] == request


def test_terminate_stops_a_running_search_with_what_it_has(engine):
    engine.send(query("long", maxVisits=100000))
    time.sleep(1.0)
    engine.send({"id": "stop", "action": "terminate", "terminateId": "long"})
    got = finals(engine.collect("long", timeout=60))[0]
    assert 1 <= got["rootInfo"]["visits"] < 100000


def test_terminate_by_turn_numbers_and_terminate_all(engine):
    moves = [["B", "E5"], ["W", "C3"], ["B", "G7"]]
    engine.send(query("many", moves=moves, maxVisits=100000, analyzeTurns=[0, 1, 2, 3]))
    time.sleep(0.5)
    engine.send({"id": "k", "action": "terminate", "terminateId": "many", "turnNumbers": [2, 3]})
    engine.send({"id": "all", "action": "terminate_all"})
    lines = engine.collect("many", count=4, timeout=60)
    assert sorted(d["turnNumber"] for d in finals(lines)) == [0, 1, 2, 3]
    assert engine.collect("all")[0] == {"id": "all", "action": "terminate_all"}


# --- bad input ------------------------------------------------------------------------------------
BAD = [
    ("not json", None, "could not parse input line as json"),
    ("[1, 2]", None, "was not an object"),
    ({"moves": []}, None, 'must have a string "id"'),
    ({"id": 5, "moves": []}, None, 'must have a string "id"'),
    ({"id": "x", "action": "dance"}, "action", "'action' field must be"),
    ({"id": "x", "action": "terminate"}, "terminateId", "terminateId"),
    (query("x", moves="E5"), "moves", "Must be an array of pairs"),
    (query("x", moves=[["B"]]), "moves", "Must be an array of pairs"),
    (query("x", moves=[["X", "E5"]]), "moves", "Could not parse player: X"),
    (query("x", moves=[["B", "Z5"]]), "moves", "Could not parse board location: Z5"),
    (query("x", moves=[["B", "E5"], ["W", "E5"]]), "moves", "Illegal move 1: E5"),
    (query("x", initialStones="x"), "initialStones", "Must be an array of pairs"),
    (query("x", initialPlayer="Q"), "initialPlayer", 'Must be "b" or "w"'),
    (query("x", rules=5), "rules", "Must specify rules string"),
    (query("x", rules="foo"), "rules", "Could not parse rules: foo"),
    (query("x", komi="7.5"), "komi", "half-integer"),
    (query("x", komi=7.3), "komi", "half-integer"),
    (query("x", boardXSize=9.0), "boardXSize", "Must provide an integer"),
    (query("x", boardYSize=26), "boardYSize", "Must provide an integer from 2 to 25"),
    (query("x", boardXSize=1), "boardXSize", "Must provide an integer from 2 to 25"),
    (query("x", analyzeTurns="0"), "analyzeTurns", "array of integers"),
    (query("x", analyzeTurns=[1]), "analyzeTurns", "Invalid turn number: 1"),
    (query("x", maxVisits=0), "maxVisits", "Must be an integer from 1 to 2^50"),
    (query("x", maxVisits="10"), "maxVisits", "Must be an integer from 1 to 2^50"),
    (query("x", maxVisits=2**51), "maxVisits", "Must be an integer from 1 to 2^50"),
    (query("x", includeOwnership="yes"), "includeOwnership", "Must be a boolean"),
    (query("x", analysisPVLen=0), "analysisPVLen", "Must be an integer from 1 to 1000"),
    (query("x", rootPolicyTemperature=0), "rootPolicyTemperature", "Must be a number from 0.01 to 100.0"),
    (query("x", reportDuringSearchEvery=0), "reportDuringSearchEvery", "Must be number of seconds"),
    (query("x", priority="high"), "priority", "between -2^62 and 2^62"),
    (query("x", priorities=[1]), "priorities", "Can only specify when also specifying analyzeTurns"),
    (query("x", avoidMoves=[{"player": "B", "moves": ["E5"]}]), "avoidMoves", "Must be a list of dicts"),
    (query("x", avoidMoves=[{"player": "B", "moves": ["E5"], "untilDepth": 0}]), "untilDepth", "positive"),
    (query("x", overrideSettings=5), "overrideSettings", "Must be an object"),
    (query("x", overrideSettings={"reportAnalysisWinratesAs": "X"}), "overrideSettings", "Could not set settings"),
    (query("x", overrideSettings={"maxTime": "soon"}), "overrideSettings", "Could not set settings"),
    (query("x", overrideSettings={"wideRootNoise": -1}), "overrideSettings", "Could not set settings"),
]


@pytest.mark.parametrize(("request_", "field", "words"), BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_bad_input_gets_an_error_naming_the_field_and_the_query(engine, request_, field, words):
    engine.send(request_)
    got = engine.wait_for(lambda lines: bool(lines), keep=lambda d: "error" in d, timeout=30)[0]
    assert words in got["error"]
    assert got.get("field") == field
    if isinstance(request_, dict) and isinstance(request_.get("id"), str):
        assert got["id"] == request_["id"]
    assert engine.ask({"id": "alive", "action": "query_version"})[0]["action"] == "query_version"


@pytest.mark.parametrize("field", ["maxVisits", "komi", "analyzeTurns", "overrideSettings"])
def test_an_integer_too_long_to_convert_gets_an_error_naming_the_field_and_the_query(engine, field):
    # Found by a hostile sweep: Python refuses to convert more than 4,300 digits, and the query
    # got "internal error: ValueError" with no id and no field, and a traceback on stderr.
    digits = "7" * 5000
    value = {"analyzeTurns": f"[{digits}]", "overrideSettings": f'{{"maxVisits": {digits}}}'}.get(field, digits)
    line = f'{{"id": "long", "moves": [], "rules": "chinese", "boardXSize": 9, "boardYSize": 9, "{field}": {value}}}'
    engine.send(line + "\n")
    got = engine.wait_for(lambda lines: bool(lines), keep=lambda d: "error" in d, timeout=30)[0]
    assert got == {"error": "An integer of more than 4300 digits", "field": field, "id": "long"}
    assert engine.ask({"id": "alive", "action": "query_version"})[0]["action"] == "query_version"


def test_a_line_that_is_not_utf8_gets_an_error(engine):
    engine.send(b"\xff\xfe{}")
    got = engine.wait_for(lambda lines: bool(lines), keep=lambda d: "error" in d, timeout=30)[0]
    assert "UTF-8" in got["error"]


def test_warnings_name_the_field_and_the_query_go_on(engine):
    lines = engine.ask(query("warn", fooBar=1, rules="aga-button", overrideSettings={"cpuctExploration": 1}))
    warned = {d["field"] for d in lines if "warning" in d}
    assert warned == {"fooBar", "rules", "overrideSettings"}
    assert finals(lines)[-1]["moveInfos"]


def test_an_absurd_visit_count_is_refused_or_capped(engine):
    engine.send(query("huge", maxVisits=10**12))
    warning = engine.wait_for(lambda got: bool(got), keep=lambda d: d.get("id") == "huge" and "warning" in d)[0]
    assert warning["field"] == "maxVisits" and "Capped" in warning["warning"]
    engine.send({"id": "stop-huge", "action": "terminate", "terminateId": "huge"})
    assert finals(engine.collect("huge", timeout=60))


def test_ten_thousand_moves_are_refused(engine):
    moves = [["B" if i % 2 == 0 else "W", "pass"] for i in range(10000)]
    got = engine.ask(query("long-record", moves=moves), timeout=60)[0]
    assert got["field"] == "moves" and "Too many moves: 10000" in got["error"]


@pytest.fixture(scope="module")
def minimax_engine():
    """A config whose agent (minimax) plays boards up to 7x7 and does not search."""
    e = JsonEngine(ours("--set", "agent=minimax", "--set", "engine.preload=false", config=MCTS))
    yield e
    assert e.close() == 0


def test_a_board_no_agent_plays_or_an_agent_that_does_not_search(minimax_engine):
    unplayed = minimax_engine.ask(query("nine"))[0]
    assert unplayed["field"] == "boardXSize" and "plays 9x9" in unplayed["error"]
    small = minimax_engine.ask(query("five", boardXSize=5, boardYSize=5))[0]
    assert small["field"] == "boardXSize" and "does not search" in small["error"]


# --- the queue, priorities, the end of the input -------------------------------------------------
@pytest.fixture(scope="module")
def one_thread():
    e = JsonEngine(ours("--threads", "1", "--max-queued", "20"))
    yield e
    assert e.close() == 0
    assert e.bad_lines == []


def test_priority_orders_the_queue(one_thread):
    one_thread.send(query("blocker", maxVisits=100000, reportDuringSearchEvery=0.1))
    # the blocker must be searching before the others arrive, or the queue would rank it too
    one_thread.wait_for(lambda got: len(got) == 1, keep=lambda d: d.get("id") == "blocker" and d.get("isDuringSearch"))
    one_thread.send(query("low", priority=-5), query("high", priority=5), query("middle"))
    time.sleep(0.5)
    one_thread.send({"id": "go", "action": "terminate", "terminateId": "blocker"})
    order = [
        d["id"] for d in one_thread.wait_for(lambda got: len(got) == 4, keep=lambda d: d.get("isDuringSearch") is False)
    ]
    assert order == ["blocker", "high", "middle", "low"]


def test_a_full_queue_refuses_queries_and_changes_nothing_else(one_thread):
    one_thread.send(query("hold", maxVisits=100000))
    time.sleep(0.5)
    one_thread.send(*[query(f"q{i}") for i in range(1000)])
    refused = one_thread.wait_for(
        lambda got: len(got) >= 980, keep=lambda d: "error" in d and d.get("id", "").startswith("q"), timeout=60
    )
    assert all("Too many turns queued" in d["error"] for d in refused)
    one_thread.send({"id": "all", "action": "terminate_all"})
    answered = one_thread.wait_for(
        lambda got: len(got) == 20, keep=lambda d: d.get("isDuringSearch") is False and d["id"].startswith("q")
    )
    assert {d["id"] for d in answered} | {d["id"] for d in refused} == {f"q{i}" for i in range(1000)}
    assert all(d.get("noResults") for d in answered)
    assert finals(one_thread.collect("hold"))


def test_the_end_of_the_input_finishes_the_queue():
    e = JsonEngine(ours("--threads", "1"))
    e.send(*[query(f"eoi{i}", maxVisits=40) for i in range(3)])
    assert e.close(timeout=120) == 0
    answered = e.wait_for(lambda got: len(got) == 3, keep=lambda d: d.get("isDuringSearch") is False, timeout=5)
    assert sorted(d["id"] for d in answered) == ["eoi0", "eoi1", "eoi2"]
    assert e.bad_lines == []


def test_quit_without_waiting_terminates_the_queue():
    e = JsonEngine(ours("--threads", "1", "--quit-without-waiting", "--log-level", "debug"))
    e.send(query("running", maxVisits=100000), query("queued"))
    time.sleep(1.0)
    started = time.monotonic()
    assert e.close(timeout=60) == 0
    assert time.monotonic() - started < 30
    got = {d["id"]: d for d in e.wait_for(lambda g: len(g) == 2, keep=lambda d: d.get("isDuringSearch") is False)}
    assert got["queued"].get("noResults") and got["running"]["rootInfo"]["visits"] < 100000
    assert e.bad_lines == []  # debug logs go to stderr only


def test_a_bad_config_is_one_line_and_exit_status_2():
    out = subprocess.run(
        [sys.executable, "-m", "dlgo_analysis", "--config", ZERO_9, "--set", "zero.rounds=-5"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert out.returncode == 2 and out.stdout == ""
    assert "zero.rounds" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_an_overlong_line_is_dropped_in_pieces():
    from dlgo_analysis.engine import read_lines

    stream = io.BytesIO(b'{"id":"a"}\n' + b"x" * 100 + b"\n" + b'{"id":"b"}\n')
    assert list(read_lines(stream, limit=20)) == [b'{"id":"a"}\n', None, b'{"id":"b"}\n']


# --- scores without a score head -----------------------------------------------------------------
def test_an_agent_without_a_score_head_still_scores_every_move():
    e = JsonEngine(ours(config=MCTS))
    try:
        got = final(e, query("mcts", initialStones=VERTICAL, maxVisits=400, includeOwnership=True))
    finally:
        assert e.close() == 0
    root = got["rootInfo"]
    assert root["scoreLead"] > 0 and root["scoreStdev"] > 0 and got["ownership"][index("E9")] > 0.5
    # the logistic with the 9x9 scale (1.4 points per unit of log-odds), not the playouts' spread
    p = min(0.999, max(0.001, root["winrate"]))
    assert root["scoreLead"] == pytest.approx(1.395 * math.log(p / (1 - p)), abs=0.01)
    assert got["moveInfos"] and all(math.isfinite(m["scoreLead"]) for m in got["moveInfos"])
    best = got["moveInfos"][0]
    assert (best["scoreLead"] > 0) == (best["winrate"] > 0.5)


# --- the library below the engine -----------------------------------------------------------------
def test_rules_accept_katagos_names_and_warn_for_those_not_played_as_they_are():
    from dlgo.rules import RulesError, parse_rules

    assert parse_rules("TROMP_TAYLOR").name == "tromp-taylor" and parse_rules("nz").suicide
    assert parse_rules("chinese").warning() is None
    assert parse_rules("japanese").warning() is None and parse_rules("korean").honoured  # territory, seki tax
    assert "button" in parse_rules("aga-button").warning()
    assert "every group" in parse_rules("stone-scoring").warning()
    assert parse_rules({"scoring": "AREA", "ko": "SIMPLE"}).honoured
    for bad in ("area", {"foo": 1}, 5):
        with pytest.raises(RulesError):
            parse_rules(bad)


def test_replay_follows_the_rules_of_the_record():
    from dlgo.analysis import GameRecord, RecordError, parse_rules, replay
    from dlgo.goboard import Move
    from dlgo.gotypes import Player
    from dlgo.utils import point_from_coords

    def record(rules: str, moves: list[tuple[str, str]], **kw) -> GameRecord:
        return GameRecord(
            5,
            5,
            parse_rules(rules),
            [(Player.black if p == "B" else Player.white, Move.play(point_from_coords(v))) for p, v in moves],
            **kw,
        )

    suicide = [("B", "B1"), ("B", "A2"), ("W", "A1")]
    with pytest.raises(RecordError, match="Illegal move 2: A1"):
        replay(record("chinese", suicide))
    assert replay(record("tromp-taylor", suicide))[-1].board.get(point_from_coords("A1")) is None
    handicap = record(
        "chinese", [], initial_stones=[(Player.black, point_from_coords(v)) for v in ("B2", "D4")], komi=0.5
    )
    assert handicap.scoring_komi == 2.5 and replay(handicap)[0].komi == 2.5
    aga = GameRecord(5, 5, parse_rules("aga"), initial_stones=handicap.initial_stones, komi=0.5)
    assert aga.scoring_komi == 1.5


def test_perspectives_turn_the_movers_values():
    from dlgo.analysis.perspective import lcb_as, ownership_as, sign_for, winrate_as
    from dlgo.gotypes import Player

    assert winrate_as(0.8, Player.white, "BLACK") == pytest.approx(0.2)
    assert winrate_as(0.8, Player.white, "SIDETOMOVE") == 0.8 and sign_for("WHITE", Player.white) == 1
    assert lcb_as(0.7, Player.white, "BLACK") == pytest.approx(0.3)
    grid = np.array([[1.0, -1.0]])
    assert ownership_as(grid, Player.white, "SIDETOMOVE").tolist() == [[-1.0, 1.0]]
    assert ownership_as(grid, Player.white, "BLACK").tolist() == [[1.0, -1.0]]


def test_the_shared_network_merges_concurrent_batches_and_answers_each_its_own():
    from dlgo.encoders.zero import PLANES
    from dlgo.inference import BatchEvaluator, load_model
    from dlgo.inference.shared import SharedEvaluator

    model = load_model(str(ROOT / "weights" / "zero-9x9.keras"), lazy=True)
    direct = BatchEvaluator(model, cache_size=0, runtime="fp32")
    shared = SharedEvaluator(BatchEvaluator(model, cache_size=0, runtime="fp32"))
    rng = np.random.default_rng(3)
    planes = [rng.random((5, 9, 9, len(PLANES)), dtype=np.float32) for _ in range(12)]
    got: dict[int, tuple] = {}

    def search(i: int) -> None:
        for _ in range(3):
            got[i] = shared.evaluate_encoded(list(range(100 * i, 100 * i + 5)), planes[i])

    threads = [threading.Thread(target=search, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for i in range(12):
        policy, value = direct.evaluate_encoded(list(range(5)), planes[i])
        assert np.allclose(got[i][0], policy, atol=1e-5) and np.allclose(got[i][1], value, atol=1e-5)
    stats = shared.stats
    assert stats["merged_requests"] == 36 and stats["merged_batches"] < 36


def test_the_analyzer_reviews_a_game_in_process():
    from dlgo.analysis import Analyzer, GameRecord, TurnOptions, parse_rules, replay
    from dlgo.goboard import Move
    from dlgo.gotypes import Player
    from dlgo.play.config import load_config
    from dlgo.utils import point_from_coords

    moves = [(Player.black, "E5"), (Player.white, "C3"), (Player.black, "G7"), (Player.white, "C7")]
    states = replay(
        GameRecord(9, 9, parse_rules("chinese"), [(p, Move.play(point_from_coords(v))) for p, v in moves], komi=7)
    )
    with Analyzer(load_config(ZERO_9), threads=2) as analyzer:
        answers = analyzer.analyze(states, TurnOptions(max_visits=20, include_ownership=True))
    assert [a["turnNumber"] for a in answers] == [0, 1, 2, 3, 4]
    assert all(a["rootInfo"]["visits"] == 20 and len(a["ownership"]) == 81 for a in answers)
    assert json.loads(json.dumps(answers)) == answers


def test_records_that_begin_alike_share_their_positions():
    """A review sends one query per move, each with every move before it: their positions are
    replayed once and shared (300 queries of a 19x19 game would otherwise hold 45,000)."""
    from dlgo.analysis import GameRecord, parse_rules, replay
    from dlgo.analysis.positions import ReplayCache
    from dlgo.goboard import Move
    from dlgo.gotypes import Player
    from dlgo.utils import point_from_coords

    game = ["E5", "C3", "G7", "C7", "G3", "E3", "D4"]
    players = [Player.black, Player.white] * 4

    def record(vertices: list[str]) -> GameRecord:
        moves = [(p, Move.play(point_from_coords(v))) for p, v in zip(players, vertices)]
        return GameRecord(9, 9, parse_rules("chinese"), moves, komi=7)

    cache = ReplayCache()
    short = replay(record(game[:4]), cache)
    longer = replay(record(game), cache)
    branch = replay(record([*game[:3], "J9"]), cache)
    assert all(a is b for a, b in zip(short, longer)) and len(longer) == 8
    assert branch[3] is longer[3] and branch[4] is not longer[4]
    assert replay(record(game))[-1].situation_hash() == longer[-1].situation_hash()
