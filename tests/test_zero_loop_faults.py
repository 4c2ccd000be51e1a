"""The training loop killed with ``kill -9``: its worker processes and multiprocessing's resource
tracker end with it, and the time it spent still counts in the run's compute totals."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from proc_tree import children, kill_all, wait_gone

from dlgo.zero.loop_clock import HEARTBEAT
from dlgo.zero.loop_config import load_loop_config
from dlgo.zero.training_loop import STATE, ZeroLoop

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to find the workers")


def test_pool_workers_and_resource_tracker_end_when_the_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, time
            from dlgo.parallel import ProcessPool

            if __name__ == "__main__":
                pool = ProcessPool(1)
                print(pool._pool.submit(os.getpid).result(), flush=True)
                time.sleep(600)
            """
        )
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    kids: list[int] = []
    try:
        worker = int(parent.stdout.readline())
        _kill_9_and_check_children_end(parent, kids, "the parent")
        assert worker in kids
    finally:
        parent.kill()
        kill_all(kids)


def _kill_9_and_check_children_end(proc: subprocess.Popen, kids: list[int], who: str) -> None:
    """Record ``proc``'s children in ``kids`` (for clean-up), check the resource tracker is among
    them, kill -9 ``proc`` and check every child ends."""
    found = children(proc.pid)
    kids.extend(found)
    assert any("resource_tracker" in cmd for cmd in found.values())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    left = wait_gone(kids)
    assert not left, f"still running after {who}'s kill -9: {left}"


def _write_state(out: Path, seconds: float, clock: dict | None, beat: dict | None) -> None:
    out.mkdir(parents=True)
    state = {
        "format": 1, "board_size": 5, "iteration": 0, "phase": "selfplay", "generation": 0,
        "best": "generations/gen-0000.keras", "resign_threshold": -0.9, "anchored": [], "history": [],
        "seconds": {"selfplay": seconds, "train": 0.0, "gate": 0.0, "anchor": 0.0}, "commands": [],
    }  # fmt: skip
    if clock is not None:
        state["clock"] = clock
    (out / STATE).write_text(json.dumps(state))
    if beat is not None:
        (out / HEARTBEAT).write_text(json.dumps(beat))


@pytest.mark.parametrize(
    "saved, beat, expected",
    [
        (100.0, {"segment": "run-1", "seconds": 42.5}, 142.5),  # killed after a beat
        (130.0, {"segment": "run-1", "seconds": 12.0}, 130.0),  # a save came after the last beat
        (100.0, {"segment": "older", "seconds": 99.0}, 100.0),  # another segment's beat: not ours
        (100.0, None, 100.0),  # killed before the first beat
    ],
)
def test_time_of_a_killed_run_counts_once(tmp_path, saved, beat, expected):
    out = tmp_path / "run"
    _write_state(out, saved, {"segment": "run-1", "phase": "selfplay", "base": 100.0}, beat)
    config = load_loop_config(None, {"loop": {"out": str(out)}, "selfplay": {"board_size": 5}})
    loop = ZeroLoop(config, progress=False)
    assert loop.state["seconds"]["selfplay"] == pytest.approx(expected)
    assert "clock" not in loop.state


def test_a_phase_clock_charges_as_it_goes_and_clears_its_marks(tmp_path, monkeypatch):
    import dlgo.zero.loop_clock as clock_module

    monkeypatch.setattr(clock_module, "HEARTBEAT_SECONDS", 0.05)
    config = load_loop_config(None, {"loop": {"out": str(tmp_path / "run")}, "selfplay": {"board_size": 5}})
    loop = ZeroLoop(config, progress=False)
    clock = loop.start_clock("gate")
    deadline = time.monotonic() + 30
    while not (tmp_path / "run" / HEARTBEAT).is_file() and time.monotonic() < deadline:
        time.sleep(0.02)
    saved = json.loads((tmp_path / "run" / STATE).read_text())
    assert saved["clock"]["phase"] == "gate" and (tmp_path / "run" / HEARTBEAT).is_file()
    time.sleep(0.1)
    clock.stop()
    saved = json.loads((tmp_path / "run" / STATE).read_text())
    assert "clock" not in saved and not (tmp_path / "run" / HEARTBEAT).exists()
    assert saved["seconds"]["gate"] >= 0.1


@pytest.mark.slow
def test_kill_9_of_the_loop_ends_its_workers_and_keeps_its_time(tmp_path):
    """A real loop (5x5, a tiny network, 2 workers) killed during self-play."""
    out = tmp_path / "run"
    config = tmp_path / "tiny.toml"
    config.write_text(
        textwrap.dedent(
            f"""
            [loop]
            out = "{out}"
            blocks = 1
            filters = 8
            iterations = 1
            workers = 2
            [selfplay]
            board_size = 5
            komi = 3.0
            games_per_iteration = 400
            games_per_task = 2
            full_visits = 12
            fast_visits = 4
            [anchor]
            games = 0
            """
        )
    )
    loop = subprocess.Popen(
        [sys.executable, "-m", "dlgo.zero.loop", "--config", str(config), "--no-progress"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    kids: list[int] = []
    try:
        beat = None
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and loop.poll() is None:
            kids = list(children(loop.pid))
            workers = [p for p, cmd in children(loop.pid).items() if "spawn_main" in cmd]
            try:
                beat = json.loads((out / HEARTBEAT).read_text())
            except (OSError, ValueError):
                beat = None
            if len(workers) == 2 and beat is not None and beat["seconds"] >= 4:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the loop never got its workers going (exit {loop.poll()})")
        _kill_9_and_check_children_end(loop, kids, "the loop")
    finally:
        loop.kill()
        kill_all(kids)
    state = ZeroLoop(load_loop_config(config), progress=False).state
    assert state["seconds"]["selfplay"] >= beat["seconds"]
