"""KaTrain's own engine and game classes, driven headless, for tests of KataGo analysis engines.

KaTrain (``pip install katrain``, 1.20.x) is a Kivy desktop program, but its engine and game
logic (``katrain.core``) run without a window: ``KataGoEngine`` starts the engine command, sends
its queries from a writer thread and parses the answers into ``GameNode.analysis`` from a reader
thread, as in the program. What the GUI application object provides to them (settings, logging,
the popup and status calls) comes from :class:`KaTrainStub`, a subclass of KaTrain's own headless
base class ``KaTrainBase`` on KaTrain's packaged default settings, which records what KaTrain logs
so that a test can see the errors a user would see in the status bar.

A "custom" engine is what a user sets in KaTrain's General & Engine settings, tab "Custom
command", field "Override Engine Command" (config ``engine/altcommand``, ``engine/backend =
"custom"``): KaTrain runs that string through the shell (``subprocess.Popen(..., shell=True)``).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from proc_tree import alive, descendants

# Kivy reads these when it is first imported: no parsing of pytest's argv, no log files, no
# console log, and its settings folder out of the home directory.
os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("KIVY_NO_FILELOG", "1")
os.environ.setdefault("KIVY_HOME", str(Path(tempfile.gettempdir()) / "dlgo-kivy-home"))

from katrain.core.base_katrain import KaTrainBase  # noqa: E402
from katrain.core.constants import OUTPUT_DEBUG, OUTPUT_ERROR, OUTPUT_INFO  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game import Game, KaTrainSGF  # noqa: E402
from katrain.core.game_node import GameNode  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
KATAGO_DIR = ROOT.parent / "shared" / "tools" / "katago"
KATAGO_MODEL = KATAGO_DIR / "g170-b6c96-s175395328-d26788732.bin.gz"


def katago_command() -> list[str]:
    """The real KataGo's analysis engine on the small test network (../shared/tools/katago)."""
    return [
        str(KATAGO_DIR / "katago"),
        "analysis",
        "-model",
        str(KATAGO_MODEL),
        "-config",
        str(KATAGO_DIR / "analysis.cfg"),
    ]


def katago_unusable() -> str | None:
    """Why the real KataGo cannot run here, or None when it can."""
    exe = KATAGO_DIR / "katago"
    if not exe.is_file() or not KATAGO_MODEL.is_file():
        return f"KataGo not found in {KATAGO_DIR}"
    try:
        out = subprocess.run([str(exe), "version"], capture_output=True, text=True, timeout=60)
    except OSError as e:
        return f"KataGo does not start: {e}"
    if out.returncode != 0:
        missing = "libzip.so.4" in out.stderr
        hint = " (apt-get install libzip4)" if missing else ""
        return f"KataGo does not start{hint}: {out.stderr.strip()[:200]}"
    return None


class _Controls:
    """The GUI's ``katrain.controls`` as far as ``Game`` uses it: the status line."""

    def __init__(self) -> None:
        self.statuses: list[str] = []

    def set_status(self, message: str, *_args: Any, **_kwargs: Any) -> None:
        self.statuses.append(str(message))


class KaTrainStub(KaTrainBase):
    """KaTrain's headless base (packaged default settings) with what its engine calls on the GUI."""

    def __init__(self) -> None:
        self.messages: list[tuple[float, str]] = []
        self.popups: list[tuple[str, tuple[Any, ...]]] = []
        self.controls = _Controls()
        super().__init__(force_package_config=True, debug_level=OUTPUT_DEBUG)

    def log(self, message: Any, level: float = OUTPUT_INFO) -> None:
        self.messages.append((level, str(message)))

    def __call__(self, message: str, *args: Any, **_kwargs: Any) -> None:
        """The GUI's message entry point: the engine calls ``katrain("engine_recovery_popup", ...)``."""
        self.popups.append((message, args))

    def update_state(self, redraw_board: bool = False) -> None:
        """Called by the engine's reader thread after each answer; the GUI redraws here."""

    @property
    def errors(self) -> list[str]:
        """What KaTrain logged as errors (shown as "ERROR: ..." in its status bar)."""
        return [m for level, m in self.messages if level == OUTPUT_ERROR]

    def clear(self) -> None:
        self.messages.clear()
        self.popups.clear()
        self.controls.statuses.clear()

    def transcript(self, last: int = 40) -> str:
        """The last lines KaTrain logged (queries sent, answers received), for failure messages."""
        return "\n".join(f"[{level}] {m[:300]}" for level, m in self.messages[-last:])


