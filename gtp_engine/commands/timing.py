"""The clock commands: GTP, KGS and KataGo time settings and the controller's ``time_left``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from dlgo.play.clock import TimeControl
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import Command, parse_color, parse_float, parse_int
from gtp_engine.time_settings import KATA_TIME_SYSTEMS, parse_gtp_time_settings, parse_time_settings

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def _set_control(engine: Engine, control: TimeControl) -> str:
    engine.clock.set_control(control)
    log.info("time: %s", control.describe())
    return ""


def time_settings(engine: Engine, cmd: Command) -> str:
    return _set_control(engine, parse_gtp_time_settings(cmd.args))


def kgs_time_settings(engine: Engine, cmd: Command) -> str:
    return _set_control(engine, parse_time_settings(cmd.args, kata=False))


def kata_list_time_settings(engine: Engine, cmd: Command) -> str:
    return " ".join(KATA_TIME_SYSTEMS)


def kata_time_settings(engine: Engine, cmd: Command) -> str:
    return _set_control(engine, parse_time_settings(cmd.args, kata=True))


def time_left(engine: Engine, cmd: Command) -> str:
    color_text, seconds, stones = expect_args(cmd, 3)
    player = parse_color(color_text)
    engine.clock.time_left(player, max(0.0, parse_float(seconds)), parse_int(stones, 0), at=engine.arrived)
    return ""
