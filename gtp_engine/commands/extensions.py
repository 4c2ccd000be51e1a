"""KGS's rules command, CPU time and gomill's extensions (describe the engine, explain a move)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from dlgo import __version__
from dlgo import agent_registry as registry
from dlgo.play.config import describe_networks
from gtp_engine.analysis_formats import explain
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import Command, GtpError

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


def kgs_rules(engine: Engine, cmd: Command) -> str:
    (rules,) = expect_args(cmd, 1)
    if rules.lower() not in ("chinese", "japanese", "aga", "new_zealand"):
        raise GtpError("unknown rules")
    engine.rules = rules.lower()
    if engine.rules != "chinese":
        log.info("rules %s: the engine counts area (Chinese) in any case", engine.rules)
    return ""


def cputime(engine: Engine, cmd: Command) -> str:
    return f"{time.process_time():.3f}"


def gomill_cpu_time(engine: Engine, cmd: Command) -> str:
    return f"{time.process_time():.3f}"


def gomill_describe_engine(engine: Engine, cmd: Command) -> str:
    size = engine.session.size_key()
    agent_name = engine.config.agent_name(size)
    params = engine.config.section(agent_name, size)
    lines = [
        f"{engine.config.get('engine.name')} {__version__} (dlgo, Deep Learning and the Game of Go)",
        f"agent: {agent_name}: {registry.get(agent_name).doc}",
        "parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()),
        f"config: {engine.config.path or 'built-in defaults'}",
        *(f"network {line}" for line in describe_networks(engine.config)),
        f"time: {engine.clock.control.describe()}",
    ]
    return "\n".join(lines)


def gomill_explain_last_move(engine: Engine, cmd: Command) -> str:
    c = engine.last_choice
    if c is None:
        return ""
    return explain(c.result, c.candidate, c.move, c.reason)
