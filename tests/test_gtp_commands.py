"""Every command: its happy path and its failure path with the canonical text; a failed command
never changes the board."""

from __future__ import annotations

import re

import pytest
from gtp_client import InProcessEngine
from scripted_agent import ScriptedSearch

from dlgo import agent_registry as registry
from dlgo.sgf import read_game
from dlgo.utils import point_from_coords
from gtp_engine.protocol import format_move

FAST = ("mcts.rounds=300", "time.default_seconds=0", "analysis.visits=300")


def fails_unchanged(eng: InProcessEngine, line: str, message: str) -> None:
    before = eng.board_signature()
    assert eng.fail(line) == message, line
    assert eng.board_signature() == before, f"{line!r} changed the board"


def stones(eng: InProcessEngine) -> dict[str, str]:
    return {f"{'ABCDEFGHJKLMNOPQRSTUVWXYZ'[p.col - 1]}{p.row}": c.name for p, c in eng.engine.game.state.board.stones()}


def setup(eng: InProcessEngine, black: str, white: str = "") -> None:
    for v in black.split():
        eng.ok(f"play b {v}")
    for v in white.split():
        eng.ok(f"play w {v}")


# --- board and moves ------------------------------------------------------------------------


def test_boardsize(eng: InProcessEngine) -> None:
    for n in (2, 7, 13, 19, 25):
        eng.ok(f"boardsize {n}")
        assert eng.engine.game.rows == n
    eng.ok("boardsize 9")
    eng.ok("play b e5")
    for bad in ("1", "26", "0", "-1", "99999"):
        fails_unchanged(eng, f"boardsize {bad}", "unacceptable size")
    for bad in ("abc", "9.5", "1" * 60, ""):
        fails_unchanged(eng, f"boardsize {bad}".strip(), "syntax error")
    eng.ok("boardsize 9 13")  # gtp2ogs sends width and height for rectangular boards
    assert (eng.engine.game.cols, eng.engine.game.rows) == (9, 13)
    eng.ok("play b j13")
    eng.ok("boardsize 19")
    assert stones(eng) == {}


def test_clear_board_and_komi(eng: InProcessEngine) -> None:
    eng.ok("play b e5")
    eng.ok("komi -3.5")
    eng.ok("clear_board")
    assert stones(eng) == {} and eng.engine.game.num_moves == 0
    assert eng.engine.game.komi == -3.5
    eng.ok("komi 0")
    eng.ok("komi 6")
    assert eng.engine.game.state.komi == 6
    for bad in ("komi", "komi abc", "komi nan", "komi inf", "komi 7.5 1", "komi 1e999"):
        fails_unchanged(eng, bad, "syntax error")


def test_play(eng: InProcessEngine) -> None:
    eng.ok("play b e5")
    eng.ok("play W d5")
    eng.ok("play black C3")
    eng.ok("play black c4")  # same colour twice: a setup position
    eng.ok("play white pass")
    eng.ok("play w PASS")
    assert stones(eng) == {"E5": "black", "D5": "white", "C3": "black", "C4": "black"}
    fails_unchanged(eng, "play b e5", "illegal move")  # occupied
    fails_unchanged(eng, "play w Z19", "illegal move")  # off this board
    fails_unchanged(eng, "play w k9", "illegal move")
    for bad in ("play", "play b", "play x e5", "play b i5", "play b 5e", "play b e5 e6", "play b resign", "play b e"):
        fails_unchanged(eng, bad, "syntax error")


def test_suicide_and_ko(eng: InProcessEngine) -> None:
    setup(eng, "a2 b1")
    fails_unchanged(eng, "play w a1", "illegal move")  # suicide
    eng.ok("clear_board")
    # A ko: Black captures D5 by playing E5; White may not retake at once.
    setup(eng, "d4 c5 d6", "e4 f5 e6 d5")
    eng.ok("play b e5")  # captures D5
    assert "D5" not in stones(eng)
    fails_unchanged(eng, "play w d5", "illegal move")  # ko
    eng.ok("play w a9")
    eng.ok("play b a1")
    eng.ok("play w d5")  # after ko threats it is fine


