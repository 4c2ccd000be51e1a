"""One game on the page: its own position on the server, the bot's search in a worker thread.

Each game is a play session of the library (``dlgo.play.PlaySession``), the one the GTP engine
plays too: the position, handicap, komi (with White's handicap compensation) and undo, the bot's
move budget from its config, its move (search, then the end-of-game rules of book 8.5: pass
only into a won count, resign only after a run of lost moves) and the final count
(``scoring``). The page never waits on a search: a move request starts the session's
``genmove`` and returns, the page polls the game, and ``stop`` ends the search early (the bot
then plays the best move found so far). The game's lock is the session's, so the bot's move and
what the page shows of it change together.

Every change is checked first and raises :class:`PlayError` with the HTTP status and a message
for the player, leaving the game as it was.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections import OrderedDict
from typing import Any

from dlgo.deadstones import Count
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.handicap import fixed_handicap_points, max_fixed_handicap
from dlgo.play.errors import MoveAbandoned
from dlgo.play.game import Game
from dlgo.play.move import MoveFuture
from dlgo.sgf import SgfGame, write_game
from dlgo.sgf.record import move_text
from dlgo_web.analysis import count_json, ownership_json, search_json
from dlgo_web.bots import Bot
from dlgo_web.moves import MoveTextError, explain_illegal, parse_move

__all__ = ["PlayError", "GameSession", "GameStore", "MAX_GAMES"]

log = logging.getLogger(__name__)

MAX_GAMES = 200  # games kept on the server; the least recently used goes first


class PlayError(Exception):
    """A request that cannot be done now; nothing was changed. ``status`` is the HTTP answer."""

    def __init__(self, message: str, status: int = 409) -> None:
        super().__init__(message)
        self.status = status


class GameSession:
    """A game between a person and a bot, with the bot's search running beside it."""

    def __init__(self, bot: Bot, game: Game, human: Player) -> None:
        self.id = secrets.token_urlsafe(12)
        self.bot = bot
        self.play_session = bot.session()
        self.play_session.set_game(game)
        self.human = human
        self.lock = self.play_session.lock  # the bot's move is committed under it (dlgo.play.session)
        self.result: dict[str, Any] | None = None  # set when the game is over
        self.message = ""
        self.last_search: dict[str, Any] | None = None  # the search behind the bot's last move
        self.ownership: list[list[float]] | None = None
        self.error: str | None = None
        self._generation = 0  # bumped by undo and new searches: a late search's answer is dropped
        self._move: MoveFuture | None = None  # the bot's move under way
        self._settled = threading.Event()  # the last search's answer is applied (or dropped)
        self._settled.set()
        self._live: dict[str, Any] | None = None  # the running search's latest progress
        self.touched = time.monotonic()

    @property
    def game(self) -> Game:
        return self.play_session.game

    # --- creating -------------------------------------------------------------------------------
    @classmethod
    def start(cls, bot: Bot, size: int, komi: float, handicap: int, human: Player) -> GameSession:
        """A new game; the bot moves at once when it is its turn (White after a handicap)."""
        if not bot.plays(size):
            raise PlayError(f"bot {bot.name!r} does not play {size}x{size}", 422)
        if handicap == 1 or handicap < 0 or handicap > max_fixed_handicap(size):
            raise PlayError(f"handicap on {size}x{size}: 0 or 2 to {max_fixed_handicap(size)} stones", 422)
        rule = bot.config.section("engine")["handicap_compensation"]
        game = Game(size, size, komi, rule)
        if handicap:
            game.set_handicap(fixed_handicap_points(size, handicap))
        session = cls(bot, game, human)
        session._bot_moves_if_its_turn()
        return session

    @classmethod
    def from_record(cls, bot: Bot, record: SgfGame, human: Player) -> GameSession:
        """The game of an uploaded SGF, to continue from its last move."""
        rows, cols = record.board_size
        if rows != cols or not bot.plays(rows):
            raise PlayError(f"bot {bot.name!r} does not play {cols}x{rows}: the record's board", 422)
        start = max(record.setups, default=0)  # setup stones after a move: the game starts there
        states = record.states()
        rule = bot.config.section("engine")["handicap_compensation"]
        game = Game(rows, cols, record.komi, rule)
        game.load(states[start], record.moves[start:], record.handicap, states=states[start + 1 :])
        session = cls(bot, game, human)
        moves = game.moves
        if moves and moves[-1][1].is_resign or record.result and "+R" in record.result.upper():
            session.result = {"result": record.result or "", "reason": "the record ends in a resignation"}
        elif game.state.is_over():
            session._finish_by_count("both passed in the record")
        else:
            session._bot_moves_if_its_turn()
        return session

    # --- the person's requests ---------------------------------------------------------------
    def play(self, text: str) -> None:
        """The person plays ``text`` (``D4``, ``pass``); then the bot starts thinking."""
        with self.lock:
            self._expect_human_turn()
            try:
                move = parse_move(text, self.game.rows, self.game.cols)
            except MoveTextError as e:
                raise PlayError(str(e), 422) from None
            if move.is_resign:
                raise PlayError("use the resign button to resign", 422)
            reason = self.game.state.illegal_reason(self.human, move)
            if reason is not None:
                raise PlayError(explain_illegal(reason, text), 422)
            before = self.game.captures(self.human.other)
            self.play_session.play(self.human, move)
            taken = self.game.captures(self.human.other) - before
            self.message = f"You captured {taken} stone{'s' * (taken > 1)}." if taken else ""
            self.ownership = None
            if self.game.state.is_over():
                self._finish_by_count("both players passed")
            else:
                self._start_bot()

    def resign(self) -> None:
        with self.lock:
            if self.result is not None:
                raise PlayError("the game is already over")
            self.cancel_search()
            winner = "B" if self.human is Player.white else "W"
            self.result = {"result": f"{winner}+R", "reason": "you resigned"}

    def undo(self) -> None:
        """Take back the person's last move and the bot's answer (a running search is dropped)."""
        with self.lock:
            if not any(who is self.human for who, _ in self.game.moves):
                raise PlayError("nothing to undo: you have not moved yet")
            self.cancel_search()
            while self.game.moves:
                who, _ = self.game.moves[-1]
                self.play_session.undo()
                if who is self.human:
                    break
            self.result = None
            self.last_search = self.ownership = None
            self.message = "Move taken back."

    def stop(self) -> None:
        """End the bot's search now: it plays the best move found so far."""
        with self.lock:
            if self._move is None:
                raise PlayError("the bot is not thinking")
            self.play_session.stop()

    def sgf(self) -> str:
        with self.lock:
            names = {self.human: "you", self.human.other: f"dlgo {self.bot.name}"}
            result = None if self.result is None else self.result["result"] or None
            return write_game(
                self.game.moves,
                self.game.initial,
                black_name=names[Player.black],
                white_name=names[Player.white],
                result=result,
                handicap=self.game.handicap,
                komi=self.game.komi,
            )

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the bot's last search is over and its answer applied (tests); False on
        timeout."""
        return self._settled.wait(timeout)

    @property
    def thinking(self) -> bool:
        return self._move is not None

    # --- the bot -------------------------------------------------------------------------------
    def _expect_human_turn(self) -> None:
        if self.result is not None:
            raise PlayError("the game is over: start a new one or undo")
        if self.thinking:
            raise PlayError("the bot is thinking: wait for its move or press stop")
        if self.game.state.next_player is not self.human:
            raise PlayError("it is not your turn")

    def _bot_moves_if_its_turn(self) -> None:
        if self.result is None and self.game.state.next_player is self.human.other:
            self._start_bot()

    def _start_bot(self) -> None:
        self._generation += 1
        generation, settled = self._generation, threading.Event()
        self._live, self.error, self._settled = None, None, settled
        try:
            move = self.play_session.genmove(
                self.human.other, on_progress=lambda result: self._progress(generation, result)
            )
        except Exception as e:  # the page shows it; the game stays as it was
            log.exception("the bot's search failed")
            self.error = f"the bot failed: {e}"
            settled.set()
            return
        self._move = move
        move.add_done_callback(lambda done: self._moved(generation, done, settled))

    def cancel_search(self) -> None:
        """Drop the bot's move under way: its search stops, nothing is played."""
        self.play_session.cancel()
        self._generation += 1
        self._move = self._live = None

    def _progress(self, generation: int, result) -> None:
        if generation == self._generation:
            self._live = search_json(result)

    def _ownership_playouts(self) -> int:
        return int(self.bot.section("analysis", self.game.rows)["ownership_playouts"])

    def _moved(self, generation: int, move: MoveFuture, settled: threading.Event) -> None:
        """The session's answer, in its search thread (a move played resolves inside the lock)."""
        try:
            with self.lock:
                if generation != self._generation:
                    return  # undone or resigned meanwhile
                self._move = self._live = None
                error = move.exception()
                if isinstance(error, MoveAbandoned):
                    return
                if error is not None:  # the page shows it; the game stays as it was
                    log.error("the bot's search failed", exc_info=error)
                    self.error = f"the bot failed: {error}"
                    return
                try:
                    self._apply_bot_move(move)
                except Exception as e:  # the page shows it
                    log.exception("the bot's move failed")
                    self.error = f"the bot failed: {e}"
        finally:
            settled.set()

    def _apply_bot_move(self, move: MoveFuture) -> None:
        """What the page shows of the bot's move, which the session has just played."""
        player, choice, before = self.human.other, move.result(), move.plan.state
        self.last_search = search_json(choice.result)
        if self.last_search is not None:
            self.last_search["move"] = move_text(choice.move)
            self.last_search["reason"] = choice.reason
        if choice.move.is_resign:
            self.result = {"result": f"{'B' if player is Player.white else 'W'}+R", "reason": "the bot resigned"}
            self.message = "The bot resigns."
            return
        self.ownership = ownership_json(self.game.state, self._ownership_playouts())
        taken = _stones(before, self.human) - _stones(self.game.state, self.human)
        if choice.move.is_pass:
            self.message = "The bot passes: pass too to end the game and count, or play on."
        else:
            self.message = f"The bot captured {taken} stone{'s' * (taken > 1)}." if taken else ""
        if self.game.state.is_over():
            self._finish_by_count("both players passed")

    def _finish_by_count(self, why: str) -> None:
        counted = self.count()
        self.result = {**count_json(counted), "reason": why}
        self.message = f"Game over: {counted.result} ({why}; dead stones marked)."

    def count(self) -> Count:
        """The game counted as the bot's config counts it (``scoring``: network or playouts)."""
        return self.play_session.count()

    # --- what the page shows ------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        with self.lock:
            state = self.game.state
            last = self.game.moves[-1] if self.game.moves else None
            return {
                "id": self.id,
                "bot": self.bot.name,
                "agent": self.bot.agent_name(self.game.rows),
                "size": self.game.rows,
                "komi": self.game.komi,
                "scoring_komi": self.game.scoring_komi,
                "handicap": self.game.handicap,
                "human": self.human.name,
                "to_move": state.next_player.name,
                "board": _sign_map(state),
                "moves": [[who.name, move_text(m)] for who, m in self.game.moves],
                "last_move": None if last is None else {"player": last[0].name, "move": move_text(last[1])},
                "captures": {"black": self.game.captures(Player.white), "white": self.game.captures(Player.black)},
                "ko": _ko_text(state),
                "thinking": self.thinking,
                "live": self._live,
                "analysis": self.last_search,
                "ownership": self.ownership,
                "result": self.result,
                "message": self.message,
                "error": self.error,
            }


