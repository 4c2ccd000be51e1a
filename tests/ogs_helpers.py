"""Running the real gtp2ogs against the OGS stand-in (``python -m dlgo_ogs``) from the tests, and
checking the games it played (not a test module).

gtp2ogs 9.0.1 lives beside the repository (``../shared/tools/gtp2ogs``); the tests skip with the
reason when it, Node.js or GNU Go is missing. Each session runs one of the two shipped configs as an
operator does (cwd the repo root, ``dlgo-gtp`` on PATH from .venv), from a temporary copy whose
``bot.command`` has a few ``--set`` options added to keep games short.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import json5
from gnugo import GnuGo, find_gnugo

from dlgo.match.gtp_client import GtpProcess

ROOT = Path(__file__).resolve().parent.parent
GTP2OGS = ROOT.parent / "shared" / "tools" / "gtp2ogs"
GTP2OGS_JS = GTP2OGS / "dist" / "gtp2ogs.js"
CONFIGS = {
    "persistent": ROOT / "configs" / "ogs" / "gtp2ogs.json5",
    "pool": ROOT / "configs" / "ogs" / "gtp2ogs-pool.json5",
}
# Short searches: the games test the connector, the clocks and the records, not the engine's strength.
FAST = ("size.9.zero.rounds=64", "size.13.zero.rounds=64", "size.19.zero.rounds=64", "time.max_seconds=2")
BLITZ = "clock=byoyomi:0:10:3,speed=blitz"  # gtp2ogs skips min_move_time (1.5 s a move) in blitz games


def missing_tools() -> str | None:
    """Why these tests cannot run here, or None."""
    if shutil.which("node") is None:
        return "Node.js (node) is not installed"
    if not GTP2OGS_JS.is_file():
        return f"gtp2ogs is not at {GTP2OGS}"
    if find_gnugo() is None:
        return "GNU Go is not installed"
    try:
        import websockets  # noqa: F401
    except ImportError:
        return "the websockets package is not installed (pip install websockets)"
    return None


def gnugo_path() -> str:
    return find_gnugo() or "gnugo"


def config_copy(name: str, folder: Path, sets: tuple[str, ...]) -> Path:
    """The shipped config ``name`` (persistent or pool) with ``--set`` options added to its engine."""
    config = json5.loads(CONFIGS[name].read_text(encoding="utf-8"))
    for setting in sets:
        config["bot"]["command"] += ["--set", setting]
    path = folder / f"gtp2ogs-{name}.json5"
    path.write_text(json.dumps(config, indent=1), encoding="utf-8")
    return path


class Referee:
    """GNU Go as the stand-in's referee runs it (level 0, Chinese rules): its final_score varies
    with the level, and the summary reports this one's."""

    COMMAND = ("--mode", "gtp", "--level", "0", "--chinese-rules")

    def __init__(self) -> None:
        self._gtp = GtpProcess([gnugo_path(), *self.COMMAND], label="referee")
        self._gtp.start()

    def ask(self, command: str) -> tuple[bool, str]:
        return self._gtp.ask(command, timeout=None)

    def send(self, command: str) -> str:
        return self._gtp.send(command, timeout=None)

    def new_game(self, size: int, komi: float) -> None:
        for command in (f"boardsize {size}", "clear_board", f"komi {komi}"):
            self.send(command)

    def close(self) -> None:
        self._gtp.close(grace=5.0)


@dataclass
class Session:
    returncode: int
    summary: dict
    stderr: str
    out: Path

    @property
    def games(self) -> list[dict]:
        return self.summary["games"]

    def log(self) -> str:
        return (self.out / "gtp2ogs.log").read_text(encoding="utf-8", errors="replace")

    def engine_starts(self) -> int:
        """Engine processes gtp2ogs started (its log line for each)."""
        return self.log().count("started with PID")