def test_undo(eng: InProcessEngine) -> None:
    fails_unchanged(eng, "undo", "cannot undo")
    eng.ok("play b e5")
    eng.ok("play w e6")
    eng.ok("play w e7")
    eng.ok("undo")
    eng.ok("undo")
    assert stones(eng) == {"E5": "black"}
    assert eng.engine.game.state.next_player.name == "white"
    eng.ok("undo")
    assert stones(eng) == {}
    fails_unchanged(eng, "undo", "cannot undo")
    fails_unchanged(eng, "undo 1", "syntax error")


def test_genmove_either_colour(eng: InProcessEngine) -> None:
    first = eng.ok("genmove w")  # White first: not an error
    assert re.fullmatch(r"[A-HJ][1-9]", first)
    second = eng.ok("genmove w")
    assert second != first
    assert stones(eng) == {first: "white", second: "white"}
    reply = eng.ok("genmove B")
    assert stones(eng)[reply] == "black"
    fails_unchanged(eng, "genmove", "syntax error")
    fails_unchanged(eng, "genmove x", "syntax error")
    fails_unchanged(eng, "genmove b w", "syntax error")


def test_genmove_without_legal_moves_passes() -> None:
    eng = InProcessEngine(*FAST, "resign.enabled=false")
    try:
        eng.ok("boardsize 2")
        eng.ok("komi 0")
        setup(eng, "a1 b2")
        assert eng.ok("genmove w") == "pass"  # nothing legal for White
        assert eng.ok("genmove w") == "pass"
    finally:
        eng.close()


def test_reg_genmove_does_not_play(eng: InProcessEngine) -> None:
    eng.ok("play b e5")
    before = eng.board_signature()
    move = eng.ok("reg_genmove w")
    assert re.fullmatch(r"[A-HJ][1-9]|pass", move)
    assert eng.board_signature() == before
    fails_unchanged(eng, "reg_genmove", "syntax error")


def test_showboard(eng: InProcessEngine) -> None:
    eng.ok("play b c3")
    r = eng.ask("showboard")
    assert r is not None and r.ok
    assert any(line.startswith(" 3") and " x " in line for line in r.lines)
    assert sum(1 for line in r.lines if re.match(r"\s*[1-9] ", line)) == 9
    fails_unchanged(eng, "showboard now", "syntax error")


# --- handicap -------------------------------------------------------------------------------

# fmt: off
GNUGO_FIXED = {
    9: ["G7 C3", "C7 G7 C3", "C7 G7 C3 G3", "C7 G7 E5 C3 G3", "C7 G7 C5 G5 C3 G3", "C7 G7 C5 E5 G5 C3 G3",
        "C7 E7 G7 C5 G5 C3 E3 G3", "C7 E7 G7 C5 E5 G5 C3 E3 G3"],
    13: ["K10 D4", "D10 K10 D4", "D10 K10 D4 K4", "D10 K10 G7 D4 K4", "D10 K10 D7 K7 D4 K4",
         "D10 K10 D7 G7 K7 D4 K4", "D10 G10 K10 D7 K7 D4 G4 K4", "D10 G10 K10 D7 G7 K7 D4 G4 K4"],
    19: ["Q16 D4", "D16 Q16 D4", "D16 Q16 D4 Q4", "D16 Q16 K10 D4 Q4", "D16 Q16 D10 Q10 D4 Q4",
         "D16 Q16 D10 K10 Q10 D4 Q4", "D16 K16 Q16 D10 Q10 D4 K4 Q4", "D16 K16 Q16 D10 K10 Q10 D4 K4 Q4"],
}
# fmt: on


def test_fixed_handicap_matches_gnugo(eng: InProcessEngine) -> None:
    for size, layouts in GNUGO_FIXED.items():
        for n, expected in enumerate(layouts, start=2):
            eng.ok(f"boardsize {size}")
            assert eng.ok(f"fixed_handicap {n}") == expected
            assert set(stones(eng)) == set(expected.split())
            assert eng.engine.game.state.next_player.name == "white"
            fails_unchanged(eng, "undo", "cannot undo")
    for size, n, expected in ((7, 2, "E5 C3"), (7, 4, "C5 E5 C3 E3"), (8, 2, "F6 C3"), (10, 2, "H8 C3")):
        eng.ok(f"boardsize {size}")
        assert eng.ok(f"fixed_handicap {n}") == expected


