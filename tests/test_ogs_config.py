"""configs/ogs/gtp2ogs.json5 is valid JSON5 for gtp2ogs 9.x, and scripts/run_ogs.sh sets it up safely."""

from __future__ import annotations

import configparser
import importlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

json5 = pytest.importorskip("json5", reason="json5 is in the test extra: pip install -e '.[test]'")

ROOT = Path(__file__).resolve().parent.parent
CONFIG = ROOT / "configs" / "ogs" / "gtp2ogs.json5"
POOL_CONFIG = ROOT / "configs" / "ogs" / "gtp2ogs-pool.json5"  # the pool manager's (docs/ogs.md, section 8)
RUN_OGS = ROOT / "scripts" / "run_ogs.sh"

# Every key gtp2ogs 9.x accepts, by where it may appear. Taken from gtp2ogs 9.x's own sources
# (github.com/online-go/gtp2ogs): the interfaces Config, BotConfig, EndingBotConfig,
# OpeningBotConfig, TimeControlRanges and BoardSizeRanges in src/config.ts, from which its
# schema/Config.schema.json is generated (additionalProperties false: unknown keys stop it), plus
# the two additions of its version-2 bot config read in src/main.ts (allowed_rapid_settings,
# log_game_chat) with fischer.initial_time_range. The npm registry reachable from the project's
# machines has no gtp2ogs package, so the list is vendored here rather than read from node_modules.
TOP_KEYS = {
    "apikey", "engine", "verbosity", "status_update_frequency", "server", "max_pause_time",
    "blacklist", "whitelist", "bot", "opening_bot", "ending_bot", "greeting", "farewell",
    "farewellscore", "logfile", "log_game_chat", "allowed_time_control_systems",
    "allowed_blitz_settings", "allowed_rapid_settings", "allowed_live_settings",
    "allowed_correspondence_settings", "allowed_board_sizes", "allow_ranked", "allow_unranked",
    "allowed_rank_range", "allow_ranked_handicap", "allow_unranked_handicap", "allowed_komi_range",
    "hidden", "decline_new_challenges", "showboard", "min_move_time", "max_games_per_player",
    "username", "bot_id", "_config_version",
}  # fmt: skip
BOT_KEYS = {
    "command", "manager", "instances", "enable_clock", "send_chats", "send_pv_data", "release_delay",
    "quit_grace_period", "persistent_idle_timeout",
}  # fmt: skip
ENDING_BOT_KEYS = BOT_KEYS | {"allowed_resigns", "moves_to_allow_before_checking_ratio"}
OPENING_BOT_KEYS = BOT_KEYS | {"number_of_opening_moves_to_play"}
TIME_CONTROL_KEYS = {
    "simple": {"per_move_time_range"},
    "byoyomi": {"main_time_range", "period_time_range", "periods_range"},
    "fischer": {"initial_time_range", "max_time_range", "time_increment_range"},
    "concurrent_games": None,
}
TIME_CONTROL_SYSTEMS = {"fischer", "byoyomi", "simple"}  # BotTimeControlSystems
SPEEDS = ("blitz", "rapid", "live", "correspondence")
BOARD_SIZE_RANGE_KEYS = {"width_range", "height_range"}


@pytest.fixture(scope="module", params=[CONFIG, POOL_CONFIG], ids=lambda p: p.name)
def config_path(request) -> Path:
    return request.param


@pytest.fixture(scope="module")
def config(config_path) -> dict:
    return json5.loads(config_path.read_text(encoding="utf-8"))


def test_parses_as_json5_object(config):
    assert isinstance(config, dict) and config


def test_every_key_is_a_gtp2ogs_9_key(config):
    unknown = set(config) - TOP_KEYS
    assert not unknown, f"not gtp2ogs 9.x keys: {sorted(unknown)}"
    assert set(config["bot"]) <= BOT_KEYS, sorted(set(config["bot"]) - BOT_KEYS)
    assert set(config.get("ending_bot", {})) <= ENDING_BOT_KEYS
    assert set(config.get("opening_bot", {})) <= OPENING_BOT_KEYS
    for speed in SPEEDS:
        ranges = config.get(f"allowed_{speed}_settings")
        if ranges is None:
            continue
        assert set(ranges) <= set(TIME_CONTROL_KEYS), (speed, sorted(set(ranges) - set(TIME_CONTROL_KEYS)))
        for system, keys in TIME_CONTROL_KEYS.items():
            if keys is None or system not in ranges:
                continue
            assert set(ranges[system]) <= keys, (speed, system, sorted(set(ranges[system]) - keys))
    if isinstance(config.get("allowed_board_sizes"), dict):
        assert set(config["allowed_board_sizes"]) <= BOARD_SIZE_RANGE_KEYS


