"""Reading a TOML config file: the one reader behind the engine's and the training loop's configs.

Every way a file can be unusable (missing, unreadable, too big to be a config, not UTF-8, not
TOML) is one ``TomlFileError`` whose message is a single line naming the file, so a command
line tool can print it and exit without a traceback.
"""

from __future__ import annotations

import os
import tomllib
from typing import Any

__all__ = ["TomlFileError", "read_toml", "MAX_CONFIG_BYTES"]

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