def test_fixed_handicap_errors(eng: InProcessEngine) -> None:
    for bad in ("1", "0", "10", "-2"):
        fails_unchanged(eng, f"fixed_handicap {bad}", "invalid number of stones")
    eng.ok("boardsize 19")
    fails_unchanged(eng, "fixed_handicap 10", "invalid number of stones")
    eng.ok("boardsize 8")
    fails_unchanged(eng, "fixed_handicap 5", "invalid number of stones")
    eng.ok("boardsize 6")
    fails_unchanged(eng, "fixed_handicap 2", "invalid number of stones")
    eng.ok("boardsize 9")
    fails_unchanged(eng, "fixed_handicap", "syntax error")
    fails_unchanged(eng, "fixed_handicap two", "syntax error")
    eng.ok("play b e5")
    fails_unchanged(eng, "fixed_handicap 2", "board not empty")
    eng.ok("clear_board")
    eng.ok("fixed_handicap 2")
    fails_unchanged(eng, "fixed_handicap 3", "board not empty")


def test_place_free_handicap_returns_exactly_n(eng: InProcessEngine) -> None:
    for size, counts in ((19, range(2, 31)), (9, (2, 5, 9, 10, 20, 40, 80)), (13, (2, 9, 12)), (5, (2, 3, 24))):
        for n in counts:
            eng.ok(f"boardsize {size}")
            vertices = eng.ok(f"place_free_handicap {n}").split()
            assert len(vertices) == n == len(set(vertices)), (size, n, vertices)
            assert set(stones(eng)) == set(vertices) and set(stones(eng).values()) == {"black"}
            assert eng.engine.game.state.next_player.name == "white"
    eng.ok("boardsize 9")
    for bad in ("1", "0", "81", "1000"):
        fails_unchanged(eng, f"place_free_handicap {bad}", "invalid number of stones")
    fails_unchanged(eng, "place_free_handicap x", "syntax error")
    eng.ok("play b a1")
    fails_unchanged(eng, "place_free_handicap 2", "board not empty")


def test_set_free_handicap(eng: InProcessEngine) -> None:
    eng.ok("set_free_handicap c3 g7 e5")
    assert stones(eng) == {"C3": "black", "G7": "black", "E5": "black"}
    assert eng.engine.game.state.next_player.name == "white"
    assert eng.engine.game.handicap == 3
    fails_unchanged(eng, "set_free_handicap a1 a2", "board not empty")
    fails_unchanged(eng, "undo", "cannot undo")
    eng.ok("clear_board")
    for bad in ("c3 c3", "c3 pass", "c3 z9", "c3 i4", "c3 x"):
        fails_unchanged(eng, f"set_free_handicap {bad}", "bad vertex list")
    fails_unchanged(eng, "set_free_handicap", "syntax error")
    eng.ok("play w pass")
    fails_unchanged(eng, "set_free_handicap c3 g7", "board not empty")


def test_undo_stops_at_handicap(eng: InProcessEngine) -> None:
    eng.ok("fixed_handicap 4")
    eng.ok("play w e5")
    eng.ok("play b d4")
    eng.ok("undo")
    eng.ok("undo")
    assert set(stones(eng)) == {"C7", "G7", "C3", "G3"}
    fails_unchanged(eng, "undo", "cannot undo")


# --- time -----------------------------------------------------------------------------------


