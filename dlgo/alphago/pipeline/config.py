"""The AlphaGo pipeline's settings (book chapter 13), read from a TOML file (configs/train/alphago-9x9.toml).

Every table is optional; a missing key keeps the default below. Paths are as written (relative
to the directory the command runs in, the repository root in the docs).
"""

from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from dlgo.tomlfile import build_table, read_toml

__all__ = ["PipelineConfig", "ExpertGames", "Supervised", "Rollout", "RLStage", "ValueStage", "SearchStage"]


@dataclass(frozen=True)
class ExpertGames:
    """9x9 expert games: self-play records of a Zero network (``python -m dlgo.zero.records``);
    ``sgf``: a folder of game records to use instead (19x19: the shared archives)."""

    model: str = "weights/zero-9x9.keras"
    games: int = 2000
    visits: int = 16
    sgf: str = ""


@dataclass(frozen=True)
class Supervised:
    """The strong policy (book 13.1): the 13-layer network at ``filters`` width, ``dlgo.train``."""

    filters: int = 32
    epochs: int = 6
    steps_per_epoch: int = 0  # 0: one pass over the training positions
    batch_size: int = 128
    lr: float = 1e-3
    test_fraction: float = 0.05
    max_minutes: float = 0.0  # 0: no limit
    # A trained supervised policy to start from instead of training one (e.g. the shipped
    # weights/alphago-9x9/sl-policy.keras): later stages run on it without the expert games.
    policy: str = ""


@dataclass(frozen=True)
class Rollout:
    """The fast rollout policy (book 13.2): linear 5x5 patterns on the sevenplane input."""

    epochs: int = 3
    steps_per_epoch: int = 0
    batch_size: int = 256
    lr: float = 3e-3
    model: str = ""  # a trained rollout network to use instead of training one


@dataclass(frozen=True)
class RLStage:
    """Policy gradient against a pool of earlier versions (book 13.3)."""

    iterations: int = 5
    games_per_iteration: int = 200
    games_per_task: int = 10
    lr: float = 0.0002
    clipnorm: float = 1.0
    batch_size: int = 256
    temperature: float = 0.0  # chance of an off-policy random move (book 10.3)
    eval_games: int = 200  # final RL policy against the supervised one (0: no match)
    # A value network (``alphago_value`` planes, e.g. weights/alphago-9x9/value.keras) as the
    # baseline: each move learns from ``reward - value(position)`` (book 12.1's advantage; AlphaGo's
    # second pass did so), so moves played after the game was decided carry no credit. "": none.
    baseline: str = ""


@dataclass(frozen=True)
class ValueStage:
    """The value network (book 13.3): one position per self-play game of the RL policy."""

    games: int = 3000
    games_per_task: int = 25
    filters: int = 16
    epochs: int = 10
    batch_size: int = 64
    lr: float = 1e-3
    held_out_every: int = 10  # every 10th task's positions are held out for the MSE


@dataclass(frozen=True)
class SearchStage:
    """The AlphaGo search (book 13.4) on the trained networks, and its matches."""

    engine_config: str = "configs/engine/alphago-9x9.toml"
    prior: str = "sl"  # the policy for the priors: "sl" (as AlphaGo) or "rl"
    rounds: int = 200
    lambda_value: float = 0.5
    seconds_per_move: float = 1.0
    games: int = 40  # against the supervised policy alone
    zero_config: str = "configs/engine/zero-9x9.toml"
    zero_games: int = 0  # against the Zero search at equal time (0: not played)


@dataclass(frozen=True)
class PipelineConfig:
    out: str = "runs/alphago-9x9"
    board_size: int = 9
    komi: float = 7.5
    workers: int = 2
    seed: int = 1
    expert_games: ExpertGames = field(default_factory=ExpertGames)
    supervised: Supervised = field(default_factory=Supervised)
    rollout: Rollout = field(default_factory=Rollout)
    rl: RLStage = field(default_factory=RLStage)
    value: ValueStage = field(default_factory=ValueStage)
    search: SearchStage = field(default_factory=SearchStage)

    @property
    def root(self) -> Path:
        return Path(self.out)

    def stage_settings(self, name: str) -> dict[str, Any]:
        """What a stage's outputs depend on besides its input files (a change reruns it)."""
        common = {"board_size": self.board_size, "komi": self.komi, "seed": self.seed}
        return {**common, **asdict(getattr(self, name))}

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "the pipeline config") -> PipelineConfig:
        """The config from a TOML table: one error naming ``source`` and the key for an unknown
        key or a value of the wrong type (``dlgo.tomlfile.build_table``)."""
        factories = {f.name: f.default_factory for f in fields(cls) if f.default_factory is not MISSING}
        tables = {
            key: build_table(factories[key], value, key, source)
            if isinstance(value, dict) and key in factories
            else value
            for key, value in data.items()
        }
        return build_table(cls, tables, "pipeline", source)

    @classmethod
    def load(cls, path: str) -> PipelineConfig:
        return cls.from_dict(read_toml(path), str(path))
