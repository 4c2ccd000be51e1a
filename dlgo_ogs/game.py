"""One hosted game in motion: the bot's moves checked and relayed, the opponent's asked of its GTP
engine, the clock run out on the server, and the end (resignation, score after both pass and the
stone-removal phase, time-out) announced as OGS announces it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Protocol

from dlgo_ogs.coords import PASS, from_gtp, from_ogs, to_gtp, to_ogs
from dlgo_ogs.gtp import GtpEngine, GtpError
from dlgo_ogs.state import Move, ServerGame, now_ms

__all__ = ["Game", "Hub"]

FAULT_DELAY = 0.1  # seconds into the bot's turn before a staged fault strikes (its move is on the wire)


class Hub(Protocol):
    """What a game needs of the server around it."""

    def game_event(self, game_id: int, name: str, data: object) -> None: ...
    def user_event(self, name: str, data: object) -> None: ...
    def fault(self, kind: str, game_id: int) -> None: ...
    def game_over(self, game: Game) -> None: ...


class Game:
    """A :class:`ServerGame` with its opponent and referee engines (``open`` starts them)."""

    def __init__(
        self,
        state: ServerGame,
        opponent_argv: list[str],
        referee_argv: list[str],
        hub: Hub,
        log: Callable[[str], None],
        opponent_min_seconds: float = 0.0,
    ) -> None:
        self.state = state
        self.opponent_min_seconds = opponent_min_seconds
        self.hub = hub
        self.log = log
        self._opponent_argv = opponent_argv
        self._referee_argv = referee_argv
        self.opponent: GtpEngine | None = None
        self.referee: GtpEngine | None = None
        self.failures: list[dict] = []  # the bot's faults: illegal moves, moves after time-out...
        self.late_moves: list[dict] = []  # moves after the game ended otherwise, ignored as OGS does
        self.chats: list[dict] = []
        self.analysis: list[dict] = []
        self.faults_staged: list[str] = []
        self._lock = asyncio.Lock()
        self._timer: asyncio.Task | None = None
        self._tasks: set[asyncio.Task] = set()
        self._pending_handicap: list[tuple[int, int]] = []
        self._started = False

    @property
    def gid(self) -> int:
        return self.state.game_id

    @property
    def finished(self) -> bool:
        return self.state.phase == "finished"

    @property
    def started(self) -> bool:
        return self._started

    # --- set-up -------------------------------------------------------------------------------
    async def open(self) -> None:
        """Start the engines and set up the board; the clock starts with :meth:`start`."""
        spec = self.state.spec
        self.referee = await GtpEngine.start(self._referee_argv, f"referee of game {self.gid}")
        self.opponent = await GtpEngine.start(self._opponent_argv, f"opponent of game {self.gid}")
        for engine in (self.referee, self.opponent):
            await engine.send(f"boardsize {spec.size}")
            await engine.send("clear_board")
            await engine.send(f"komi {spec.game_komi}")
        if spec.stones and not spec.free_handicap:
            vertices = (await self.referee.send(f"fixed_handicap {spec.stones}")).split()
            self.state.setup_black = [from_gtp(v, spec.size) for v in vertices]
            await self._tell_handicap(self.opponent, self.state.setup_black)

    def start(self) -> None:
        """The game begins now (the bot is online): its clock runs from here."""
        if self._started:
            return
        self._started = True
        self.state.start_ms = self.state.turn_start_ms = now_ms()
        self.log(f"game {self.gid}: {self.state.spec.describe()}")
        self._next_turn()

    async def _tell_handicap(self, engine: GtpEngine, points: list[tuple[int, int]]) -> None:
        size = self.state.spec.size
        vertices = " ".join(to_gtp(p, size) for p in points)
        ok, _ = await engine.ask(f"set_free_handicap {vertices}")
        if not ok:  # an engine without set_free_handicap still gets the stones
            for p in points:
                await engine.send(f"play black {to_gtp(p, size)}")

    # --- the bot's side -------------------------------------------------------------------------
    async def on_bot_move(self, text: str) -> None:
        async with self._lock:
            await self._bot_move(text)

    async def _bot_move(self, text: str) -> None:
        st = self.state
        number = len(st.moves) + 1
        if st.phase != "play":
            if st.reason == "timeout":
                self._failure("after_timeout", number, text, "the game was lost on time")
            else:  # gtp2ogs asks for a move on the last pass before it hears of the phase change
                self.late_moves.append({"move_number": number, "move": text, "phase": st.phase})
            return
        if st.color_to_move != st.spec.bot_color:
            self._failure("out_of_turn", number, text, f"{st.color_to_move} to move")
            return
        elapsed = (now_ms() - st.turn_start_ms) / 1000
        if elapsed > st.clocks[st.spec.bot_color].allowance():
            self._failure("after_timeout", number, text, f"{elapsed:.2f} s on the clock")
            await self._finish(_other(st.spec.bot_color), "timeout", "Timeout")
            return
        try:
            point = from_ogs(text, st.spec.size)
        except ValueError as exc:
            await self._illegal(number, text, str(exc))
            return
        problem = await self._check(st.spec.bot_color, point)
        if problem:
            await self._illegal(number, text, problem)
            return
        if not st.placing_handicap:
            await self._play_into(self.opponent, st.spec.bot_color, point)
        await self._apply(point, "bot")

    async def _illegal(self, number: int, text: str, detail: str) -> None:
        self._failure("illegal", number, text, detail)
        self.hub.game_event(self.gid, f"game/{self.gid}/error", f"Illegal move: {detail}")
        # OGS would wait for another move until the clock ran out; the stand-in ends it here.
        await self._finish(_other(self.state.spec.bot_color), "illegal", "Illegal move")

    async def on_bot_resign(self) -> None:
        async with self._lock:
            if self.state.phase == "play":
                await self._finish(_other(self.state.spec.bot_color), "resignation", "Resignation")

    def on_chat(self, data: dict) -> None:
        body = data.get("body")
        entry = {"move_number": data.get("move_number"), "type": data.get("type"), "body": body}
        if isinstance(body, dict) and body.get("type") == "analysis":
            self.analysis.append(entry)
        else:
            self.chats.append(entry)

    def _failure(self, kind: str, number: int, move: str, detail: str) -> None:
        self.failures.append({"kind": kind, "move_number": number, "move": move, "detail": detail})
        self.log(f"game {self.gid}: FAILURE {kind} at move {number} ({move!r}): {detail}")

    # --- moves --------------------------------------------------------------------------------
    async def _check(self, color: str, point: tuple[int, int]) -> str:
        """Why ``point`` is illegal for ``color`` now ('' when legal); the referee plays it."""
        st = self.state
        assert self.referee is not None
        if st.placing_handicap:
            if point == PASS:
                return "a pass among the handicap stones"
            if point in self._pending_handicap:
                return "a handicap stone placed twice"
            return ""
        ok, text = await self.referee.ask(f"play {color} {to_gtp(point, st.spec.size)}")
        return "" if ok else f"the referee says: {text}"

    async def _play_into(self, engine: GtpEngine | None, color: str, point: tuple[int, int]) -> None:
        assert engine is not None
        await engine.send(f"play {color} {to_gtp(point, self.state.spec.size)}")

    async def _apply(self, point: tuple[int, int], by: str) -> None:
        """Charge the clock, record the move, and send clock and move to the bot."""
        st = self.state
        color, now = st.color_to_move, now_ms()
        st.clocks[color].charge((now - st.turn_start_ms) / 1000)
        st.moves.append(Move(color, point, now - st.turn_start_ms, by))
        st.turn_start_ms = now
        if st.spec.free_handicap and by == "bot" and len(st.moves) <= st.spec.stones:
            self._pending_handicap.append(point)
            if len(self._pending_handicap) == st.spec.stones:
                assert self.referee is not None and self.opponent is not None
                await self._tell_handicap(self.referee, self._pending_handicap)
                await self._tell_handicap(self.opponent, self._pending_handicap)
        # The clock before the move: gtp2ogs reads its clock when the move sets it thinking.
        self.hub.game_event(self.gid, f"game/{self.gid}/clock", st.clock_json())
        self.hub.game_event(self.gid, f"game/{self.gid}/move", st.move_json(len(st.moves) - 1))
        if st.last_moves_passed():
            await self._score()
            return
        self._next_turn()

    def _next_turn(self) -> None:
        st = self.state
        self._arm_timer()
        if st.color_to_move != st.spec.bot_color:
            self._spawn(self._opponent_turn())
            return
        number = len(st.moves) + 1
        for kind, at in (("kill", st.spec.kill_engine_at), ("drop", st.spec.drop_connection_at)):
            if at and number >= at and kind not in self.faults_staged:
                self.faults_staged.append(kind)
                self._spawn(self._stage_fault(kind, number))

    async def _stage_fault(self, kind: str, number: int) -> None:
        await asyncio.sleep(FAULT_DELAY)
        if not self.finished:
            self.log(f"game {self.gid}: staging '{kind}' while the bot thinks on move {number}")
            self.hub.fault(kind, self.gid)

    async def _opponent_turn(self) -> None:
        await asyncio.sleep(self.opponent_min_seconds)  # outside the lock: the bot's chats still arrive
        async with self._lock:
            st = self.state
            if st.phase != "play" or st.color_to_move == st.spec.bot_color:
                return
            assert self.opponent is not None and self.referee is not None
            color, size, number = st.color_to_move, st.spec.size, len(st.moves) + 1
            try:
                if st.placing_handicap:
                    answer = await self.opponent.send(f"place_free_handicap {st.spec.stones}")
                    points = [from_gtp(v, size) for v in answer.split()]
                    await self._tell_handicap(self.referee, points)
                    for point in points:
                        await self._apply(point, "opponent")
                    return
                if st.spec.opponent_resigns_at and number >= st.spec.opponent_resigns_at:
                    await self._finish(st.spec.bot_color, "resignation", "Resignation")
                    return
                answer = (await self.opponent.send(f"genmove {color}")).lower()
            except (GtpError, ValueError) as exc:
                self.log(f"game {self.gid}: the opponent failed: {exc}")
                await self._finish(st.spec.bot_color, "opponent_failure", "Disqualification")
                return
            if st.phase != "play":
                return  # lost on time while thinking
            if answer == "resign":
                await self._finish(st.spec.bot_color, "resignation", "Resignation")
                return
            point = from_gtp(answer, size)
            ok, text = await self.referee.ask(f"play {color} {answer}")
            if not ok:
                self.log(f"game {self.gid}: the opponent's {answer} is illegal: {text}")
                await self._finish(st.spec.bot_color, "opponent_illegal", "Disqualification")
                return
            await self._apply(point, "opponent")

    # --- the clock ------------------------------------------------------------------------------
    def _arm_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        st = self.state
        self._timer = self._spawn(self._expire(len(st.moves), st.deadline_ms()))

    async def _expire(self, move_index: int, deadline_ms: int) -> None:
        await asyncio.sleep(max(deadline_ms - now_ms(), 0) / 1000 + 0.01)
        async with self._lock:
            st = self.state
            if st.phase == "play" and len(st.moves) == move_index:
                loser = st.color_to_move
                self.log(f"game {self.gid}: {st.player(loser).username} ({loser}) ran out of time")
                await self._finish(_other(loser), "timeout", "Timeout")

    # --- the end --------------------------------------------------------------------------------
    async def _score(self) -> None:
        """Both passed: OGS's stone-removal phase (GNU Go marks the dead), then the count."""
        st = self.state
        assert self.referee is not None
        st.phase = "stone removal"
        self.hub.game_event(self.gid, f"game/{self.gid}/phase", "stone removal")
        dead = (await self.referee.send("final_status_list dead")).split()
        st.removed = [from_gtp(v, st.spec.size) for v in dead]
        stones = "".join(to_ogs(p) for p in st.removed)
        self.hub.game_event(
            self.gid, f"game/{self.gid}/removed_stones", {"removed": True, "stones": stones, "all_removed": stones}
        )
        for player in (st.bot, st.opponent):
            accepted = {"player_id": player.id, "stones": stones, "strict_seki_mode": False}
            self.hub.game_event(self.gid, f"game/{self.gid}/removed_stones_accepted", accepted)
        result = (await self.referee.send("final_score")).upper()
        if result.startswith(("B+", "W+")):
            points = float(result[2:])
            st.score = points if result[0] == "B" else -points
            winner = "black" if result[0] == "B" else "white"
        else:  # a draw: jigo
            st.score, points, winner = 0.0, 0.0, ""
        await self._finish(winner or None, "score", f"{points:g} points")

    async def _finish(self, winner: str | None, reason: str, outcome: str) -> None:
        st = self.state
        if st.phase == "finished":
            return
        st.phase, st.winner_color, st.reason, st.outcome = "finished", winner, reason, outcome
        if self._timer is not None and self._timer is not asyncio.current_task():
            self._timer.cancel()
        # The finished gamedata first: gtp2ogs's game-over handling (and its farewell) needs a
        # phase change in a gamedata, not a phase event.
        self.hub.game_event(self.gid, f"game/{self.gid}/gamedata", st.gamedata())
        self.hub.user_event("active_game", st.active_game_json())
        self.log(f"game {self.gid}: over, {self.result_text()} ({reason}) after {len(st.moves)} moves")
        self.hub.game_over(self)

    def result_text(self) -> str:
        """SGF's RE: ``B+R``, ``W+3.5``, ``B+T``, ``0`` (jigo), ``?`` (unfinished)."""
        st = self.state
        if st.phase != "finished":
            return "?"
        if st.winner_color is None:
            return "0"
        tail = {"resignation": "R", "timeout": "T", "score": f"{abs(st.score or 0):g}"}.get(st.reason, "F")
        return f"{st.winner_color[0].upper()}+{tail}"

    # --- housekeeping ---------------------------------------------------------------------------
    def _spawn(self, coro: Coroutine) -> asyncio.Task:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def close(self) -> None:
        for task in list(self._tasks):
            if task is not asyncio.current_task():
                task.cancel()
        for engine in (self.opponent, self.referee):
            if engine is not None:
                with contextlib.suppress(Exception):
                    await engine.close()


def _other(color: str) -> str:
    return "white" if color == "black" else "black"
