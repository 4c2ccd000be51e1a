"""KaTrain 1.20 (``pip install katrain``) using an analysis engine as a custom engine command.

KaTrain's own classes do the work, headless (tests/katrain_driver.py): ``KataGoEngine`` starts
the command as KaTrain does for a user who typed it in General & Engine settings, tab "Custom
command", field "Override Engine Command"; ``Game`` queues every node of an SGF for analysis as
when a file is opened; KaTrain builds the queries (moves, initialStones, rules, komi,
overrideSettings, includeOwnership/includeMovesOwnership/includePolicy, reportDuringSearchEvery,
avoidMoves, terminate) and its reader thread parses the answers into the nodes. The assertions
are on what KaTrain computed from them: winrate, score, candidate moves and their points lost,
ownership and policy in KaTrain's board orientation, the move its default AI plays.

Each test runs against the real KataGo (../shared/tools/katago, the harness check; it skips
where that binary is missing or cannot start) and against ``python -m dlgo_analysis``.
"""

from __future__ import annotations

import math
import re
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

kd = pytest.importorskip(
    "katrain_driver", reason="KaTrain (pip package katrain 1.20, with Kivy) is not installed or does not import"
)
from katrain.core.ai import generate_ai_move  # noqa: E402
from katrain.core.constants import AI_DEFAULT, AI_POLICY, PRIORITY_EXTRA_ANALYSIS  # noqa: E402
from katrain.core.utils import var_to_grid  # noqa: E402
from pysgf import Move  # noqa: E402

# KaTrain's engine settings for these tests: its defaults (500 visits, 8 s) cut down for 2 cores.
ENGINE_SETTINGS = {"max_visits": 24, "fast_visits": 8, "max_time": 10.0}
TIMEOUT = 180.0  # seconds for a game's analysis on a busy 2-core machine
START_TIMEOUT = 600.0  # the first answer of a new engine process (a cold start may compile kernels)

GAME_9X9 = "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7]RU[Chinese];B[ee];W[cc];B[gc];W[ge];B[fg];W[dg])"
GAME_19X19 = "(;GM[1]FF[4]CA[UTF-8]SZ[19]KM[6.5]RU[Japanese];B[pd];W[dp];B[pq];W[dd];B[fq];W[cn])"
# Black's wall on the 6th line (and C3, G3, E4 against an invasion), White's on the 8th: Black's
# area is rows 1-6, White's rows 8-9, Black about 25 points up whoever is to play (KataGo's net says
# 25-30; the test asks only for a clear lead, in Black's view, whoever is to play).
BLACK_AHEAD_9X9 = (
    "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]"
    "AB[ad][bd][cd][dd][ed][fd][gd][hd][id][cg][gg][ef]AW[ab][bb][cb][db][eb][fb][gb][hb][ib]"
    ";B[ec];W[dc])"
)
GTP_MOVE = re.compile(r"^(pass|[A-HJ-T](1[0-9]|[1-9]))$")


@dataclass
class Session:
    """One engine process under KaTrain, shared by a module's tests for one command."""

    name: str
    command: list[str]
    katrain: kd.KaTrainStub
    engine: kd.KataGoEngine


def _dlgo_command() -> list[str]:
    return [sys.executable, "-m", "dlgo_analysis"]


@pytest.fixture(scope="module", params=["katago", "dlgo"])
def session(request: pytest.FixtureRequest) -> Iterator[Session]:
    if request.param == "katago":
        reason = kd.katago_unusable()
        if reason:
            pytest.skip(reason)
        command = kd.katago_command()
    else:
        command = _dlgo_command()
    katrain = kd.KaTrainStub()
    engine = kd.start_engine(katrain, command, **ENGINE_SETTINGS)
    session = Session(request.param, command, katrain, engine)
    try:
        analysed_game(session, "(;GM[1]FF[4]SZ[9]KM[7])", timeout=START_TIMEOUT)  # the engine is up
        yield session
    finally:
        kd.stop_engine(engine)


@pytest.fixture
def kt(session: Session) -> Session:
    """The module's session with KaTrain's log emptied; the engine restarted if a test killed it."""
    if not session.engine.check_alive():
        session.engine.restart()
    session.katrain.clear()
    return session