def test_api_key_is_not_in_the_file(config, config_path):
    assert "apikey" not in config
    assert "apikey" not in config_path.read_text(encoding="utf-8").replace("API key", "")


def test_values_have_the_types_gtp2ogs_expects(config):
    bot = config["bot"]
    assert isinstance(bot["release_delay"], int | float)  # required by the 9.x schema
    assert bot.get("manager", "persistent") in ("persistent", "pool")
    if bot.get("manager") == "pool":
        assert isinstance(bot["instances"], int) and bot["instances"] >= 1
    systems = config["allowed_time_control_systems"]
    assert systems and set(systems) <= TIME_CONTROL_SYSTEMS
    for speed in SPEEDS:
        ranges = config.get(f"allowed_{speed}_settings")
        if ranges is None:
            continue
        assert isinstance(ranges["concurrent_games"], int) and ranges["concurrent_games"] >= 1
        for system in systems:
            assert system in ranges, f"{speed} has no ranges for {system}"
            for name, pair in ranges[system].items():
                assert len(pair) == 2 and 0 <= pair[0] <= pair[1], (speed, system, name, pair)
    sizes = config["allowed_board_sizes"]
    assert sizes in ("all", "square") or all(2 <= s <= 25 for s in sizes)
    low, high = config["allowed_komi_range"]
    assert low < 0 < high
    assert all(isinstance(r, str) for r in config["allowed_rank_range"])
    for message in ("greeting", "farewell"):
        assert isinstance(config[message]["en"], str) and config[message]["en"]
        # gtp2ogs turns engine stderr lines with these words into chat; keep them out of messages too.
        assert not any(w in config[message]["en"] for w in ("DISCUSSION:", "MALKOVICH:", "MAIN:"))


def test_bot_command_is_the_engine_console_script(config):
    command = config["bot"]["command"]
    assert isinstance(command, list) and all(isinstance(a, str) for a in command)
    setup = configparser.ConfigParser()
    setup.read(ROOT / "setup.cfg")
    scripts = {}
    for line in setup["options.entry_points"]["console_scripts"].strip().splitlines():
        name, _, target = line.partition("=")
        scripts[name.strip()] = target.strip()
    assert command[0] in scripts, f"{command[0]} is not a console script of setup.cfg"
    module, _, function = scripts[command[0]].partition(":")
    assert callable(getattr(importlib.import_module(module), function))
    if "--config" in command:
        engine_config = ROOT / command[command.index("--config") + 1]
        assert engine_config.is_file(), f"{engine_config} does not exist (paths are relative to the repo root)"


# --- scripts/run_ogs.sh ----------------------------------------------------------------------


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "OGS_API_KEY"}
    env["PATH"] = f"{tmp_path / 'bin'}:{env.get('PATH', '')}"
    env["TMPDIR"] = str(tmp_path)
    env.pop("XDG_RUNTIME_DIR", None)
    env.update(extra)
    return env


