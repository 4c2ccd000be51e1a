"""The Zero training loop's TOML config (``configs/train/zero-train-9x9.toml`` documents every key).

Tables: ``[loop]`` (output folder, starting network, board, iterations, workers), ``[selfplay]``
(``SelfPlaySettings``; its search keys ``exploration``, alias ``c_puct``, and ``batch_size`` are
``SelfPlaySettings.search``, a ``dlgo.search.SearchSettings``), ``[train]``
(``TrainerSettings``), ``[gating]`` and ``[anchor]``. A file that is not UTF-8 or not TOML
(``dlgo.tomlfile``, the engine's reader too), an unknown key, a bad value, or a
``loop.init_model`` that is missing or damaged is one ``LoopConfigError`` naming the file and the
key; paths are relative to the config file's folder.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlgo.search.settings import ALIASES, SearchSettings
from dlgo.tomlfile import TomlFileError, build_table, read_toml
from dlgo.zero.selfplay import SELFPLAY_SEARCH, SelfPlaySettings
from dlgo.zero.trainer import TrainerSettings

__all__ = ["LoopConfig", "LoopSettings", "GatingSettings", "AnchorSettings", "LoopConfigError", "load_loop_config"]


class LoopConfigError(ValueError):
    pass


#: the ``[selfplay]`` keys that are search settings (``SelfPlaySettings.search``; ``c_puct``, the
#: configs' older name of ``exploration``, too): the others keep the engine's defaults, as gating's
#: tasks carry these two only (``dlgo.zero.workers.GatingTask``)
SELFPLAY_SEARCH_KEYS = ("exploration", "batch_size")


@dataclass(frozen=True)
class LoopSettings:
    out: str = "runs/zero-9x9"
    init_model: str = ""  # the network of generation 0 (warm start); "" = a fresh network
    blocks: int = 4  # a fresh network's size; an init_model's learner grows to at least this (dlgo.networks.grow)
    filters: int = 48
    aux_heads: bool = False  # KataGo's ownership and score heads on the learner (grafted when missing)
    global_pooling: bool = False  # KataGo's global pooling blocks in the learner's trunk (added, never removed)
    iterations: int = 50  # the loop stops after this many (a later run with more goes on)
    workers: int = 2  # self-play and gating processes (or Ray tasks in flight per CPU)
    seed: int = 1
    resign_max: float = -0.6  # the calibrated threshold never goes above this (value units)
    calibration_iterations: int = 3  # played-out games of this many latest iterations calibrate
    calibration_min_games: int = 10
    carry_over: bool = True  # take up init_model's carry file (dlgo.zero.carry) on a fresh start


@dataclass(frozen=True)
class SelfPlayLoopSettings:
    games_per_iteration: int = 200
    games_per_task: int = 4
    no_resign_fraction: float = 0.1  # share of games played out with resignation off


@dataclass(frozen=True)
class GatingSettings:
    games: int = 40  # the thesis: 40 games, alternating colours (0: no gate, every candidate accepted)
    accept: float = 0.55  # accepted when the candidate wins more than this share of decisive games
    visits: int = 100
    temperature_moves: int = 4  # first moves sampled from the visits so games differ


@dataclass(frozen=True)
class AnchorSettings:
    games: int = 10  # games of every accepted generation against the anchor (0: none)
    every: int = 1  # ... of every this-many-th generation only (generation 0 always)
    level: int = 10  # GNU Go level
    visits: int = 400  # our search per move (time.default_seconds=0: visits only)
    komi: float = 7.0


@dataclass(frozen=True)
class LoopConfig:
    path: Path | None
    loop: LoopSettings = field(default_factory=LoopSettings)
    selfplay: SelfPlaySettings = field(default_factory=SelfPlaySettings)
    selfplay_loop: SelfPlayLoopSettings = field(default_factory=SelfPlayLoopSettings)
    train: TrainerSettings = field(default_factory=TrainerSettings)
    gating: GatingSettings = field(default_factory=GatingSettings)
    anchor: AnchorSettings = field(default_factory=AnchorSettings)

    def resolve(self, path: str) -> Path:
        p = Path(path)
        if p.is_absolute() or self.path is None:
            return p
        return (self.path.parent / p).resolve()

    @property
    def out(self) -> Path:
        return self.resolve(self.loop.out)

    def to_dict(self) -> dict[str, Any]:
        """The tables as a config file has them (the search settings as ``[selfplay]`` keys)."""
        play = {k: v for k, v in dataclasses.asdict(self.selfplay).items() if k != "search"}
        search = {k: getattr(self.selfplay.search, k) for k in SELFPLAY_SEARCH_KEYS}
        return {
            "loop": dataclasses.asdict(self.loop),
            "selfplay": {**play, **search, **dataclasses.asdict(self.selfplay_loop)},
            "train": dataclasses.asdict(self.train),
            "gating": dataclasses.asdict(self.gating),
            "anchor": dataclasses.asdict(self.anchor),
        }


def _build(cls: type, table: dict[str, Any], where: str, source: str) -> Any:
    if "lr_drops" in table and any(f.name == "lr_drops" for f in dataclasses.fields(cls)):
        table = dict(table)
        try:
            table["lr_drops"] = tuple((int(a), float(b)) for a, b in table["lr_drops"])
        except (TypeError, ValueError):
            raise LoopConfigError(f"{source}: {where}.lr_drops must be a list of [iteration, rate] pairs") from None
    return build_table(cls, table, where, source, LoopConfigError)


def _selfplay_search(play: dict[str, Any], source: str) -> SearchSettings:
    """Self-play's search settings from the ``[selfplay]`` table (its search keys, aliases too,
    are taken out of ``play``); the engine's checks, in a ``LoopConfigError``."""
    given: dict[str, Any] = {}
    for key in [k for k in play if ALIASES.get(k, k) in SELFPLAY_SEARCH_KEYS]:
        name = ALIASES.get(key, key)
        if name in given:
            raise LoopConfigError(f"{source}: selfplay.{key} and selfplay.{name} are the same setting: give one")
        given[name] = play.pop(key)
    base = {name: getattr(SELFPLAY_SEARCH, name) for name in SELFPLAY_SEARCH_KEYS}
    built = _build(SearchSettings, {**base, **given}, "selfplay", source)
    return SELFPLAY_SEARCH.replace(**{name: getattr(built, name) for name in SELFPLAY_SEARCH_KEYS})


