"""Engine configuration: a TOML file plus ``--set key=value`` overrides, checked at start-up.

Layout (every key is optional; ``configs/engine/default.toml`` documents each one)::

    agent = "mcts"              # the agent for every board size without its own entry
    [mcts]                      # parameters of each agent, one table per agent name
    rounds = 3000
    [time]  [resign]  [pass]  [scoring]  [analysis]  [engine]  [log]
    [size.9]                    # per board size: any key above except engine and log
    agent = "zero"
    [size.9.zero]
    model = "weights/zero9.keras"
    [size.19.handicap.zero]     # games with handicap stones: these agent keys replace the above
    score_utility = 0.3

Unknown keys, wrong types and out-of-range values raise :class:`ConfigError` whose message
names the file (or ``--set``) and the dotted key; ``__main__`` prints it as one line on stderr.
``check_model_files`` does the same for every model file the agents in play would load and every
opening book (``check_book_files``).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping, Sequence
from typing import Any

from dlgo import agent_registry as registry
from dlgo.agent_registry import Param
from dlgo.goboard import MAX_SIZE, MIN_SIZE
from dlgo.play.config_schema import SCHEMA
from dlgo.search.settings import range_problem
from dlgo.tomlfile import TomlFileError, parse_override, read_toml

__all__ = [
    "ConfigError",
    "Config",
    "SCHEMA",
    "load_config",
    "SIZE_SECTIONS",
    "describe_schema",
    "model_files",
    "check_model_files",
    "check_book_files",
    "book_files",
    "describe_books",
    "default_config_path",
]


class ConfigError(ValueError):
    """A bad config file or override; the message names the source and the key."""


# Tables a [size.N] table may override.
SIZE_SECTIONS = ("time", "resign", "pass", "book", "variety", "scoring", "analysis")
# The table of agent keys that games with handicap stones play instead ([handicap.zero] for every
# size, [size.N.handicap.zero] for one): the score-aware search where giving stones needs it.
HANDICAP = "handicap"


def _agent_params(name: str) -> dict[str, Param]:
    return registry.get(name).accepted_params()


def _check_value(key: str, param: Param, value: Any) -> Any:
    kind = param.type
    if kind is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key}: expected true or false, got {value!r}")
    elif kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{key}: expected an integer, got {value!r}")
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{key}: expected a number, got {value!r}")
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"{key}: expected a finite number, got {value!r}")
    elif kind is str:
        if not isinstance(value, str):
            raise ValueError(f"{key}: expected a string, got {value!r}")
    problem = range_problem(value, param.choices, param.minimum, param.maximum)
    if problem is not None:
        raise ValueError(f"{key}: {problem}, got {value!r}")
    return value


def _check_table(prefix: str, schema: Mapping[str, Param], table: Any) -> dict[str, Any]:
    if not isinstance(table, dict):
        raise ValueError(f"{prefix}: expected a table")
    out = {}
    for key, value in table.items():
        dotted = f"{prefix}.{key}"
        if key not in schema:
            raise ValueError(f"unknown key '{dotted}'")
        out[key] = _check_value(dotted, schema[key], value)
    return out


def _check_agent_name(key: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{key}: expected a string, got {value!r}")
    if value not in registry.REGISTRY:
        raise ValueError(f"{key}: unknown agent {value!r} (known: {', '.join(registry.names())})")
    return value


def _check_handicap(prefix: str, data: Any) -> dict[str, Any]:
    """Validate a [handicap] table (top level or [size.N.handicap]): agent tables only."""
    if not isinstance(data, dict):
        raise ValueError(f"{prefix}: expected agent tables like [{prefix}.zero]")
    out: dict[str, Any] = {}
    for name, table in data.items():
        dotted = f"{prefix}.{name}"
        if name not in registry.REGISTRY:
            raise ValueError(
                f"unknown key '{dotted}' (a handicap table holds agent tables: {', '.join(registry.names())})"
            )
        out[name] = registry.get(name).canonical(_check_table(dotted, _agent_params(name), table), dotted)
    return out


def _check_level(prefix: str, data: Mapping[str, Any], top: bool) -> dict[str, Any]:
    """Validate one level (top level or a [size.N] table); returns the checked partial dict."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if key == HANDICAP:
            out[key] = _check_handicap(dotted, value)
        elif key == "agent":
            out[key] = _check_agent_name(dotted, value)
        elif key in registry.REGISTRY:
            out[key] = registry.get(key).canonical(_check_table(dotted, _agent_params(key), value), dotted)
        elif key in SCHEMA and (top or key in SIZE_SECTIONS):
            out[key] = _check_table(dotted, SCHEMA[key], value)
        elif key == "size" and top:
            if not isinstance(value, dict):
                raise ValueError("size: expected tables like [size.19]")
            sizes = {}
            for size_key, sub in value.items():
                if not (str(size_key).isdigit() and MIN_SIZE <= int(size_key) <= MAX_SIZE):
                    raise ValueError(f"unknown key 'size.{size_key}' (board sizes are {MIN_SIZE}..{MAX_SIZE})")
                if not isinstance(sub, dict):
                    raise ValueError(f"size.{size_key}: expected a table")
                sizes[int(size_key)] = _check_level(f"size.{size_key}.", sub, top=False)
            out[key] = sizes
        else:
            raise ValueError(f"unknown key '{dotted}'")
    return out


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _defaults() -> dict[str, Any]:
    out: dict[str, Any] = {"agent": "mcts"}
    for section, schema in SCHEMA.items():
        out[section] = {k: p.default for k, p in schema.items()}
    for name, agent_type in registry.REGISTRY.items():
        out[name] = {k: p.default for k, p in agent_type.params.items()}
    out["size"] = {}
    return out


