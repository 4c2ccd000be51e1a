"""gtp2ogs 9.x traffic replayed exactly (see docs/ogs.md and gtp2ogs' Bot.ts):
CRLF line ends, lower-case vertices, negative komi, setup stones as plays, the clock commands
before every genmove, free handicap both ways, pipelined commands and quit. Every answer is
checked the way gtp2ogs reads it."""

from __future__ import annotations

import re

import pytest
from gtp_client import EngineProcess, Response

SETTINGS = ("mcts.rounds=300", "time.default_seconds=0", "resign.enabled=false", "log.level=info")
CRLF = "\r\n"
VERTEX = re.compile(r"[a-hj-z][0-9]{1,2}|pass|resign")


def gtp2ogs(eng: EngineProcess, line: str, timeout: float = 60) -> str:
    """Send as gtp2ogs does (CRLF) and read the answer as it does: '=' then the text, trimmed.
    A '?' answer or anything else counts as a crash for gtp2ogs, so it fails the test."""
    r = eng.command(line, timeout=timeout, eol=CRLF)
    assert r.ok, f"gtp2ogs would count a crash: {line!r} -> ? {r.text}"
    return r.text.strip()


def parse_moves(answer: str, size: int) -> list[str]:
    moves = answer.lower().split()
    for m in moves:
        assert VERTEX.fullmatch(m), answer
        if m not in ("pass", "resign"):
            assert "abcdefghjklmnopqrstuvwxyz".index(m[0]) < size and 1 <= int(m[1:]) <= size, answer
    return moves


def start_game(eng: EngineProcess, size: int, komi: float) -> None:
    commands = gtp2ogs(eng, "list_commands").split("\n")
    for needed in (
        "kgs-time_settings",
        "kata-list_time_settings",
        "kata-time_settings",
        "time_settings",
        "time_left",
        "place_free_handicap",
        "set_free_handicap",
    ):
        assert needed in commands
    assert "fischer-capped" in gtp2ogs(eng, "kata-list_time_settings")
    gtp2ogs(eng, f"boardsize {size}")
    gtp2ogs(eng, "clear_board")
    gtp2ogs(eng, f"komi {komi}")


def byoyomi_clock(eng: EngineProcess, black: tuple[int, int], white: tuple[int, int]) -> None:
    gtp2ogs(eng, "kgs-time_settings byoyomi 600 30 5")
    gtp2ogs(eng, f"time_left black {black[0]} {black[1]}")
    gtp2ogs(eng, f"time_left white {white[0]} {white[1]}")


def test_bot_white_in_free_handicap_game_with_byoyomi() -> None:
    with EngineProcess(*SETTINGS) as eng:
        start_game(eng, 19, 0.5)
        gtp2ogs(eng, "set_free_handicap d4 q16 d16")
        byoyomi_clock(eng, (600, 0), (600, 0))
        (move,) = parse_moves(gtp2ogs(eng, "genmove white"), 19)
        assert move not in ("pass", "resign", "d4", "q16", "d16")
        gtp2ogs(eng, "play black q4")
        byoyomi_clock(eng, (590, 0), (12, 3))  # White in byo-yomi: 3 periods left
        (move2,) = parse_moves(gtp2ogs(eng, "genmove white"), 19)
        assert move2 not in (move, "q4", "resign")
        gtp2ogs(eng, "play black pass")
        byoyomi_clock(eng, (580, 0), (30, 1))
        parse_moves(gtp2ogs(eng, "genmove white"), 19)
        r = eng.command("quit", eol=CRLF)
        assert r.ok and r.text == ""
        assert eng.proc.wait(timeout=10) == 0
        assert eng.no_output(0.2)
        for word in ("DISCUSSION:", "MALKOVICH:", "MAIN:"):
            assert word not in eng.stderr()  # ordinary logs never become chat


@pytest.mark.parametrize("stones", [2, 3, 4, 5, 9])
def test_bot_black_places_free_handicap(stones: int) -> None:
    with EngineProcess(*SETTINGS) as eng:
        start_game(eng, 19, 0.5)
        byoyomi_clock(eng, (600, 0), (600, 0))  # loadClock runs before place_free_handicap too
        vertices = parse_moves(gtp2ogs(eng, f"place_free_handicap {stones}"), 19)
        assert len(vertices) == stones == len(set(vertices))  # else gtp2ogs resigns
        reply = next(v for v in ("q10", "r14", "c15") if v not in vertices)
        gtp2ogs(eng, f"play white {reply}")
        byoyomi_clock(eng, (600, 0), (595, 0))
        (move,) = parse_moves(gtp2ogs(eng, "genmove black"), 19)
        assert move not in vertices and move != reply


def test_replay_after_restart_with_setup_stones_and_negative_komi() -> None:
    """An engine restarted mid-game gets the whole game again: initial setup stones as plays
    (all Black's, then all White's), then the moves with passes, lower-case vertices."""
    with EngineProcess(*SETTINGS) as eng:
        start_game(eng, 9, -3.5)
        for v in ("c3", "g7", "e5"):
            gtp2ogs(eng, f"play black {v}")
        for v in ("c7", "g3"):
            gtp2ogs(eng, f"play white {v}")
        for colour, v in (("black", "d4"), ("white", "f6"), ("black", "pass"), ("white", "d6"), ("black", "f4")):
            gtp2ogs(eng, f"play {colour} {v}")
        gtp2ogs(eng, "time_settings 0 10 1")  # simple: 10 s per move
        gtp2ogs(eng, "time_left black 10 1")
        gtp2ogs(eng, "time_left white 9 1")
        (move,) = parse_moves(gtp2ogs(eng, "genmove white"), 9)
        assert move not in ("c3", "g7", "e5", "c7", "g3", "d4", "f6", "d6", "f4", "resign")
        assert "komi: -3.5" in gtp2ogs(eng, "showboard")


def test_pipelined_commands_with_every_clock_system() -> None:
    """gtp2ogs writes the clock commands without waiting for answers: answers come in order."""
    with EngineProcess(*SETTINGS) as eng:
        start_game(eng, 13, 6.5)
        batches = [
            [
                "kata-time_settings fischer-capped 300 10 600 -1",
                "time_left black 295 0",
                "time_left white 300 0",
                "genmove black",
            ],
            ["kgs-time_settings canadian 600 300 25", "time_left black 0 25", "time_left white 580 0", "genmove white"],
            ["time_settings 300 0 0", "time_left black 280 0", "time_left white 290 0", "genmove black"],
            ["time_settings 120 30 1", "time_left black 30 1", "time_left white 100 0", "genmove white"],
            ["kgs-time_settings byoyomi 0 20 3", "time_left black 15 2", "time_left white 20 3", "genmove black"],
        ]
        played = set()
        for batch in batches:
            eng.send("".join(line + CRLF for line in batch))
            answers: list[Response] = [eng.read_response(timeout=60) for _ in batch]
            assert all(r.ok for r in answers), [(line, r.text) for line, r in zip(batch, answers)]
            assert [r.text for r in answers[:-1]] == ["", "", ""]
            (move,) = parse_moves(answers[-1].text, 13)
            assert move not in played
            played.add(move)


def test_rectangular_board() -> None:
    with EngineProcess(*SETTINGS) as eng:
        gtp2ogs(eng, "boardsize 9 13")
        gtp2ogs(eng, "clear_board")
        gtp2ogs(eng, "komi 7.5")
        gtp2ogs(eng, "play black j13")
        (move,) = parse_moves(gtp2ogs(eng, "genmove white"), 13)
        assert move != "j13" and move[0] in "abcdefghj"
