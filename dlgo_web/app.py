"""The HTTP server: the book's endpoint (book 8.2) and the page's game API, on Flask.

The book's front end posts ``{"board_size": N, "moves": ["D4", "pass", ...]}`` to
``/select-move/<bot>`` and reads ``{"bot_move": "E5", "diagnostics": {...}}``; that endpoint
answers exactly so (the human is Black, moves alternate from Black), so the book's pages and
scripts work against this server. The page itself plays through ``/api/games/...``, where each
game keeps its own state on the server and the bot's search runs in the game's play session
(``dlgo_web.games``).

Every bad request gets a 4xx answer ``{"error": "..."}`` that the page shows, and changes
nothing: malformed JSON (400), an unknown bot or game (404), a move that is no move, an illegal
move, a size the bot does not play (422), a request out of turn (409), a body or SGF too big
(413).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request, send_from_directory
from werkzeug.exceptions import HTTPException

from dlgo.goboard import MAX_SIZE, MIN_SIZE
from dlgo.gotypes import Player
from dlgo.play.errors import PlayError as LibraryPlayError
from dlgo.play.game import Game
from dlgo.sgf import SgfError, read_game
from dlgo.sgf.record import move_text
from dlgo_web.bots import Bot, BotPool
from dlgo_web.games import GameSession, GameStore, PlayError
from dlgo_web.moves import MoveTextError, explain_illegal, parse_move

__all__ = ["create_app", "MAX_BODY_BYTES", "MAX_SGF_BYTES", "MAX_BOOK_MOVES"]

log = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
MAX_BODY_BYTES = 1 << 20  # any request body; Flask answers 413 past it
MAX_SGF_BYTES = 256 << 10  # an uploaded record: a long game with comments is a few tens of KB
MAX_BOOK_MOVES = 2000  # the book's endpoint replays the moves it is sent


def _error(message: str, status: int):
    response = jsonify({"error": message})
    response.status_code = status
    return response


def _json_body() -> dict[str, Any]:
    data = request.get_json(force=True, silent=True)
    if not isinstance(data, dict):
        raise PlayError("malformed request: send a JSON object", 400)
    return data


def _bot(pool: BotPool, name: object) -> Bot:
    bot = pool.get(name) if isinstance(name, str) else None
    if bot is None:
        raise PlayError(f"unknown bot {name!r}: this server has {', '.join(pool.names())}", 404)
    return bot


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PlayError(f"{key} must be a whole number from {low} to {high}, got {value!r}", 422)
    return value


def _komi(data: dict[str, Any], default: float) -> float:
    value = data.get("komi", default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or abs(value) > 400:
        raise PlayError(f"komi must be a number (like 6.5 or 7.5), got {value!r}", 422)
    return float(value)


def _require_size(bot: Bot, size: int) -> None:
    if not bot.plays(size):
        sizes = ", ".join(f"{n}x{n}" for n in bot.describe()["sizes"])
        raise PlayError(f"bot {bot.name!r} does not play {size}x{size}" + (f": it plays {sizes}" if sizes else ""), 422)


@contextmanager
def _refused_as_422(what: str) -> Iterator[None]:
    """What the bot raises for a board its agents cannot play (a network trained for another
    size, say) is the request's fault, not the server's: a 422 saying ``what`` could not be done."""
    try:
        yield
    except PlayError:
        raise
    except (ValueError, LibraryPlayError) as e:
        log.info("%s: %s", what, e)
        raise PlayError(f"{what}: {e}", 422) from None


def _colour(data: dict[str, Any]) -> Player:
    value = data.get("colour", "black")
    if value not in ("black", "white"):
        raise PlayError(f"colour must be 'black' or 'white', got {value!r}", 422)
    return Player.black if value == "black" else Player.white


def create_app(bots: BotPool, games: GameStore | None = None) -> Flask:
    """The Flask app serving ``bots``; ``games`` holds the page's games (a fresh store if None)."""
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.json.sort_keys = False
    store = games if games is not None else GameStore()
    app.extensions["dlgo_games"] = store

    @app.errorhandler(PlayError)
    def play_error(e: PlayError):
        return _error(str(e), e.status)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        if e.code == 413:
            return _error(f"request too large: at most {MAX_BODY_BYTES >> 10} KB", 413)
        return _error(f"{e.name}: {e.description}", e.code or 500)

    # --- the page --------------------------------------------------------------------------
    @app.get("/")
    def index():
        return send_from_directory(STATIC, "index.html")

    @app.get("/static/<path:name>")
    def static_file(name: str):
        return send_from_directory(STATIC, name)

    @app.get("/api/bots")
    def list_bots():
        return jsonify({"bots": [bot.describe() for bot in bots.bots.values()], "default": bots.default_name()})

    # --- the book's endpoint (book 8.2) -----------------------------------------------------
    @app.post("/select-move/<bot_name>")
    def select_move(bot_name: str):
        bot = _bot(bots, bot_name)
        data = _json_body()
        size = _int(data, "board_size", 19, MIN_SIZE, MAX_SIZE)
        _require_size(bot, size)
        moves = data.get("moves", [])
        if not isinstance(moves, list) or len(moves) > MAX_BOOK_MOVES:
            raise PlayError(f"moves must be a list of at most {MAX_BOOK_MOVES} moves like 'D4' or 'pass'", 422)
        play = bot.session()
        engine = bot.config.section("engine", size)
        play.set_game(Game(size, size, float(engine["komi"]), engine["handicap_compensation"]))
        for number, text in enumerate(moves, 1):
            try:
                move = parse_move(text, size, size)
            except MoveTextError as e:
                raise PlayError(f"move {number}: {e}", 422) from None
            if move.is_resign:
                raise PlayError(f"move {number} is a resignation: the game is over, no move to select", 409)
            state = play.game.state
            reason = state.illegal_reason(state.next_player, move)
            if reason is not None:
                raise PlayError(f"move {number}: {explain_illegal(reason, str(text))}", 422)
            play.play(state.next_player, move)
        if play.game.state.is_over():
            raise PlayError("the game is over: no move to select", 409)
        with _refused_as_422(f"bot {bot.name!r} cannot play {size}x{size}"):
            selected = play.genmove(play.game.state.next_player, commit=False)
            choice = selected.result()
        agent = selected.agent
        diagnostics = dict(agent.diagnostics()) if agent is not None else {}
        if choice.result is not None:
            best = choice.result.best
            diagnostics.update(visits=choice.result.visits, winrate=round(float(choice.result.winrate), 4))
            if best is not None:
                diagnostics["value"] = round(2 * float(best.winrate) - 1, 4)  # the book's value in [-1, 1]
        diagnostics["reason"] = choice.reason
        return jsonify({"bot_move": move_text(choice.move), "diagnostics": diagnostics})

    # --- the page's games -------------------------------------------------------------------
    @app.post("/api/games")
    def new_game():
        data = _json_body()
        bot = _bot(bots, data.get("bot", bots.default_name()))
        size = _int(data, "size", 9, MIN_SIZE, MAX_SIZE)
        komi = _komi(data, float(bot.config.section("engine")["komi"]))
        handicap = _int(data, "handicap", 0, 0, 9)
        _require_size(bot, size)
        with _refused_as_422(f"bot {bot.name!r} cannot play {size}x{size}"):
            session = GameSession.start(bot, size, komi, handicap, _colour(data))
        store.add(session)
        return jsonify(session.to_json()), 201

    @app.post("/api/games/sgf")
    def upload_sgf():
        data = _json_body()
        bot = _bot(bots, data.get("bot", bots.default_name()))
        text = data.get("sgf")
        if not isinstance(text, str) or not text.strip():
            raise PlayError("sgf must be the text of an SGF record", 422)
        raw = text.encode("utf-8")
        if len(raw) > MAX_SGF_BYTES:
            raise PlayError(f"the SGF is {len(raw) >> 10} KB: at most {MAX_SGF_BYTES >> 10} KB", 413)
        try:
            record = read_game(raw, name=str(data.get("name") or "upload.sgf")[:80], log_repairs=False)
        except (SgfError, ValueError) as e:
            raise PlayError(f"cannot read the SGF: {e}", 422) from None
        rows, cols = record.board_size
        with _refused_as_422(f"bot {bot.name!r} cannot continue this {cols}x{rows} record"):
            session = GameSession.from_record(bot, record, _colour(data))
        store.add(session)
        return jsonify(session.to_json()), 201

    @app.get("/api/games/<game_id>")
    def game_state(game_id: str):
        return jsonify(store.get(game_id).to_json())

    @app.post("/api/games/<game_id>/play")
    def play(game_id: str):
        session = store.get(game_id)
        session.play(_json_body().get("move"))
        return jsonify(session.to_json())

    @app.post("/api/games/<game_id>/<action>")
    def act(game_id: str, action: str):
        session = store.get(game_id)
        actions = {"undo": session.undo, "resign": session.resign, "stop": session.stop}
        if action not in actions:
            raise PlayError(f"unknown action {action!r}: play, undo, resign or stop", 404)
        actions[action]()
        return jsonify(session.to_json())

    @app.get("/api/games/<game_id>/sgf")
    def download_sgf(game_id: str):
        session = store.get(game_id)
        response = app.response_class(session.sgf(), mimetype="application/x-go-sgf")
        response.headers["Content-Disposition"] = f'attachment; filename="dlgo-{session.bot.name}-{game_id[:6]}.sgf"'
        return response

    return app