class Config:
    """Checked settings; ``section(name, size)`` gives one table with the size's overrides applied."""

    def __init__(self, data: dict[str, Any], path: str | None = None) -> None:
        self.path = path
        self._data = data

    @property
    def base_dir(self) -> str:
        return os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()

    def resolve_path(self, value: str) -> str:
        """A file named in the config, relative to the config file's folder."""
        if not value:
            return value
        value = os.path.expanduser(value)
        return value if os.path.isabs(value) else os.path.join(self.base_dir, value)

    def section(self, name: str, size: int | None = None, handicap: bool = False) -> dict[str, Any]:
        """Table ``name`` with the overrides of ``[size.N]`` (``size``) and, in a game with
        handicap stones (``handicap``), those of ``[handicap]`` and ``[size.N.handicap]``."""
        table = dict(self._data.get(name, {}))
        size_tables = self._data["size"].get(size, {}) if size is not None else {}
        table.update(size_tables.get(name, {}))
        if handicap:
            table.update(self._data.get(HANDICAP, {}).get(name, {}))
            table.update(size_tables.get(HANDICAP, {}).get(name, {}))
        return table

    def has_handicap_table(self, name: str, size: int | None = None) -> bool:
        """Whether games with handicap stones play agent ``name`` with keys of their own."""
        size_tables = self._data["size"].get(size, {}) if size is not None else {}
        return bool(self._data.get(HANDICAP, {}).get(name) or size_tables.get(HANDICAP, {}).get(name))

    def get(self, dotted: str, size: int | None = None) -> Any:
        section, key = dotted.split(".", 1)
        return self.section(section, size)[key]

    def agent_name(self, size: int | None = None) -> str:
        if size is not None:
            override = self._data["size"].get(size, {}).get("agent")
            if override is not None:
                return override
        return self._data["agent"]

    def agent_for_size(self, size: int, handicap: bool = False) -> tuple[str, dict[str, Any]] | None:
        """(agent name, its parameters) that plays ``size``, or None if none can; ``handicap``:
        in a game with handicap stones (the ``[handicap]`` tables' keys applied).

        The size's own agent when it has one and supports the size, else the top-level agent.
        """
        for name in dict.fromkeys((self.agent_name(size), self.agent_name())):
            params = self.section(name, size, handicap)
            if self.agent_plays(name, params, size):
                return name, params
        return None

    def agent_plays(self, name: str, params: Mapping[str, Any], size: int) -> bool:
        """Whether agent ``name`` with ``params`` plays ``size`` (its networks' sizes too)."""
        agent_type = registry.get(name)
        return agent_type.supports_size(registry.resolve_paths(agent_type, params, self.resolve_path), size)

    def agent_names_in_use(self) -> list[str]:
        used = [self._data["agent"]]
        used += [sub["agent"] for sub in self._data["size"].values() if "agent" in sub]
        return list(dict.fromkeys(used))

    def as_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self._data)


def default_config_path() -> str | None:
    """The shipped default config (what the engine plays without ``--config``): the checkout's
    ``configs/engine/default.toml``, or its copy inside the installed package
    (``dlgo.shipped``); None only when neither is there."""
    from dlgo.shipped import config_path

    path = config_path()
    return str(path) if path is not None else None


