"""The agent registry: the one place that turns a config into an agent (the GTP engine, the
analysis and the benchmarks all build through it).

Adding an agent is one ``register(AgentType(...))`` call: its name (the config value of
``agent``), its parameter schema (the keys of its ``[name]`` config table), its builder by name
(``"module:attribute"``, e.g. ``"dlgo.mcts.mcts:MCTSAgent.from_params"``) and whether it searches
(then the engine runs analysis with it). The registry imports no agent kind: a kind's module is
imported when an agent of that kind is first built (the engine builds in a background thread
from start-up, ``dlgo.play.agents.AgentPool``, never in a move's time), so the config checker
knows every kind's keys while playing imports only the kinds the config plays (the Zero agent,
not the training wing: tests/test_architecture.py).

``build_agent(name, params, size, **extra)`` fills in the defaults, checks the model files the
parameters need (``model_file``), turns ``seed`` -1 into None and calls the builder with the
full table, the board size, the type's ``build_args`` (a builder shared by several kinds: which
one) and ``extra``: builder arguments no config sets (``early_stop``, an already-loaded
``evaluator``, which stands in for the model file, ...).

One key per concept in every agent table: ``rounds`` (search visits per move at most) and
``exploration`` (the tree policy's exploration constant). The book's names for them are
accepted as aliases (``AgentType.aliases``), so its readers' configs keep working:
``num_rounds``/``temperature`` (``MCTSAgent``, book 4.5), ``num_simulations``/``c_u``
(``AlphaGoMCTS``, book 13.4), ``rounds_per_move``/``c`` (``ZeroAgent``, book 14.2); ``c_puct``
was this engine's own key for the Zero agent. The search keys of ``zero`` and ``alphago`` are
``dlgo.search.SearchSettings``' fields (``search_param``): their type, default, doc and range are
written there once, and ``zero``'s aliases are its ``ALIASES``.

``predict``, ``zero`` and ``alphago`` load their networks when the agent is built; the engine
checks every model file its config names at start-up (``config.check_model_files``), so a
missing or damaged one is one line naming the file and its key before any game starts.
File parameters (``Param.path``) are relative to the config file: ``resolve_paths``.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dlgo.agent.base import Agent
from dlgo.search.settings import ALIASES, config_keys

__all__ = [
    "Param",
    "AgentType",
    "register",
    "get",
    "names",
    "REGISTRY",
    "AgentUnavailable",
    "load",
    "build_agent",
    "default_params",
    "resolve_paths",
    "model_file",
    "zero_params",
    "search_param",
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


def load(spec: str) -> Any:
    """The object ``spec`` names, ``"module:attribute"`` (the attribute may be dotted, as in
    ``"dlgo.mcts.mcts:MCTSAgent.from_params"``), its module imported now."""
    module, _, attribute = spec.partition(":")
    found: Any = importlib.import_module(module)
    for part in attribute.split("."):
        found = getattr(found, part)
    return found


@dataclass(frozen=True)
class AgentType:
    name: str
    doc: str
    params: dict[str, Param]
    # the builder, (full params, board size, **build_args, **extra) -> agent: its name,
    # "module:attribute", imported at the first build (or the function itself, for a test's kind)
    build: str | Callable[..., Agent] | None
    searches: bool
    unavailable: str | None = None  # why it cannot be used yet
    supports_size: Callable[[Mapping[str, Any], int], bool] = field(default=lambda params, size: True)
    # keys of the files the agent loads with these params (None: every path parameter)
    files_needed: Callable[[Mapping[str, Any]], list[str]] | None = None
    # other accepted names of a key (the book's names) -> the key
    aliases: Mapping[str, str] = field(default_factory=dict)
    # keyword arguments of the builder besides the parameters (a builder shared by several kinds)
    build_args: Mapping[str, Any] = field(default_factory=dict)

    def builder(self) -> Callable[..., Agent]:
        """The builder, its module imported now; ``AgentUnavailable`` if the kind has none."""
        if self.build is None:
            raise AgentUnavailable(self.unavailable or f"agent {self.name!r} cannot be built")
        return load(self.build) if isinstance(self.build, str) else self.build

    def needed_files(self, params: Mapping[str, Any]) -> list[str]:
        if self.files_needed is not None:
            return self.files_needed(params)
        return [key for key, param in self.params.items() if param.path]

    def accepted_params(self) -> dict[str, Param]:
        """The schema a config table is checked against: every key and every alias."""
        return {**self.params, **{alias: self.params[key] for alias, key in self.aliases.items()}}

    def canonical(self, table: Mapping[str, Any], prefix: str | None = None) -> dict[str, Any]:
        """``table`` with aliases renamed to their key; ``ValueError`` when both are given."""
        prefix = prefix or self.name
        out = {k: v for k, v in table.items() if k not in self.aliases}
        for alias, key in self.aliases.items():
            if alias in table:
                if key in out:
                    raise ValueError(f"{prefix}.{alias} and {prefix}.{key} are the same setting: give one")
                out[key] = table[alias]
        return out


REGISTRY: dict[str, AgentType] = {}


def register(agent_type: AgentType) -> AgentType:
    REGISTRY[agent_type.name] = agent_type
    return agent_type


def get(name: str) -> AgentType:
    return REGISTRY[name]


def names() -> list[str]:
    return list(REGISTRY)


def default_params(name: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Agent ``name``'s parameters: its defaults with ``params`` (keys or aliases) over them."""
    agent_type = get(name)
    return {**{k: p.default for k, p in agent_type.params.items()}, **agent_type.canonical(params or {})}


