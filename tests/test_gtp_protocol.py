"""GTP wire format: preprocessing, ids, response framing, argument parsing, start-up and exit."""

from __future__ import annotations

import subprocess
import time

import pytest
from gtp_client import PYTHON, ROOT, EngineProcess, InProcessEngine, parse_response

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from gtp_engine.protocol import (
    GtpError,
    format_move,
    format_response,
    is_interrupt_line,
    parse_color,
    parse_command,
    parse_float,
    parse_int,
    parse_move,
    parse_vertex,
    preprocess,
)


@pytest.mark.parametrize(
    "raw, cleaned",
    [
        ("name\r\n", "name"),
        ("  play b d4  ", "play b d4"),
        ("play\tb\td4", "play b d4"),
        ("# a comment", ""),
        ("genmove b # think hard", "genmove b"),
        ("\x01na\x02me\x7f", "name"),
        ("", ""),
        ("   \t  ", ""),
        ("\r", ""),
        ("1 name\r", "1 name"),
    ],
)
def test_preprocess(raw: str, cleaned: str) -> None:
    assert preprocess(raw) == cleaned


def test_parse_command_ids() -> None:
    assert parse_command("12 play b D4") == parse_command("12 play b D4")
    c = parse_command("12 play b D4")
    assert (c.id, c.name, c.args) == ("12", "play", ("b", "D4"))
    c = parse_command("007 name")
    assert (c.id, c.name) == ("7", "name")  # Sabaki reads ids as numbers: no leading zeros
    c = parse_command("name")
    assert (c.id, c.name, c.args) == (None, "name", ())
    c = parse_command("42")
    assert (c.id, c.name) == ("42", "")
    c = parse_command("-1 name")
    assert (c.id, c.name) == (None, "-1")
    huge = "9" * 5000
    assert parse_command(f"{huge} name").id == huge


def test_format_response() -> None:
    # "= " / "=ID " always with the space, as GNU Go writes them (GoGui's client cuts the answer
    # at the first space: "=5\n\n" would read as the answer "5").
    assert format_response(True, None, "") == "= \n\n"
    assert format_response(True, "5", "") == "=5 \n\n"
    assert format_response(False, "5", "") == "?5 \n\n"
    assert format_response(True, "5", "D4") == "=5 D4\n\n"
    assert format_response(False, None, "illegal move") == "? illegal move\n\n"
    assert format_response(True, None, "a\n\nb\n") == "= a\nb\n\n"
    assert format_response(True, None, "\nboard\nlines") == "= \nboard\nlines\n\n"
    assert format_response(True, "12", "\nboard\nlines") == "=12 \nboard\nlines\n\n"
    assert format_response(True, None, "a\n   \nb") == "= a\nb\n\n"
    for raw in (format_response(True, "3", "x\n\n\ny"), format_response(False, None, "\n\n")):
        parse_response(raw)


def test_interrupt_line() -> None:
    assert is_interrupt_line("# interrupt\n")
    assert is_interrupt_line("# interrupt\r\n")
    assert not is_interrupt_line("# something else")
    assert not is_interrupt_line("interrupt")


def test_arguments() -> None:
    assert parse_color("B") is Player.black and parse_color("white") is Player.white
    assert parse_color("w") is Player.white and parse_color("BLACK") is Player.black
    with pytest.raises(GtpError, match="syntax error"):
        parse_color("red")
    assert parse_vertex("d4", 19, 19) == Point(4, 4)
    assert parse_vertex("J9", 9, 9) == Point(9, 9)
    assert parse_vertex("H9", 9, 9) == Point(9, 8)
    assert parse_vertex("Z25", 25, 25) == Point(25, 25)
    for bad in ("I5", "5D", "D", "D0x", "", "DD4", "D-1", "D4.0", "Ｄ4", "D٤"):
        with pytest.raises(GtpError, match="syntax error"):
            parse_vertex(bad, 19, 19)
    for off in ("K10", "A0", "A99", "Z1"):
        with pytest.raises(GtpError, match="illegal move"):
            parse_vertex(off, 9, 9)
    assert parse_move("PASS", 9, 9).is_pass
    assert format_move(Move.pass_turn()) == "pass" and format_move(Move.play(Point(3, 8))) == "H3"
    assert parse_int("-3") == -3
    for bad in ("3.0", "x", "", "1" * 100, "٣"):
        with pytest.raises(GtpError):
            parse_int(bad)
    assert parse_float("-6.5") == -6.5 and parse_float("7") == 7.0 and parse_float("1e2") == 100.0
    for bad in ("nan", "inf", "1e999", "--1", "7,5", "", "0x10"):
        with pytest.raises(GtpError):
            parse_float(bad)


def test_wire_framing_in_process() -> None:
    eng = InProcessEngine()
    try:
        assert eng.ask_raw("# just a comment") == ""
        assert eng.ask_raw("   ") == ""
        assert eng.ask_raw("") == ""
        assert eng.ask_raw("7 protocol_version\r") == "=7 2\n\n"
        assert eng.ask_raw("name") == "= dlgo\n\n"
        assert eng.ask_raw("007 version").startswith("=7 ")
        assert eng.ask_raw("3 no_such_command") == "?3 unknown command\n\n"
        assert eng.ask_raw("99") == "?99 unknown command\n\n"
        assert eng.ask_raw("PLAY b d4") == "? unknown command\n\n"  # names are case-sensitive
        r = eng.ask("list_commands")
        assert r is not None and "protocol_version" in r.lines and "" not in r.lines
        assert eng.ask_raw("known_command genmove") == "= true\n\n"
        assert eng.ask_raw("known_command frobnicate") == "= false\n\n"
        assert eng.ask_raw("known_command") == "? syntax error\n\n"
    finally:
        eng.close()


def test_startup_is_fast_and_stdout_is_clean() -> None:
    """name/version/protocol_version/list_commands answer within about a second of start-up."""
    with EngineProcess(config="configs/engine/default.toml") as eng:
        for line in ("name", "version", "protocol_version", "list_commands"):
            eng.command(line, timeout=10)
        elapsed = time.monotonic() - eng.started
        assert elapsed < 2.5, f"start-up took {elapsed:.2f} s"
        assert eng.close() == 0


def test_eof_without_quit_exits_zero() -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "gtp_engine", "--config", str(ROOT / "configs/engine/random.toml")],
        input=b"name\r\nboardsize 9\nplay b e5\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    assert proc.stdout == b"= dlgo\n\n= \n\n= \n\n"


def test_quit_answers_then_exits() -> None:
    proc = subprocess.run(
        [PYTHON, "-m", "gtp_engine", "--config", str(ROOT / "configs/engine/random.toml")],
        input=b"5 quit\nname\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    assert proc.stdout == b"=5 \n\n"


def test_only_responses_on_stdout_even_with_logging() -> None:
    """Debug logging goes to stderr; stdout holds nothing but well-formed responses."""
    proc = subprocess.run(
        [
            PYTHON,
            "-m",
            "gtp_engine",
            "--config",
            str(ROOT / "configs/engine/mcts.toml"),
            "--set",
            "log.level=debug",
            "--set",
            "mcts.rounds=200",
        ],
        input=b"boardsize 9\ngenmove b\ngenmove w\nfinal_score\nquit\n",
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )
    assert proc.returncode == 0
    out = proc.stdout.decode()
    chunks = out.split("\n\n")
    assert chunks[-1] == ""
    for chunk in chunks[:-1]:
        parse_response(chunk + "\n\n")
    assert len(chunks) - 1 == 5
    assert b"genmove" in proc.stderr
