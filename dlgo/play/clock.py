"""Time controls, the players' clocks, and the per-move thinking budget.

Systems: none, absolute, Canadian (also "simple": ``time_settings 0 PER_MOVE 1``), byo-yomi
(KGS convention: in ``time_left`` the stones argument is the number of periods left), Fischer
and Fischer-capped. :class:`Clock` keeps both players' clocks as the controller reports them
(``time_left``) and, when it does not, as the engine counts them itself.
The GTP front end reads ``time_settings``, ``kgs-time_settings`` and ``kata-time_settings``
into a :class:`TimeControl` (``gtp_engine.time_settings``).

:func:`move_budget` turns a clock into seconds for one move in the style of KataGo and Leela
Zero: the time that may be spent (clock minus a lag buffer) is shared by the moves we still
expect to play (estimated from the empty area, with a floor), weighted towards the middle game,
cut after the opponent passes or when the result is clear. In overtime a move gets its share of
the period. The budget never exceeds what is left on the clock minus the lag buffer (inside the
buffer it is the minimum search), so the engine does not lose on time as long as the lag buffer
covers the time spent outside the search (``time.lag_buffer``: measured by
``python -m dlgo.bench firstmove``, set higher where the controller adds lag, as on OGS).

The budget counts from when the engine begins the move; :func:`move_limit` bounds it from when
the controller last reported the clock, for commands that waited in line.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dlgo.gotypes import Player

__all__ = [
    "TimeControl",
    "PlayerClock",
    "Clock",
    "BudgetSettings",
    "move_budget",
    "may_run_on",
    "time_banks",
    "move_limit",
    "game_phase_weight",
    "process_started",
]

SYSTEMS = ("none", "absolute", "canadian", "byoyomi", "fischer")


def process_started() -> float:
    """When this process started, on the ``time.monotonic`` clock (Linux: from /proc; elsewhere
    now). A controller that sends commands right after starting the engine runs its clock
    from then: interpreter start-up and imports are part of the first move's time."""
    now = time.monotonic()
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            stat = f.read()
        ticks = int(stat[stat.rindex(")") + 2 :].split()[19])  # field 22: start time since boot
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 600.0 else now


@dataclass(frozen=True)
class TimeControl:
    """One time system. ``period`` is the Canadian/byo-yomi period or the Fischer increment;
    ``stones`` is Canadian stones per period or the number of byo-yomi periods."""

    system: str = "none"
    main: float = 0.0
    period: float = 0.0
    stones: int = 0
    main_cap: float | None = None  # Fischer-capped: the clock never grows past this
    move_cap: float | None = None  # Fischer-capped: the most one move may take

    def __post_init__(self) -> None:
        if self.system not in SYSTEMS:
            raise ValueError(f"unknown time system {self.system!r}")

    @classmethod
    def from_gtp(cls, main: float, byo_yomi: float, stones: int) -> TimeControl:
        """``time_settings`` (GTP 2): byo-yomi time 0 is absolute time; byo-yomi time > 0 with
        0 stones means no limit; else Canadian."""
        if byo_yomi > 0 and stones == 0:
            return cls("none")
        if byo_yomi == 0:
            return cls("none") if main == 0 else cls("absolute", main)
        return cls("canadian", main, byo_yomi, stones)

    def describe(self) -> str:
        if self.system == "none":
            return "no time limit"
        if self.system == "absolute":
            return f"absolute {self.main:g} s"
        if self.system == "canadian":
            return f"canadian {self.main:g} s + {self.stones} stones in {self.period:g} s"
        if self.system == "byoyomi":
            return f"byo-yomi {self.main:g} s + {self.stones} x {self.period:g} s"
        text = f"fischer {self.main:g} s + {self.period:g} s per move"
        if self.main_cap is not None:
            text += f", capped at {self.main_cap:g} s"
        if self.move_cap is not None:
            text += f", at most {self.move_cap:g} s per move"
        return text


@dataclass
class PlayerClock:
    """One player's clock in GTP's terms: ``time`` left on the current clock (main time, or the
    current period in overtime) and ``stones`` (0 in main time; Canadian: stones left in the
    period; byo-yomi: periods left)."""

    time: float = 0.0
    stones: int = 0

    @property
    def in_overtime(self) -> bool:
        return self.stones > 0


def _fresh_clock(control: TimeControl) -> PlayerClock:
    if control.system in ("canadian", "byoyomi") and control.main <= 0:
        return PlayerClock(control.period, control.stones)
    return PlayerClock(control.main, 0)