def test_time_commands(eng: InProcessEngine) -> None:
    clock = eng.engine.clock
    eng.ok("time_settings 300 30 5")
    assert (clock.control.system, clock.control.stones) == ("canadian", 5)
    eng.ok("time_settings 60 0 0")
    assert clock.control.system == "absolute"
    eng.ok("time_settings 0 10 1")  # gtp2ogs "simple"
    assert clock.control.system == "canadian" and clock.clocks[eng.engine.game.state.next_player].stones == 1
    eng.ok("time_settings 0 1 0")  # no time limit
    assert clock.control.system == "none"
    eng.ok("kgs-time_settings byoyomi 600 30 5")
    assert (clock.control.system, clock.control.period, clock.control.stones) == ("byoyomi", 30, 5)
    eng.ok("kgs-time_settings canadian 600 300 25")
    eng.ok("kgs-time_settings absolute 600")
    eng.ok("kgs-time_settings none")
    assert clock.control.system == "none"
    assert "fischer-capped" in eng.ok("kata-list_time_settings").split()
    eng.ok("kata-time_settings fischer-capped 600 10 900 -1")
    assert (clock.control.system, clock.control.main_cap, clock.control.move_cap) == ("fischer", 900, None)
    eng.ok("kata-time_settings fischer 300 5")
    eng.ok("kata-time_settings byoyomi 0 5 3")
    eng.ok("time_left black 55 0")
    eng.ok("time_left white 4 2")
    assert clock.clocks[eng.engine.game.state.next_player.other].stones == 2
    for bad in (
        "time_settings 1 2",
        "time_settings a 0 0",
        "time_settings -5 0 0",
        "time_settings 1 2 3 4",
        "kgs-time_settings",
        "kgs-time_settings fischer 300 5",
        "kgs-time_settings byoyomi 1 2",
        "kgs-time_settings sudden 5",
        "kata-time_settings fischer 300",
        "time_left black 10",
        "time_left red 10 0",
        "time_left black x 0",
        "time_left black 10 -1",
    ):
        fails_unchanged(eng, bad, "syntax error")


# --- scoring --------------------------------------------------------------------------------


def settled_position(eng: InProcessEngine) -> None:
    """Black wall on column E, White wall on column G: B area 45, W 27 (+ komi), F is dame."""
    setup(eng, " ".join(f"e{r}" for r in range(1, 10)), " ".join(f"g{r}" for r in range(1, 10)))


def test_final_score_and_status_agree(eng: InProcessEngine) -> None:
    settled_position(eng)
    eng.ok("play w b5")  # a dead white stone in black's area
    assert eng.ok("final_score") == "B+10.5"  # 45 - (27 + 7.5)
    dead = eng.ok("final_status_list dead")
    assert dead == "B5"
    alive = eng.ok("final_status_list alive").split("\n")
    assert len(alive) == 2 and {len(g.split()) for g in alive} == {9}
    assert eng.ok("final_status_list seki") == ""
    assert eng.ok("final_status_list DEAD") == "B5"
    fails_unchanged(eng, "final_status_list", "syntax error")
    fails_unchanged(eng, "final_status_list black_territory", "syntax error")
    eng.ok("komi 18")
    assert eng.ok("final_score") == "0"
    eng.ok("komi 20")
    assert eng.ok("final_score") == "W+2"


def test_pass_when_opponent_passed_and_winning(eng: InProcessEngine) -> None:
    settled_position(eng)
    eng.ok("play w b5")
    eng.ok("play w pass")
    assert eng.ok("genmove b") == "pass"  # wins the count with B5 dead
    assert "win the count" in eng.ok("gomill-explain_last_move")


def test_plays_a_dame_when_opponent_passed_and_the_dame_can_turn_the_count(eng: InProcessEngine) -> None:
    settled_position(eng)
    eng.ok("komi 24.5")  # Black loses by 6.5 with nine dame on column F: filling them can win
    eng.ok("play w pass")
    move = eng.ok("genmove b")
    assert move.upper().startswith("F"), (move, eng.ok("gomill-explain_last_move"))


def test_resigns_when_opponent_passed_and_no_move_can_turn_the_count(eng: InProcessEngine) -> None:
    settled_position(eng)
    eng.ok("komi 30.5")  # Black loses by 12.5 and only nine dame are left: never inside its own area
    eng.ok("play w pass")
    assert eng.ok("genmove b") == "resign"
    assert "can no longer change" in eng.ok("gomill-explain_last_move")


def test_no_pass_while_dame_left(eng: InProcessEngine) -> None:
    settled_position(eng)
    for colour in ("w", "b", "w"):
        move = eng.ok(f"genmove {colour}")
        assert move != "pass", "passed with neutral points on column F"
        assert move != "resign"


