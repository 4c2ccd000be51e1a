"""Territory scoring (dlgo.territory): territory and prisoners, no points in seki, checked against
GNU Go's Japanese count; the rules reaching the engine and the analysis."""

from __future__ import annotations

from pathlib import Path

import pytest
from gnugo import GnuGo
from gtp_client import ROOT, InProcessEngine
from sgfmill import sgf

from dlgo.analysis import TurnOptions
from dlgo.analysis.report import TurnExtras, answer
from dlgo.deadstones import count
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.search import CandidateInfo, SearchResult
from dlgo.territory import prisoners, stones_placed, territory_offset, territory_result
from dlgo.utils import point_from_coords

CASES = ROOT.parent / "shared" / "data" / "cases"


def _play(state: GameState, *vertices: str) -> GameState:
    for v in vertices:
        state = state.apply_move(Move.pass_turn() if v == "pass" else Move.play(point_from_coords(v)))
    return state


def test_prisoners_are_the_stones_captured_and_the_dead():
    # Black captures White's corner stone at A1.
    state = _play(GameState.new_game(9), "B1", "A1", "A2")  # A1 (white) has no liberty left
    assert state.board.get(Point(1, 1)) is None
    assert stones_placed(state, Player.black) == 2 and stones_placed(state, Player.white) == 1
    assert prisoners(state, Player.black) == 1 and prisoners(state, Player.white) == 0
    assert prisoners(state, Player.black, dead_stones=[Point(5, 5)]) == 1  # an empty point is no prisoner


def test_a_wall_position_counts_territory_and_prisoners():
    # Black's wall on D, White's on F, E dame: 27 points of territory each, komi 6.5.
    state = GameState.new_game(9, komi=6.5)
    moves = []
    for row in range(1, 10):
        moves += [f"D{row}", f"F{row}"]
    state = _play(state, *moves)
    assert territory_result(state).b == 27 and territory_result(state).w == 27
    assert str(territory_result(state)) == "W+6.5"
    # a dead White stone in Black's area: a prisoner, and its point still Black's territory
    dead = _play(state, "pass", "B5")
    assert str(territory_result(dead, [point_from_coords("B5")])) == "W+5.5"  # 27 + 1 against 27 + 6.5


@pytest.mark.parametrize("name", ["ogs-self-fill-9x9.sgf", "self-fill-direct-gtp-9x9.sgf"])
def test_final_positions_of_the_case_records_count_as_gnugos_japanese_count(name):
    path = CASES / name
    if not path.exists():
        pytest.skip(f"{path} not found (the shared case records)")
    try:
        gnugo = GnuGo.start(rules="japanese")
    except FileNotFoundError as e:
        pytest.skip(str(e))
    try:
        gnugo.send(f"loadsgf {path}")
        theirs = gnugo.send("final_score")
    finally:
        gnugo.close()
    game = sgf.Sgf_game.from_bytes(Path(path).read_bytes())
    state = GameState.new_game(game.get_size(), game.get_komi())
    for node in game.get_main_sequence()[1:]:
        _, move = node.get_move()
        state = state.apply_move(Move.pass_turn() if move is None else Move.play(Point(move[0] + 1, move[1] + 1)))
    counted = count(state.apply_move(Move.pass_turn()), 1000)
    seki = [p for group in counted.status.seki for p in group]
    ours = territory_result(state, counted.dead_stones(), seki)
    assert f"{ours}" == theirs.replace(".0", ""), (ours, theirs)


def test_the_engine_counts_by_the_rules_it_is_given():
    eng = InProcessEngine("mcts.rounds=50", "time.default_seconds=0")
    try:
        eng.ok("boardsize 9")
        eng.ok("komi 6.5")
        for row in range(1, 10):
            eng.ok(f"play b D{row}")
            eng.ok(f"play w F{row}")
        eng.ok("play w B5")  # dead in Black's area
        assert eng.ok("final_score") == "W+6.5"  # area: 9 + 27 against 9 + 27 + 6.5
        eng.ok("kgs-rules japanese")
        assert eng.ok("final_score") == "W+5.5"  # territory: 27 + 1 prisoner against 27 + 6.5
        assert '"scoring":"TERRITORY"' in eng.ok("kata-get-rules")
        eng.ok("kata-set-rules chinese")
        assert eng.ok("final_score") == "W+6.5"
        eng.ok('kata-set-rules {"scoring":"TERRITORY","tax":"SEKI","ko":"SIMPLE"}')
        assert eng.ok("final_score") == "W+5.5"
        assert "unknown rules" in eng.fail("kgs-rules moon")
        assert "Unknown rules" in eng.fail("kata-set-rules moon")
        assert eng.ok("final_score") == "W+5.5"  # a refused command changes nothing
    finally:
        eng.close()


def test_analysis_reports_the_territory_lead_under_territory_rules():
    state = GameState.new_game(9, komi=6.5)
    result = SearchResult(
        [CandidateInfo(move=Move.play(Point(5, 5)), visits=10, winrate=0.6, score_lead=2.0)],
        visits=10,
        winrate=0.6,
        elapsed=0.1,
        score_lead=2.0,
    )
    area = answer(state, result, TurnOptions(), 0, TurnExtras())
    territory = answer(state, result, TurnOptions(territory=True), 0, TurnExtras())
    assert territory_offset(state) == 0.5  # Black to move on an empty board
    assert area["rootInfo"]["scoreLead"] == 2.0 and territory["rootInfo"]["scoreLead"] == 1.5
    assert territory["moveInfos"][0]["scoreLead"] == 1.5
    handicap = _play(GameState.new_game(9), "C3", "pass", "G7")  # two black stones, White to move
    assert territory_offset(handicap) == 2 - 0.5