def load_config(path: str | None = None, overrides: Sequence[str] = ()) -> Config:
    """Read and check ``path`` (None: defaults only), then apply ``overrides`` in order."""
    data = _defaults()
    if path is not None:
        try:
            raw = read_toml(path)
        except TomlFileError as e:
            raise ConfigError(str(e)) from None
        try:
            data = _merge(data, _check_level("", raw, top=True))
        except ValueError as e:
            raise ConfigError(f"{path}: {e}") from e
    for text in overrides:
        try:
            override = _check_level("", _paths_from_cwd(parse_override(text)), top=True)
            data = _merge(data, _reaching_every_size(data, override))
        except ValueError as e:
            raise ConfigError(f"--set {text}: {e}") from e
    config = Config(data, path)
    source = path or "defaults"
    for name in config.agent_names_in_use():
        reason = registry.get(name).unavailable
        if reason:
            raise ConfigError(f"{source}: {reason}")
    return config


def _param(section: str, key: str) -> Param | None:
    if section in SCHEMA:
        return SCHEMA[section].get(key)
    return registry.REGISTRY[section].params.get(key) if section in registry.REGISTRY else None


def _paths_from_cwd(nested: dict[str, Any]) -> dict[str, Any]:
    """A ``--set`` file name is typed on a command line: relative to the current folder, not to
    the config file's (``--set zero.model=runs/x.keras`` means ./runs/x.keras)."""
    parts: list[str] = []
    level: Any = nested
    while isinstance(level, dict) and len(level) == 1:
        key, level = next(iter(level.items()))
        parts.append(key)
    tail = parts[2:] if parts[:1] == ["size"] else parts
    tail = tail[1:] if tail[:1] == [HANDICAP] else tail
    param = _param(*tail) if len(tail) == 2 else None
    if param is None or not param.path or not isinstance(level, str) or not level:
        return nested
    value = os.path.abspath(os.path.expanduser(level))
    for part in reversed(parts):
        value = {part: value}
    return value