def analysed_game(s: Session, sgf: str, timeout: float = TIMEOUT) -> kd.Game:
    """Open ``sgf`` in KaTrain and wait until every node's analysis is complete."""
    game = kd.new_game(s.katrain, s.engine, sgf)
    nodes = game.root.nodes_in_tree
    kd.wait_until(
        lambda: all(n.analysis_complete for n in nodes) and s.engine.is_idle(),
        timeout,
        f"KaTrain's analysis of all {len(nodes)} nodes",
        s.katrain,
    )
    return game


def assert_clean(s: Session) -> None:
    """Nothing a KaTrain user would see as an error: no ERROR in the status bar, no recovery popup."""
    assert not s.katrain.errors, f"KaTrain logged errors:\n{s.katrain.transcript()}"
    assert not s.katrain.popups, f"KaTrain opened popups: {s.katrain.popups}"


def check_node(game: kd.Game, node: kd.GameNode) -> None:
    """What KaTrain shows for one analysed node is there, well-formed, and on the right points."""
    size_x, size_y = game.board_size
    stones = kd.occupied(game, node)
    where = f"node {node.depth} ({node.move.gtp() if node.move else 'root'})"

    assert node.analysis_complete, where
    assert node.root_visits >= 1, where
    assert 0.0 <= node.winrate <= 1.0, where
    assert math.isfinite(node.score), where

    cands = node.candidate_moves
    assert cands and cands[0]["order"] == 0, f"{where}: no engine top move among {cands[:3]}"
    for c in cands:
        assert GTP_MOVE.match(c["move"]), f"{where}: {c['move']!r} is no GTP move on a 19x19 or smaller board"
        move = Move.from_gtp(c["move"])
        if move.coords is not None:
            x, y = move.coords
            assert 0 <= x < size_x and 0 <= y < size_y, f"{where}: {c['move']} is off the board"
            assert move.coords not in stones, f"{where}: candidate {c['move']} is on a stone"
        assert c["visits"] >= 1 or c["order"] > 0, where
        for key in ("pointsLost", "winrateLost", "scoreLead", "winrate"):
            assert math.isfinite(c[key]), f"{where}: {c['move']} {key}={c[key]}"
        assert 0.0 <= c["winrate"] <= 1.0, where
        assert c.get("pv") and c["pv"][0] == c["move"], f"{where}: pv {c.get('pv')} of {c['move']}"

    ownership = node.ownership
    assert ownership is not None and len(ownership) == size_x * size_y, where
    assert all(-1.0 <= o <= 1.0 for o in ownership), where

    policy = node.policy
    assert policy is not None and len(policy) == size_x * size_y + 1, where
    grid = var_to_grid(policy, (size_x, size_y))
    for x, y in stones:  # KaTrain's sweep analysis takes policy >= 0 for a legal move
        assert grid[y][x] < 0, f"{where}: policy {grid[y][x]} on the stone at {Move((x, y)).gtp()}"
    legal = [p for p in policy if p >= 0]
    assert legal and abs(sum(legal) - 1.0) < 0.02, f"{where}: policy sums to {sum(legal)}"

    if node.move is not None and node.parent is not None:
        assert math.isfinite(node.points_lost), where
        rank, prob, _ = node.move_policy_stats()  # KaTrain's "Move was #N according to policy (P%)"
        assert rank is not None and prob >= 0, f"{where}: the played (legal) move has policy {prob}"
        played = node.parent.analysis["moves"].get(node.move.gtp())
        assert played is not None and played["visits"] >= 1, f"{where}: not merged into the parent's moves"


@pytest.mark.parametrize(
    "sgf",
    [pytest.param(GAME_9X9, id="9x9-chinese"), pytest.param(GAME_19X19, id="19x19-japanese")],
)
def test_katrain_analyses_an_opened_game(kt: Session, sgf: str) -> None:
    game = analysed_game(kt, sgf)
    nodes = game.root.nodes_in_tree
    assert len(nodes) == 7
    for node in nodes:
        check_node(game, node)
    assert_clean(kt)


