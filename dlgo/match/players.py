"""Who plays: a :class:`PlayerSpec` is a label plus the command line of a GTP engine.

``player_from_text`` reads the short forms the duel script accepts:

- ``gnugo`` (GNU Go at ``--level``, Chinese rules), ``pachi`` (Pachi, a fixed playout budget);
- a path ending in ``.toml``: this project's engine (``python -m gtp_engine --config PATH``);
- anything else: a command line, split like a shell would (``"pachi -t =5000 threads=1"``).

The referee tells our own engine a time or visit budget per move through ``--set`` overrides
(:meth:`PlayerSpec.argv_for`); other engines get GTP time commands or nothing.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.tomlfile import format_overrides

if TYPE_CHECKING:
    from dlgo.search.settings import SearchSettings

__all__ = [
    "PlayerSpec",
    "find_gnugo",
    "gnugo_player",
    "pachi_player",
    "katago_player",
    "dlgo_player",
    "DEFAULT_ENGINE_CONFIG",
    "engine_search_settings",
    "zero_engine_player",
    "command_player",
    "player_from_text",
    "GNUGO_REFEREE_ARGS",
]

_GAMES_DIRS = ("/usr/games", "/usr/local/games")
GNUGO_REFEREE_ARGS = ("--mode", "gtp", "--chinese-rules", "--capture-all-dead")

DLGO = "dlgo"
GNUGO = "gnugo"
PACHI = "pachi"
KATAGO = "katago"
COMMAND = "command"


@dataclass(frozen=True)
class PlayerSpec:
    """A GTP engine to start: ``argv`` for the command line, ``label`` for tables and SGF.

    ``kind`` is ``dlgo`` (our engine: budgets go in as ``--set``), ``gnugo``, ``pachi`` or
    ``command``. ``time_commands`` says whether a fixed time per move is sent to it as GTP
    ``time_settings 0 S 1`` (GNU Go plays its ``--level`` whatever the time, so not by default).
    ``extra_sets`` are more ``--set key=value`` overrides for our engine.
    """

    label: str
    argv: tuple[str, ...]
    kind: str = COMMAND
    time_commands: bool = True
    extra_sets: tuple[str, ...] = field(default=())
    cwd: str | None = None

    def argv_for(self, size: int, seconds_per_move: float | None = None, visits: int | None = None) -> list[str]:
        """The command line for one game: our engine gets the budget per move as overrides."""
        argv = list(self.argv)
        if self.kind != DLGO:
            return argv
        sets: list[str] = []
        if seconds_per_move is not None:
            for prefix in ("", f"size.{size}."):
                sets += [
                    f"{prefix}time.default_seconds={seconds_per_move:g}",
                    f"{prefix}time.max_seconds={seconds_per_move:g}",
                ]
        if visits is not None:
            # every search agent's visits (a --set reaches the config's size tables too): the
            # shipped config's zero agent searches 20,000 visits on 19x19, stopped by the clock
            sets += [f"{agent}.rounds={visits}" for agent in ("mcts", "zero")]
            if seconds_per_move is None:  # visits alone: no time limit per move
                sets += ["time.default_seconds=0", f"size.{size}.time.default_seconds=0"]
        sets += list(self.extra_sets)
        for s in sets:
            argv += ["--set", s]
        return argv

    def to_json(self) -> dict:
        return {
            "label": self.label,
            "argv": list(self.argv),
            "kind": self.kind,
            "time_commands": self.time_commands,
            "extra_sets": list(self.extra_sets),
            "cwd": self.cwd,
        }

    @classmethod
    def from_json(cls, data: dict) -> PlayerSpec:
        return cls(
            label=data["label"],
            argv=tuple(data["argv"]),
            kind=data.get("kind", COMMAND),
            time_commands=data.get("time_commands", True),
            extra_sets=tuple(data.get("extra_sets", ())),
            cwd=data.get("cwd"),
        )


def find_gnugo() -> str | None:
    """The ``gnugo`` executable on PATH or in the games folders Debian uses, or None."""
    found = shutil.which("gnugo")
    if found:
        return found
    for folder in _GAMES_DIRS:
        candidate = os.path.join(folder, "gnugo")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def gnugo_player(level: int = 10, label: str | None = None, path: str | None = None) -> PlayerSpec:
    """GNU Go in GTP mode at ``level`` with Chinese (area) rules."""
    exe = path or find_gnugo()
    if exe is None:
        raise FileNotFoundError("GNU Go (gnugo) is not on PATH nor in /usr/games: apt-get install gnugo")
    argv = (exe, "--mode", "gtp", "--level", str(level), "--chinese-rules")
    return PlayerSpec(label or f"gnugo-l{level}", argv, kind=GNUGO, time_commands=False)


def pachi_player(
    playouts: int = 5000, threads: int = 1, label: str | None = None, path: str | None = None
) -> PlayerSpec:
    """Pachi with a fixed playout budget per move (``-t =N``): ``path``, else the one on PATH."""
    exe = path or shutil.which("pachi")
    if exe is None:
        raise FileNotFoundError("Pachi (pachi) is not on PATH: build it from its sources")
    argv = (exe, "-t", f"={playouts}", f"threads={threads}")
    return PlayerSpec(label or f"pachi-{playouts}", argv, kind=PACHI, time_commands=False)


def katago_player(visits: int, exe: str, model: str, config: str, label: str | None = None) -> PlayerSpec:
    """KataGo's GTP engine at a fixed number of visits per move (``maxVisits``), as a ladder rung.

    ``exe``, ``model`` and ``config``: the binary, its network file and a GTP config (one search
    thread). An opponent only: its moves are never training data.
    """
    for what, path in (("KataGo", exe), ("KataGo's network", model), ("KataGo's config", config)):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{what} not found: {path}")
    argv = (exe, "gtp", "-model", model, "-config", config, "-override-config", f"maxVisits={visits}")
    return PlayerSpec(label or f"katago-{visits}", argv, kind=KATAGO, time_commands=False)


def dlgo_player(
    config: str | os.PathLike | None,
    label: str | None = None,
    sets: tuple[str, ...] = (),
    python: str | None = None,
) -> PlayerSpec:
    """This project's engine with a TOML config (None: built-in defaults)."""
    argv: list[str] = [python or sys.executable, "-m", "gtp_engine"]
    if config is not None:
        path = Path(config)
        if not path.is_file():
            raise FileNotFoundError(f"engine config not found: {path}")
        argv += ["--config", str(path.resolve())]
        default_label = f"dlgo-{path.stem}"
    else:
        default_label = "dlgo"
    root = str(Path(__file__).resolve().parents[2])  # so `-m gtp_engine` works from a checkout
    return PlayerSpec(
        label or default_label, tuple(argv), kind=DLGO, time_commands=False, extra_sets=tuple(sets), cwd=root
    )