def start_engine(katrain: KaTrainStub, command: Sequence[str], exec_: bool = False, **settings: Any) -> KataGoEngine:
    """KaTrain's ``KataGoEngine`` on a custom command, KaTrain's default engine settings otherwise.

    With ``exec_`` the command typed is ``exec COMMAND``: the shell KaTrain starts becomes the
    engine, so that KaTrain's SIGTERM reaches the engine itself.
    """
    config = dict(katrain.config("engine"))
    altcommand = ("exec " if exec_ else "") + shlex.join(command)
    config.update(backend="custom", altcommand=altcommand, **settings)
    katrain._config["engine"] = config
    return KataGoEngine(katrain, config)


def engine_pids(engine: KataGoEngine) -> list[int]:
    """The process KaTrain started for the engine and all processes under it."""
    process = engine.katago_process
    return [process.pid, *descendants(process.pid)] if process is not None else []


def kill(pids: Sequence[int]) -> None:
    """SIGKILL those of ``pids`` (processes a test started) that still run."""
    for pid in pids:
        if alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def stop_engine(engine: KataGoEngine, timeout: float = 30.0) -> bool:
    """Close the engine as KaTrain does when the app closes; True if every engine process ended.

    KaTrain runs a custom command through ``/bin/sh -c`` and on close only terminates that shell
    (``shutdown``), so the engine itself learns that KaTrain is gone from the end of its standard
    input, when KaTrain's end of the pipe closes. Here the pipe is closed at once; processes still
    running after ``timeout`` seconds are killed (and the answer is False).
    """
    process = engine.katago_process
    pids = engine_pids(engine)
    engine.shutdown(finish=None)
    if process is not None:
        try:
            process.stdin.close()
        except OSError:
            pass
    deadline = time.monotonic() + timeout
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    ended = not any(alive(pid) for pid in pids)
    kill(pids)
    if process is not None:
        process.wait(timeout=timeout)
    for thread in (engine.write_stdin_thread, engine.analysis_thread, engine.stderr_thread):
        if thread is not None:
            thread.join(timeout=timeout)
    return ended


def wait_until(condition: Callable[[], bool], timeout: float, what: str, katrain: KaTrainStub | None = None) -> None:
    """Poll ``condition`` until it holds; fail with KaTrain's log when ``timeout`` s pass first."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            log = f"\nKaTrain's log:\n{katrain.transcript()}" if katrain is not None else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{log}")
        time.sleep(0.05)


def new_game(katrain: KaTrainStub, engine: KataGoEngine, sgf: str) -> Game:
    """What KaTrain does when a user opens an SGF file: a new Game, every node queued for analysis."""
    engine.on_new_game()
    game = Game(katrain, engine, move_tree=KaTrainSGF.parse_sgf(sgf))
    katrain.game = game
    return game


def occupied(game: Game, node: GameNode) -> set[tuple[int, int]]:
    """The (x, y) points with a stone at ``node``, by KaTrain's own board logic (captures done)."""
    game.set_current_node(node)
    return {m.coords for m in game.stones}


__all__ = [
    "OUTPUT_ERROR",
    "Game",
    "GameNode",
    "KaTrainSGF",
    "KaTrainStub",
    "KataGoEngine",
    "katago_command",
    "katago_unusable",
    "engine_pids",
    "kill",
    "new_game",
    "occupied",
    "start_engine",
    "stop_engine",
    "wait_until",
]