def test_scores_ownership_and_winrates_are_blacks_view_in_katrains_orientation(kt: Session) -> None:
    """KaTrain asks for reportAnalysisWinratesAs BLACK and reads ownership top row first, +1 Black."""
    game = analysed_game(kt, BLACK_AHEAD_9X9)
    nodes = game.root.nodes_in_tree
    assert [n.next_player for n in nodes] == ["B", "W", "B"]
    for node in nodes:
        check_node(game, node)
        where = f"node {node.depth}, {node.next_player} to play"
        assert node.winrate > 0.8, f"{where}: winrate {node.winrate}"
        assert node.score > 2.0, f"{where}: scoreLead {node.score}"
        grid = var_to_grid(node.ownership, game.board_size)  # grid[y][x], y = 0 the bottom row
        black_rows = sum(sum(grid[y]) for y in range(5)) / 45
        white_row = sum(grid[8]) / 9
        assert black_rows > 0.5 and white_row < -0.5, f"{where}: ownership {black_rows:.2f} {white_row:.2f}"
        assert all(c["winrate"] > 0.5 for c in node.candidate_moves if c["order"] == 0), where
    assert_clean(kt)


def test_katrain_ai_plays_the_top_move_and_its_policy_move(kt: Session) -> None:
    game = analysed_game(kt, GAME_9X9)
    game.redo(99)
    cn = game.current_node
    top = cn.candidate_moves[0]["move"]
    move, played = generate_ai_move(game, AI_DEFAULT, kt.katrain.config(f"ai/{AI_DEFAULT}"))
    assert played is not None and move.gtp() == top and played.move.player == cn.next_player
    kd.wait_until(lambda: played.analysis_complete, TIMEOUT, "analysis of the AI's move", kt.katrain)
    check_node(game, played)

    policy_top = played.policy_ranking[0][1].gtp()
    settings = {**kt.katrain.config(f"ai/{AI_POLICY}"), "opening_moves": 0}  # else a weighted random pick
    move, node = generate_ai_move(game, AI_POLICY, settings)
    assert node is not None and move.gtp() == policy_top
    kd.wait_until(lambda: kt.engine.is_idle(), TIMEOUT, "the engine to be idle", kt.katrain)
    assert_clean(kt)


def test_refined_move_alternatives_and_region_of_interest(kt: Session) -> None:
    """KaTrain's extra analyses: a move the user asks about, 'find alternatives', a region."""
    game = analysed_game(kt, GAME_9X9)
    node = game.root.children[0].children[0]  # after B E5, W C7: Black to play
    known = set(node.analysis["moves"])

    # A move the engine did not consider: its line is analysed with the move appended.
    asked = next(m for m in ("A1", "J1", "A9", "J9", "B1", "H1") if m not in known)
    node.analyze(kt.engine, refine_move=Move.from_gtp(asked, player="B"), visits=8, time_limit=False)
    kd.wait_until(lambda: asked in node.analysis["moves"] and kt.engine.is_idle(), TIMEOUT, asked, kt.katrain)
    info = node.analysis["moves"][asked]
    assert info["visits"] >= 1 and info["pv"][0] == asked
    lost = next(c for c in node.candidate_moves if c["move"] == asked)["pointsLost"]
    assert lost > 0, f"{asked} on an almost empty 9x9 board loses {lost} points"

    answers: list[dict] = []

    def keep(answer: dict, partial: bool) -> None:
        if not partial:
            answers.append(answer)

    avoided = set(node.analysis["moves"])
    kt.engine.request_analysis(node, keep, find_alternatives=True, time_limit=False)
    kd.wait_until(lambda: len(answers) == 1, TIMEOUT, "the 'find alternatives' answer", kt.katrain)
    found = {m["move"] for m in answers[0]["moveInfos"]}
    assert found and not found & avoided, f"avoided {sorted(avoided)}, got {sorted(found)}"

    kt.engine.request_analysis(node, keep, region_of_interest=[0, 3, 0, 3], time_limit=False)  # A1-D4
    kd.wait_until(lambda: len(answers) == 2, TIMEOUT, "the region-of-interest answer", kt.katrain)
    moves = [Move.from_gtp(m["move"]) for m in answers[1]["moveInfos"]]
    assert any(m.coords for m in moves)
    outside = [m.gtp() for m in moves if m.coords and not (m.coords[0] <= 3 and m.coords[1] <= 3)]
    assert not outside, f"moves outside A1-D4: {outside}"
    assert_clean(kt)


