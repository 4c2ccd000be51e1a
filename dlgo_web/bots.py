"""The bots the web page offers: engine configs (``configs/engine/*.toml``), each one bot.

A bot is what the GTP engine plays with that config: its games are play sessions of the
library (``dlgo.play.PlaySession``) on the bot's own agents (one ``AgentPool`` per bot, which
lends each search an agent of its own and keeps a few spares when several games think at
once). The book serves a map of name -> agent (book 8.2); here the name is the config file's stem.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dlgo import agent_registry as registry
from dlgo.play.agents import AgentPool
from dlgo.play.config import Config, ConfigError, check_model_files, default_config_path, load_config
from dlgo.play.session import PlaySession

__all__ = ["Bot", "BotPool", "load_bots", "shipped_config_paths", "PAGE_SIZES"]

log = logging.getLogger(__name__)

PAGE_SIZES = (9, 13, 19)  # the sizes the page offers; the book's endpoint takes any size a bot plays


@dataclass
class Bot:
    """One engine config offered as a bot."""

    name: str
    config: Config
    agents: AgentPool = field(init=False, repr=False)  # one per bot: every game of the bot shares it

    def __post_init__(self) -> None:
        self.agents = AgentPool(self.config)

    def session(self) -> PlaySession:
        """A new game of this bot, on the bot's agents (``dlgo.play``: what the GTP engine plays)."""
        return PlaySession(self.config, self.agents)

    def agent_name(self, size: int) -> str | None:
        """The agent that plays ``size`` (None: no agent of this config plays it)."""
        found = self.config.agent_for_size(size)
        return found[0] if found else None

    def plays(self, size: int) -> bool:
        return self.agent_name(size) is not None

    def searches(self, size: int) -> bool:
        name = self.agent_name(size)
        return name is not None and registry.get(name).searches

    def describe(self) -> dict:
        """What the page lists: which agent plays each of its sizes."""
        return {
            "name": self.name,
            "config": os.path.basename(self.config.path) if self.config.path else "built-in defaults",
            "agents": {str(size): self.agent_name(size) for size in PAGE_SIZES},
            "sizes": [size for size in PAGE_SIZES if self.plays(size)],
            "seconds_per_move": {str(size): self.seconds_per_move(size) for size in PAGE_SIZES},
        }

    def seconds_per_move(self, size: int) -> float | None:
        """The config's ``time.default_seconds`` (capped by ``max_seconds``); None: visits only."""
        time = self.config.section("time", size)
        seconds = time["default_seconds"] or None
        if seconds is not None and time["max_seconds"]:
            seconds = min(seconds, time["max_seconds"])
        return seconds

    def section(self, name: str, size: int) -> dict:
        return self.config.section(name, size)


class BotPool:
    """The bots by name, in the order given."""

    def __init__(self, bots: Iterable[Bot]) -> None:
        self.bots = {bot.name: bot for bot in bots}
        if not self.bots:
            raise ValueError("no bot: give at least one engine config")

    def get(self, name: str) -> Bot | None:
        return self.bots.get(name)

    def names(self) -> list[str]:
        return list(self.bots)

    def default_name(self) -> str:
        return next(iter(self.bots))


def shipped_config_paths() -> list[str]:
    """``configs/engine/*.toml`` of this checkout, the default config first (none installed
    without the repository)."""
    default = default_config_path()
    if default is None:
        return []
    folder = Path(default).parent
    return [default, *sorted(str(p) for p in folder.glob("*.toml") if str(p) != default)]


def load_bots(paths: Sequence[str] = (), overrides: Sequence[str] = (), skip_unusable: bool = False) -> BotPool:
    """One bot per config file (``paths``; none: the shipped configs), ``overrides`` (``--set``)
    applied to each. A config that is bad or names a missing model file raises ``ConfigError``;
    with ``skip_unusable`` (the shipped set, where AlphaGo's networks are not shipped) it is
    logged and left out. Without any config file, the built-in defaults are one bot, ``mcts``."""
    bots: list[Bot] = []
    chosen = list(paths) or shipped_config_paths()
    for path in chosen:
        name = Path(path).stem
        try:
            config = load_config(path, overrides)
            check_model_files(config)
        except ConfigError as e:
            if not (skip_unusable and not paths):
                raise
            log.warning("left out %s: %s", name, e)
            continue
        if name in {bot.name for bot in bots}:
            name = f"{name}-{len(bots)}"  # two configs with one stem from different folders
        bots.append(Bot(name, config))
    if not chosen:
        bots.append(Bot("mcts", load_config(None, overrides)))
    return BotPool(bots)
