"""The referee's clocks: GTP ``time_settings`` semantics, kept by the referee for both players.

``ClockSettings(main, byo_yomi, stones)`` means what GTP's ``time_settings`` means: ``main``
seconds of main time, then Canadian overtime of ``stones`` moves in every ``byo_yomi``
seconds; ``byo_yomi == 0`` is absolute time (no overtime). ``ClockSettings(0, S, 1)`` is S
seconds per move. The move during which main time runs out is the first stone of the first
period, and the part of it spent after main time counts against that period.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ClockSettings", "RefereeClock"]


@dataclass(frozen=True)
class ClockSettings:
    main: float
    byo_yomi: float = 0.0
    stones: int = 0

    def __post_init__(self) -> None:
        if self.main < 0 or self.byo_yomi < 0 or self.stones < 0:
            raise ValueError("clock settings must not be negative")
        if self.byo_yomi > 0 and self.stones == 0:
            raise ValueError("byo-yomi time needs at least one stone per period (GTP: 0 stones = no limit)")
        if self.main == 0 and self.byo_yomi == 0:
            raise ValueError("a clock needs main time or byo-yomi time")

    def gtp(self) -> str:
        """The ``time_settings`` command that announces this clock."""
        return f"time_settings {_whole(self.main)} {_whole(self.byo_yomi)} {self.stones}"

    def describe(self) -> str:
        if self.byo_yomi == 0:
            return f"{self.main:g} s absolute"
        if self.main == 0 and self.stones == 1:
            return f"{self.byo_yomi:g} s per move"
        return f"{self.main:g} s + {self.stones} stones / {self.byo_yomi:g} s (Canadian)"

    def to_json(self) -> dict:
        return {"main": self.main, "byo_yomi": self.byo_yomi, "stones": self.stones}


def _whole(seconds: float) -> str:
    return str(int(seconds)) if seconds == int(seconds) else f"{seconds:g}"


class RefereeClock:
    """One player's clock. ``spend(seconds)`` charges a move and says whether the flag held."""

    def __init__(self, settings: ClockSettings) -> None:
        self.settings = settings
        self.main_left = settings.main
        self.in_overtime = settings.main == 0
        self.period_left = settings.byo_yomi if self.in_overtime else 0.0
        self.stones_left = settings.stones if self.in_overtime else 0
        self.flagged = False

    def time_left(self) -> tuple[float, int]:
        """GTP ``time_left`` arguments: seconds on the current clock, stones left (0 in main time)."""
        if self.in_overtime:
            return (max(0.0, self.period_left), self.stones_left)
        return (max(0.0, self.main_left), 0)

    def max_thinking_time(self) -> float:
        """The longest the next move may take without losing on time."""
        if self.in_overtime:
            return max(0.0, self.period_left)
        return self.main_left + self.settings.byo_yomi

    def spend(self, seconds: float) -> bool:
        """Charge one move of ``seconds``; False (and ``flagged``) when the player lost on time."""
        s = self.settings
        if self.flagged:
            return False
        if not self.in_overtime:
            if seconds <= self.main_left:
                self.main_left -= seconds
                return True
            seconds -= self.main_left
            self.main_left = 0.0
            if s.byo_yomi == 0:
                self.flagged = True
                return False
            self.in_overtime = True
            self.period_left, self.stones_left = s.byo_yomi, s.stones
        if seconds > self.period_left:
            self.period_left -= seconds
            self.flagged = True
            return False
        self.period_left -= seconds
        self.stones_left -= 1
        if self.stones_left <= 0:
            self.period_left, self.stones_left = s.byo_yomi, s.stones
        return True
