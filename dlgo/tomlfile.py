"""Reading a TOML config file: the one reader behind the engine's and the training loop's configs.

Every way a file can be unusable (missing, unreadable, too big to be a config, not UTF-8, not
TOML) is one ``TomlFileError`` whose message is a single line naming the file, so a command
line tool can print it and exit without a traceback. ``build_table`` turns one table into a
settings dataclass with the same kind of message for an unknown key or a value of the wrong type.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Mapping
from typing import Any

__all__ = ["TomlFileError", "read_toml", "build_table", "parse_override", "format_overrides", "MAX_CONFIG_BYTES"]

# A config is a few KB; reading stops here so `--config /dev/zero` cannot eat the memory.
MAX_CONFIG_BYTES = 1 << 20


class TomlFileError(ValueError):
    """A config file that cannot be read as TOML; the message names the file."""


def read_toml(path: str | os.PathLike) -> dict[str, Any]:
    """The parsed contents of ``path``; ``TomlFileError`` (one line) when it cannot be."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as e:
        raise TomlFileError(f"{path}: cannot read: {e.strerror or e}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise TomlFileError(f"{path}: larger than {MAX_CONFIG_BYTES >> 20} MB: not a config file")
    try:
        text = data.decode("utf-8-sig")  # a byte-order mark (some Windows editors) is harmless
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise TomlFileError(
            f"{path}: not valid UTF-8 (byte 0x{data[e.start]:02x} on line {line}): save the file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TomlFileError(f"{path}: not valid TOML: {e}") from None


def build_table(
    cls: type, table: dict[str, Any], where: str, source: str, error: type[ValueError] = TomlFileError
) -> Any:
    """``cls(**table)``, a dataclass whose defaults give each key's type; ``error`` naming
    ``source`` and the key for an unknown key, a wrong type or a value ``cls`` refuses. Integers
    pass for floats; other defaults (tuples, None) take the value as it is."""
    names = {f.name: f for f in dataclasses.fields(cls)}
    kwargs = {}
    for key, value in table.items():
        if key not in names:
            raise error(f"{source}: unknown key {where}.{key} (known: {', '.join(sorted(names))})")
        default = names[key].default
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise error(f"{source}: {where}.{key} must be true or false")
        elif isinstance(default, int):
            if not isinstance(value, int) or isinstance(value, bool):
                raise error(f"{source}: {where}.{key} must be an integer, not {value!r}")
        elif isinstance(default, float):
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise error(f"{source}: {where}.{key} must be a number, not {value!r}")
            value = float(value)
        elif isinstance(default, str) and not isinstance(value, str):
            raise error(f"{source}: {where}.{key} must be a string, not {value!r}")
        kwargs[key] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise error(f"{source}: [{where}] {e}") from None


def parse_override(text: str) -> dict[str, Any]:
    """``a.b.c=value`` -> {"a": {"b": {"c": value}}}; value is TOML when it parses, else a string."""
    if "=" not in text:
        raise ValueError(f"expected key=value, got {text!r}")
    key, raw = text.split("=", 1)
    key = key.strip()
    parts = key.split(".")
    if not key or any(not p for p in parts):
        raise ValueError(f"bad key {key!r}")
    raw = raw.strip()
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def format_overrides(tables: Mapping[str, Any], prefix: str = "") -> list[str]:
    """Nested tables -> ``a.b.c=value`` overrides that ``parse_override`` reads back as they are
    (``{"zero": {"rounds": 400}}`` -> ``["zero.rounds=400"]``): each value written as TOML."""
    out: list[str] = []
    for key, value in tables.items():
        if isinstance(value, Mapping):
            out += format_overrides(value, f"{prefix}{key}.")
        elif isinstance(value, bool):
            out.append(f"{prefix}{key}={'true' if value else 'false'}")
        elif isinstance(value, int | float):
            out.append(f"{prefix}{key}={value!r}")
        elif isinstance(value, str | os.PathLike):
            out.append(f"{prefix}{key}={json.dumps(os.fspath(value))}")  # a JSON string is a TOML string
        else:
            raise TypeError(f"{prefix}{key}: no TOML value for {value!r}")
    return out
