"""Analysis commands (Leela Zero / KataGo / Sabaki formats), stopping on input, and interrupts."""

from __future__ import annotations

import re
import time

import pytest
from gtp_client import EngineProcess

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.search import CandidateInfo, SearchResult
from gtp_engine.analysis_formats import AnalysisRequest, gogui_var, info_line, parse_analysis_args, pv_moves
from gtp_engine.protocol import GtpError

VERTEX = re.compile(r"[A-HJ-Z][0-9]{1,2}|pass")
LONG = ("mcts.rounds=100000000", "time.default_seconds=60", "time.max_seconds=60")


def parse_info_line(line: str, kata: bool, size: int) -> tuple[list[dict], list[float] | None]:
    """Parse one analysis line into candidates and the optional ownership; checks every value."""
    ownership = None
    if " ownership " in f" {line} ":
        line, _, own = f" {line} ".partition(" ownership ")
        ownership = [float(x) for x in own.split()]
        assert len(ownership) == size * size
        assert all(-1.0 <= v <= 1.0 for v in ownership)
        line = line.strip()
    assert line.startswith("info "), line
    cands = []
    for chunk in line.split("info ")[1:]:
        tokens = chunk.split()
        pv_at = tokens.index("pv")
        fields = dict(zip(tokens[:pv_at:2], tokens[1:pv_at:2]))
        pv = tokens[pv_at + 1 :]
        assert {"move", "visits", "winrate", "prior", "lcb", "order"} <= set(fields), chunk
        assert VERTEX.fullmatch(fields["move"])
        assert int(fields["visits"]) > 0
        for key in ("winrate", "prior", "lcb"):
            if kata:
                value = float(fields[key])
                assert "." in fields[key] and 0.0 <= value <= 1.0, (key, fields[key])
            else:
                assert re.fullmatch(r"[0-9]+", fields[key]), (key, fields[key])
                assert 0 <= int(fields[key]) <= 10000
        assert pv and all(VERTEX.fullmatch(v) for v in pv)
        assert "pass" not in pv or pv == ["pass"], f"pass inside a PV: {pv}"
        assert pv[0] == fields["move"]
        fields["pv"] = pv
        cands.append(fields)
    assert [int(c["order"]) for c in cands] == list(range(len(cands)))
    return cands, ownership


# --- units ----------------------------------------------------------------------------------


def test_parse_analysis_args() -> None:
    r = parse_analysis_args(("B", "50"), 19, 19)
    assert r.player is Player.black and r.interval == 0.5 and not r.ownership
    r = parse_analysis_args(("50",), 19, 19)
    assert r.player is None and r.interval == 0.5
    r = parse_analysis_args(("w", "interval", "10", "ownership", "true", "maxmoves", "3", "minmoves", "1"), 9, 9)
    assert r.player is Player.white and r.interval == 0.1 and r.ownership and r.max_moves == 3
    r = parse_analysis_args(("b", "25", "avoid", "b", "d4,e5", "1", "allow", "w", "c3", "2"), 9, 9)
    assert r.avoid == {Point(4, 4), Point(5, 5)} and r.allow == {Point(3, 3)}
    assert parse_analysis_args((), 9, 9).interval == 0
    for bad in (("B", "x"), ("B", "50", "ownership"), ("B", "50", "frob", "1"), ("B", "-5"), ("B", "50", "avoid", "b")):
        with pytest.raises(GtpError):
            parse_analysis_args(bad, 9, 9)


def _cand(move: Move, pv: list[Move], visits: int = 10) -> CandidateInfo:
    return CandidateInfo(move=move, visits=visits, winrate=0.5, prior=0.1, lcb=0.4, pv=pv)


def test_pv_stops_at_pass() -> None:
    d4, e5, pas = Move.play(Point(4, 4)), Move.play(Point(5, 5)), Move.pass_turn()
    assert pv_moves(_cand(d4, [d4, e5, pas, d4])) == ["D4", "E5"]
    assert pv_moves(_cand(d4, [d4, pas])) == ["D4"]
    assert pv_moves(_cand(pas, [pas, d4])) == ["pass"]
    result = SearchResult([_cand(d4, [d4, pas, e5]), _cand(pas, [pas])], visits=20, winrate=0.5, elapsed=0.1)
    line = info_line(result, False, AnalysisRequest(), Player.black)
    cands, own = parse_info_line(line, kata=False, size=9)
    assert cands[0]["pv"] == ["D4"] and cands[1]["pv"] == ["pass"] and own is None
    assert gogui_var(result, Player.white) == "w D4"
    passing = SearchResult([_cand(pas, [pas]), _cand(d4, [d4])], visits=20, winrate=0.5, elapsed=0.1)
    assert gogui_var(passing, Player.black) == "b pass"


def test_info_line_formats_and_filters() -> None:
    d4, e5 = Move.play(Point(4, 4)), Move.play(Point(5, 5))
    result = SearchResult([_cand(d4, [d4, e5], 30), _cand(e5, [e5], 20)], visits=50, winrate=0.5, elapsed=0.1)
    import numpy as np

    grid = np.ones((9, 9))
    lz = info_line(result, False, AnalysisRequest(), Player.black, grid)
    assert "ownership" not in lz
    assert "winrate 5000 prior 1000 lcb 4000" in lz
    kata = info_line(result, True, AnalysisRequest(ownership=True), Player.white, grid)
    cands, own = parse_info_line(kata, kata=True, size=9)
    assert own == [-1.0] * 81  # Black owns everything: -1 from White's view
    assert "winrate 0.500000" in kata
    only = info_line(result, False, AnalysisRequest(max_moves=1), Player.black)
    assert only.count("info ") == 1
    avoided = info_line(result, False, AnalysisRequest(avoid={Point(4, 4)}), Player.black)
    assert "move D4" not in avoided and "move E5" in avoided