def test_an_illegal_refined_move_is_dropped_quietly(kt: Session) -> None:
    """KaTrain's sweep ignores an error answer whose text has 'Illegal move' (and logs any other)."""
    game = analysed_game(kt, GAME_9X9)
    node = game.root.children[0]  # after B E5: White to play
    node.analyze(kt.engine, refine_move=Move.from_gtp("E5", player="W"), visits=8, time_limit=False)
    kd.wait_until(kt.engine.is_idle, TIMEOUT, "the answer to a move on a stone", kt.katrain)
    assert node.analysis["moves"].get("E5") is None
    assert any("Sending query" in m for _, m in kt.katrain.messages)
    assert_clean(kt)


def test_continuous_analysis_reports_during_search_and_stops_on_terminate(kt: Session) -> None:
    """KaTrain's continuous analysis (space bar): 10M visits, reports every 0.25 s, then terminate."""
    game = analysed_game(kt, GAME_9X9)
    node = game.root.children[0]
    node.clear_analysis()
    node.analyze(kt.engine, ponder=True, priority=PRIORITY_EXTRA_ANALYSIS, time_limit=False)
    kd.wait_until(lambda: node.analysis_exists, 60, "a report during the search", kt.katrain)
    assert not node.analysis_complete  # a partial result: still pondering
    first = node.root_visits
    kd.wait_until(lambda: node.root_visits > first, 60, "a later report with more visits", kt.katrain)
    kt.engine.stop_pondering()  # {"action": "terminate", "terminateId": ...}
    kd.wait_until(
        lambda: kt.engine.is_idle() and node.analysis_complete,
        60,
        "the final answer of the terminated query",
        kt.katrain,
    )
    check_node(game, node)
    assert_clean(kt)


def test_engine_ends_when_katrain_closes(session: Session) -> None:
    """KaTrain terminates the shell it started; the engine must end at the end of its input."""
    katrain = kd.KaTrainStub()
    engine = kd.start_engine(katrain, session.command, **ENGINE_SETTINGS)
    s = Session(session.name, session.command, katrain, engine)
    game = analysed_game(s, "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese])", timeout=START_TIMEOUT)
    check_node(game, game.root)
    assert kd.stop_engine(engine), "the engine was still running after KaTrain closed"
    assert_clean(s)


def test_katrain_restarts_an_engine_typed_with_exec(session: Session) -> None:
    """Saving the engine settings (or 'Retry' in the recovery popup) restarts the engine.

    KaTrain then terminates the process it started and waits for its reader threads, in the GUI
    thread. Typed plainly, the command runs under ``/bin/sh -c`` (Debian's dash does not exec it),
    the SIGTERM ends only the shell, and the engine, whose input KaTrain still holds open, keeps
    KaTrain waiting: the window freezes (with the real KataGo too). Typed as ``exec COMMAND`` the
    SIGTERM reaches the engine, which must end on it.
    """
    katrain = kd.KaTrainStub()
    engine = kd.start_engine(katrain, session.command, exec_=True, **ENGINE_SETTINGS)
    s = Session(session.name, session.command, katrain, engine)
    old_pids: list[int] = []
    try:
        analysed_game(s, "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese])", timeout=START_TIMEOUT)
        old, old_pids = engine.katago_process, kd.engine_pids(engine)
        restart = threading.Thread(target=engine.restart, daemon=True)
        restart.start()
        restart.join(60)
        assert not restart.is_alive(), "KaTrain still waiting for the old engine after 60 s (a frozen window)"
        assert old.poll() is not None and engine.katago_process is not old
        game = analysed_game(s, GAME_9X9, timeout=START_TIMEOUT)
        for node in game.root.nodes_in_tree:
            check_node(game, node)
        assert_clean(s)
    finally:
        kd.stop_engine(engine)
        kd.kill(old_pids)
