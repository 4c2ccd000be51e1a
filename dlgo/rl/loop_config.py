"""The settings of ``python -m dlgo.rl loop`` (book chapters 9-12), read from a TOML file.

``configs/train/rl-pg-9x9.toml`` shows every key. Top level: ``kind`` ("pg", "q" or "ac"),
``board_size``, ``komi``, ``seed`` (of the games); tables ``[init]`` (a fresh network, or
``start``: a saved agent's file), ``[selfplay]``, ``[train]``, ``[gate]``, ``[loop]`` and
``[final]``. A missing key keeps its default; an unknown key, a value of the wrong type or out of
range is one ``RLConfigError`` naming the file and the key (``dlgo.tomlfile``, the reader of
every config). Paths are relative to the config file's folder.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from dlgo.rl.evaluate import GATES
from dlgo.tomlfile import TomlFileError, build_table, read_toml

__all__ = ["RLConfigError", "RLLoopConfig", "load_rl_config", "LOOP_KINDS", "RESUMABLE_CHANGES"]

LOOP_KINDS = ("pg", "q", "ac")  # the learners of chapters 10-12 (the value agent learns no moves)
GATE_KINDS = (*GATES, "none")
# Keys a rerun into the same folder may change: how far to go, how many processes, the final match.
RESUMABLE_CHANGES = ("loop", "final", "selfplay.jobs")


class RLConfigError(ValueError):
    """A loop config that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class InitSettings:
    """The agent of generation 0: a fresh network (book 9.3.3), or ``start``, a saved agent."""

    encoder: str = "simple"
    trunk: str = "tiny"
    width: int = 32
    seed: int = 1  # of the network's random weights
    start: str = ""


@dataclass(frozen=True)
class SelfPlayTable:
    games: int = 1000  # per iteration (book 10.3 expects progress after about 10,000 in all)
    # exploration: one value, or one per iteration (the last one repeats); see RLAgent.set_temperature
    temperature: float | tuple[float, ...] = 0.0
    games_per_task: int = 10
    jobs: int = 2


@dataclass(frozen=True)
class TrainTable:
    lr: float = 0.0  # 0: the agent's own default (pg 0.02, q 0.1, ac 0.01)
    clipnorm: float = 1.0
    batch_size: int = 0  # 0: the agent's own default
    window: int = 1  # train on the experience of the last this many iterations


@dataclass(frozen=True)
class GateTable:
    games: int = 100
    kind: str = "book"  # book: 60% (book 12.4); thesis: > 55% of decisive games; none: always accept


@dataclass(frozen=True)
class LoopTable:
    iterations: int = 10


@dataclass(frozen=True)
class FinalTable:
    games: int = 200
    opponents: tuple[str, ...] = ("start", "random")  # "start" (generation 0), "random", or a file
    # Exploration of both players in the final matches: two greedy agents (the Q agent plays its
    # best move) would otherwise play one game per colour over and over.
    temperature: float = 0.0


@dataclass(frozen=True)
class RLLoopConfig:
    kind: str
    path: Path | None = None
    board_size: int = 9
    komi: float = 7.5
    seed: int = 1
    init: InitSettings = field(default_factory=InitSettings)
    selfplay: SelfPlayTable = field(default_factory=SelfPlayTable)
    train: TrainTable = field(default_factory=TrainTable)
    gate: GateTable = field(default_factory=GateTable)
    loop: LoopTable = field(default_factory=LoopTable)
    final: FinalTable = field(default_factory=FinalTable)

    def resolve(self, path: str) -> Path:
        """A path of the config, relative to its folder."""
        p = Path(path)
        return p if p.is_absolute() or self.path is None else (self.path.parent / p).resolve()

    def temperature(self, iteration: int) -> float:
        """Self-play exploration of ``iteration`` (1-based): the schedule's entry, the last repeated."""
        t = self.selfplay.temperature
        if isinstance(t, tuple):
            return t[min(iteration, len(t)) - 1]
        return t

    def train_settings(self) -> dict[str, Any]:
        """Keyword arguments of ``agent.train``: the ones set (0 keeps the agent's default)."""
        t = self.train
        return {k: v for k, v in (("lr", t.lr), ("clipnorm", t.clipnorm), ("batch_size", t.batch_size)) if v}

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("path")
        t = self.selfplay.temperature
        d["selfplay"]["temperature"] = list(t) if isinstance(t, tuple) else t  # as JSON reads it back
        d["final"]["opponents"] = list(self.final.opponents)
        return d


