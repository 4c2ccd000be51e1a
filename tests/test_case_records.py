"""The case records of ``../shared/data/cases``: games in which our bot, behind on the count, played
on inside its own area while its opponent passed (once until its own groups died).

Every position of those records where the opponent has just passed is put to the engine as
shipped (``configs/engine/default.toml``, fewer visits): its move must be a pass, a resignation,
or a play outside its own territory as GNU Go counts it (``final_status_list black_territory``,
Chinese rules). The records are read from the shared folder, never copied into the repository;
the test skips without them.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gnugo import parse_vertices
from gtp_client import ROOT, InProcessEngine
from sgfmill import sgf

CASES = ROOT.parent / "shared" / "data" / "cases"
RECORDS = ["ogs-self-fill-9x9.sgf", "self-fill-direct-gtp-9x9.sgf", "play-on-while-opponent-passes-19x19.sgf"]
OUR_COLOUR = "b"  # the engine played Black in each record (PB)
QUICK = ("zero.rounds=120", "time.default_seconds=0", "engine.ponder=false", "engine.preload=false")


def _moves(path: Path) -> tuple[int, float, list[str]]:
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
    size = game.get_size()
    vertices = []
    for node in game.get_main_sequence()[1:]:
        colour, move = node.get_move()
        if colour is None:
            continue
        vertices.append("pass" if move is None else "ABCDEFGHJKLMNOPQRST"[move[1]] + str(move[0] + 1))
    return size, game.get_komi(), vertices


def _after_opponent_passes(vertices: list[str]) -> list[int]:
    """The move numbers (0-based) at which we are to play right after the opponent's pass."""
    ours = 0 if OUR_COLOUR == "b" else 1
    return [i for i in range(1, len(vertices)) if i % 2 == ours and vertices[i - 1] == "pass"]


@pytest.mark.parametrize("name", RECORDS)
def test_after_each_pass_of_the_opponent_the_bot_never_plays_inside_its_own_territory(name, gnugo):
    path = CASES / name
    if not path.exists():
        pytest.skip(f"{path} not found (the shared case records)")
    size, komi, vertices = _moves(path)
    eng = InProcessEngine(*QUICK, config="configs/engine/default.toml")
    answers = []
    try:
        for turn in _after_opponent_passes(vertices):
            for client in (eng.ok, gnugo.send):
                client(f"boardsize {size}")
                client("clear_board")
                client(f"komi {komi}")
            for i, vertex in enumerate(vertices[:turn]):
                colour = "b" if i % 2 == 0 else "w"
                eng.ok(f"play {colour} {vertex}")
                gnugo.send(f"play {colour} {vertex}")
            answer = eng.ok(f"genmove {OUR_COLOUR}").lower()
            territory = set(parse_vertices(gnugo.send("final_status_list black_territory")))
            answers.append((turn + 1, answer))
            if answer in ("pass", "resign"):
                continue
            played = parse_vertices(answer)[0]
            assert played not in territory, f"move {turn + 1}: {answer} inside our own territory; answers {answers}"
    finally:
        eng.close()
    assert answers, "the record has no pass of the opponent"