# --- through the process --------------------------------------------------------------------


def stone_count(board: str, mark: str) -> int:
    return sum(line.split().count(mark) for line in board.split("\n") if re.match(r"\s*[0-9]+ ", line))


def read_stream(eng: EngineProcess, timeout: float = 20.0) -> list[str]:
    """Lines of a streaming response up to (not including) its closing empty line."""
    lines = []
    while True:
        line = eng.read_line(timeout)
        if line == "\n":
            return lines
        lines.append(line.rstrip("\n"))


@pytest.mark.parametrize("command, kata", [("lz-analyze", False), ("analyze", False), ("kata-analyze", True)])
def test_analysis_stops_on_any_input(command: str, kata: bool) -> None:
    with EngineProcess("analysis.max_visits=50000000") as eng:
        eng.ok("boardsize 9")
        eng.ok("play b e5")
        eng.send(f"12 {command} W 10\n")
        assert eng.read_line() == "=12\n"
        first = eng.read_line(timeout=15)
        cands, own = parse_info_line(first.rstrip("\n"), kata, 9)
        assert own is None  # only when asked
        time.sleep(0.3)
        eng.send("13 protocol_version\n")
        lines = read_stream(eng)
        for line in lines:
            parse_info_line(line, kata, 9)
        assert len(lines) >= 1  # 10 cs interval: more lines came while we slept
        r = eng.read_response(timeout=5)
        assert (r.ok, r.id, r.text) == (True, "13", "2")
        assert eng.ok("name") == "dlgo"  # the engine goes on normally


def test_kata_analyze_ownership_and_sabaki_style_stop() -> None:
    with EngineProcess() as eng:
        eng.ok("boardsize 9")
        eng.send("kata-analyze B 20 ownership true\n")
        assert eng.read_line() == "=\n"
        _, own = parse_info_line(eng.read_line(15).rstrip("\n"), True, 9)
        assert own is not None and len(own) == 81
        eng.send("\n")  # a bare newline stops it too
        read_stream(eng)
        assert eng.ok("protocol_version") == "2"


def test_analysis_pv_never_holds_a_pass_in_the_endgame() -> None:
    with EngineProcess() as eng:
        eng.ok("boardsize 5")
        for v in ("c1", "c2", "c3", "c4", "c5"):
            eng.ok(f"play b {v}")
        for v in ("d1", "d2", "d3", "d4", "d5"):
            eng.ok(f"play w {v}")
        eng.send("lz-analyze b 5\n")
        eng.read_line()
        time.sleep(0.6)
        eng.send("name\n")
        lines = read_stream(eng)
        assert lines
        for line in lines:
            parse_info_line(line, False, 5)
        eng.read_response()


@pytest.mark.parametrize(
    "command, kata", [("lz-genmove_analyze", False), ("genmove_analyze", False), ("kata-genmove_analyze", True)]
)
def test_genmove_analyze(command: str, kata: bool) -> None:
    with EngineProcess("mcts.rounds=3000", "time.default_seconds=1") as eng:
        eng.ok("boardsize 9")
        eng.send(f"7 {command} B 10\n")
        assert eng.read_line() == "=7\n"
        lines = read_stream(eng, timeout=20)
        assert lines[-1].startswith("play ")
        move = lines[-1].split()[1]
        assert VERTEX.fullmatch(move) and move != "pass"
        for line in lines[:-1]:
            parse_info_line(line, kata, 9)
        assert stone_count(eng.ok("showboard"), "x") == 1  # the move was played
        assert eng.fail("kata-genmove_analyze B x") == "syntax error"


def test_genmove_interrupted_by_gogui() -> None:
    """`# interrupt` (GoGui) stops a long genmove; it answers the best move so far."""
    with EngineProcess(*LONG) as eng:
        eng.ok("boardsize 9")
        eng.send("genmove b\n")
        time.sleep(1.0)
        started = time.monotonic()
        eng.send("# interrupt\n")
        r = eng.read_response(timeout=5)
        assert time.monotonic() - started < 2.0
        assert r.ok and VERTEX.fullmatch(r.text) and r.text not in ("pass",)
        assert eng.no_output(0.2)  # the comment line gets no response of its own
        eng.send("genmove w\n")
        time.sleep(0.5)
        eng.send("gogui-interrupt\n")  # the command form interrupts too, and is answered after
        r = eng.read_response(timeout=5)
        assert r.ok and VERTEX.fullmatch(r.text)
        assert eng.read_response(timeout=5).text == ""
        assert stone_count(eng.ok("showboard"), "o") == 1


def test_analysis_refused_for_agents_that_do_not_search() -> None:
    with EngineProcess(config="configs/engine/random.toml") as eng:
        assert "does not search" in eng.fail("lz-analyze B 10")
        assert VERTEX.fullmatch(eng.ok("genmove b"))
        lines = None
        eng.send("genmove_analyze w 10\n")
        assert eng.read_line() == "=\n"
        lines = read_stream(eng)
        assert lines[-1].startswith("play ")
