"""The engine's first move and its time per move outside the search, as a controller sees them.

``first_move``: a fresh ``python -m gtp_engine --config CONFIG`` process is sent ``boardsize N``,
``time_settings 0 PERIOD 1`` and ``genmove b`` at once, right after it is started (a GUI or
gtp2ogs starting a game); the figure is the time from sending them to the answer (the
controller's clock ran all along). "cold": the config and its model files copied into a new
folder with an empty user cache, so the ONNX export is made in that process; "warm": a second
process on the same copy, the export cached. Compiled (numba) kernels are cached as installed.
``startup_seconds``: from the process start to the engine reading commands (Python, imports and
start-up checks; the first move's clock runs through it).

``overhead``: once the agents are built, ``genmove`` after ``genmove`` with ``time_settings 0
PERIOD 1`` and ``time.lag_buffer=0``: each answer's time past the period is what the engine
spends outside its search (stopping it, deciding, answering) and what ``time.lag_buffer`` must
cover besides the controller's lag.
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from dlgo.parallel import die_with_parent

__all__ = ["bench_firstmove"]

ROOT = Path(__file__).resolve().parents[2]


class _Engine:
    def __init__(self, config: Path, env: dict[str, str], sets: tuple[str, ...] = ()) -> None:
        cmd = [sys.executable, "-m", "gtp_engine", "--config", str(config)]
        for s in sets:
            cmd += ["--set", s]
        self.stderr = tempfile.TemporaryFile()
        self.started = time.monotonic()
        self.started_wall = time.time()
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            preexec_fn=die_with_parent(),  # no engine left searching when the bench is killed
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self._lines.put(line)
        self._lines.put(b"")

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()

    def answer(self, timeout: float = 120.0) -> str:
        text = []
        while True:
            line = self._lines.get(timeout=timeout)
            if not line:
                raise RuntimeError("the engine stopped: " + self.log()[-2000:])
            if line == b"\n" and text:
                body = b"".join(text).decode().strip()
                if not body.startswith("="):
                    raise RuntimeError(f"engine error: {body}")
                return body.lstrip("=").strip()
            text.append(line)

    def log(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.stderr.close()


def _copy_config(config: Path, folder: Path) -> Path:
    """The config and every model file it names (with cards), at the same relative places.

    The file is read as plain TOML (the engine checks it when it starts): the agent tables
    at the top level and in every ``[size.N]`` table name the files."""
    from dlgo import agent_registry as registry
    from dlgo.tomlfile import read_toml

    data = read_toml(config)
    tables = [data] + [t for t in data.get("size", {}).values() if isinstance(t, dict)]
    target = folder / "configs" / "engine" / config.name
    target.parent.mkdir(parents=True)
    shutil.copyfile(config, target)

    for table in tables:
        for name, agent_type in registry.REGISTRY.items():
            for key, param in agent_type.params.items():
                value = table.get(name, {}).get(key)
                if not (param.path and value) or os.path.isabs(value):
                    continue
                source = Path(os.path.abspath(config)).parent / os.path.expanduser(value)
                copy = Path(os.path.normpath(target.parent / value))
                if source.is_file() and not copy.exists():
                    copy.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, copy)
                    card = source.with_name(source.stem + ".card.json")
                    if card.is_file():
                        shutil.copyfile(card, copy.with_name(card.name))
    return target


def _first_move(config: Path, env: dict[str, str], size: int, period: float) -> dict[str, Any]:
    eng = _Engine(config, env, ("log.level=info",))
    try:
        sent = time.monotonic()
        eng.send(f"boardsize {size}", f"time_settings 0 {period:g} 1", "genmove b")
        eng.answer()
        eng.answer()
        move = eng.answer()
        seconds = time.monotonic() - sent
        eng.send("gomill-explain_last_move")
        explain = eng.answer()
        up = None  # when the engine logged that it reads commands, from the process start
        for line in eng.log().splitlines():
            if " INFO gtp_engine: ready" in line:
                stamp = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S")) + int(line[20:23]) / 1000
                up = round(stamp - eng.started_wall, 3)
        ready = None
        deadline = time.monotonic() + 120
        while ready is None and time.monotonic() < deadline:  # when the agent was built
            for line in eng.log().splitlines():
                if f"for {size}x{size} ready in" in line:
                    ready = float(line.rsplit("ready in", 1)[1].split()[0])
            if ready is None:
                time.sleep(0.2)
        return {
            "period": period,
            "answer_seconds": round(seconds, 3),
            "startup_seconds": up,
            "in_time": seconds < period,
            "move": move,
            "quick_move": "quick move" in explain,
            "explain": explain[:160],
            "agent_build_seconds": ready,
        }
    finally:
        eng.close()


def _overhead(config: Path, env: dict[str, str], size: int, period: float, moves: int) -> dict[str, Any]:
    eng = _Engine(config, env, ("time.lag_buffer=0", "resign.enabled=false", "engine.ponder=false"))
    try:
        eng.send(f"boardsize {size}", "kata-list_time_settings")
        eng.answer()
        eng.answer()
        eng.send("genmove b")  # waits for the agent without a clock
        eng.answer()
        eng.send(f"time_settings 0 {period:g} 1")
        eng.answer()
        over = []
        colour = "w"
        for _ in range(moves):
            sent = time.monotonic()
            eng.send(f"genmove {colour}")
            move = eng.answer()
            over.append(time.monotonic() - sent - period)
            if move.lower() in ("pass", "resign"):
                break
            colour = "b" if colour == "w" else "w"
        over.sort()
        return {
            "period": period,
            "moves": len(over),
            "past_period_seconds": {
                "median": round(over[len(over) // 2], 3),
                "max": round(over[-1], 3),
                "min": round(over[0], 3),
            },
        }
    finally:
        eng.close()


def bench_firstmove(
    config: str | os.PathLike = ROOT / "configs" / "engine" / "default.toml",
    sizes: tuple[int, ...] = (9, 19),
    periods: dict[int, float] | None = None,
    overhead_moves: int = 10,
) -> dict[str, Any]:
    periods = periods or {9: 2.0, 13: 3.0, 19: 5.0}
    config = Path(config).resolve()
    out: dict[str, Any] = {"benchmark": "firstmove", "config": str(config), "first_move": {}, "overhead": {}}
    out["load_average_before"] = [round(x, 2) for x in os.getloadavg()]
    with tempfile.TemporaryDirectory(prefix="dlgo-firstmove-") as tmp:
        for size in sizes:
            folder = Path(tmp) / f"{size}x{size}"
            copy = _copy_config(config, folder)
            env = dict(os.environ, XDG_CACHE_HOME=str(folder / "cache"))
            period = periods.get(size, 5.0)
            runs = {"cold": _first_move(copy, env, size, period), "warm": _first_move(copy, env, size, period)}
            out["first_move"][f"{size}x{size}"] = runs
            if overhead_moves > 0:
                out["overhead"][f"{size}x{size}"] = _overhead(copy, env, size, 1.0, overhead_moves)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return out