def _reaching_every_size(data: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """A ``--set section.key=value`` without a size, as the user means it: for every board size.
    The config's ``[size.N.section]`` tables that set ``key`` get the value too (a command line
    beats the file; ``--set zero.model=X`` plays X on every board the zero agent plays), the
    ``[handicap]`` tables likewise (X in handicap games too), and a later ``--set
    size.N.section.key`` still sets one size."""
    extra: dict[str, Any] = {}
    handicap: dict[str, Any] = {}
    for section, table in override.items():
        if section in ("size", HANDICAP) or not isinstance(table, dict):
            continue
        reached = {key: value for key, value in table.items() if key in data.get(HANDICAP, {}).get(section, {})}
        if reached:
            handicap[section] = reached
        for size, size_tables in data["size"].items():
            for path, own in (
                ((size,), size_tables.get(section, {})),
                ((size, HANDICAP), size_tables.get(HANDICAP, {}).get(section, {})),
            ):
                reached = {key: value for key, value in table.items() if key in own}
                if reached:
                    level = extra
                    for part in path:
                        level = level.setdefault(part, {})
                    level[section] = reached
    out = dict(override)
    if extra:
        out["size"] = _merge(override.get("size", {}), extra)
    if handicap:
        out[HANDICAP] = _merge(override.get(HANDICAP, {}), handicap)
    return out


def _levels(config: Config) -> list[int | None]:
    """The board sizes with their own table, and None (the top level) when it plays any size."""
    sizes = config.as_dict()["size"]
    levels: list[int | None] = [size for size in sorted(sizes)]
    if any(size not in sizes or "agent" not in sizes[size] for size in range(MIN_SIZE, MAX_SIZE + 1)):
        levels.insert(0, None)
    return levels


def int8_model_files(config: Config) -> list[str]:
    """The network files (resolved) that the config's Zero agents play on the int8 runtime: what
    ``python -m gtp_engine --prepare`` quantizes ahead, so that no game waits for it."""
    out: dict[str, None] = {}
    for size in _levels(config):
        if config.agent_name(size) == "zero":
            for handicap in _handicap_variants(config, "zero", size):
                params = config.section("zero", size, handicap)
                if params["runtime"] == "int8" and params["model"]:
                    out[os.path.normpath(config.resolve_path(params["model"]))] = None
    return list(out)


def _handicap_variants(config: Config, name: str, size: int | None) -> tuple[bool, ...]:
    """The games agent ``name`` plays on ``size`` with parameters of their own: even games, and
    games with handicap stones when a ``[handicap]`` table names the agent."""
    return (False, True) if config.has_handicap_table(name, size) else (False,)


def model_files(config: Config) -> list[tuple[str, str]]:
    """(dotted key, resolved path or "") of every file an agent in play loads.

    The top-level agent plays every size without its own ``agent``; each ``[size.N]`` table
    plays its agent with its overrides. A key set in ``[size.N.agent]`` is named
    ``size.N.agent.key``, one inherited from the top-level table ``agent.key``.
    """
    data = config.as_dict()
    out: dict[str, str] = {}
    for size in _levels(config):
        name = config.agent_name(size)
        size_tables = data["size"].get(size, {}) if size is not None else {}
        for handicap in _handicap_variants(config, name, size):
            params = config.section(name, size, handicap)
            # where each key is set, most particular first: (prefix, the table's own keys)
            levels = [(f"size.{size}.{name}.", size_tables.get(name, {}))]
            if handicap:
                levels = [
                    (f"size.{size}.{HANDICAP}.{name}.", size_tables.get(HANDICAP, {}).get(name, {})),
                    (f"{HANDICAP}.{name}.", data.get(HANDICAP, {}).get(name, {})),
                    *levels,
                ]
            for key in registry.get(name).needed_files(params):
                prefix = next((p for p, own in levels if key in own), f"{name}.")
                value = str(params.get(key) or "")
                out.setdefault(prefix + key, os.path.normpath(config.resolve_path(value)) if value else "")
    return list(out.items())


def check_model_files(config: Config) -> None:
    """Every model file the config names exists and looks usable (no Keras import: zip and card
    checks, ``dlgo.inference.files.check_model_file``); else ``ConfigError`` naming the key and the file."""
    from dlgo.inference.files import ModelFileError, check_model_file

    source = config.path or "defaults"
    checked: set[str] = set()  # several sizes often share one network: read it once
    for dotted, path in model_files(config):
        if not path:
            raise ConfigError(f"{source}: {dotted} is not set: give the path of a .keras model file")
        if path in checked:
            continue
        try:
            check_model_file(path)
        except ModelFileError as e:
            raise ConfigError(f"{source}: {dotted}: {e}") from None
        checked.add(path)
    check_book_files(config)


def book_files(config: Config) -> list[tuple[str, int | None, str]]:
    """(dotted key, board size or None for the top level, resolved path) of every opening book
    the config names."""
    data = config.as_dict()
    out = []
    for size in _levels(config):
        own = data["size"].get(size, {}).get("book", {}) if size is not None else {}
        value = config.section("book", size)["file"]
        if value:
            dotted = f"size.{size}.book.file" if "file" in own else "book.file"
            out.append((dotted, size, os.path.normpath(config.resolve_path(value))))
    return out


def check_book_files(config: Config) -> None:
    """Every opening book the config names is readable and of its board size; else
    ``ConfigError`` naming the key and the file."""
    from dlgo.search.book import BookError, load_book

    source = config.path or "defaults"
    for dotted, size, path in book_files(config):
        try:
            book = load_book(path)
        except BookError as e:
            raise ConfigError(f"{source}: {dotted}: {e}") from None
        if size is not None and book.board_size != size:
            shape = f"{book.board_size}x{book.board_size}"
            raise ConfigError(f"{source}: {dotted}: {path} is a {shape} book, not {size}x{size}")


def describe_books(config: Config) -> list[str]:
    """One line per opening book the config names: its key, file, positions and komi."""
    from dlgo.search.book import BookError, load_book

    lines = []
    for dotted, _, path in book_files(config):
        try:
            book = load_book(path)
        except BookError as e:
            lines.append(f"{dotted}: {e}")
            continue
        lines.append(
            f"{dotted}: {path} ({len(book)} positions, {book.board_size}x{book.board_size}, komi {book.komi:g})"
        )
    return lines


def describe_schema() -> list[tuple[str, Param]]:
    """Every key with its Param, dotted, for documentation and ``gomill-describe_engine``."""
    out: list[tuple[str, Param]] = []
    for section, schema in SCHEMA.items():
        out += [(f"{section}.{k}", p) for k, p in schema.items()]
    for name, agent_type in registry.REGISTRY.items():
        out += [(f"{name}.{k}", p) for k, p in agent_type.params.items()]
    return out


def describe_networks(config: Config) -> list[str]:
    """One line per network the config plays: its key, the file it stands for and the file ONNX
    Runtime opens for it (``--version`` and ``gomill-describe_engine`` print them)."""
    from dlgo.inference.files import ModelFileError
    from dlgo.inference.locate import locate_network

    int8 = set(int8_model_files(config))
    lines = []
    for dotted, path in model_files(config):
        if not path:
            lines.append(f"{dotted}: not set")
            continue
        try:
            lines.append(f"{dotted}: {locate_network(path, 'int8' if path in int8 else 'fp32').describe()}")
        except ModelFileError as e:
            lines.append(f"{dotted}: {e}")
    return lines
