"""``loadsgf`` on records as users have them (issue 12 item 7): what a viewer loads, replayed under
the record's own rules, repairs logged, failures answered with their reason, and only regular files
read. GNU Go's ``loadsgf`` is the referee for the resulting positions."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gtp_client import EngineProcess, InProcessEngine, gnugo_stones

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.sgf import MAX_FILE_BYTES, read_game

FAST = ("mcts.rounds=50", "time.default_seconds=0")

# Set-up kos on 9x9 (see tests/test_sgf_replay.py): Black can take at C7 and G7, White at C3.
KOS = "AB[bb][ac][bd][cf][bg][ch][dg][hb][ic][hd]AW[cb][bc][dc][cd][bf][ag][bh][gb][hc][fc][gd]PL[B]"
CYCLE = ";B[cc];W[cg];B[gc];W[bc];B[bg];W[hc]"  # six captures in turn: the first position again

# A real triple ko: the main line of a KGS game of 2003 (7d against 5d, two stones, Japanese
# rules), voided after moves 102-114 went round the three kos twice; move 108 repeats the
# position after move 102. Before, loadsgf refused it ("move 108 (B S8) is illegal: superko").
KGS_TRIPLE_KO = (
    "(;GM[1]FF[4]SZ[19]KM[0.50]HA[2]RU[Japanese]RE[Void]AB[pd][dp]"
    ";W[qp];B[op];W[dd];B[qq];W[rq];B[pq];W[ro];B[kq];W[pm];B[cf];W[fd];B[dj];W[fq];B[hq];W[cq];B[cp]"
    ";W[dq];B[ep];W[fr];B[go];W[nc];B[bp];W[bq];B[aq];W[ar];B[ap];W[cr];B[ef];W[gk];B[el];W[ce];B[bf]"
    ";W[qf];B[pf];W[pg];B[of];W[qe];B[qd];W[md];B[oc];W[ob];B[nd];W[nb];B[pb];W[lc];B[rd];W[og];B[ng]"
    ";W[qi];B[mf];W[gf];B[jc];W[ke];B[fb];W[hb];B[hc];W[gc];B[gb];W[ib];B[ec];W[ed];B[cc];W[dc];B[db]"
    ";W[bc];B[bb];W[cd];B[cb];W[ic];B[qk];W[ok];B[pj];W[oj];B[pi];W[ph];B[oi];W[ni];B[nh];W[oh];B[qh]"
    ";W[qg];B[ri];W[rh];B[rj];W[ql];B[rl];W[pk];B[qj];W[rm];B[qh];W[rg];B[sk];W[sm];B[re];W[si];B[sh]"
    ";W[sl];B[sj];W[sg];B[sf];W[si];B[rf];W[qi];B[sh];W[rk];B[qh];W[si];B[rl];W[qi];B[sh];W[rk];B[qh]"
    ";W[si];B[rl])"
)

# One record per failure class the issue found (and what a viewer does with moves that no rules
# allow), each as GNU Go loads it.
RECORDS = {
    "missing_paren": "(;GM[1]FF[4]SZ[9]KM[7.5];B[cc];W[gg];B[dd]\n",
    # No AE here: GNU Go 3.8 ignores AE after a move (dlgo.sgf applies it, as the SGF spec says;
    # see tests/test_sgf_replay.py).
    "setup_mid_game": "(;GM[1]FF[4]SZ[9];B[cc];W[gg];AB[ee];AW[aa];W[dd];B[ff])",
    "both_colours": "(;GM[1]FF[4]SZ[9];B[cc]W[gg];B[dd])",
    "triple_ko_japanese": f"(;GM[1]FF[4]SZ[9]RU[Japanese]{KOS}{CYCLE}{CYCLE};B[cc])",
    "triple_ko_chinese": f"(;GM[1]FF[4]SZ[9]RU[Chinese]{KOS}{CYCLE};B[cc])",
    "kgs_triple_ko": KGS_TRIPLE_KO,
    "ko_taken_back_at_once": f"(;GM[1]FF[4]SZ[9]{KOS};B[cc];W[bc];B[gg])",
    "suicide": "(;GM[1]FF[4]SZ[9];B[ab];W[dd];B[ba];W[ee];B[ff];W[aa];B[gg])",
    "occupied_point": "(;GM[1]FF[4]SZ[9];B[cc];W[gg];B[gg];W[dd])",
}

# The stones each record leaves (and who is to move): what these tests expect of the engine
# with or without GNU Go at hand.
EXPECTED = {
    "missing_paren": ("white", {"C7": "black", "G3": "white", "D6": "black"}),
    "setup_mid_game": (
        "white",
        {"C7": "black", "G3": "white", "E5": "black", "A9": "white", "D6": "white", "F4": "black"},
    ),
    "both_colours": ("white", {"C7": "black", "G3": "white", "D6": "black"}),
    "occupied_point": ("black", {"C7": "black", "G3": "white"}),
}


def our_stones(eng: InProcessEngine) -> dict[str, str]:
    cols = "ABCDEFGHJKLMNOPQRST"
    return {f"{cols[p.col - 1]}{p.row}": c.name for p, c in eng.engine.game.state.board.stones()}


def write(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.sgf"
    path.write_text(RECORDS[name])
    return path


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_loadsgf_loads_records_as_users_have_them(eng: InProcessEngine, tmp_path, caplog, name: str) -> None:
    path = write(tmp_path, name)
    with caplog.at_level("INFO"):
        colour = eng.ok(f"loadsgf {path}")
    record = read_game(path, log_repairs=False)
    if name in EXPECTED:
        assert (colour, our_stones(eng)) == EXPECTED[name]
    # What was repaired (or is worth a word) is in the log, naming the file.
    said = [r.message for r in record.repairs] + record.notes
    assert said and all(f"{path}: {message}" in caplog.text for message in said)
    if name == "triple_ko_japanese":
        assert record.repairs == []  # legal history under its own rules
        expected = {**our_stones_after_setup(record), "C7": "black"}
        del expected["B7"]  # two full cycles, then Black takes the first ko again
        assert our_stones(eng) == expected
    # The engine plays on from there under its own rules.
    assert eng.engine.game.num_moves >= 1
    eng.ok("undo")
    eng.ok(f"genmove {colour}")


def our_stones_after_setup(record) -> dict[str, str]:
    cols = "ABCDEFGHJKLMNOPQRST"
    return {f"{cols[p.col - 1]}{p.row}": c.name for p, c in record.initial_state.board.stones()}


@pytest.mark.gnugo
@pytest.mark.parametrize("name", sorted(RECORDS))
def test_loaded_position_matches_gnugo(eng: InProcessEngine, gnugo, tmp_path, name: str) -> None:
    path = write(tmp_path, name)
    theirs = gnugo.send(f"loadsgf {path}")
    assert eng.ok(f"loadsgf {path}") == theirs
    assert our_stones(eng) == gnugo_stones(gnugo)


def test_real_triple_ko_is_history_under_its_japanese_rules(eng: InProcessEngine, tmp_path) -> None:
    path = write(tmp_path, "kgs_triple_ko")
    record = read_game(path)
    assert len(record.moves) == 114 and record.repairs == []
    assert record.notes == [
        "7 moves (108, 109, 110, 111, 112, 113, 114) repeat an earlier position (a ko cycle such as"
        " triple ko): legal under simple ko (RU[Japanese])"
    ]
    states = record.states()
    assert states[108].board == states[102].board and states[114].board == states[102].board
    assert eng.ok(f"loadsgf {path}") == "white"
    assert eng.engine.game.num_moves == 114 and eng.engine.game.handicap == 2
    # This engine's own rules (superko) hold from here: White may not go round once more (W[qi]).
    assert eng.fail("play w R11") == "illegal move"
    assert eng.engine.game.is_legal(Player.black, Move.play(Point(11, 17)))  # not occupied: a ko ban
    assert eng.ok(f"loadsgf {path} 108") == "black"  # the position before the first repetition
    assert eng.engine.game.num_moves == 107


def test_setup_after_a_move_starts_the_game_there(eng: InProcessEngine, tmp_path) -> None:
    path = write(tmp_path, "setup_mid_game")
    assert eng.ok(f"loadsgf {path}") == "white"
    for _ in range(2):
        eng.ok("undo")
    assert eng.fail("undo") == "cannot undo"  # the setup position is where this game starts
    assert our_stones(eng) == {"C7": "black", "G3": "white", "E5": "black", "A9": "white"}
    # printsgf writes that position as setup, so the record it writes loads as it is.
    eng.ok(f"loadsgf {path}")
    out = tmp_path / "out.sgf"
    eng.ok(f"printsgf {out}")
    again = read_game(out)
    assert again.repairs == [] and dict(again.final_state.board.stones()) == dict(eng.engine.game.state.board.stones())
    # Before the setup: the moves up to there.
    assert eng.ok(f"loadsgf {path} 2") == "white"
    assert our_stones(eng) == {"C7": "black"}


def test_loadsgf_failure_names_the_reason(eng: InProcessEngine, tmp_path) -> None:
    eng.ok("play b e5")
    cases = {
        tmp_path / "missing.sgf": "cannot load file: cannot read: No such file or directory",
        tmp_path / "junk.sgf": "cannot load file: malformed SGF: no SGF data found",
        tmp_path / "big.sgf": "cannot load file: board size SZ[30] is not supported (sizes 2 to 25)",
        tmp_path / "chess.sgf": "cannot load file: not a game of Go (GM[3])",
    }
    (tmp_path / "junk.sgf").write_text("this is not sgf\nat all")
    (tmp_path / "big.sgf").write_text("(;GM[1]FF[4]SZ[30])")
    (tmp_path / "chess.sgf").write_text("(;GM[3]FF[4])")
    for path, answer in cases.items():
        assert eng.fail(f"loadsgf {path}") == answer
    assert our_stones(eng) == {"E5": "black"}  # a failed load changes nothing


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="needs FIFOs and /dev")
def test_loadsgf_answers_at_once_for_anything_but_a_regular_file(tmp_path) -> None:
    """A FIFO nobody writes, /dev/zero, the engine's own stdin, a directory, a huge file: each
    answered at once (a real process with a timeout: before, these hung or ate memory)."""
    fifo = tmp_path / "pipe.sgf"
    os.mkfifo(fifo)
    big = tmp_path / "big.sgf"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)
    cases = {
        fifo: "not a regular file (a FIFO or pipe)",
        "/dev/zero": "not a regular file (a character device)",
        "/dev/stdin": "not a regular file (a FIFO or pipe)",  # the GTP pipe itself
        tmp_path: "not a regular file (a directory)",
        big: f"too large ({MAX_FILE_BYTES + 1} bytes; the limit is {MAX_FILE_BYTES})",
    }
    with EngineProcess(*FAST) as eng:
        eng.ok("boardsize 9", timeout=120)  # start-up on a loaded machine
        for path, reason in cases.items():
            assert eng.fail(f"loadsgf {path}", timeout=30) == f"cannot load file: {reason}"
        assert eng.ok("play b e5") == ""  # the GTP stream is intact: nothing was read from it
        assert eng.ok("name")


def test_loadsgf_bounds_the_work_not_only_the_bytes(tmp_path) -> None:
    """655,360 passes fit under the byte limit (5 MB) but were 1.3 million nodes: 20-26 s and
    875 MB in loadsgf. They are refused at once now, and the stream goes on."""
    from dlgo.sgf import MAX_NODES

    passes = tmp_path / "passes.sgf"
    passes.write_text("(;GM[1]SZ[19]" + ";B[];W[]" * 655360 + ")")
    with EngineProcess(*FAST) as eng:
        eng.ok("boardsize 19", timeout=120)
        started = time.monotonic()
        answer = eng.fail(f"loadsgf {passes}", timeout=30)
        assert time.monotonic() - started < 10
        assert answer == f"cannot load file: too many nodes (1310721; the limit is {MAX_NODES})"
        assert eng.ok("play b d4") == ""


def test_node_limit_counts_nodes_not_semicolons_in_comments() -> None:
    from dlgo.sgf import MAX_NODES

    comment = ";" * (MAX_NODES + 10)
    assert len(read_game(f"(;GM[1]SZ[9]C[{comment}\\]];B[ee])").moves) == 1
    long_line = "(;GM[1]SZ[9]" + ";B[tt];W[tt]" * 3000 + ")"
    with pytest.raises(ValueError, match="main line is too long"):
        read_game(long_line)


def test_printsgf_writes_only_regular_files_and_never_into_its_own_streams(tmp_path) -> None:
    """A FIFO hung the engine for good (neither quit nor end of input was read after it), and
    ``/proc/self/fd/N`` wrote the record into the GTP output, unframed. Both are refused at once,
    with stdout a pipe and with stdout a regular file; a plain file is still written."""
    fifo = tmp_path / "record.sgf"
    os.mkfifo(fifo)
    saved = tmp_path / "game.sgf"
    lines = [f"printsgf {fifo}", "printsgf /dev/null"]
    lines += [f"printsgf /proc/self/fd/{fd}" for fd in range(3, 8)]
    lines += ["play b e5", f"printsgf {saved}", "name", "quit"]
    for stdout_file in (False, True):
        out_path = tmp_path / "out.txt"
        with open(out_path, "wb") as out:
            proc = subprocess.run(
                [sys.executable, "-m", "gtp_engine", "--config", "configs/engine/random.toml"],
                input="\n".join(lines).encode() + b"\n",
                stdout=out if stdout_file else subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                timeout=120,
                cwd=Path(__file__).resolve().parent.parent,
            )
        text = out_path.read_text() if stdout_file else proc.stdout.decode()
        answers = text.split("\n\n")
        assert answers[0] == f"? cannot save file: {fifo}: No such device or address"  # no reader: at once
        assert answers[1] == "? cannot save file: /dev/null: not a regular file"
        assert "(;" not in text  # no record ever reached the GTP stream
        assert answers[-5:] == ["= ", "= ", "= dlgo", "= ", ""]
        assert saved.read_text().startswith("(;FF[4]") and ";B[eo]" in saved.read_text()  # E5 on 19x19