def test_kgs_genmove_cleanup_captures_dead_stones(eng: InProcessEngine) -> None:
    settled_position(eng)
    eng.ok("play w b5")
    eng.ok("play w pass")
    move = eng.ok("kgs-genmove_cleanup b")
    assert move in ("A5", "C5", "B4", "B6"), move
    fails_unchanged(eng, "kgs-genmove_cleanup", "syntax error")


def test_resign_when_clearly_lost_and_not_in_handicap_game() -> None:
    walls = " ".join(f"{c}{r}" for c in "beh" for r in range(1, 10))
    # consecutive_moves = 1: one lost search is enough (the rule before runs of lost moves).
    eng = InProcessEngine("mcts.rounds=2000", "time.default_seconds=0", "resign.consecutive_moves=1")
    try:
        eng.ok("boardsize 9")
        # White's pass first: 27 Black moves before White's first would be a handicap game
        eng.ok("play w pass")
        setup(eng, walls)  # 28 moves: past a quarter of the board
        assert eng.ok("genmove w") == "resign"
        assert eng.engine.game.num_moves == 28  # resigning changes nothing
        eng.ok("clear_board")
        eng.ok("fixed_handicap 2")
        setup(eng, " ".join(v for v in walls.split() if v not in ("G7", "C3")))
        assert eng.ok("genmove w") != "resign"  # White in a handicap game: not before move 40
        eng.ok("clear_board")
        setup(eng, walls)
        eng.ok("play w pass")
    finally:
        eng.close()
    eng = InProcessEngine("mcts.rounds=2000", "time.default_seconds=0")  # default: three lost moves in a row
    try:
        eng.ok("boardsize 9")
        eng.ok("play w pass")
        setup(eng, walls)
        assert eng.ok("genmove w") != "resign"
        assert eng.ok("genmove w") != "resign"  # (White twice: a Black pass would resign at once)
        assert eng.ok("genmove w") == "resign"
        assert eng.engine.game.num_moves == 30
    finally:
        eng.close()
    eng = InProcessEngine("mcts.rounds=2000", "time.default_seconds=0", "resign.enabled=false")
    try:
        eng.ok("boardsize 9")
        eng.ok("play w pass")
        setup(eng, walls)
        assert eng.ok("genmove w") != "resign"
    finally:
        eng.close()


