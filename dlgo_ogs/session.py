"""A whole session: the server up, the games set up, gtp2ogs started against it, the games
played out, everything stopped, and the records written."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from dlgo_ogs.game import Game
from dlgo_ogs.launcher import Gtp2ogs
from dlgo_ogs.record import write_records
from dlgo_ogs.spec import GameSpec
from dlgo_ogs.state import Player, ServerGame

if TYPE_CHECKING:
    from dlgo_ogs.server import OgsServer

__all__ = ["GNUGO_OPPONENT", "GNUGO_REFEREE", "SessionOptions", "run_session"]

GNUGO_OPPONENT = ["/usr/games/gnugo", "--mode", "gtp", "--level", "1", "--chinese-rules"]
GNUGO_REFEREE = ["/usr/games/gnugo", "--mode", "gtp", "--level", "0", "--chinese-rules"]
FIRST_GAME_ID = 1001


@dataclass
class SessionOptions:
    games: list[GameSpec]
    gtp2ogs: list[str]  # how to run gtp2ogs: ["gtp2ogs"] or ["node", ".../dist/gtp2ogs.js"]
    gtp2ogs_args: list[str]  # its own arguments (--config FILE, -v, -- ENGINE...)
    out: Path
    opponent: list[str] = field(default_factory=lambda: list(GNUGO_OPPONENT))
    referee: list[str] = field(default_factory=lambda: list(GNUGO_REFEREE))
    bot_name: str = "dlgo-bot"
    opponent_name: str = "gnugo"
    apikey: str = ""
    timeout: float = 3600.0  # seconds for the whole session
    linger: float = 3.0  # seconds after the last game for gtp2ogs's farewells
    parallel: int = 0  # games in play at once (0: all); the next starts when one ends
    # The opponent never answers faster than this. A person on OGS never does; and gtp2ogs 9.0.1
    # drops the bot's chats and variations for a move when the opponent answers within its
    # release_delay (100 ms): the delayed release of the old move removes the new move's listener.
    opponent_min_seconds: float = 0.3
    cwd: Path | None = None
    env: dict | None = None


async def run_session(opts: SessionOptions, log: Callable[[str], None]) -> dict:
    """Play the session's games through gtp2ogs; the summary (also in ``opts.out``)."""
    opts.out.mkdir(parents=True, exist_ok=True)
    # Imported here: the server needs the websockets package, which --help does not.
    from websockets.asyncio.server import serve

    from dlgo_ogs.server import OgsServer

    apikey = opts.apikey or secrets.token_hex(12)
    bot, opponent = Player(1, opts.bot_name, 25.0), Player(2, opts.opponent_name, 15.0)
    server = OgsServer(bot, apikey, log)
    games = [
        Game(
            ServerGame(FIRST_GAME_ID + i, spec, bot, opponent),
            opts.opponent,
            opts.referee,
            server,
            log,
            opponent_min_seconds=opts.opponent_min_seconds,
        )
        for i, spec in enumerate(opts.games)
    ]
    server.games = {g.gid: g for g in games}
    launcher: Gtp2ogs | None = None
    started = time.monotonic()
    status: dict = {"gtp2ogs_exit_status": None, "stopped_by": "timeout"}
    try:
        await asyncio.gather(*(g.open() for g in games))
        waiting = list(games)

        def start_more(_finished: Game | None = None) -> None:
            in_play = sum(g.started and not g.finished for g in games)
            while waiting and (not opts.parallel or in_play < opts.parallel):
                server.start_game(waiting.pop(0))
                in_play += 1

        server.on_authenticated = start_more
        server.on_game_over = start_more
        async with serve(
            server.handler, "127.0.0.1", 0, process_request=server.process_request, ping_interval=None, max_size=None
        ) as ws_server:
            port = ws_server.sockets[0].getsockname()[1]
            log(f"serving OGS's API on ws://127.0.0.1:{port}")
            argv = [*opts.gtp2ogs, "--server", f"http://127.0.0.1:{port}", "--apikey", apikey, *opts.gtp2ogs_args]
            launcher = Gtp2ogs(argv, opts.out / "gtp2ogs.log", opts.cwd, opts.env)
            server.on_fault = lambda kind, game_id: _fault(kind, game_id, launcher, log)
            await launcher.start()
            log(f"gtp2ogs started (pid {launcher.pid}); its log: {opts.out / 'gtp2ogs.log'}")
            status["stopped_by"] = await _wait(server, launcher, opts.timeout, log)
            if status["stopped_by"] == "games over":
                await asyncio.sleep(opts.linger)
            status["gtp2ogs_exit_status"] = await launcher.stop()
    finally:
        if launcher is not None and launcher.proc is not None and launcher.proc.returncode is None:
            await asyncio.shield(launcher.stop())
        await asyncio.gather(*(g.close() for g in games), return_exceptions=True)
        session = {
            "gtp2ogs": _masked([*opts.gtp2ogs, *opts.gtp2ogs_args], apikey),
            **status,
            "seconds": round(time.monotonic() - started, 1),
            "connections": server.connections,
            "authentications": server.authentications,
            "reconnections": max(server.authentications - 1, 0),
            "engines_killed": launcher.engines_killed if launcher else [],
            "faults": server.faults,
            "bot_config_received": server.bot_config is not None,
            "unknown_commands": sorted(set(server.unknown)),
            "commands_before_authentication": server.unauthenticated,
            "log": str(opts.out / "gtp2ogs.log"),
        }
        summary = write_records(opts.out, games, session)
    if status["stopped_by"] != "games over":
        summary["problems"].insert(0, f"stopped by {status['stopped_by']}")
        summary["ok"] = False
    return summary


async def _wait(server: OgsServer, launcher: Gtp2ogs, timeout: float, log: Callable[[str], None]) -> str:
    over = asyncio.ensure_future(server.all_over.wait())
    exited = asyncio.ensure_future(launcher.wait())
    done, _ = await asyncio.wait({over, exited}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    for task in (over, exited):
        if task not in done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    if over in done:
        return "games over"
    if exited in done:
        log(f"gtp2ogs exited early with status {exited.result()}: see its log")
        return "gtp2ogs exit"
    log(f"the session ran past its {timeout:g} s")
    return "timeout"


def _fault(kind: str, game_id: int, launcher: Gtp2ogs, log: Callable[[str], None]) -> None:
    if kind == "kill":
        killed = launcher.kill_engines()
        log(f"game {game_id}: killed gtp2ogs's engine processes {killed}")


def _masked(argv: list[str], secret: str) -> list[str]:
    return [a if a != secret else "***" for a in argv]