def zero_params(data: Mapping[str, Any], size: int | None = None) -> dict[str, Any]:
    """The Zero parameters an engine config file's data gives a board size: ``[size.N.zero]``
    over ``[zero]`` over the defaults (file names as written, not resolved)."""
    params = default_params("zero", data.get("zero", {}))
    if size is not None:
        params.update(get("zero").canonical(data.get("size", {}).get(str(size), {}).get("zero", {})))
    return params


def build_agent(name: str, params: Mapping[str, Any], board_size: int, **extra: Any) -> Agent:
    """Agent ``name`` for ``board_size`` from ``params`` (missing keys take their defaults).

    The builder gets every key, the model files the parameters need checked (``model_file``;
    an ``evaluator`` in ``extra``, a network already loaded, stands in for them) and ``seed``
    None for -1. ``extra`` goes to the builder as it is: arguments that are no config key (a
    benchmark's ``evaluator`` and ``early_stop``)."""
    agent_type = get(name)
    builder = agent_type.builder()
    full = default_params(name, params)
    if extra.get("evaluator") is None:
        for key in agent_type.needed_files(full):
            full[key] = model_file(full, key, name)
    if "seed" in full:
        full["seed"] = _seed(full)
    return builder(full, board_size, **agent_type.build_args, **extra)


def resolve_paths(agent_type: AgentType, params: Mapping[str, Any], resolve: Callable[[str], str]) -> dict[str, Any]:
    """``params`` with every file parameter (``Param.path``) passed through ``resolve``."""
    return {
        k: resolve(v) if k in agent_type.params and agent_type.params[k].path and v else v for k, v in params.items()
    }


def model_file(params: Mapping[str, Any], key: str, agent: str) -> str:
    """The model file named by ``params[key]``; ``AgentUnavailable`` with a clear message if unset or missing."""
    from dlgo.inference.files import network_file

    path = os.path.normpath(str(params.get(key))) if params.get(key) else ""
    if not path:
        raise AgentUnavailable(f"{agent}.{key} is not set: give the path of a .keras model file")
    if not network_file(path).is_file():  # an absent x.keras plays from its export x.onnx
        raise AgentUnavailable(
            f"model file {path} not found ({agent}.{key}): train one or put the shipped weights there"
        )
    return path


def networks_play_size(params: Mapping[str, Any], size: int, keys: Sequence[str] = ("model",)) -> bool:
    """Whether the networks named by ``params[key]`` play ``size`` (``card.plays_size``: a
    network with a fixed input plays only the sizes on its model card)."""
    from dlgo.inference.card import plays_size

    return all(plays_size(str(params[key]), size) for key in keys if params.get(key))


def _seed(params: Mapping[str, Any]) -> int | None:
    seed = params.get("seed", -1)
    return None if seed is None or seed < 0 else int(seed)


# --- the agents: each kind's builder lives with the kind (its module imported at the first build) ---


_SEED = Param(int, -1, "random seed; -1 seeds from the system", minimum=-1)
_THREADS = Param(int, 0, "ONNX Runtime threads; 0 = all cores or one, whichever is faster as it plays", minimum=0)


register(
    AgentType(
        name="random",
        doc="uniformly random legal move that does not fill its own eye (book chapter 3)",
        params={"seed": _SEED},
        build="dlgo.agent.naive:RandomBot.from_params",
        searches=False,
    )
)

register(
    AgentType(
        name="mcts",
        doc="Monte Carlo tree search with random rollouts (book chapter 4)",
        params={
            "rounds": Param(
                int,
                20000,
                "search rounds (visits) per move at most (a clock stops it sooner); the book's num_rounds",
                minimum=1,
            ),
            "exploration": Param(
                float, 1.5, "UCT exploration constant c of w + c * sqrt(ln N / n); the book's temperature", minimum=0.0
            ),
            "select_by": Param(
                str, "visits", "how the move is chosen: most visits or best win rate", choices=("visits", "winrate")
            ),
            "seed": _SEED,
        },
        build="dlgo.mcts.mcts:MCTSAgent.from_params",
        searches=True,
        aliases={"num_rounds": "rounds", "temperature": "exploration"},
    )
)

_MODEL = Param(str, "", "path of the model file (.keras), relative to the config file", path=True)


register(
    AgentType(
        name="predict",
        doc="policy network alone: the book's DeepLearningAgent (cube, clip, ranked sampling, skip own eyes; 8.1)",
        params={
            "model": _MODEL,
            "seed": _SEED,
            "threads": _THREADS,
            "symmetry": Param(
                str,
                "average",
                "network symmetry: average (mean over the 8 board symmetries), identity or random",
                choices=("average", "identity", "random"),
            ),
        },
        build="dlgo.agent.predict:DeepLearningAgent.from_params",
        searches=False,
        supports_size=networks_play_size,
    )
)


