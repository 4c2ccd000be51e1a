"""The JSON lines the engine writes: one object per line on the original stdout, from any thread.

Before anything else the engine moves file descriptor 1 aside for its answers
(``dlgo.play.process.reserve_stdout``), so that nothing else (a library's print, a C extension's
banner) can ever put a line that is not JSON where a client reads answers.
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any, BinaryIO

__all__ = ["JsonWriter"]


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinity replaced by 0 (JSON has neither)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else 0.0
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


class JsonWriter:
    """Writes dicts as single JSON lines, whole lines only, flushed; ``closed`` once the reader
    has gone (a broken pipe), after which writes are dropped."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.closed = False
        self._lock = threading.Lock()

    def write(self, obj: dict[str, Any]) -> None:
        try:
            text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
        except ValueError:
            text = json.dumps(_finite(obj), separators=(",", ":"))
        data = text.encode("utf-8") + b"\n"
        with self._lock:
            if self.closed:
                return
            try:
                self.stream.write(data)
                self.stream.flush()
            except (BrokenPipeError, OSError, ValueError):
                self.closed = True

    def close(self) -> None:
        with self._lock:
            self.closed = True
            try:
                self.stream.close()
            except OSError:
                pass