def _stones(state: GameState, player: Player) -> int:
    return sum(1 for _, colour in state.board.stones() if colour is player)


def _sign_map(state: GameState) -> list[list[int]]:
    """Shudan's signMap: rows from the top, 1 black, -1 white, 0 empty."""
    board = state.board
    sign = {Player.black: 1, Player.white: -1, None: 0}
    return [
        [sign[board.get(Point(row, col))] for col in range(1, board.num_cols + 1)]
        for row in range(board.num_rows, 0, -1)
    ]


def _ko_text(state: GameState) -> str | None:
    """The point the player to move may not retake now (simple ko), as a vertex."""
    if not state.ko_point:
        return None
    point = state.board.geometry.points[state.ko_point]
    return None if point is None else move_text(Move.play(point))


class GameStore:
    """The games on the server, by id; the least recently used goes when there are too many."""

    def __init__(self, limit: int = MAX_GAMES) -> None:
        self._games: OrderedDict[str, GameSession] = OrderedDict()
        self._lock = threading.Lock()
        self.limit = limit

    def add(self, session: GameSession) -> GameSession:
        with self._lock:
            self._games[session.id] = session
            while len(self._games) > self.limit:
                _, old = self._games.popitem(last=False)
                with old.lock:
                    old.cancel_search()
        return session

    def get(self, game_id: str) -> GameSession:
        with self._lock:
            session = self._games.get(game_id)
            if session is None:
                raise PlayError(f"no game {game_id!r} on this server (it may have been restarted)", 404)
            self._games.move_to_end(game_id)
        session.touched = time.monotonic()
        return session

    def __len__(self) -> int:
        return len(self._games)
