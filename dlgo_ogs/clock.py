"""OGS's time controls and the server's clock: the JSON shapes gtp2ogs reads (its Bot.loadClock)
and the bookkeeping OGS does when a move arrives.

A clock is a spec such as ``byoyomi:MAIN:PERIOD:PERIODS``, ``canadian:MAIN:PERIOD:STONES``,
``fischer:INITIAL:INCREMENT:MAX``, ``simple:PER_MOVE`` or ``absolute:TOTAL`` (seconds).
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SPEEDS", "SYSTEMS", "PlayerClock", "TimeControl"]

SYSTEMS = ("byoyomi", "canadian", "fischer", "simple", "absolute")
SPEEDS = ("blitz", "rapid", "live", "correspondence")
_FIELDS = {
    "byoyomi": ("main_time", "period_time", "periods"),
    "canadian": ("main_time", "period_time", "stones_per_period"),
    "fischer": ("initial_time", "time_increment", "max_time"),
    "simple": ("per_move",),
    "absolute": ("total_time",),
}


@dataclass(frozen=True)
class TimeControl:
    """One game's time control, as OGS's ``time_control`` object names its fields."""

    system: str
    values: dict[str, float] = field(default_factory=dict)
    speed: str = ""

    @classmethod
    def parse(cls, spec: str, speed: str | None = None) -> TimeControl:
        """``byoyomi:0:10:3`` and the like; ``speed`` (blitz, rapid, live, correspondence)
        overrides the speed OGS would derive from the average time per move."""
        system, *numbers = spec.split(":")
        names = _FIELDS.get(system)
        if names is None:
            raise ValueError(f"unknown clock system {system!r}: one of {', '.join(SYSTEMS)}")
        if len(numbers) != len(names):
            raise ValueError(f"clock {spec!r}: {system} takes {':'.join(n.upper() for n in names)}")
        values = {name: float(n) for name, n in zip(names, numbers, strict=True)}
        if any(v < 0 for v in values.values()):
            raise ValueError(f"clock {spec!r}: negative time")
        if system == "fischer" and values["max_time"] < values["initial_time"]:
            raise ValueError(f"clock {spec!r}: MAX is below INITIAL")
        if speed is not None and speed not in SPEEDS:
            raise ValueError(f"unknown speed {speed!r}: one of {', '.join(SPEEDS)}")
        tc = cls(system, values)
        return cls(system, values, speed or tc.derived_speed())

    def average_move_seconds(self, moves_per_player: int = 40) -> float:
        """Roughly OGS's average thinking time per move, which decides the speed class."""
        v = self.values
        if self.system == "byoyomi":
            return v["main_time"] / moves_per_player + v["period_time"]
        if self.system == "canadian":
            return v["main_time"] / moves_per_player + v["period_time"] / max(v["stones_per_period"], 1)
        if self.system == "fischer":
            return v["initial_time"] / moves_per_player + v["time_increment"]
        if self.system == "simple":
            return v["per_move"]
        return v["total_time"] / moves_per_player

    def derived_speed(self) -> str:
        average = self.average_move_seconds()
        if average < 10:
            return "blitz"
        if average < 30:
            return "rapid"
        return "live" if average < 3600 else "correspondence"

    def to_json(self) -> dict:
        """The game's ``time_control`` as OGS sends it (integers where the value is whole)."""
        data: dict = {"system": self.system, "time_control": self.system, "speed": self.speed}
        data["pause_on_weekends"] = self.speed == "correspondence"
        data.update({k: _number(v) for k, v in self.values.items()})
        return data

    def spec(self) -> str:
        return ":".join([self.system, *(f"{_number(v)}" for v in self.values.values())])


class PlayerClock:
    """One player's clock on the server: what is left, charged when the player's move arrives."""

    def __init__(self, tc: TimeControl) -> None:
        self.tc = tc
        v = tc.values
        self.thinking_time = v.get("main_time", v.get("initial_time", v.get("total_time", 0.0)))
        self.periods = int(v.get("periods", 0))
        self.period_time = v.get("period_time", 0.0)
        self.moves_left = int(v.get("stones_per_period", 0))
        self.block_time = v.get("period_time", 0.0)

    def allowance(self) -> float:
        """Seconds this player may think on the current move before losing on time."""
        system = self.tc.system
        if system == "byoyomi":
            return self.thinking_time + self.periods * self.period_time
        if system == "canadian":
            return self.thinking_time + self.block_time
        if system == "simple":
            return self.tc.values["per_move"]
        return self.thinking_time

    def charge(self, elapsed: float) -> bool:
        """Charge a move that took ``elapsed`` seconds; False when it came after the time ran out."""
        if elapsed > self.allowance():
            return False
        system = self.tc.system
        if system == "byoyomi":
            over = elapsed - self.thinking_time
            self.thinking_time = max(self.thinking_time - elapsed, 0.0)
            if over > 0:
                self.periods -= int(over // self.period_time) if self.period_time else 0
        elif system == "canadian":
            self._charge_canadian(elapsed)
        elif system == "fischer":
            v = self.tc.values
            self.thinking_time = min(self.thinking_time - elapsed + v["time_increment"], v["max_time"])
        elif system == "absolute":
            self.thinking_time -= elapsed
        return True

    def _charge_canadian(self, elapsed: float) -> None:
        if self.thinking_time > 0:
            if elapsed <= self.thinking_time:
                self.thinking_time -= elapsed
                return
            elapsed -= self.thinking_time
            self.thinking_time = 0.0  # into overtime: a fresh block
        self.block_time -= elapsed
        self.moves_left -= 1
        if self.moves_left <= 0:
            self.moves_left = int(self.tc.values["stones_per_period"])
            self.block_time = self.tc.values["period_time"]

    def to_json(self, last_move_ms: int) -> dict | int:
        """This player's part of OGS's clock (``black_time`` / ``white_time``)."""
        system = self.tc.system
        if system == "byoyomi":
            return {"thinking_time": self.thinking_time, "periods": self.periods, "period_time": self.period_time}
        if system == "canadian":
            return {"thinking_time": self.thinking_time, "moves_left": self.moves_left, "block_time": self.block_time}
        if system == "simple":
            return last_move_ms  # OGS sends a timestamp here; gtp2ogs reads time_control.per_move instead
        if system == "fischer":
            return {"thinking_time": self.thinking_time, "skip_bonus": False}
        return {"thinking_time": self.thinking_time}


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
