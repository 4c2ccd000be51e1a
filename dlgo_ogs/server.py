"""The WebSocket side of the stand-in: OGS's real-time API as gtp2ogs 9.x uses it.

Every frame is a JSON array: a request ``[command, data, id]`` answered by ``[id, data]``, or an
event ``[name, data]``. The bot authenticates with its API key, gets ``active_game`` for each of
its games, connects to a game (``game/connect``) and gets its ``gamedata``, then its clock, moves
and end; it sends ``game/move``, ``game/resign`` and ``game/chat``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from websockets.asyncio.server import ServerConnection
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response

from dlgo_ogs.game import Game
from dlgo_ogs.state import Player, now_ms

__all__ = ["OgsServer"]

IGNORED = ("bot/status", "notification/delete", "chat/join", "chat/part", "game/resume", "net/pong")


@dataclass
class _Client:
    ws: ServerConnection
    outbox: asyncio.Queue = field(default_factory=asyncio.Queue)
    authenticated: bool = False
    games: set[int] = field(default_factory=set)


class OgsServer:
    """Serves the bot (``handler`` for websockets' ``serve``) and is the games' :class:`Hub`."""

    def __init__(self, bot: Player, apikey: str, log: Callable[[str], None]) -> None:
        self.bot = bot
        self.apikey = apikey
        self.log = log
        self.games: dict[int, Game] = {}
        self.clients: list[_Client] = []
        self.connections = 0
        self.authentications = 0
        self.bot_config: dict | None = None
        self.bot_status: dict | None = None
        self.unknown: list[str] = []
        self.unauthenticated: list[str] = []  # game commands sent before authenticate: OGS ignores them
        self._down_until = 0.0  # monotonic time until which new connections are refused
        self.faults: list[dict] = []
        self.all_over = asyncio.Event()
        self.on_authenticated: Callable[[], None] = lambda: None
        self.on_game_over: Callable[[Game], None] = lambda game: None
        self.on_fault: Callable[[str, int], None] = lambda kind, game_id: None

    # --- the Hub the games talk to ----------------------------------------------------------------
    def game_event(self, game_id: int, name: str, data: object) -> None:
        for client in self.clients:
            if game_id in client.games:
                client.outbox.put_nowait([name, data])

    def user_event(self, name: str, data: object) -> None:
        for client in self.clients:
            if client.authenticated:
                client.outbox.put_nowait([name, data])

    def fault(self, kind: str, game_id: int) -> None:
        self.faults.append({"kind": kind, "game_id": game_id, "at_ms": now_ms()})
        if kind == "drop":
            self._down_until = time.monotonic() + self.games[game_id].state.spec.outage
            self.drop_connections()
        self.on_fault(kind, game_id)

    def game_over(self, game: Game) -> None:
        self.on_game_over(game)
        if all(g.finished for g in self.games.values()):
            self.all_over.set()

    def start_game(self, game: Game) -> None:
        """The game begins (its clock runs) and the bot hears of it, as after a challenge."""
        game.start()
        self.user_event("active_game", game.state.active_game_json())

    def drop_connections(self) -> None:
        """Cut every connection as a network failure would (no closing handshake)."""
        for client in self.clients:
            self.log("dropping the WebSocket connection")
            client.ws.transport.abort()

    # --- one connection ----------------------------------------------------------------------------
    def process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        """During a staged outage the handshake fails (gtp2ogs retries with growing delays)."""
        if time.monotonic() < self._down_until:
            return connection.respond(503, "the stand-in is down for a staged network failure\n")
        return None

    async def handler(self, ws: ServerConnection) -> None:
        client = _Client(ws)
        self.clients.append(client)
        self.connections += 1
        self.log(f"gtp2ogs connected (connection {self.connections})")
        writer = asyncio.ensure_future(self._write(client))
        try:
            async for raw in ws:
                await self._dispatch(client, raw)
        except ConnectionClosed:
            pass
        finally:
            writer.cancel()
            self.clients.remove(client)
            self.log("gtp2ogs disconnected")

    async def _write(self, client: _Client) -> None:
        with contextlib.suppress(ConnectionClosed):
            while True:
                message = await client.outbox.get()
                await client.ws.send(json.dumps(message))

    async def _dispatch(self, client: _Client, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
            command, data = message[0], message[1] if len(message) > 1 else None
            request_id = message[2] if len(message) > 2 else None
        except (ValueError, IndexError, TypeError):
            self.log(f"unreadable frame: {raw!r:.200}")
            return
        answer: object = {}
        if command == "net/ping":
            client.outbox.put_nowait(["net/pong", {"client": data.get("client"), "server": now_ms()}])
        elif command == "authenticate":
            self._authenticate(client, data or {}, request_id)
            return
        elif command == "bot/config":
            self.bot_config = data
        elif command == "bot/status":
            self.bot_status = data
        elif command in ("game/connect", "game/disconnect"):
            self._connect(client, command, data or {})
        elif command in ("game/move", "game/resign", "game/chat"):
            await self._game_command(client, command, data or {})
        elif command not in IGNORED:
            self.unknown.append(command)
            self.log(f"unknown command {command!r}")
        if request_id is not None:
            client.outbox.put_nowait([request_id, answer])

    def _authenticate(self, client: _Client, data: dict, request_id: object) -> None:
        if data.get("bot_apikey") != self.apikey:
            self.log("authentication failed: wrong API key")
            client.outbox.put_nowait([request_id, None])  # gtp2ogs exits on an empty answer
            return
        client.authenticated = True
        self.authentications += 1
        self.log(f"{self.bot.username} authenticated ({self.authentications})")
        # The answer first: gtp2ogs learns its own player id from it, before any game.
        client.outbox.put_nowait([request_id, {"id": self.bot.id, "username": self.bot.username}])
        # As OGS does on every (re)connection: the games in play, then any new ones.
        for game in self.games.values():
            if game.started and not game.finished:
                client.outbox.put_nowait(["active_game", game.state.active_game_json()])
        self.on_authenticated()

    def _connect(self, client: _Client, command: str, data: dict) -> None:
        game = self.games.get(int(data.get("game_id", 0)))
        if game is None or not client.authenticated:
            return
        if command == "game/disconnect":
            client.games.discard(game.gid)
            return
        client.games.add(game.gid)
        client.outbox.put_nowait([f"game/{game.gid}/gamedata", game.state.gamedata()])

    async def _game_command(self, client: _Client, command: str, data: dict) -> None:
        game = self.games.get(int(data.get("game_id", 0)))
        if not client.authenticated:
            self.unauthenticated.append(command)
            self.log(f"{command} before authentication, ignored: {data!r:.200}")
            return
        if game is None:
            self.log(f"{command} for an unknown game: {data!r:.200}")
            return
        if command == "game/move":
            await game.on_bot_move(str(data.get("move", "")))
        elif command == "game/resign":
            await game.on_bot_resign()
        else:
            game.on_chat(data)
            line = {"body": data.get("body"), "date": now_ms() // 1000, "move_number": data.get("move_number")}
            line |= {"username": self.bot.username, "player_id": self.bot.id, "channel": data.get("type")}
            self.game_event(game.gid, f"game/{game.gid}/chat", {"channel": f"game-{game.gid}", "line": line})