_CACHE = Param(int, 50000, "network answers kept in the position cache (0: none; 1.5 KB each on 19x19)", minimum=0)


def search_param(name: str, default: Any = None, doc: str | None = None) -> Param:
    """The key of search setting ``name`` (``dlgo.search.settings.SearchSettings``: its type,
    range and doc, the one place they are written), with a kind's own default and doc."""
    kind, own_default, key = config_keys()[name]
    return Param(
        kind,
        own_default if default is None else default,
        doc or key.doc,
        choices=key.choices,
        minimum=key.minimum,
        maximum=key.maximum,
    )


register(
    AgentType(
        name="alphago",
        doc="policy + value networks with fast rollouts, PUCT search (book chapter 13)",
        params={
            "policy_model": _MODEL,
            "value_model": _MODEL,
            "rounds": search_param(
                "rounds",
                1000,
                "simulations (root visits) per move at most (a clock stops it sooner); the book's num_simulations",
            ),
            "exploration": search_param(
                "exploration", 5.0, "PUCT exploration constant of u = c_u * P * sqrt(N) / (1 + n); the book's c_u (5)"
            ),
            "lambda_value": Param(
                float, 0.5, "leaf value = lambda * value net + (1 - lambda) * rollout", minimum=0.0, maximum=1.0
            ),
            "rollouts": Param(int, 1, "fast rollouts per leaf", minimum=1),
            "rollout_policy": Param(
                str,
                "fast",
                "rollout moves: fast (captures and atari escapes first) or random; rollout_model overrides",
                choices=("fast", "random"),
            ),
            "rollout_model": Param(
                str, "", "trained fast rollout policy (.keras, book 13.2) for the rollouts; empty: none", path=True
            ),
            "batch_size": search_param("batch_size", 8, "leaves evaluated per network call"),
            "reuse_tree": search_param("reuse_tree"),
            "cache_size": _CACHE,
            "threads": _THREADS,
            "seed": _SEED,
        },
        build="dlgo.alphago.agent:AlphaGoMCTS.from_params",
        searches=True,
        supports_size=lambda params, size: networks_play_size(
            params, size, ("policy_model", "value_model", "rollout_model")
        ),
        files_needed=lambda params: (
            ["policy_model"]
            + (["value_model"] if params["lambda_value"] > 0 else [])
            + (["rollout_model"] if params["rollout_model"] else [])
        ),
        aliases={"num_simulations": "rounds", "c_u": "exploration"},
    )
)

register(
    AgentType(
        name="zero",
        doc="AlphaGo Zero style PUCT search with one network (book chapter 14)",
        params={
            "model": _MODEL,
            # the search's keys, defaults, docs and ranges: SearchSettings' (dlgo.search.settings)
            **{name: search_param(name) for name in config_keys()},
            "cache_size": _CACHE,
            "threads": _THREADS,
            "runtime": Param(
                str,
                "int8",
                "network runtime: int8 (a static int8 model, made at set-up or once per network, cached) or fp32",
                choices=("fp32", "int8"),
            ),
            "seed": _SEED,
        },
        build="dlgo.search.zero_agent:ZeroAgent.from_params",
        searches=True,
        supports_size=networks_play_size,
        aliases=ALIASES,
    )
)

for _name, _doc in (
    ("minimax", "depth-limited minimax on the capture difference (book 4.4.1): boards up to 7x7"),
    ("alphabeta", "alpha-beta pruning of the same search (book 4.4.2): boards up to 7x7"),
):
    register(
        AgentType(
            name=_name,
            doc=_doc,
            params={
                "depth": Param(int, 2, "moves searched ahead (plies)", minimum=1, maximum=4),
                "seed": _SEED,
            },
            build="dlgo.minimax:agent_from_params",
            build_args={"kind": _name},
            searches=False,
            # every move to full depth: small boards only (the rule is the kind's, asked when it plays)
            supports_size=lambda params, size: load("dlgo.minimax:supports_size")(size),
        )
    )


for _name, _doc, _temperature in (
    ("pg", "policy network trained by policy gradient, samples its moves (book chapter 10)", "random-move chance"),
    ("q", "action-value network (board, move) -> value, epsilon-greedy (book chapter 11)", "epsilon"),
    ("ac", "actor-critic network: samples from its policy head (book chapter 12)", "random-move chance"),
    ("value", "value network, one-ply lookahead: the move that leaves the opponent worst (book 13.3's net)", "epsilon"),
):
    register(
        AgentType(
            name=_name,
            doc=_doc,
            params={
                "model": _MODEL,
                "temperature": Param(
                    float, 0.0, f"exploration: {_temperature} (0 plays in earnest)", minimum=0.0, maximum=1.0
                ),
                "seed": _SEED,
            },
            build="dlgo.rl.agents:agent_from_params",
            build_args={"kind": _name},
            searches=False,
            supports_size=networks_play_size,
        )
    )
