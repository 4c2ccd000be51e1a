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
    # a plain `show` (no DLGO_GAMES) describes the competition `run` played, not the default 20
    plain = {k: v for k, v in env.items() if k not in ("DLGO_GAMES", "DLGO_VISITS", "GNUGO_LEVEL")}
    shown = _ringmaster(ctl, "show", env=plain, timeout=60).stdout
    assert "dlgo v gnugo (2/2 games)" in shown and f"{ENGINE_ROUNDS} visits per move" in shown, shown
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


def _control(ctl: Path, argv: list[str], env: dict[str, str]) -> tuple[list[str], int]:
    """The dlgo player's command and the number of games from a control file, read the way
    ringmaster reads it (the file is Python that runs on 2.7 and 3; ringmaster provides Player
    and Matchup)."""
    import unittest.mock
    import warnings

    players: list[list[str]] = []
    games: list[int] = []
    namespace = {
        "Player": lambda command, **kw: players.append(command) or command,
        "Matchup": lambda *a, **kw: games.append(kw["number_of_games"]),
    }
    with unittest.mock.patch.dict(os.environ, env, clear=True), unittest.mock.patch.object(sys, "argv", argv):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # distutils, as ringmaster's 2.7 has it
            exec(compile(ctl.read_text(), str(ctl), "exec"), namespace)
    return next(c for c in players if "gtp_engine" in " ".join(c)), games[0]


@pytest.mark.parametrize("name, size", [("engine_vs_gnugo_9x9.ctl", 9), ("engine_vs_gnugo_19x19.ctl", 19)])
@pytest.mark.parametrize(
    "config, agent", [("configs/engine/mcts.toml", "mcts"), ("configs/engine/default.toml", "zero")]
)
def test_visits_reach_the_agent_the_config_plays(tmp_path, name, size, config, agent):
    """DLGO_VISITS is the search of whatever agent plays the board (zero under configs/engine/default.toml,
    whose per-size tables set their own rounds and 19x19 time), with no time default."""
    from dlgo.play.config import load_config

    ctl = tmp_path / name
    ctl.write_bytes((CONTROL_FILE.parent / name).read_bytes())
    command, _ = _control(ctl, ["ringmaster", str(ctl), "check"], {"DLGO_CONFIG": config, "DLGO_VISITS": "77"})
    sets = [command[i + 1] for i, arg in enumerate(command) if arg == "--set"]
    engine = load_config(str(ROOT / command[command.index("--config") + 1]), sets)
    played, params = engine.agent_for_size(size)
    assert played == agent and params["rounds"] == 77
    assert engine.section("time", size)["default_seconds"] == 0


def test_run_remembers_the_settings_for_show_and_reset_forgets_them(tmp_path):
    ctl = tmp_path / "engine_vs_gnugo_9x9.ctl"
    ctl.write_bytes(CONTROL_FILE.read_bytes())
    saved = tmp_path / "engine_vs_gnugo_9x9.dlgo-settings.json"
    _control(ctl, ["ringmaster", str(ctl), "run", "-j", "2"], {"DLGO_GAMES": "4", "DLGO_VISITS": "50"})
    assert saved.is_file()
    command, games = _control(ctl, ["ringmaster", str(ctl), "show"], {})
    assert games == 4 and "mcts.rounds=50" in command
    assert _control(ctl, ["ringmaster", str(ctl), "show"], {"DLGO_GAMES": "6"})[1] == 6  # the environment wins
    _control(ctl, ["ringmaster", "-q", str(ctl), "reset"], {})
    assert not saved.exists()
    command, games = _control(ctl, ["ringmaster", str(ctl), "show"], {})
    assert games == 20 and "mcts.rounds=3000" in command
