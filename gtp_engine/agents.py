"""The agent registry: config name -> parameters it takes and how to build it.

Adding an agent is one ``register(AgentType(...))`` call: its name (the config value of
``agent``), its parameter schema (the keys of its ``[name]`` config table), a ``build`` function
and whether it searches (then the engine runs analysis with it). Builders import their heavy
modules inside the function, so nothing heavy loads before the first ``genmove``.

``predict``, ``alphago`` and ``zero`` are registered as not available yet: a config naming one
is refused at start-up with a clear message instead of silently playing something else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dlgo.agent.base import Agent
from dlgo.search import SearchAgent

__all__ = ["Param", "AgentType", "register", "get", "names", "REGISTRY", "AgentUnavailable"]


@dataclass(frozen=True)
class Param:
    """One config key: its type (``int``, ``float``, ``str``, ``bool``), default and doc line."""

    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None


class AgentUnavailable(RuntimeError):
    """The configured agent cannot be built (not implemented yet, missing weights, ...)."""


@dataclass(frozen=True)
class AgentType:
    name: str
    doc: str
    params: dict[str, Param]
    build: Callable[[Mapping[str, Any], int], Agent] | None  # (params, board size) -> agent
    searches: bool
    unavailable: str | None = None  # why it cannot be used yet
    supports_size: Callable[[Mapping[str, Any], int], bool] = field(default=lambda params, size: True)


REGISTRY: dict[str, AgentType] = {}


def register(agent_type: AgentType) -> AgentType:
    REGISTRY[agent_type.name] = agent_type
    return agent_type


def get(name: str) -> AgentType:
    return REGISTRY[name]


def names() -> list[str]:
    return list(REGISTRY)


def _seed(params: Mapping[str, Any]) -> int | None:
    seed = params.get("seed", -1)
    return None if seed is None or seed < 0 else int(seed)


# --- the agents ---------------------------------------------------------------------------------


def _build_random(params: Mapping[str, Any], size: int) -> Agent:
    from dlgo.agent.naive import RandomBot

    return RandomBot(seed=_seed(params))


def _build_mcts(params: Mapping[str, Any], size: int) -> SearchAgent:
    from dlgo.mcts import MCTSAgent

    return MCTSAgent(
        num_rounds=int(params["rounds"]),
        temperature=float(params["temperature"]),
        select_by=str(params["select_by"]),
        seed=_seed(params),
    )


_SEED = Param(int, -1, "random seed; -1 seeds from the system", minimum=-1)

register(
    AgentType(
        name="random",
        doc="uniformly random legal move that does not fill its own eye (book chapter 3)",
        params={"seed": _SEED},
        build=_build_random,
        searches=False,
    )
)

register(
    AgentType(
        name="mcts",
        doc="Monte Carlo tree search with random rollouts (book chapter 4)",
        params={
            "rounds": Param(int, 20000, "search rounds (visits) per move at most (a clock stops it sooner)", minimum=1),
            "temperature": Param(float, 1.5, "UCT exploration constant c (the book's 'temperature')", minimum=0.0),
            "select_by": Param(
                str, "visits", "how the move is chosen: most visits or best win rate", choices=("visits", "winrate")
            ),
            "seed": _SEED,
        },
        build=_build_mcts,
        searches=True,
    )
)

_MODEL = Param(str, "", "path of the model file (.keras), relative to the config file")

register(
    AgentType(
        name="predict",
        doc="policy network alone (book chapters 6-7)",
        params={"model": _MODEL},
        build=None,
        searches=False,
        unavailable="agent 'predict' is not available yet",
    )
)

register(
    AgentType(
        name="alphago",
        doc="policy + value networks with rollouts (book chapter 13)",
        params={
            "policy_model": _MODEL,
            "value_model": _MODEL,
            "rollout_model": _MODEL,
            "rounds": Param(int, 800, "search rounds per move", minimum=1),
        },
        build=None,
        searches=True,
        unavailable="agent 'alphago' is not available yet",
    )
)

register(
    AgentType(
        name="zero",
        doc="AlphaGo Zero style PUCT search with one network (book chapter 14)",
        params={
            "model": _MODEL,
            "rounds": Param(int, 800, "search rounds (visits) per move", minimum=1),
            "c_puct": Param(float, 2.0, "PUCT exploration constant", minimum=0.0),
        },
        build=None,
        searches=True,
        unavailable="agent 'zero' is not available yet",
    )
)
