"""The real gtp2ogs 9.0.1 plays the engine against GNU Go on the OGS stand-in (``dlgo_ogs``), with
both shipped configs as an operator runs them: clocks of every system OGS has, handicap both ways,
resignations, both passes and the stone-removal phase, an engine killed and the connection dropped
mid-game, many games at once, and the variations gtp2ogs sends as analysis. Every game is checked
whole (tests/ogs_helpers.py, ``check_game``): finished with a result, every move legal, no move
after a time-out. The default run's sessions take about three minutes on 2 cores; the rest is slow.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest
from ogs_helpers import BLITZ, GTP2OGS_JS, ROOT, check_game, missing_tools, own_territory_moves, run_standin

from dlgo_ogs.clock import PlayerClock, TimeControl

MISSING = missing_tools()
RECONNECT_RACE = (
    "gtp2ogs 9.0.1: a reconnection within release_delay reuses the engine that the old game's delayed release "
    "then kills mid-genmove; the game hangs until lost on time"
)
needs_gtp2ogs = pytest.mark.skipif(MISSING is not None, reason=MISSING or "")


def check_session(session, games: int) -> None:
    assert session.returncode == 0, f"{session.summary['problems']}\n{session.stderr[-3000:]}"
    assert session.summary["ok"] and session.summary["stopped_by"] == "games over"
    assert session.summary["bot_config_received"] and not session.summary["unknown_commands"]
    assert len(session.games) == games
    for game in session.games:
        check_game(game)


# --- the stand-in's clock, without gtp2ogs --------------------------------------------------------
def test_byoyomi_clock_spends_main_time_then_periods():
    clock = PlayerClock(TimeControl.parse("byoyomi:10:5:3"))
    assert clock.allowance() == 25
    assert clock.charge(12) and (clock.thinking_time, clock.periods) == (0, 3)  # 2 s into the first period
    assert clock.charge(11) and clock.periods == 1  # two periods used up
    assert not clock.charge(5.5)  # past the last period: lost on time


def test_canadian_and_fischer_clocks():
    canadian = PlayerClock(TimeControl.parse("canadian:0:20:2"))
    assert canadian.charge(15) and (canadian.block_time, canadian.moves_left) == (5, 1)
    assert not canadian.charge(6)
    fischer = PlayerClock(TimeControl.parse("fischer:30:10:35"))
    assert fischer.charge(2) and fischer.thinking_time == 35  # capped at max_time
    assert TimeControl.parse("fischer:86400:43200:172800").speed == "correspondence"


# --- through gtp2ogs --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def clock_session(tmp_path_factory):
    """Every clock system on 9x9, colours alternating, and a 13x13 game the opponent resigns."""
    games = [
        f"{BLITZ},bot=white",
        "clock=canadian:20:20:5,speed=blitz,bot=black",
        "clock=fischer:30:5:60,speed=blitz,bot=white",
        "clock=simple:5,speed=blitz,bot=black",
        "clock=absolute:300,speed=blitz,bot=white",
        f"size=13,{BLITZ},bot=black,resign=40",
    ]
    return run_standin(tmp_path_factory.mktemp("ogs-clocks"), games, "persistent")


@needs_gtp2ogs
def test_every_clock_system_whole_games(clock_session):
    check_session(clock_session, 6)
    systems = {g["time_control"]["system"] for g in clock_session.games}
    assert systems == {"byoyomi", "canadian", "fischer", "simple", "absolute"}
    assert {g["size"] for g in clock_session.games} == {9, 13}
    assert {g["bot_color"] for g in clock_session.games} == {"black", "white"}


@needs_gtp2ogs
def test_both_pass_then_stone_removal(clock_session):
    scored = [g for g in clock_session.games if g["reason"] == "score"]
    assert scored, [g["result"] for g in clock_session.games]
    for game in scored:
        assert game["stone_removal"] and game["score"] is not None


@needs_gtp2ogs
def test_opponent_resigns_on_13x13(clock_session):
    game = next(g for g in clock_session.games if g["size"] == 13)
    assert game["reason"] == "resignation" and game["winner"] == "bot" and len(game["moves"]) >= 39


@needs_gtp2ogs
def test_variations_reach_ogs_as_analysis(clock_session):
    """chat.variations=true prints Leela Zero-style candidates; gtp2ogs's send_pv_data sends them
    as game/chat bodies of type "analysis" (and chat.enabled's MALKOVICH lines as chat)."""
    for game in clock_session.games:
        assert game["analysis"], f"game {game['game_id']}: no analysis messages"
        for message in game["analysis"]:
            body = message["body"]
            assert body["type"] == "analysis" and body["engine_analysis"]["win_rate"] > 0
            assert len(body["moves"]) % 2 == 0 and body["marks"]["circle"] == body["moves"][:2]
        # Nearly every searched move (not the opening book's first moves, not the closing passes)
        # reaches OGS; the stand-in's opponent never answers within gtp2ogs's release_delay,
        # after which gtp2ogs 9.0.1 drops half of them (its listener race, dlgo_ogs.session).
        searched = {
            number
            for number, move in enumerate(game["moves"], start=1)
            if move["by"] == "bot" and number > 4 and move["vertex"] != "pass"
        }
        # Numbered for the move they explain, or the next one when gtp2ogs read the move first.
        chatted = {c["move_number"] - d for c in game["chats"] if c["type"] == "malkovich" for d in (0, 1)}
        analysed = {m["move_number"] - d for m in game["analysis"] for d in (0, 1)}
        assert len(searched & chatted) >= 0.8 * len(searched), (sorted(searched - chatted), game["game_id"])
        assert len(searched & analysed) >= 0.8 * len(searched), (sorted(searched - analysed), game["game_id"])
        texts = [c["body"].get("en", "") for c in game["chats"] if isinstance(c["body"], dict)]
        assert any("Hi, I am dlgo" in t for t in texts) and any("Thank you" in t for t in texts)


@pytest.fixture(scope="module")
def handicap_session(tmp_path_factory):
    """Handicap with the pool config: fixed and free placement, the bot as Black and as White."""
    games = [
        f"{BLITZ},bot=black,handicap=2",
        f"{BLITZ},bot=white,handicap=9",
        f"{BLITZ},bot=black,handicap=3,free",
        f"{BLITZ},bot=white,handicap=5,free",
    ]
    return run_standin(tmp_path_factory.mktemp("ogs-handicap"), games, "pool")


@needs_gtp2ogs
def test_handicap_fixed_and_free_both_colours_pool_config(handicap_session):
    check_session(handicap_session, 4)
    for game in handicap_session.games:
        stones = game["handicap"]
        if game["free_handicap"]:
            placed = game["moves"][:stones]
            assert {m["color"] for m in placed} == {"black"} and len({m["vertex"] for m in placed}) == stones
            assert {m["by"] for m in placed} == {"bot" if game["bot_color"] == "black" else "opponent"}
            assert game["moves"][stones]["color"] == "white"
        else:
            assert len(game["setup_black"]) == stones and game["moves"][0]["color"] == "white"
    assert handicap_session.engine_starts() == 2  # the pool's two engines served all four games


@needs_gtp2ogs
def test_opponent_and_bot_resign(tmp_path):
    """The opponent resigns one game; in the other the engine (told to give up early) resigns."""
    resign_early = ("size.9.zero.rounds=200", "time.max_seconds=2", "resign.consecutive_moves=1")
    resign_early += ("size.9.resign.threshold=0.99", "resign.min_move=8")
    games = [f"{BLITZ},bot=black,resign=6", f"{BLITZ},bot=white"]
    session = run_standin(tmp_path, games, "persistent", sets=resign_early)
    check_session(session, 2)
    opponent_resigned, bot_resigned = session.games
    assert opponent_resigned["reason"] == "resignation" and opponent_resigned["winner"] == "bot"
    assert bot_resigned["reason"] == "resignation" and bot_resigned["winner"] == "opponent"
    assert bot_resigned["moves"][-1]["by"] == "opponent"  # the bot's resignation is no move


@needs_gtp2ogs
def test_engine_killed_mid_game(tmp_path):
    """SIGKILL the engine while it thinks: gtp2ogs starts another, replays the game into it, and
    the game goes on to its end without a time-out."""
    session = run_standin(tmp_path, [f"{BLITZ},bot=white,kill=8,resign=30"], "persistent")
    check_session(session, 1)
    assert session.summary["engines_killed"] and session.engine_starts() >= 2
    # the restarted engine played on after the kill at move 8 (the game may end before the
    # staged resignation at 30: GNU Go level 1 sometimes passes early, and the bot then ends it)
    bot_moves = [m for m in session.games[0]["moves"][8:] if m["by"] == "bot"]
    assert len(bot_moves) >= 2


@needs_gtp2ogs
def test_connection_dropped_mid_game(tmp_path):
    """Cut the WebSocket while the bot thinks, and refuse connections for 2 s (the stand-in's
    default outage): gtp2ogs reconnects by itself (GobanSocket, retrying with growing delays),
    the server pushes active_game again, and the game goes on (gtp2ogs restarts its engine and
    replays the game). A move the old engine finished meanwhile is sent before gtp2ogs
    authenticates again; OGS ignores it, and so does the stand-in."""
    session = run_standin(tmp_path, [f"{BLITZ},bot=black,drop=9,resign=30"], "persistent")
    check_session(session, 1)
    assert session.summary["reconnections"] == 1 and session.summary["connections"] >= 2
    bot_moves = [m for m in session.games[0]["moves"][9:] if m["by"] == "bot"]  # played on after the drop
    assert len(bot_moves) >= 2


# --- slow -------------------------------------------------------------------------------------------
@pytest.mark.slow
@needs_gtp2ogs
def test_19x19_and_13x13_whole_games(tmp_path):
    games = [f"size=19,{BLITZ},bot=black", "size=13,clock=fischer:60:10:120,speed=blitz,bot=white"]
    session = run_standin(tmp_path, games, "persistent", timeout=1500)
    check_session(session, 2)


@pytest.mark.slow
@needs_gtp2ogs
@pytest.mark.parametrize("config", ["persistent", "pool"])
def test_every_handicap_fixed_and_free_both_colours(tmp_path, config):
    games = [
        f"{BLITZ},bot={colour},handicap={stones}{',free' if free else ''}"
        for stones in range(2, 10)
        for free in (False, True)
        for colour in ("black", "white")
    ]
    session = run_standin(tmp_path, games, config, options=("--parallel", "4"), timeout=1800)
    check_session(session, 32)


@pytest.mark.slow
@needs_gtp2ogs
@pytest.mark.parametrize("config", ["persistent", "pool"])
def test_four_live_and_eight_correspondence_games_at_once(tmp_path, config):
    live = "clock=byoyomi:60:10:3,speed=live,count=4"
    correspondence = "clock=fischer:86400:43200:172800,count=8"
    session = run_standin(tmp_path, [live, correspondence], config, timeout=1800)
    check_session(session, 12)
    assert [g["speed"] for g in session.games] == ["live"] * 4 + ["correspondence"] * 8


@pytest.mark.slow
@needs_gtp2ogs
def test_engine_killed_and_connection_dropped_with_the_pool_config(tmp_path):
    games = [f"{BLITZ},bot=white,kill=8,resign=40", f"{BLITZ},bot=black,drop=15,resign=40"]
    session = run_standin(tmp_path, games, "pool")
    check_session(session, 2)
    assert session.summary["engines_killed"] and session.summary["reconnections"] == 1


@pytest.mark.slow
@needs_gtp2ogs
@pytest.mark.xfail(reason=RECONNECT_RACE, strict=False)
def test_instant_reconnection_while_the_bot_thinks(tmp_path):
    """The connection back within 50 ms (no outage): faster than the persistent manager's
    release_delay (100 ms) after which the disconnected game kills its engine."""
    session = run_standin(tmp_path, [f"{BLITZ},bot=black,drop=9,outage=0,resign=30"], "persistent")
    check_session(session, 1)


@pytest.mark.slow
@needs_gtp2ogs
def test_run_ogs_rehearse_plays_one_local_game():
    """The operator's rehearsal: scripts/run_ogs.sh --rehearse, no API key, the shipped config as is."""
    env = {k: v for k, v in os.environ.items() if k != "OGS_API_KEY"}
    env |= {"GTP2OGS": str(GTP2OGS_JS), "PATH": f"{env.get('PATH', '')}:/usr/games"}
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "run_ogs.sh"), "--rehearse"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1900,
    )
    found = re.search(r"the record is (\S+)/game-1001\.sgf", done.stderr)
    assert done.returncode == 0 and found, done.stderr[-3000:]
    out = ROOT / found.group(1)
    try:
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        assert summary["ok"] and len(summary["games"]) == 1
        check_game(summary["games"][0])
    finally:
        shutil.rmtree(out, ignore_errors=True)


@pytest.mark.slow
@needs_gtp2ogs
def test_hundred_games_against_gnugo(tmp_path):
    """100 9x9 games with configs/ogs/gtp2ogs.json5 (searches capped at 2 s a move) against GNU
    Go level 1 under byo-yomi, two at a time: the bot never loses, and once GNU Go has passed it
    never plays inside its own territory (GNU Go's final_status_list is the referee)."""
    games = ["clock=byoyomi:0:10:3,bot=white,count=50", "clock=byoyomi:0:10:3,bot=black,count=50"]
    session = run_standin(
        tmp_path, games, "persistent", sets=("time.max_seconds=2",), options=("--parallel", "2"), timeout=3 * 3600
    )
    check_session(session, 100)
    lost = [f"{g['game_id']} {g['result']} {g['sgf']}" for g in session.games if g["winner"] != "bot"]
    assert not lost, lost
    inside = {g["sgf"]: found for g in session.games if (found := own_territory_moves(g))}
    assert not inside, inside
