"""What one hosted game is: board, clock, colours, handicap, and the events to stage in it.

``--game`` takes ``KEY=VALUE`` pairs separated by commas, e.g.
``size=13,clock=fischer:60:10:120,bot=black,handicap=4,free,speed=live,resign=40,count=2``;
the staged faults: ``kill=MOVE``, ``drop=MOVE`` and ``outage=SECONDS`` (how long a drop lasts).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from dlgo_ogs.clock import TimeControl

__all__ = ["GameSpec", "parse_game_spec"]

MAX_SIZE = 25


@dataclass(frozen=True)
class GameSpec:
    """One game the stand-in hosts. Move numbers count from 1 as OGS's ``move_number`` does."""

    size: int = 9
    clock: TimeControl = field(default_factory=lambda: TimeControl.parse("byoyomi:60:10:3"))
    bot_color: str = "white"
    handicap: int = 0
    free_handicap: bool = False
    komi: float | None = None  # None: 7.5, or 0.5 in a handicap game
    opponent_resigns_at: int = 0  # the opponent resigns at its first move from this number on (0: never)
    kill_engine_at: int = 0  # SIGKILL gtp2ogs's engine processes while the bot thinks on this move
    drop_connection_at: int = 0  # drop gtp2ogs's WebSocket while the bot thinks on this move
    outage: float = 2.0  # seconds the server then refuses connections, as a network failure lasts

    def __post_init__(self) -> None:
        if not 2 <= self.size <= MAX_SIZE:
            raise ValueError(f"size {self.size}: 2..{MAX_SIZE}")
        if self.bot_color not in ("black", "white"):
            raise ValueError(f"bot colour {self.bot_color!r}: black or white")
        if self.handicap < 0 or self.handicap > 9 or (self.handicap > 1 and self.size < 7):
            raise ValueError(f"handicap {self.handicap}: 0..9 on 7x7 and larger boards")

    @property
    def game_komi(self) -> float:
        if self.komi is not None:
            return self.komi
        return 0.5 if self.handicap > 1 else 7.5

    @property
    def stones(self) -> int:
        """Handicap stones on the board: OGS's handicap 1 is none (Black moves first, low komi)."""
        return self.handicap if self.handicap > 1 else 0

    def describe(self) -> str:
        hc = f" H{self.handicap}{' free' if self.free_handicap else ''}" if self.stones else ""
        return f"{self.size}x{self.size} {self.clock.speed} {self.clock.spec()} bot {self.bot_color}{hc}"


def parse_game_spec(text: str, base: GameSpec | None = None) -> tuple[GameSpec, int]:
    """A ``--game`` value -> (spec, count); keys not given keep ``base``'s values."""
    spec = base or GameSpec()
    changes: dict = {}
    clock, speed, count = None, None, 1
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = item.partition("=")
        if key == "size":
            changes["size"] = int(value)
        elif key == "clock":
            clock = value
        elif key == "speed":
            speed = value
        elif key == "bot":
            changes["bot_color"] = value
        elif key == "handicap":
            changes["handicap"] = int(value)
        elif key == "free":
            changes["free_handicap"] = value in ("", "1", "true", "yes")
        elif key == "komi":
            changes["komi"] = float(value)
        elif key == "resign":
            changes["opponent_resigns_at"] = int(value)
        elif key == "kill":
            changes["kill_engine_at"] = int(value)
        elif key == "drop":
            changes["drop_connection_at"] = int(value)
        elif key == "outage":
            changes["outage"] = float(value)
        elif key == "count":
            count = int(value)
        else:
            raise ValueError(f"unknown game key {key!r} in {text!r}")
    if clock is not None or speed is not None:
        changes["clock"] = TimeControl.parse(clock or spec.clock.spec(), speed)
    return replace(spec, **changes), count