def load_loop_config(path: str | os.PathLike | None, overrides: dict[str, dict[str, Any]] | None = None) -> LoopConfig:
    """Read ``path`` (None: defaults) and apply ``overrides`` ({table: {key: value}})."""
    data: dict[str, Any] = {}
    source = "<defaults>"
    if path is not None:
        source = str(path)
        try:
            data = read_toml(path)
        except TomlFileError as e:
            raise LoopConfigError(str(e)) from None
    for table, values in (overrides or {}).items():
        data.setdefault(table, {}).update(values)
    known = {"loop", "selfplay", "train", "gating", "anchor"}
    for table, values in data.items():
        if table not in known or not isinstance(values, dict):
            raise LoopConfigError(f"{source}: unknown table [{table}] (known: {', '.join(sorted(known))})")
    play = dict(data.get("selfplay", {}))
    if "search" in play:  # a field, not a key: its keys stand in the table itself
        raise LoopConfigError(f"{source}: unknown key selfplay.search (its keys: {', '.join(SELFPLAY_SEARCH_KEYS)})")
    search = _selfplay_search(play, source)
    loop_keys = {f.name for f in dataclasses.fields(SelfPlayLoopSettings)}
    play_loop = {k: play.pop(k) for k in list(play) if k in loop_keys}
    loop = _build(LoopSettings, data.get("loop", {}), "loop", source)
    if loop.workers < 1 or loop.iterations < 0:
        raise LoopConfigError(f"{source}: loop.workers must be >= 1 and loop.iterations >= 0")
    config = LoopConfig(
        path=Path(path).resolve() if path is not None else None,
        loop=loop,
        selfplay=dataclasses.replace(_build(SelfPlaySettings, play, "selfplay", source), search=search),
        selfplay_loop=_build(SelfPlayLoopSettings, play_loop, "selfplay", source),
        train=_build(TrainerSettings, data.get("train", {}), "train", source),
        gating=_build(GatingSettings, data.get("gating", {}), "gating", source),
        anchor=_build(AnchorSettings, data.get("anchor", {}), "anchor", source),
    )
    for key in ("ownership_weight", "score_weight"):
        if not 0.0 <= getattr(config.train, key) <= 10.0:
            raise LoopConfigError(f"{source}: train.{key} must be in [0, 10]")
    if not 0.0 <= config.train.value_q_weight <= 1.0:
        raise LoopConfigError(f"{source}: train.value_q_weight must be in [0, 1]")
    if config.selfplay_loop.games_per_task < 1 or config.selfplay_loop.games_per_iteration < 1:
        raise LoopConfigError(f"{source}: selfplay.games_per_iteration and games_per_task must be >= 1")
    if config.gating.games < 0:
        raise LoopConfigError(f"{source}: gating.games must be >= 0 (0: no gate)")
    if config.loop.init_model:
        from dlgo.inference.files import ModelFileError, check_model_file

        try:
            check_model_file(config.resolve(config.loop.init_model))
        except ModelFileError as e:
            raise LoopConfigError(f"{source}: loop.init_model: {e}") from None
    return config
