"""One hosted game's record as the server holds it, and the JSON OGS sends about it: ``gamedata``,
``clock`` and ``move`` (the shapes gtp2ogs 9.x reads in its Game.ts and Bot.ts)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from dlgo_ogs.clock import PlayerClock
from dlgo_ogs.coords import PASS, to_ogs
from dlgo_ogs.spec import GameSpec

__all__ = ["Move", "Player", "ServerGame", "now_ms"]


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass(frozen=True)
class Player:
    id: int
    username: str
    ranking: float = 20.0

    def to_json(self) -> dict:
        return {"id": self.id, "username": self.username, "ranking": self.ranking, "professional": False}


@dataclass(frozen=True)
class Move:
    color: str  # "black" or "white"
    point: tuple[int, int]
    ms: int  # thinking time the server charged
    by: str  # "bot" or "opponent"


@dataclass
class ServerGame:
    """Moves, clocks and phase of one game; ``color_to_move`` follows OGS's handicap rules."""

    game_id: int
    spec: GameSpec
    bot: Player
    opponent: Player
    setup_black: list[tuple[int, int]] = field(default_factory=list)  # fixed handicap stones
    moves: list[Move] = field(default_factory=list)
    phase: str = "play"
    start_ms: int = field(default_factory=now_ms)
    turn_start_ms: int = field(default_factory=now_ms)
    winner_color: str | None = None
    reason: str = ""  # resignation, score, timeout, illegal
    outcome: str = ""  # OGS's outcome text: "Resignation", "Timeout", "3.5 points"
    score: float | None = None  # Black's points less White's, after komi
    removed: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.clocks = {"black": PlayerClock(self.spec.clock), "white": PlayerClock(self.spec.clock)}

    # --- whose move -------------------------------------------------------------------------
    def player(self, color: str) -> Player:
        return self.bot if color == self.spec.bot_color else self.opponent

    def color_of(self, move_index: int) -> str:
        """The colour of the move at ``move_index`` (0-based) of ``moves``."""
        stones = self.spec.stones
        if stones and self.spec.free_handicap:
            if move_index < stones:
                return "black"  # Black places the handicap stones as moves
            return "white" if (move_index - stones) % 2 == 0 else "black"
        first, second = ("white", "black") if stones else ("black", "white")
        return first if move_index % 2 == 0 else second

    @property
    def color_to_move(self) -> str:
        return self.color_of(len(self.moves))

    @property
    def placing_handicap(self) -> bool:
        """True while Black's free handicap stones are still being placed."""
        return self.spec.free_handicap and len(self.moves) < self.spec.stones

    @property
    def initial_player(self) -> str:
        return "white" if self.spec.stones and not self.spec.free_handicap else "black"

    def deadline_ms(self) -> int:
        return self.turn_start_ms + int(self.clocks[self.color_to_move].allowance() * 1000)

    # --- OGS's JSON -------------------------------------------------------------------------
    def clock_json(self) -> dict:
        last = self.turn_start_ms
        return {
            "game_id": self.game_id,
            "current_player": self.player(self.color_to_move).id,
            "black_player_id": self.player("black").id,
            "white_player_id": self.player("white").id,
            "title": f"Game {self.game_id}",
            "last_move": last,
            "expiration": self.deadline_ms(),
            "black_time": self.clocks["black"].to_json(last),
            "white_time": self.clocks["white"].to_json(last),
            "now": now_ms(),  # OGS sends it now and then; gtp2ogs deletes it
        }

    def move_json(self, index: int) -> dict:
        move = self.moves[index]
        return {"game_id": self.game_id, "move_number": index + 1, "move": [*move.point, move.ms]}

    def gamedata(self) -> dict:
        black, white = self.player("black"), self.player("white")
        data = {
            "game_id": self.game_id,
            "game_name": f"dlgo_ogs game {self.game_id}",
            "private": False,
            "ranked": False,
            "players": {"black": black.to_json(), "white": white.to_json()},
            "black_player_id": black.id,
            "white_player_id": white.id,
            "width": self.spec.size,
            "height": self.spec.size,
            "komi": self.spec.game_komi,
            "handicap": self.spec.handicap,
            "free_handicap_placement": self.spec.free_handicap,
            "rules": "chinese",
            "phase": self.phase,
            "initial_player": self.initial_player,
            "initial_state": {"black": "".join(to_ogs(p) for p in self.setup_black), "white": ""},
            "moves": [[*m.point, m.ms] for m in self.moves],
            "time_control": self.spec.clock.to_json(),
            "clock": self.clock_json(),
            "start_time": self.start_ms // 1000,
            "pause_on_weekends": self.spec.clock.speed == "correspondence",
            "disable_analysis": False,
            "allow_self_capture": False,
            "allow_ko": False,
            "allow_superko": False,
            "superko_algorithm": "ssk",
            "score_territory": True,
            "score_stones": True,
            "score_handicap": True,
            "score_prisoners": False,
            "score_passes": True,
            "aga_handicap_scoring": False,
            "automatic_stone_removal": False,
            "white_must_pass_last": False,
            "opponent_plays_first_after_resume": True,
            "strict_seki_mode": False,
        }
        if self.phase == "finished":
            data["winner"] = self.player(self.winner_color).id if self.winner_color else 0
            data["outcome"] = self.outcome
            data["removed"] = "".join(to_ogs(p) for p in self.removed)
            data["end_time"] = now_ms() // 1000
        return data

    def active_game_json(self) -> dict:
        """What OGS pushes to a player's socket about one of their games (``active_game``)."""
        return {
            "id": self.game_id,
            "phase": self.phase,
            "name": f"dlgo_ogs game {self.game_id}",
            "player_to_move": self.player(self.color_to_move).id,
            "time_per_move": int(self.spec.clock.average_move_seconds()),
            "width": self.spec.size,
            "height": self.spec.size,
            "black": self.player("black").to_json(),
            "white": self.player("white").to_json(),
        }

    def last_moves_passed(self) -> bool:
        """Two passes in a row (handicap placement over) end the play phase."""
        played = self.moves[self.spec.stones if self.spec.free_handicap else 0 :]
        return len(played) >= 2 and played[-1].point == PASS and played[-2].point == PASS
