"""gomill's ringmaster runs a two-game match between the engine and GNU Go from the shipped control file.

scripts/ringmaster.sh finds a Python 2.7 and installs gomill 0.8.3 into .gomill/ (skipped when there is no
Python 2.7, or when gomill cannot be installed for lack of network). The test copies
configs/ringmaster/engine_vs_gnugo_9x9.ctl into a temporary folder, turns it into a small match through the
environment variables the control file reads (2 games, GNU Go level 1, few rounds per move for the
engine), plays it with `ringmaster FILE run` and checks `ringmaster FILE show`, the history file and the
recorded games: two games played, no forfeit, no void game, no unknown result.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gnugo import find_gnugo

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ringmaster.sh"
CONTROL_FILE = ROOT / "configs" / "ringmaster" / "engine_vs_gnugo_9x9.ctl"
ENGINE_ROUNDS = "30"
RUN_TIMEOUT_S = 600


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


@pytest.fixture(scope="module")
def python27() -> str:
    """The Python 2.7 that scripts/ringmaster.sh picked, with gomill 0.8.3 installed into .gomill/."""
    try:
        setup = subprocess.run([str(SCRIPT), "--setup"], capture_output=True, text=True, timeout=300, cwd=ROOT)
    except subprocess.TimeoutExpired:
        pytest.skip("installing gomill 0.8.3 took more than 300 s (no network?)")
    if setup.returncode == 3:
        pytest.skip(
            "no Python 2.7 found (gomill's ringmaster runs on Python 2.7 only): "
            "set PYTHON2 or install one, e.g. `pyenv install 2.7.18`"
        )
    if setup.returncode == 4:
        pytest.skip(f"gomill 0.8.3 could not be installed with Python 2.7's pip (no network?):\n{_tail(setup.stderr)}")
    assert setup.returncode == 0, f"scripts/ringmaster.sh --setup failed:\n{setup.stdout}\n{setup.stderr}"
    return setup.stdout.strip()


def _ringmaster(ctl: Path, *args: str, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SCRIPT), str(ctl), *args], capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT
    )


def test_control_files_load(python27, tmp_path):
    """Both shipped control files parse under ringmaster (`show` gets as far as the missing status file)."""
    for name in ("engine_vs_gnugo_9x9.ctl", "engine_vs_gnugo_19x19.ctl"):
        ctl = tmp_path / name
        ctl.write_bytes((CONTROL_FILE.parent / name).read_bytes())
        shown = _ringmaster(ctl, "show", env=dict(os.environ), timeout=60)
        assert "no status file" in shown.stderr, f"{name} does not load:\n{shown.stdout}\n{shown.stderr}"


def test_two_game_match_against_gnugo(python27, tmp_path):
    gnugo = find_gnugo()
    if gnugo is None:
        pytest.skip("GNU Go not found: install gnugo (apt-get install gnugo) or put it on PATH")
    if not (ROOT / "gtp_engine" / "__main__.py").is_file():
        pytest.fail("gtp_engine/__main__.py is missing: the engine cannot be started")

    ctl = tmp_path / "engine_vs_gnugo_9x9.ctl"
    ctl.write_bytes(CONTROL_FILE.read_bytes())
    env = dict(os.environ)
    env.update(
        DLGO_ROOT=str(ROOT),
        DLGO_PYTHON=sys.executable,
        DLGO_VISITS=ENGINE_ROUNDS,
        DLGO_GAMES="2",
        GNUGO=gnugo,
        GNUGO_LEVEL="1",
    )

    run = _ringmaster(ctl, "run", env=env, timeout=RUN_TIMEOUT_S)
    log_file = tmp_path / "engine_vs_gnugo_9x9.log"
    log_text = log_file.read_text(errors="replace") if log_file.exists() else "(no log file)"
    details = (
        f"ringmaster run exit {run.returncode}\nstdout:\n{_tail(run.stdout)}\nstderr:\n{_tail(run.stderr)}\n"
        f"log:\n{_tail(log_text, 80)}"
    )
    assert run.returncode == 0, details

    show = _ringmaster(ctl, "show", env=env, timeout=60)
    assert show.returncode == 0, f"ringmaster show failed:\n{show.stdout}\n{show.stderr}"
    report = show.stdout
    details = f"ringmaster show:\n{report}\n{details}"
    assert "dlgo v gnugo (2/2 games)" in report, details
    assert "forfeit" not in report, details
    assert "unknown results" not in report, details
    assert "void games" not in report, details
    assert "player dlgo:" in report and "player gnugo: GNU Go" in report, details

    # One line per game in the history file, e.g. "    0_0 gnugo beat dlgo W+12.0"; a forfeit, a
    # disagreement between the two scorers or any other problem adds a "(detail)".
    history = (tmp_path / "engine_vs_gnugo_9x9.hist").read_text().splitlines()
    games = [line.strip() for line in history if line.strip()]
    assert len(games) == 2, f"history file:\n{history}\n{details}"
    result = re.compile(r"^0_[01] ((dlgo beat gnugo|gnugo beat dlgo) [BW]\+(R|\d+(\.\d+)?)|dlgo vs gnugo jigo)$")
    for game in games:
        assert result.match(game), f"unexpected game result {game!r} (forfeit, disagreement or void?)\n{details}"

    sgf_files = sorted((tmp_path / "engine_vs_gnugo_9x9.games").glob("*.sgf"))
    assert len(sgf_files) == 2, details
    for sgf in sgf_files:
        text = sgf.read_text(errors="replace")
        moves = len(re.findall(r";[BW]\[", text))
        assert moves >= 10, f"{sgf.name} has only {moves} moves:\n{text}"
    assert not (tmp_path / "engine_vs_gnugo_9x9.void").exists() or not any(
        (tmp_path / "engine_vs_gnugo_9x9.void").iterdir()
    ), details
