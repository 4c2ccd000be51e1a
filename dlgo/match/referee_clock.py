"""The referee's clocks: GTP ``time_settings`` semantics, kept by the referee for both players.

``ClockSettings(main, byo_yomi, stones)`` means what GTP's ``time_settings`` means: ``main``
seconds of main time, then Canadian overtime of ``stones`` moves in every ``byo_yomi``
seconds; ``byo_yomi == 0`` is absolute time (no overtime). ``ClockSettings(0, S, 1)`` is S
seconds per move. The move during which main time runs out is the first stone of the first
period, and the part of it spent after main time counts against that period.

``ClockSettings(main, byo_yomi, periods=N)`` is Japanese byo-yomi, the clock of OGS and KGS:
after main time every move has ``byo_yomi`` seconds; a move that takes longer uses up one period
for each whole ``byo_yomi`` it spent, and the player loses on time when none is left. It is
announced with ``kgs-time_settings byoyomi`` (GTP 2 has no such clock; an engine that refuses the
command is told ``time_settings MAIN BYO 1``, a period of one stone), and ``time_left``'s second
number is then the periods left, as KGS sends it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["ClockSettings", "RefereeClock"]


@dataclass(frozen=True)
class ClockSettings:
    main: float
    byo_yomi: float = 0.0
    stones: int = 0
    periods: int = 0  # > 0: Japanese byo-yomi with this many periods (then ``stones`` is 0)

    def __post_init__(self) -> None:
        if self.main < 0 or self.byo_yomi < 0 or self.stones < 0 or self.periods < 0:
            raise ValueError("clock settings must not be negative")
        if self.periods and (self.stones or self.byo_yomi == 0):
            raise ValueError("Japanese byo-yomi needs a period time and no stones per period")
        if self.byo_yomi > 0 and self.stones == 0 and not self.periods:
            raise ValueError("byo-yomi time needs at least one stone per period (GTP: 0 stones = no limit)")
        if self.main == 0 and self.byo_yomi == 0:
            raise ValueError("a clock needs main time or byo-yomi time")

    @property
    def japanese(self) -> bool:
        return self.periods > 0

    def gtp(self) -> str:
        """The command that announces this clock: ``time_settings``, or for Japanese byo-yomi
        ``kgs-time_settings byoyomi``."""
        if self.japanese:
            return f"kgs-time_settings byoyomi {_whole(self.main)} {_whole(self.byo_yomi)} {self.periods}"
        return f"time_settings {_whole(self.main)} {_whole(self.byo_yomi)} {self.stones}"

    def gtp_fallback(self) -> str | None:
        """What to announce to an engine that refused :meth:`gtp` (None: nothing else to try)."""
        if self.japanese:
            return f"time_settings {_whole(self.main)} {_whole(self.byo_yomi)} 1"
        return None

    def describe(self) -> str:
        if self.japanese:
            return f"{self.main:g} s + {self.periods} x {self.byo_yomi:g} s (byo-yomi)"
        if self.byo_yomi == 0:
            return f"{self.main:g} s absolute"
        if self.main == 0 and self.stones == 1:
            return f"{self.byo_yomi:g} s per move"
        return f"{self.main:g} s + {self.stones} stones / {self.byo_yomi:g} s (Canadian)"

    def to_json(self) -> dict:
        data = {"main": self.main, "byo_yomi": self.byo_yomi, "stones": self.stones}
        if self.japanese:
            data["periods"] = self.periods
        return data


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
        self.periods_left = settings.periods
        self.flagged = False

    def time_left(self) -> tuple[float, int]:
        """GTP ``time_left`` arguments: seconds on the current clock, stones left (0 in main time;
        Japanese byo-yomi: the periods left)."""
        if self.in_overtime and self.settings.japanese:
            return (self.settings.byo_yomi, self.periods_left)
        if self.in_overtime:
            return (max(0.0, self.period_left), self.stones_left)
        return (max(0.0, self.main_left), 0)

    def max_thinking_time(self) -> float:
        """The longest the next move may take without losing on time."""
        s = self.settings
        if s.japanese:
            return self.main_left + s.byo_yomi * self.periods_left
        if self.in_overtime:
            return max(0.0, self.period_left)
        return self.main_left + s.byo_yomi

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
        if s.japanese:
            # every period the move ran past is used up; the one it ends in starts again
            self.periods_left -= max(0, math.ceil(seconds / s.byo_yomi) - 1)
            if self.periods_left <= 0:
                self.flagged = True
                return False
            return True
        if seconds > self.period_left:
            self.period_left -= seconds
            self.flagged = True
            return False
        self.period_left -= seconds
        self.stones_left -= 1
        if self.stones_left <= 0:
            self.period_left, self.stones_left = s.byo_yomi, s.stones
        return True