def run_standin(
    out: Path,
    games: list[str],
    config: str = "persistent",
    sets: tuple[str, ...] = FAST,
    options: tuple[str, ...] = (),
    timeout: float = 600,
) -> Session:
    """One session of ``python -m dlgo_ogs``: ``games`` are ``--game`` specs."""
    out.mkdir(parents=True, exist_ok=True)
    config_path = config_copy(config, out, sets)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(ROOT / ".venv" / "bin"), env.get("PATH", ""), "/usr/games"])
    argv = [sys.executable, "-m", "dlgo_ogs", "--gtp2ogs", str(GTP2OGS_JS), "--out", str(out / "records")]
    argv += ["--opponent", f"{gnugo_path()} --mode gtp --level 1 --chinese-rules"]
    argv += [
        "--referee",
        shlex.join([gnugo_path(), *Referee.COMMAND]),
        "--timeout",
        str(timeout),
    ]
    for spec in games:
        argv += ["--game", spec]
    argv += [*options, "--", "--config", str(config_path)]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout + 60)
    summary_path = out / "records" / "summary.json"
    assert summary_path.is_file(), f"no summary (exit {done.returncode}):\n{done.stderr[-3000:]}"
    summary = json.loads(summary_path.read_text(encoding="utf-8"))
    return Session(done.returncode, summary, done.stderr, out / "records")


def replay(game: dict, gnugo: GnuGo | Referee, upto: int | None = None) -> None:
    """Set up ``game``'s board in ``gnugo`` and play its moves (the first ``upto``); every one
    must be legal. Handicap stones go in with set_free_handicap so that GNU Go counts them."""
    gnugo.new_game(game["size"], game["komi"])
    moves = game["moves"]
    stones = game["handicap"] if game["handicap"] > 1 else 0
    if stones:
        placed = [m["vertex"] for m in moves[:stones]] if game["free_handicap"] else game["setup_black"]
        gnugo.send("set_free_handicap " + " ".join(placed))
        if game["free_handicap"]:
            moves = moves[stones:]
            upto = None if upto is None else max(upto - stones, 0)
    for number, move in enumerate(moves[:upto], start=1):
        ok, text = gnugo.ask(f"play {move['color']} {move['vertex']}")
        assert ok, f"game {game['game_id']}: move {number} {move['color']} {move['vertex']} is illegal: {text}"


def check_game(game: dict) -> None:
    """A whole game as OGS would have it: finished with a result, every move legal (replayed into
    GNU Go), no move after a time-out, the bot not out of time, and a count that GNU Go agrees with."""
    gid = game["game_id"]
    assert game["finished"], f"game {gid} did not finish (phase {game['phase']})"
    assert game["result"] not in ("?", "") and game["reason"] in ("resignation", "score", "timeout"), game["result"]
    assert not game["failures"], f"game {gid}: {game['failures']} (record {game['sgf']})"
    assert not game["moves_after_timeout"] and not game["bot_lost_on_time"], f"game {gid} lost on time"
    assert Path(game["sgf"]).is_file()
    gnugo = Referee()
    try:
        replay(game, gnugo)
        if game["reason"] == "score":
            assert game["stone_removal"] and [m["vertex"] for m in game["moves"][-2:]] == ["pass", "pass"]
            assert gnugo.send("final_score").upper() == game["result"], f"game {gid}: {game['result']}"
    finally:
        gnugo.close()


def own_territory_moves(game: dict) -> list[str]:
    """The bot's moves, once the opponent has passed, inside what GNU Go calls the bot's own
    territory in the position before the move."""
    bot, found = game["bot_color"], []
    opponent_passed = False
    gnugo = GnuGo(gnugo_path())
    try:
        for index, move in enumerate(game["moves"]):
            if move["by"] == "opponent" and move["vertex"] == "pass":
                opponent_passed = True
            if move["by"] == "bot" and opponent_passed and move["vertex"] != "pass":
                replay(game, gnugo, upto=index)
                territory = gnugo.send(f"final_status_list {bot}_territory").split()
                if move["vertex"].upper() in (v.upper() for v in territory):
                    found.append(f"move {index + 1} {move['vertex']}")
    finally:
        gnugo.close()
    return found
