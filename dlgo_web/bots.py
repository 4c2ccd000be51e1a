"""The bots the web page offers: engine configs (``configs/engine/*.toml``), each one bot.

A bot is what the GTP engine would play with that config: the same checked config
(``dlgo.play.config.load_config``), the same agent per board size (``Config.agent_for_size``),
built through the same registry, with the config's time per move and end-of-game rules. The
book serves a map of name -> agent (book 8.2); here the name is the config file's stem.

Agents keep state between moves (a search tree), so one agent serves one search at a time:
``BotPool`` lends an idle agent of the right bot and size, builds another when all are busy,
and keeps a few for the next move.
"""

from __future__ import annotations

import logging
import os
import random
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dlgo import agent_registry as registry
from dlgo.agent.base import Agent
from dlgo.deadstones import Count, count
from dlgo.goboard import GameState
from dlgo.play.agents import AgentPool
from dlgo.play.config import Config, ConfigError, check_model_files, default_config_path, load_config
from dlgo.play.decision import DecisionSettings
from dlgo.play.session import PlaySession
from dlgo.search import SearchAgent, SearchBudget

__all__ = ["Bot", "BotPool", "load_bots", "shipped_config_paths", "PAGE_SIZES"]

log = logging.getLogger(__name__)

PAGE_SIZES = (9, 13, 19)  # the sizes the page offers; the book's endpoint takes any size a bot plays
WARM_UP_VISITS = 16  # one network batch, as the engine warms its agents up
IDLE_AGENTS_KEPT = 2  # per bot and size: enough for a few players at once without rebuilding


@dataclass
class Bot:
    """One engine config offered as a bot."""

    name: str
    config: Config
    agents: AgentPool = field(init=False, repr=False)  # one per bot: every game of the bot shares it
    _idle: dict[int, list[Agent]] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _rng: random.Random | None = field(default=None, repr=False)

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

    def budget(self, size: int, agent: Agent, stop: threading.Event | None) -> SearchBudget:
        """A move's search: the agent's rounds, the config's seconds, the page's stop button."""
        visits = agent.visit_limit if isinstance(agent, SearchAgent) else None
        return SearchBudget(max_visits=visits, max_seconds=self.seconds_per_move(size), stop=stop)

    def decision_settings(self, size: int) -> DecisionSettings:
        section = self.config.section
        return DecisionSettings.from_config(section("resign", size), section("pass", size), section("variety", size))

    def variety_rng(self, settings: DecisionSettings) -> random.Random | None:
        """What draws this bot's varied opening moves (None when the config turns variety off)."""
        if not settings.variety.enabled:
            return None
        with self._lock:
            if self._rng is None:
                self._rng = settings.variety.rng()
            return self._rng

    def final_count(self, state: GameState) -> Count:
        """``state`` counted as a finished game is (the config's ``scoring``); the bot's pass after
        the person's asks this count, so it passes only into a count the page then confirms."""
        scoring = self.config.section("scoring", state.board.num_rows)
        return count(state, scoring["playouts"], scoring["seed"])

    def section(self, name: str, size: int) -> dict:
        return self.config.section(name, size)

    # --- agents -------------------------------------------------------------------------------
    def acquire(self, size: int) -> Agent:
        """An agent for ``size`` for this caller alone (built if none is idle); give it back with
        :meth:`release`. ``ValueError`` when no agent of the config plays ``size``."""
        with self._lock:
            idle = self._idle.get(size)
            if idle:
                return idle.pop()
        found = self.config.agent_for_size(size)
        if found is None:
            raise ValueError(f"bot {self.name!r} does not play {size}x{size}")
        name, params = found
        params = registry.resolve_paths(registry.get(name), params, self.config.resolve_path)
        log.info("building %s (%s) for %dx%d", self.name, name, size, size)
        agent = registry.build_agent(name, params, size)
        if isinstance(agent, SearchAgent):
            # compiled kernels and the network's first answer (slow once) before a move's clock runs
            agent.search(GameState.new_game(size), SearchBudget(max_visits=WARM_UP_VISITS))
        return agent

    def release(self, size: int, agent: Agent) -> None:
        with self._lock:
            idle = self._idle.setdefault(size, [])
            if len(idle) < IDLE_AGENTS_KEPT:
                idle.append(agent)


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