_TABLES = {
    "init": InitSettings,
    "selfplay": SelfPlayTable,
    "train": TrainTable,
    "gate": GateTable,
    "loop": LoopTable,
    "final": FinalTable,
}
_TOP = {"kind": str, "board_size": int, "komi": float, "seed": int}


def _temperature(value: Any, source: str) -> float | tuple[float, ...]:
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1 for v in values):
        raise RLConfigError(f"{source}: selfplay.temperature must be a number in [0, 1] or a list of them")
    return tuple(float(v) for v in values) if isinstance(value, list) else float(value)


def _check(config: RLLoopConfig, source: str) -> None:
    def bad(key: str, rule: str) -> RLConfigError:
        return RLConfigError(f"{source}: {key} {rule}")

    if config.kind not in LOOP_KINDS:
        raise bad("kind", f"must be one of {', '.join(LOOP_KINDS)}, not {config.kind!r}")
    if not 2 <= config.board_size <= 19:
        raise bad("board_size", "must be from 2 to 19")
    at_least = {1: "must be at least 1", 0: "must not be negative"}
    for key, value, least in (
        ("selfplay.games", config.selfplay.games, 1),
        ("selfplay.games_per_task", config.selfplay.games_per_task, 1),
        ("selfplay.jobs", config.selfplay.jobs, 1),
        ("train.window", config.train.window, 1),
        ("init.width", config.init.width, 1),
        ("train.lr", config.train.lr, 0),
        ("train.clipnorm", config.train.clipnorm, 0),
        ("train.batch_size", config.train.batch_size, 0),
        ("gate.games", config.gate.games, 0),
        ("loop.iterations", config.loop.iterations, 0),
        ("final.games", config.final.games, 0),
    ):
        if value < least:
            raise bad(key, at_least[least])
    if config.gate.kind not in GATE_KINDS:
        raise bad("gate.kind", f"must be one of {', '.join(GATE_KINDS)}, not {config.gate.kind!r}")
    if config.gate.kind != "none" and config.gate.games < 1:
        raise bad("gate.games", f"must be at least 1 for the {config.gate.kind!r} gate (or gate.kind = 'none')")
    if not (isinstance(config.final.temperature, int | float) and 0.0 <= config.final.temperature <= 1.0):
        raise bad("final.temperature", "must be a number in [0, 1]")
    if not isinstance(config.final.opponents, list | tuple) or not all(
        isinstance(o, str) and o for o in config.final.opponents
    ):
        raise bad("final.opponents", 'must be a list of "start", "random" or model files')
    for name in config.final.opponents:
        if name not in ("start", "random") and not config.resolve(name).is_file():
            raise bad("final.opponents", f"names no file: {config.resolve(name)}")
    if config.init.start and not config.resolve(config.init.start).is_file():
        raise bad("init.start", f"names no file: {config.resolve(config.init.start)}")


def load_rl_config(path: str | os.PathLike) -> RLLoopConfig:
    """The loop's settings from ``path``; ``RLConfigError`` (one line naming the file) if unusable."""
    source = str(path)
    try:
        data = read_toml(path)
    except TomlFileError as e:
        raise RLConfigError(str(e)) from None
    top: dict[str, Any] = {}
    tables: dict[str, Any] = {}
    for key, value in data.items():
        if key in _TABLES:
            if not isinstance(value, dict):
                raise RLConfigError(f"{source}: {key} must be a table ([{key}])")
            table = dict(value)
            # a schedule or a number: checked here, not by the default's type
            temperature = table.pop("temperature", None) if key == "selfplay" else None
            if key == "final" and isinstance(table.get("opponents"), list):
                table["opponents"] = tuple(table["opponents"])
            tables[key] = build_table(_TABLES[key], table, key, source, RLConfigError)
            if temperature is not None:
                tables[key] = replace(tables[key], temperature=_temperature(temperature, source))
        elif key in _TOP:
            kind = _TOP[key]
            ok = isinstance(value, int | float) if kind is float else isinstance(value, kind)
            if not ok or isinstance(value, bool):
                raise RLConfigError(f"{source}: {key} must be {kind.__name__ if kind is not str else 'a string'}")
            top[key] = float(value) if kind is float else value
        else:
            known = sorted([*_TOP, *(f"[{t}]" for t in _TABLES)])
            raise RLConfigError(f"{source}: unknown key {key} (known: {', '.join(known)})")
    if "kind" not in top:
        raise RLConfigError(f"{source}: kind is required ({', '.join(LOOP_KINDS)})")
    config = RLLoopConfig(path=Path(path).resolve(), **top, **tables)
    _check(config, source)
    return config
