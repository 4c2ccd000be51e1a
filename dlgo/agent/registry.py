"""The agent registry: config name -> parameters it takes and how to build it.

Adding an agent is one ``register(AgentType(...))`` call: its name (the config value of
``agent``), its parameter schema (the keys of its ``[name]`` config table), a ``build`` function
and whether it searches (then the engine runs analysis with it). Builders import their heavy
modules inside the function: the engine calls them in a background thread from start-up
(``agent_pool.AgentPool``), never in a move's time.

``predict``, ``zero`` and ``alphago`` load their networks when the agent is built; the engine
checks every model file its config names at start-up (``config.check_model_files``), so a
missing or damaged one is one line naming the file and its key before any game starts.
File parameters (``Param.path``) are relative to the config file: ``resolve_paths``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dlgo.agent.base import Agent
from dlgo.search import SearchAgent

__all__ = [
    "Param",
    "AgentType",
    "register",
    "get",
    "names",
    "REGISTRY",
    "AgentUnavailable",
    "resolve_paths",
    "model_file",
]


@dataclass(frozen=True)
class Param:
    """One config key: its type (``int``, ``float``, ``str``, ``bool``), default and doc line."""

    type: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    path: bool = False  # a file name, relative to the config file (see ``resolve_paths``)


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
    # keys of the files the agent loads with these params (None: every path parameter)
    files_needed: Callable[[Mapping[str, Any]], list[str]] | None = None

    def needed_files(self, params: Mapping[str, Any]) -> list[str]:
        if self.files_needed is not None:
            return self.files_needed(params)
        return [key for key, param in self.params.items() if param.path]


REGISTRY: dict[str, AgentType] = {}


def register(agent_type: AgentType) -> AgentType:
    REGISTRY[agent_type.name] = agent_type
    return agent_type


def get(name: str) -> AgentType:
    return REGISTRY[name]


def names() -> list[str]:
    return list(REGISTRY)


def resolve_paths(agent_type: AgentType, params: Mapping[str, Any], resolve: Callable[[str], str]) -> dict[str, Any]:
    """``params`` with every file parameter (``Param.path``) passed through ``resolve``."""
    return {
        k: resolve(v) if k in agent_type.params and agent_type.params[k].path and v else v for k, v in params.items()
    }


def model_file(params: Mapping[str, Any], key: str, agent: str) -> str:
    """The model file named by ``params[key]``; ``AgentUnavailable`` with a clear message if unset or missing."""
    path = os.path.normpath(str(params.get(key))) if params.get(key) else ""
    if not path:
        raise AgentUnavailable(f"{agent}.{key} is not set: give the path of a .keras model file")
    if not os.path.isfile(path):
        raise AgentUnavailable(
            f"model file {path} not found ({agent}.{key}): train one or put the shipped weights there"
        )
    return path


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

_MODEL = Param(str, "", "path of the model file (.keras), relative to the config file", path=True)


def _build_predict(params: Mapping[str, Any], size: int) -> Agent:
    from dlgo.agent.predict import load_prediction_agent  # TensorFlow/ONNX load here, not before

    return load_prediction_agent(
        model_file(params, "model", "predict"),
        board_size=size,
        seed=_seed(params),
        threads=int(params["threads"]) or None,
        symmetry=str(params["symmetry"]),
    )


register(
    AgentType(
        name="predict",
        doc="policy network alone: the book's DeepLearningAgent (cube, clip, ranked sampling, skip own eyes; 8.1)",
        params={
            "model": _MODEL,
            "seed": _SEED,
            "threads": Param(int, 0, "ONNX Runtime threads; 0 = all cores", minimum=0),
            "symmetry": Param(
                str,
                "average",
                "network symmetry: average (mean over the 8 board symmetries), identity or random",
                choices=("average", "identity", "random"),
            ),
        },
        build=_build_predict,
        searches=False,
    )
)


def _build_zero(params: Mapping[str, Any], size: int) -> SearchAgent:
    from dlgo.zero import ZeroAgent

    return ZeroAgent.from_model(
        model_file(params, "model", "zero"),
        board_size=size,
        rounds_per_move=int(params["rounds"]),
        c=float(params["c_puct"]),
        batch_size=int(params["batch_size"]),
        reuse_tree=bool(params["reuse_tree"]),
        cache_size=int(params["cache_size"]),
        threads=int(params["threads"]) or None,
        seed=_seed(params),
    )


def _build_alphago(params: Mapping[str, Any], size: int) -> SearchAgent:
    from dlgo.alphago import AlphaGoMCTS

    value = model_file(params, "value_model", "alphago") if params["lambda_value"] > 0 else None
    return AlphaGoMCTS.from_models(
        model_file(params, "policy_model", "alphago"),
        value,
        board_size=size,
        num_simulations=int(params["rounds"]),
        c_u=float(params["c_u"]),
        lambda_value=float(params["lambda_value"]),
        rollouts=int(params["rollouts"]),
        rollout_policy=str(params["rollout_policy"]),
        batch_size=int(params["batch_size"]),
        reuse_tree=bool(params["reuse_tree"]),
        cache_size=int(params["cache_size"]),
        threads=int(params["threads"]) or None,
        seed=_seed(params),
    )


_BATCH = Param(int, 16, "leaves evaluated per network call (virtual loss spreads them)", minimum=1, maximum=256)
_REUSE = Param(bool, True, "keep the subtree of the moves played for the next search")
_CACHE = Param(int, 50000, "network answers kept in the position cache (0: none; 1.5 KB each on 19x19)", minimum=0)
_THREADS = Param(int, 0, "ONNX Runtime threads; 0 = all cores", minimum=0)

register(
    AgentType(
        name="alphago",
        doc="policy + value networks with fast rollouts, PUCT search (book chapter 13)",
        params={
            "policy_model": _MODEL,
            "value_model": _MODEL,
            "rounds": Param(
                int, 1000, "simulations (root visits) per move at most (a clock stops it sooner)", minimum=1
            ),
            "c_u": Param(float, 5.0, "exploration constant c_u of u = c_u * P * sqrt(N) / (1 + n)", minimum=0.0),
            "lambda_value": Param(
                float, 0.5, "leaf value = lambda * value net + (1 - lambda) * rollout", minimum=0.0, maximum=1.0
            ),
            "rollouts": Param(int, 1, "fast rollouts per leaf", minimum=1),
            "rollout_policy": Param(
                str,
                "fast",
                "rollout moves: fast (captures and atari escapes first) or random",
                choices=("fast", "random"),
            ),
            "batch_size": Param(int, 8, "leaves evaluated per network call", minimum=1, maximum=256),
            "reuse_tree": _REUSE,
            "cache_size": _CACHE,
            "threads": _THREADS,
            "seed": _SEED,
        },
        build=_build_alphago,
        searches=True,
        files_needed=lambda params: ["policy_model"] + (["value_model"] if params["lambda_value"] > 0 else []),
    )
)

register(
    AgentType(
        name="zero",
        doc="AlphaGo Zero style PUCT search with one network (book chapter 14)",
        params={
            "model": _MODEL,
            "rounds": Param(int, 800, "search visits per move at most (a clock stops it sooner)", minimum=1),
            "c_puct": Param(float, 2.0, "PUCT exploration constant c (book 2.0)", minimum=0.0),
            "batch_size": _BATCH,
            "reuse_tree": _REUSE,
            "cache_size": _CACHE,
            "threads": _THREADS,
            "seed": _SEED,
        },
        build=_build_zero,
        searches=True,
    )
)