class _Scripted:
    """An engine on the scripted agent; ``genmove(colour, winrate)`` sets the search's win rate."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *sets: str) -> None:
        agent = ScriptedSearch()
        kind = registry.AgentType("scripted", "test agent", {}, lambda params, size: agent, searches=True)
        monkeypatch.setitem(registry.REGISTRY, "scripted", kind)
        self.agent = agent
        self.eng = InProcessEngine("agent=scripted", "time.default_seconds=0", "resign.min_move=1", *sets, config=None)
        self.eng.ok("boardsize 9")

    def genmove(self, colour: str, winrate: float, command: str = "genmove") -> str:
        self.agent.winrate = winrate
        return self.eng.ok(f"{command} {colour}")

    def resigns(self, colour: str, winrate: float, command: str = "genmove") -> bool:
        return self.genmove(colour, winrate, command) == "resign"


LOST, HOPEFUL = 0.03, 0.6


def test_resign_needs_consecutive_lost_moves(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _Scripted(monkeypatch)
    try:
        assert not s.resigns("w", LOST)
        s.eng.ok("play b a9")  # (the scripted search plays A1, B1, ...)
        assert not s.resigns("w", LOST)
        s.eng.ok("play b b9")
        assert s.resigns("w", LOST)  # the third lost move in a row
        assert s.resigns("w", LOST)  # asked again (the resignation was not played): still lost
        assert s.eng.engine.game.num_moves == 4
        assert not s.resigns("b", LOST)  # Black's streak is its own
        assert not s.resigns("w", HOPEFUL)  # a hopeful move resets the run
        assert not s.resigns("w", LOST)
        assert not s.resigns("w", LOST)
        assert s.resigns("w", LOST)
        s.eng.ok("clear_board")  # a new game starts a new run
        assert not s.resigns("w", LOST)
        assert not s.resigns("w", LOST)
        assert s.resigns("w", LOST)
    finally:
        s.eng.close()


def test_undo_and_play_break_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _Scripted(monkeypatch)
    try:
        assert not s.resigns("w", LOST)
        s.eng.ok("play b a9")
        assert not s.resigns("w", LOST)
        s.eng.ok("undo")  # our second lost move is gone, and a new one replaces it
        assert not s.resigns("w", LOST)
        s.eng.ok("play b b9")
        assert s.resigns("w", LOST)
        s.eng.ok("play w c9")  # the controller plays for us: that move is not ours
        assert not s.resigns("w", LOST)
        assert not s.resigns("w", LOST)
        assert s.resigns("w", LOST)
        # Our last move undone and replayed by the controller at the same place, the same move
        # number: not ours any more.
        _, last = s.eng.engine.game.moves[-1]
        s.eng.ok("undo")
        s.eng.ok(f"play w {format_move(last)}")
        assert not s.resigns("w", LOST)
        assert not s.resigns("w", LOST)
        assert s.resigns("w", LOST)
    finally:
        s.eng.close()


def test_reg_genmove_and_analysis_record_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    s = _Scripted(monkeypatch)
    try:
        assert not s.resigns("w", LOST)
        for _ in range(3):
            assert not s.resigns("w", LOST, "reg_genmove")  # one recorded lost move only
        assert s.eng.engine.game.num_moves == 1
        s.eng.ok("dlgo-visits")
        assert not s.resigns("w", LOST, "kgs-genmove_cleanup")  # cleanup never resigns but records
        assert s.resigns("w", LOST, "reg_genmove")  # two lost moves played: reg_genmove sees the run
        assert s.eng.engine.game.num_moves == 2
        assert s.resigns("w", LOST)
    finally:
        s.eng.close()


def test_handicap_and_loadsgf_start_a_new_run(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    s = _Scripted(monkeypatch, "resign.handicap_min_move=1")
    try:
        assert not s.resigns("w", LOST)
        assert not s.resigns("w", LOST)
        path = tmp_path / "game.sgf"
        path.write_text(s.eng.ok("printsgf"))
        s.eng.ok(f"loadsgf {path}")  # the same moves, but not generated in this line
        assert not s.resigns("w", LOST)
        s.eng.ok("clear_board")
        s.eng.ok("fixed_handicap 2")
        for _ in range(2):
            assert not s.resigns("w", 0.01)
        assert not s.resigns("w", LOST)  # below resign.threshold but not the handicap threshold
        for _ in range(2):
            assert not s.resigns("w", 0.01)
        assert s.resigns("w", 0.01)
    finally:
        s.eng.close()


# --- SGF ------------------------------------------------------------------------------------


def test_printsgf_loadsgf_round_trip(eng: InProcessEngine, tmp_path) -> None:
    eng.ok("komi 6.5")
    eng.ok("fixed_handicap 2")
    for line in ("play w e5", "play b d4", "play w d5", "play b pass", "play w c6", "play w c7"):
        eng.ok(line)
    before = eng.board_signature()
    text = eng.ok("printsgf")
    record = read_game(text)
    assert record.board_size == (9, 9) and record.komi == 6.5 and record.handicap == 2
    assert len(record.moves) == 6
    path = tmp_path / "game.sgf"
    assert eng.ok(f"printsgf {path}") == ""
    eng.ok("clear_board")
    eng.ok("boardsize 13")
    assert eng.ok(f"loadsgf {path}") == "black"
    assert eng.board_signature() == before
    eng.ok("undo")
    eng.ok(f"loadsgf {path} 3")  # the position before move 3
    assert set(stones(eng)) == {"G7", "C3", "E5", "D4"}
    assert eng.engine.game.state.next_player.name == "white"
    for _ in range(2):
        eng.ok("undo")
    fails_unchanged(eng, "undo", "cannot undo")  # handicap stones are setup


def test_loadsgf_errors(eng: InProcessEngine, tmp_path) -> None:
    eng.ok("play b e5")
    # The canonical "cannot load file", then the reason (tests/test_loadsgf.py has more).
    missing = tmp_path / "missing.sgf"
    fails_unchanged(eng, f"loadsgf {missing}", "cannot load file: cannot read: No such file or directory")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]FF[4]SZ[9]AB[aa]AW[ab][ba])")  # a setup stone without liberties
    fails_unchanged(eng, f"loadsgf {bad}", "cannot load file: setup stone at A9 has no liberty")
    bad.write_text("this is not sgf")
    fails_unchanged(eng, f"loadsgf {bad}", "cannot load file: malformed SGF: no SGF data found")
    bad.write_text("(;GM[1]FF[4]SZ[30])")
    fails_unchanged(eng, f"loadsgf {bad}", "cannot load file: board size SZ[30] is not supported (sizes 2 to 25)")
    fails_unchanged(eng, "loadsgf", "syntax error")
    good = tmp_path / "good.sgf"
    good.write_text("(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[dd])")
    fails_unchanged(eng, f"loadsgf {good} x", "syntax error")
    fails_unchanged(eng, f"loadsgf {good} 0", "syntax error")
    assert eng.ok(f"loadsgf {good} 99") == "black"
    missing = tmp_path / "no" / "such" / "dir.sgf"
    fails_unchanged(eng, f"printsgf {missing}", f"cannot save file: {missing}: No such file or directory")


# --- KGS, gomill, GoGui -----------------------------------------------------------------------


def test_kgs_rules_and_cpu_time(eng: InProcessEngine) -> None:
    for rules in ("chinese", "japanese", "aga", "new_zealand"):
        eng.ok(f"kgs-rules {rules}")
    fails_unchanged(eng, "kgs-rules tromp-taylor", "unknown rules")
    fails_unchanged(eng, "kgs-rules", "syntax error")
    assert float(eng.ok("cputime")) >= 0
    assert float(eng.ok("gomill-cpu_time")) >= 0


def test_gomill_commands(eng: InProcessEngine) -> None:
    description = eng.ok("gomill-describe_engine")
    assert "dlgo" in description and "mcts" in description
    assert eng.ok("gomill-explain_last_move") == ""
    move = eng.ok("genmove b")
    explanation = eng.ok("gomill-explain_last_move")
    assert explanation.startswith(move) and "visits" in explanation


def test_gogui_analyze_commands(eng: InProcessEngine) -> None:
    eng.ok("play b e5")
    listed = eng.ok("gogui-analyze_commands").split("\n")
    types = {}
    for line in listed:
        kind, label, command = line.split("/", 2)
        assert kind and label and command
        types[kind] = command
        assert eng.ask(command).ok, command
    assert {"dboard", "pspairs", "var"} <= set(types)
    board = eng.ok(types["dboard"]).split("\n")
    assert len(board) == 9 and all(len(row.split()) == 9 for row in board)
    assert all(-1.0 <= float(v) <= 1.0 for row in board for v in row.split())
    pairs = eng.ok(types["pspairs"]).split()
    assert len(pairs) % 2 == 0 and all(int(n) > 0 for n in pairs[1::2])
    for vertex in pairs[0::2]:
        point_from_coords(vertex)
    var = eng.ok(types["var"]).split()
    assert var[0] == "w" and len(var) % 2 == 0
    assert eng.ok("gogui-interrupt") == ""


@pytest.mark.parametrize("rule,expected", [("chinese", "B+77.5"), ("aga", "B+78.5"), ("none", "B+80.5")])
def test_handicap_compensation_in_the_count(rule: str, expected: str) -> None:
    # 9x9, three handicap stones, komi 0.5: Black owns all 81 points; White gets the compensation.
    eng = InProcessEngine(*FAST, f"engine.handicap_compensation={rule}")
    try:
        eng.ok("boardsize 9")
        eng.ok("komi 0.5")
        eng.ok("fixed_handicap 3")
        eng.ok("play w pass")
        eng.ok("play b pass")
        assert eng.ok("final_score") == expected
        assert "KM[0.5]" in eng.ok("printsgf")
    finally:
        eng.close()
