"""The play layer (``dlgo.play``) under both front ends: the same config gives the same moves,
the same counts and the same board sizes through the library, GTP and the web page."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gtp_client import InProcessEngine

from dlgo.goboard import Move
from dlgo.gotypes import Player, Point
from dlgo.play.agents import AgentPool
from dlgo.play.config import load_config
from dlgo.play.errors import IllegalMove, UnsupportedSize
from dlgo.play.session import PlaySession
from dlgo.utils import move_to_text, point_from_coords
from dlgo_web.bots import Bot
from dlgo_web.games import GameSession

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = str(ROOT / "configs" / "engine" / "default.toml")
# Fixed visits, one search thread, no variety, no pondering: a search that repeats itself.
FIXED = [
    "size.9.zero.rounds=48",
    "time.default_seconds=0",
    "engine.ponder=false",
    "engine.preload=false",
    "size.9.zero.threads=1",
    "size.9.zero.seed=5",
]
HUMAN_MOVES = ["E5", "C3", "G7", "C7", "G3"]


def _session_moves(session: PlaySession) -> list[str]:
    """White's answers to ``HUMAN_MOVES`` played for Black, decided by the session directly."""
    answers = []
    for text in HUMAN_MOVES:
        session.play(Player.black, Move.play(point_from_coords(text)))
        choice = session.genmove(Player.white).result(120)
        answers.append(move_to_text(choice.move))
    return answers


def test_the_library_gtp_and_the_web_page_play_the_same_moves():
    config = load_config(DEFAULT, [*FIXED, "engine.board_size=9", "engine.komi=7"])  # as the other two
    library = _session_moves(PlaySession(config))

    gtp = InProcessEngine(*FIXED, config="configs/engine/default.toml")
    gtp.ok("boardsize 9")
    gtp.ok("komi 7")
    over_gtp = []
    for text in HUMAN_MOVES:
        gtp.ok(f"play b {text}")
        over_gtp.append(gtp.ok("genmove w").upper())

    bot = Bot("default", load_config(DEFAULT, FIXED))
    web = GameSession.start(bot, 9, 7.0, 0, Player.black)
    on_page = []
    for text in HUMAN_MOVES:
        web.play(text)
        assert web.wait(60)
        on_page.append(web.game.moves[-1][1])
    on_page_text = [move_to_text(m) for m in on_page]

    assert library == over_gtp == on_page_text, (library, over_gtp, on_page_text)
    assert len(set(library)) == len(library)  # real moves, not passes


def test_sizes_are_answered_once_for_every_front_end():
    """A 9x9-only network (a fixed-input policy network) plays 9x9 alone: GTP refuses
    ``boardsize 19`` as an unacceptable size, the page does not offer it, the session refuses it."""
    path = str(ROOT / "configs" / "engine" / "pg-9x9.toml")
    gtp = InProcessEngine(config="configs/engine/pg-9x9.toml")
    assert gtp.fail("boardsize 19") == "unacceptable size"
    assert gtp.fail("boardsize 13") == "unacceptable size"
    gtp.ok("boardsize 9")
    assert gtp.ok("genmove b")

    bot = Bot("pg-9x9", load_config(path))
    assert bot.describe()["sizes"] == [9]
    assert not bot.plays(19)

    session = PlaySession(load_config(path, ["engine.board_size=19"]))
    with pytest.raises(UnsupportedSize):
        session.genmove(Player.black)  # refused at once, before any search


def test_the_page_counts_as_the_engine_counts():
    """The page's count is the session's, so ``scoring`` applies to both (it used playouts
    always, whatever the config said)."""
    sets = ["scoring.dead_stones=playouts", "scoring.playouts=200", "scoring.seed=5"]
    bot = Bot("default", load_config(DEFAULT, sets))
    web = GameSession.start(bot, 9, 7.0, 0, Player.black)
    gtp = InProcessEngine(*sets, config="configs/engine/default.toml")
    gtp.ok("boardsize 9")
    gtp.ok("komi 7")
    for row in range(1, 10):
        for player, col in ((Player.black, "E"), (Player.white, "F")):
            point = f"{col}{row}"
            web.play_session.play(player, Move.play(point_from_coords(point)))
            gtp.ok(f"play {player.name[0]} {point}")
    web.play_session.play(Player.black, Move.play(Point(5, 2)))
    gtp.ok("play b B5")
    assert str(web.count().result) == gtp.ok("final_score")


def test_a_refused_move_changes_nothing():
    session = PlaySession(load_config(DEFAULT, [*FIXED, "engine.board_size=9"]))
    session.play(Player.black, Move.play(Point(5, 5)))
    with pytest.raises(IllegalMove):
        session.play(Player.white, Move.play(Point(5, 5)))
    assert session.game.num_moves == 1


def test_games_searching_at_once_get_their_own_agents():
    """One pool, two sessions deciding at the same time: the second is lent a spare agent, not
    the one the first is searching with (a search tree serves one search at a time)."""
    # no opening book: the empty board is searched, not played from the book
    config = load_config(DEFAULT, [*FIXED, "engine.board_size=9", "size.9.zero.rounds=400", "size.9.book.file="])
    pool = AgentPool(config)
    sessions = [PlaySession(config, pool), PlaySession(config, pool)]
    used: list[object] = []
    errors: list[BaseException] = []

    def think(session: PlaySession) -> None:
        try:
            move = session.genmove(Player.black, commit=False)
            move.result(120)
            used.append(move.agent)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=think, args=(s,)) for s in sessions]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors
    assert len(used) == 2 and used[0] is not used[1]
    _, _, build = pool.request(9, 9)
    assert len(build.spares) == 1  # kept for the next move that needs one