def test_run_ogs_needs_the_api_key(tmp_path):
    done = subprocess.run(["bash", str(RUN_OGS)], env=_env(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "OGS_API_KEY" in done.stderr


def test_run_ogs_needs_gtp2ogs(tmp_path):
    if shutil.which("gtp2ogs"):
        pytest.skip("gtp2ogs is installed here")
    env = _env(tmp_path, OGS_API_KEY="x")
    done = subprocess.run(["bash", str(RUN_OGS)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "npm install -g gtp2ogs" in done.stderr or "Node.js" in done.stderr


def _fake_gtp2ogs(tmp_path: Path) -> Path:
    """A stand-in for gtp2ogs 9.1.0 on PATH (tmp_path/bin) that reads the config it is given like
    gtp2ogs would and writes what it saw to the returned report file."""
    package = tmp_path / "lib" / "gtp2ogs"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text('{"name": "gtp2ogs", "version": "9.1.0"}')
    report = tmp_path / "report.json"
    fake = package / "dist" / "main.py"
    fake.write_text(
        f"#!{sys.executable}\n"
        "import json, os, stat, sys, json5\n"
        "path = sys.argv[sys.argv.index('--config') + 1]\n"
        "config = json5.loads(open(path).read())\n"
        "mode = stat.S_IMODE(os.stat(path).st_mode)\n"
        f"json.dump({{'args': sys.argv[1:], 'mode': mode, 'config': config}}, open({str(report)!r}, 'w'))\n"
    )
    fake.chmod(0o755)
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gtp2ogs").symlink_to(fake)
    return report


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js not installed")
def test_run_ogs_check_goes_on_past_a_missing_key(tmp_path):
    """An operator checks the set-up before a moderator grants the key: every other check runs."""
    report = _fake_gtp2ogs(tmp_path)
    env = _env(tmp_path, PATH=f"{tmp_path / 'bin'}:{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}")
    done = subprocess.run(["bash", str(RUN_OGS), "--check"], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 2, done.stderr
    assert "OGS_API_KEY is not set" in done.stderr
    assert "gtp2ogs 9.1.0 OK" in done.stderr and "engine OK" in done.stderr
    assert "1 problem(s)" in done.stderr and not report.exists()


def test_run_ogs_lists_every_problem_at_once(tmp_path):
    if shutil.which("gtp2ogs"):
        pytest.skip("gtp2ogs is installed here")
    env = _env(tmp_path, PATH=f"{tmp_path / 'bin'}:{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}")
    done = subprocess.run(
        ["bash", str(RUN_OGS), "--check", "--config", str(tmp_path / "none.json5")],
        env=env, capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.startswith("run_ogs: ")]
    assert any("config not found" in line for line in lines), done.stderr
    assert any("OGS_API_KEY" in line for line in lines), done.stderr
    assert any("gtp2ogs not found" in line for line in lines), done.stderr


def _agents_on_ogs(config: dict) -> set[str]:
    """The engine agents that play the board sizes the gtp2ogs config accepts."""
    from dlgo.play.config import load_config

    command = config["bot"]["command"]
    sets = [command[i + 1] for i, arg in enumerate(command) if arg == "--set"]
    engine = load_config(str(ROOT / command[command.index("--config") + 1]), sets)
    return {engine.agent_for_size(size)[0] for size in config["allowed_board_sizes"]}


def test_the_two_configs_differ_only_in_how_engines_are_managed():
    persistent, pool = (json5.loads(p.read_text(encoding="utf-8")) for p in (CONFIG, POOL_CONFIG))
    assert persistent["bot"]["manager"] == "persistent" and pool["bot"]["manager"] == "pool"
    assert pool["bot"]["command"][: len(persistent["bot"]["command"])] == persistent["bot"]["command"]
    for key in set(persistent) | set(pool):
        if key not in ("bot", "allowed_live_settings", "allowed_correspondence_settings"):
            assert persistent.get(key) == pool.get(key), key


def test_greeting_says_what_plays(config):
    greeting = config["greeting"]["en"]
    played = _agents_on_ogs(config)
    if "mcts" not in played:
        assert "Monte Carlo tree search bot" not in greeting
    if played & {"zero", "predict", "alphago"}:
        assert "network" in greeting


def test_ogs_docs_name_only_keys_of_agents_that_play_there(config):
    """docs/ogs.md tells operators which keys to tune: each must exist and, for an agent's key,
    belong to an agent that plays a board size the bot accepts."""
    import re

    from dlgo import agent_registry as registry
    from dlgo.play.config import SCHEMA, describe_schema

    known = {dotted for dotted, _ in describe_schema()}
    sections = set(SCHEMA) | set(registry.REGISTRY)
    played = _agents_on_ogs(config)
    text = (ROOT / "docs" / "ogs.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:size\.\d+\.)?[a-z_]+\.[a-z_]+)`", text))
    keys = {re.sub(r"^size\.\d+\.", "", k) for k in named}
    keys = {k for k in keys if k.split(".")[0] in sections}  # not bot.command and the like
    assert keys, "docs/ogs.md names no config key"
    for key in keys:
        assert key in known, f"docs/ogs.md names {key}, not a config key"
        section = key.split(".")[0]
        if section in registry.REGISTRY:
            assert section in played, f"docs/ogs.md names {key}, but {section} plays no size the bot accepts"


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js not installed")
def test_run_ogs_passes_the_key_in_a_private_copy(tmp_path):
    report = _fake_gtp2ogs(tmp_path)
    key = 'k3y"with\\odd'
    env = _env(tmp_path, OGS_API_KEY=key, PATH=f"{tmp_path / 'bin'}:{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}")
    done = subprocess.run(["bash", str(RUN_OGS), "--beta"], env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    assert "engine OK" in done.stderr and "gtp2ogs 9.1.0" in done.stderr
    seen = json.loads(report.read_text())
    assert seen["config"]["apikey"] == key
    assert seen["mode"] == 0o600
    assert seen["args"][-1] == "--beta"
    assert {k: v for k, v in seen["config"].items() if k != "apikey"} == json5.loads(CONFIG.read_text())
    assert not list(tmp_path.glob("gtp2ogs-*.json5")), "the copy with the key was not removed"