@dataclass
class Clock:
    """Both players' clocks under one time control. ``reported``: when (``time.monotonic``) the
    controller last reported each player's clock, until that player's next move is counted."""

    control: TimeControl = field(default_factory=TimeControl)
    clocks: dict[Player, PlayerClock] = field(default_factory=dict)
    reported: dict[Player, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.clocks:
            self.reset()

    def set_control(self, control: TimeControl) -> None:
        self.control = control
        self.reset()

    def reset(self) -> None:
        self.clocks = {p: _fresh_clock(self.control) for p in Player}
        self.reported = {}

    def time_left(self, player: Player, time: float, stones: int, at: float | None = None) -> None:
        """What the controller reports (``time_left``), ``at`` the moment it arrived."""
        if self.control.system in ("absolute", "fischer", "none"):
            stones = 0
        self.clocks[player] = PlayerClock(float(time), int(stones))
        if at is not None:
            self.reported[player] = at

    def spend(self, player: Player, seconds: float) -> None:
        """Count ``seconds`` used for one move ourselves (until the controller reports again)."""
        self.reported.pop(player, None)
        c, clock = self.control, self.clocks[player]
        if c.system == "none":
            return
        if c.system == "absolute":
            clock.time -= seconds
        elif c.system == "fischer":
            clock.time = clock.time - seconds + c.period
            if c.main_cap is not None:
                clock.time = min(clock.time, c.main_cap)
        elif c.system == "canadian":
            if not clock.in_overtime:
                clock.time -= seconds
                if clock.time < 0 and c.stones > 0:
                    clock.time += c.period
                    clock.stones = c.stones
                return
            clock.time -= seconds
            clock.stones -= 1
            if clock.stones <= 0:
                clock.time, clock.stones = c.period, c.stones
        elif c.system == "byoyomi":
            if not clock.in_overtime:
                clock.time -= seconds
                if clock.time >= 0 or c.stones <= 0:
                    return
                over, clock.time, clock.stones = -clock.time, c.period, c.stones
            else:
                over = seconds
            while over > clock.time and clock.stones > 1:
                over -= clock.time
                clock.stones -= 1
                clock.time = c.period
            if over > clock.time:
                clock.time -= over  # flag fell
            else:
                clock.time = c.period  # the period starts again at the next move


@dataclass(frozen=True)
class BudgetSettings:
    """``lag_buffer``: seconds kept back from every clock for what the search does not see: the
    engine's own time per move outside the search (stopping it, deciding, answering) and the
    controller's lag (network and server on OGS; about nothing for a local GUI or match)."""

    lag_buffer: float = 0.1
    min_moves_left: int = 10
    moves_left_factor: float = 0.4
    minimum: float = 0.02
    move_overhead: float = 0.05  # time each move costs outside the search (reserved for future moves)
    max_seconds: float = 0.0  # 0: no cap
    default_seconds: float = 0.0  # without a clock; 0: no time limit (visits only)
    unsure_factor: float = 1.0  # main time: up to this many times the budget while the best move is unsure
    unsure_visit_ratio: float = 2.0  # unsure: the best move has fewer than this many times the second's visits

    @classmethod
    def from_config(cls, time_section: Mapping[str, Any]) -> BudgetSettings:
        """The settings of a config's ``[time]`` table."""
        t = time_section
        return cls(
            lag_buffer=t["lag_buffer"],
            min_moves_left=t["min_moves_left"],
            moves_left_factor=t["moves_left_factor"],
            minimum=t["minimum_seconds"],
            move_overhead=t["move_overhead"],
            max_seconds=t["max_seconds"],
            default_seconds=t["default_seconds"],
            unsure_factor=t.get("unsure_factor", 1.0),
            unsure_visit_ratio=t.get("unsure_visit_ratio", 2.0),
        )


def move_limit(control: TimeControl, clock: PlayerClock, settings: BudgetSettings) -> float | None:
    """The most seconds this move may take, counted from when the controller reported
    ``clock``, before its clock runs out (or a byo-yomi period is lost), less the lag buffer;
    None without a clock. The engine stops a move here even when the move began later, after
    other commands queued before it (its budget counts from when it begins)."""
    if control.system == "none":
        return None
    t = max(0.0, clock.time)
    if control.system in ("canadian", "byoyomi") and not clock.in_overtime and control.stones > 0:
        t += control.period  # main time runs out, then the first period starts
    if control.system == "fischer" and control.move_cap is not None and control.move_cap >= 0:
        t = min(t, control.move_cap)
    return t - settings.lag_buffer


def game_phase_weight(empty: int, points: int) -> float:
    """Relative time per move by game phase: 0.7 on an empty board, 1.5 at about a third filled,
    back to 1.0 from 70% filled on."""
    filled = 1.0 - empty / max(1, points)
    if filled >= 0.7:
        return 1.0
    if filled <= 0.35:
        return 0.7 + 0.8 * math.sin(0.5 * math.pi * filled / 0.35)
    return 1.0 + 0.5 * math.cos(0.5 * math.pi * (filled - 0.35) / 0.35)


def time_banks(control: TimeControl, clock: PlayerClock) -> bool:
    """Whether thinking time a move leaves unused is kept for later moves: not under a fixed time
    per move (no clock kept), not in a byo-yomi period, which comes back whole for every move, and
    not for the last stone of a Canadian period (GTP's ``time_settings 0 T 1`` is one per move).
    Where it is not, a search does not stop early (``SearchBudget.banks_time``)."""
    if control.system == "none":
        return False
    if clock.in_overtime and control.system == "byoyomi":
        return False
    return not (clock.in_overtime and control.system == "canadian" and clock.stones <= 1)


def move_budget(
    control: TimeControl,
    clock: PlayerClock,
    settings: BudgetSettings,
    empty: int,
    points: int,
    opponent_passed: bool = False,
    clear_result: bool = False,
    factor: float = 1.0,
) -> float | None:
    """Seconds to think about the next move, or None for no time limit at all. ``factor``
    stretches the clock's share within the same caps: ``unsure_factor`` for the time a move
    may run on to while its best move is unsure (where :func:`may_run_on`)."""
    if control.system == "none":
        seconds = settings.default_seconds
        if settings.max_seconds > 0:
            seconds = min(seconds, settings.max_seconds) if seconds > 0 else settings.max_seconds
        return seconds if seconds > 0 else None
    budget, cap = _share_and_cap(control, clock, settings, empty, points, opponent_passed, clear_result)
    if cap <= 0 or budget <= 0:
        # Inside the lag buffer: answer as fast as a search can; the buffer pays for the overhead.
        return settings.minimum
    return _limited(min(factor * budget, cap), settings)


def may_run_on(control: TimeControl, clock: PlayerClock, settings: BudgetSettings) -> bool:
    """Whether a move may think past its share while its best move is unsure
    (``SearchBudget.unsure_deadline``): with ``unsure_factor`` above 1, and only where unused
    time is banked (main time): a byo-yomi period's move has its whole share already."""
    return settings.unsure_factor > 1.0 and time_banks(control, clock)


def _limited(seconds: float, settings: BudgetSettings) -> float:
    if settings.max_seconds > 0:
        seconds = min(seconds, settings.max_seconds)
    return max(settings.minimum, seconds)


def _share_and_cap(
    control: TimeControl,
    clock: PlayerClock,
    settings: BudgetSettings,
    empty: int,
    points: int,
    opponent_passed: bool,
    clear_result: bool,
) -> tuple[float, float]:
    """This move's share of the clock, and the most it may take (both before the lag buffer's
    floor and the max_seconds cap)."""
    lag = settings.lag_buffer
    moves_left = max(float(settings.min_moves_left), settings.moves_left_factor * empty)
    weight = game_phase_weight(empty, points)
    # In overtime the period comes back for every move (byo-yomi) or every few (Canadian): time
    # not spent now is lost, so the phase of the game does not matter, only reasons to hurry.
    overtime = 1.0
    if opponent_passed:
        weight *= 0.3
        overtime *= 0.3
    if clear_result:
        weight *= 0.5
        overtime *= 0.5
    t = max(0.0, clock.time)
    available = t - lag  # what may be spent on this move at most, if nothing else
    # Time that is not renewed must also pay for the overhead of every move still to come.
    shared = available - (moves_left - 1) * settings.move_overhead
    stones = max(1, clock.stones)

    if control.system == "absolute":
        budget = weight * shared / moves_left
        cap = available
    elif control.system == "fischer":
        budget = weight * shared / moves_left + 0.8 * control.period
        cap = available
        if control.main_cap is not None:
            wasted = t + control.period - control.main_cap  # would be cut off by the cap anyway
            budget = max(budget, wasted)
        if control.move_cap is not None and control.move_cap >= 0:
            cap = min(cap, control.move_cap - lag)
    elif control.system == "canadian":
        share = (control.period - lag) / control.stones if control.stones > 0 else 0.0
        if clock.in_overtime:
            budget = overtime * available / stones
            cap = available / stones
        else:
            budget = weight * shared / moves_left + 0.5 * max(0.0, share)
            cap = max(0.0, available) + 0.9 * max(0.0, share)
    else:  # byoyomi
        period_free = control.period - lag if control.stones > 0 else 0.0
        if clock.in_overtime:
            budget = 0.9 * overtime * available
            cap = available
        else:
            budget = weight * shared / moves_left + 0.5 * max(0.0, period_free)
            cap = max(0.0, available) + 0.9 * max(0.0, period_free)
    return budget, cap
