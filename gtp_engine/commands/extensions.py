"""The rules commands (KGS's, KataGo's), CPU time and gomill's extensions (describe the engine,
explain a move)."""

from __future__ import annotations

import json
import logging
import time
from typing import TYPE_CHECKING

from dlgo import __version__
from dlgo import agent_registry as registry
from dlgo.play.config import describe_networks
from dlgo.rules import RulesError, parse_rules
from gtp_engine.analysis_formats import explain
from gtp_engine.commands.base import expect_args
from gtp_engine.protocol import Command, GtpError

if TYPE_CHECKING:
    from gtp_engine.engine import Engine

log = logging.getLogger(__name__)


KGS_RULES = ("chinese", "japanese", "aga", "new_zealand")


def kgs_rules(engine: Engine, cmd: Command) -> str:
    """KGS's rules: the count of ``final_score`` and the end-of-game decisions follow them
    (territory and prisoners under japanese)."""
    (name,) = expect_args(cmd, 1)
    if name.lower() not in KGS_RULES:
        raise GtpError("unknown rules")
    engine.session.rules = parse_rules(name)
    log.info("rules %s: counting by %s", name.lower(), "area" if engine.session.rules.area else "territory")
    return ""


def kata_set_rules(engine: Engine, cmd: Command) -> str:
    """KataGo's ``kata-set-rules``: a rules name (KataGo's shorthands) or a JSON object of its
    rule fields."""
    if not cmd.args:
        raise GtpError("Expected one argument for kata-set-rules but got none")
    text = " ".join(cmd.args)
    try:
        value = json.loads(text) if text.lstrip().startswith("{") else text
        engine.session.rules = parse_rules(value)
    except (ValueError, RulesError) as e:
        raise GtpError(f"Unknown rules '{text}', {e}") from None
    return ""


def kata_get_rules(engine: Engine, cmd: Command) -> str:
    """The rules in force as KataGo's JSON object."""
    expect_args(cmd, 0)
    return json.dumps(engine.session.rules.as_katago(), separators=(",", ":"))


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