#: the config our engine plays without ``--config`` in a checkout (``dlgo.shipped`` links to it)
DEFAULT_ENGINE_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "engine" / "default.toml"


def engine_search_settings(board_size: int, config: str | os.PathLike = DEFAULT_ENGINE_CONFIG) -> SearchSettings:
    """The search settings the engine config ``config`` gives its Zero agent on ``board_size``
    (its ``[size.N.zero]`` table over ``[zero]``): a match that changes a few of them
    (``.replace(rounds=400)``) plays the others as the engine would."""
    from dlgo.agent_registry import zero_params
    from dlgo.search.settings import SearchSettings
    from dlgo.tomlfile import read_toml

    return SearchSettings.from_config(zero_params(read_toml(config), board_size))


def zero_engine_player(
    model: str | os.PathLike,
    search: SearchSettings,
    *,
    board_size: int,
    label: str | None = None,
    config: str | os.PathLike = DEFAULT_ENGINE_CONFIG,
    threads: int = 1,
    resign_threshold: float | None = None,
) -> PlayerSpec:
    """Our engine on ``config`` playing its Zero agent on ``model`` with exactly ``search`` at
    ``board_size``, on visits alone (no time per move) and ``threads`` network threads;
    ``resign_threshold``: a win rate (None: the config's). The one place a match turns search
    settings into our engine's ``--set`` overrides: every setting is given, over the config's
    own and its size tables' (``engine_search_settings`` reads those)."""
    tables: dict[str, Any] = {
        "agent": "zero",
        "zero": {"model": model, **search.config(), "threads": threads},
        "time": {"default_seconds": 0.0},
        "engine": {"board_size": board_size},
    }
    if resign_threshold is not None:
        tables["resign"] = {"threshold": resign_threshold}
    return dlgo_player(config, label, tuple(format_overrides(tables)))


def command_player(command: str | list[str], label: str | None = None, time_commands: bool = True) -> PlayerSpec:
    """Any GTP engine from its command line (a string is split like a shell would)."""
    argv = shlex.split(command) if isinstance(command, str) else list(command)
    if not argv:
        raise ValueError("empty engine command")
    return PlayerSpec(label or Path(argv[0]).name, tuple(argv), kind=COMMAND, time_commands=time_commands)


def player_from_text(text: str, *, level: int = 10, label: str | None = None, sets: tuple[str, ...] = ()) -> PlayerSpec:
    """``gnugo``, ``pachi``, ``path/to/config.toml``, or a GTP command line."""
    stripped = text.strip()
    if stripped == "gnugo":
        return gnugo_player(level, label)
    if stripped == "pachi":
        return pachi_player(label=label)
    if stripped.endswith(".toml") and " " not in stripped:
        return dlgo_player(stripped, label, sets)
    return command_player(stripped, label)
