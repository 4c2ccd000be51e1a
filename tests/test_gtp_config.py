"""Configs: the shipped files load, every key is documented, bad keys and values are reported
clearly at start-up (one stderr line naming the key, exit status 2), per-size agents."""

from __future__ import annotations

import re
import subprocess
import tomllib

import pytest
from gtp_client import PYTHON, ROOT, EngineProcess, InProcessEngine

from dlgo import agent_registry as registry
from dlgo.play.config import (
    ConfigError,
    check_model_files,
    describe_schema,
    load_config,
    model_files,
)


@pytest.mark.parametrize("name", ["default", "mcts", "random"])
def test_shipped_configs_load(name: str) -> None:
    config = load_config(str(ROOT / "configs" / "engine" / f"{name}.toml"))
    assert config.agent_name() == name if name != "default" else config.agent_name() == "mcts"


def test_default_config_plays_the_shipped_networks_on_9_13_and_19() -> None:
    """The strongest agent measured for each size: Zero search on the shipped weights."""
    from pathlib import Path

    from dlgo.inference.files import card_of

    config = load_config(str(ROOT / "configs" / "engine" / "default.toml"))
    for size in (9, 13, 19):
        name, params = config.agent_for_size(size)
        assert name == "zero", size
        model = Path(config.resolve_path(params["model"]))
        assert model.is_file(), model
        card = card_of(model)
        assert card.encoder == "zero" and card.input_shape[0] is None  # size-independent
    assert "zero-9x9" in config.get("zero.model", 9)
    assert 0.0 < config.get("resign.threshold", 9) < 0.5
    assert config.get("resign.min_score_difference", 9) > 0  # with a score head (zero-9x9.keras), close games play out
    for size in (5, 7, 21):
        assert config.agent_for_size(size)[0] == "mcts"


def test_the_shipped_zero_configs_play_int8_and_the_set_up_knows_their_networks(tmp_path) -> None:
    """int8 is the default runtime; ``int8_model_files`` (what ``--prepare``, run by
    scripts/setup_env.sh, quantizes) names the networks the engine plays on it: per size over
    the top level, each size's own agent considered; the benchmark reads the same runtime."""
    from dlgo.bench.search import default_runtime
    from dlgo.play.config import int8_model_files

    config = load_config(str(ROOT / "configs" / "engine" / "default.toml"))
    assert {config.get("zero.runtime", size) for size in (9, 13, 19)} == {"int8"}
    assert {default_runtime(size) for size in (9, 13, 19)} == {"int8"}
    # 13x13 and 19x19 share one file; 19x19 handicap games play the network with a score head
    weights = {str(ROOT / "weights" / f"zero-{n}.keras") for n in ("9x9-10x128", "13x13", "19x19-aux")}
    assert set(int8_model_files(config)) == weights
    for name in ("zero-9x9", "zero-19x19"):
        assert load_config(str(ROOT / "configs" / "engine" / f"{name}.toml")).get("zero.runtime") == "int8"
    own = tmp_path / "own.toml"
    own.write_text(
        'agent = "zero"\n[zero]\nmodel = "a.keras"\n[size.9.zero]\nmodel = "b.keras"\nruntime = "fp32"\n'
        '[size.13]\nagent = "mcts"\n[size.13.zero]\nmodel = "c.keras"\n[size.19.zero]\nmodel = "d/e.keras"\n'
    )
    assert int8_model_files(load_config(str(own))) == [str(tmp_path / "a.keras"), str(tmp_path / "d" / "e.keras")]
    assert default_runtime(9, own) == "fp32" and default_runtime(19, own) == "int8"


def test_default_config_documents_every_key() -> None:
    data = tomllib.loads((ROOT / "configs" / "engine" / "default.toml").read_text())
    for dotted, param in describe_schema():
        section, key = dotted.split(".")
        if section in registry.REGISTRY and registry.get(section).unavailable:
            continue  # agents that do not exist yet are documented in the README only
        assert key in data.get(section, {}), f"configs/engine/default.toml lacks {dotted}"
        assert data[section][key] == param.default, f"{dotted}: default.toml says {data[section][key]!r}"


def test_defaults_and_overrides() -> None:
    config = load_config(
        None,
        [
            "mcts.rounds=123",
            "time.lag_buffer=0.5",
            "log.level=debug",
            "agent=random",
            "size.9.agent=mcts",
            "size.9.mcts.rounds=77",
            "size.19.time.default_seconds=10",
            'engine.name="my bot"',
        ],
    )
    assert config.get("mcts.rounds") == 123 and config.get("mcts.rounds", 9) == 77
    assert config.get("mcts.rounds", 13) == 123
    assert config.get("time.lag_buffer") == 0.5 and config.get("log.level") == "debug"
    assert config.get("time.default_seconds", 19) == 10 and config.get("time.default_seconds", 9) == 5
    assert config.agent_name() == "random" and config.agent_name(9) == "mcts" and config.agent_name(13) == "random"
    assert config.agent_for_size(9) == ("mcts", config.section("mcts", 9))
    assert config.get("engine.name") == "my bot"
    assert load_config(None, ["time.lag_buffer=2"]).get("time.lag_buffer") == 2.0  # ints are fine for floats


def test_the_books_names_are_accepted_as_aliases() -> None:
    """One key per concept (rounds, exploration); the book's names still work, in files and --set."""
    config = load_config(
        None,
        [
            "mcts.num_rounds=50",
            "mcts.temperature=0.7",
            "alphago.num_simulations=60",
            "alphago.c_u=4",
            "zero.rounds_per_move=70",
            "zero.c_puct=3",
            "size.9.zero.c=1.5",
        ],
    )
    assert config.get("mcts.rounds") == 50 and config.get("mcts.exploration") == 0.7
    assert config.get("alphago.rounds") == 60 and config.get("alphago.exploration") == 4.0
    assert config.get("zero.rounds") == 70 and config.get("zero.exploration") == 3.0
    assert config.get("zero.exploration", 9) == 1.5
    assert "temperature" not in config.section("mcts") and "c_puct" not in config.section("zero")
    with pytest.raises(ConfigError, match="mcts.temperature and mcts.exploration are the same setting"):
        load_config(None, ["mcts={temperature = 1.0, exploration = 2.0}"])
    with pytest.raises(ConfigError, match="mcts.temperature: must be at least 0"):
        load_config(None, ["mcts.temperature=-1"])


@pytest.mark.parametrize(
    "override, message",
    [
        ("mcts.roundz=5", "unknown key 'mcts.roundz'"),
        ("mcts.rounds=abc", "mcts.rounds: expected an integer, got 'abc'"),
        ("mcts.rounds=0", "mcts.rounds: must be at least 1"),
        ("mcts.rounds=1.5", "mcts.rounds: expected an integer"),
        ("resign.enabled=yes", "resign.enabled: expected true or false"),
        ("resign.threshold=2", "resign.threshold: must be at most 1"),
        ("resign.consecutive_moves=0", "resign.consecutive_moves: must be at least 1"),
        ("resign.consecutive_moves=1.5", "resign.consecutive_moves: expected an integer"),
        ("resign.min_score_difference=-1", "resign.min_score_difference: must be at least 0"),
        ("mcts.select_by=magic", "mcts.select_by: expected one of visits, winrate"),
        ("log.level=loud", "log.level: expected one of"),
        ("agent=alphazero", "agent: unknown agent 'alphazero'"),
        ("frobnicate=1", "unknown key 'frobnicate'"),
        ("size.99.agent=mcts", "unknown key 'size.99'"),
        ("size.9.engine.name=x", "unknown key 'size.9.engine'"),
        ("time.lag_buffer=nan", "time.lag_buffer: expected a finite number"),
        ("nonsense", "expected key=value"),
    ],
)
def test_bad_overrides_name_the_key(override: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(None, [override])
    assert message in str(info.value)
    assert str(info.value).startswith(f"--set {override}")


def test_unavailable_agents_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from dlgo import agent_registry as registry

    placeholder = registry.AgentType(
        name="future",
        doc="not built yet",
        params={},
        build=None,
        searches=False,
        unavailable="agent 'future' is not available yet",
    )
    monkeypatch.setitem(registry.REGISTRY, "future", placeholder)
    with pytest.raises(ConfigError, match="agent 'future' is not available yet"):
        load_config(None, ["agent=future"])
    with pytest.raises(ConfigError, match="agent 'future' is not available yet"):
        load_config(None, ["size.9.agent=future"])


def test_every_shipped_agent_is_available() -> None:
    from dlgo import agent_registry as registry

    for name in ("random", "mcts", "predict", "zero", "alphago"):
        assert registry.get(name).unavailable is None


def test_every_agent_kind_names_a_builder_that_exists() -> None:
    """The registry names each kind's builder (``"module:attribute"``) and imports it only when
    an agent of the kind is built: a renamed builder shows here, not at a game's first move."""
    for name in registry.names():
        assert isinstance(registry.get(name).build, str), name
        assert callable(registry.get(name).builder()), name


def run_engine(*args: str, stdin: bytes = b"name\n") -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "gtp_engine", *args], input=stdin, capture_output=True, timeout=60, cwd=ROOT)


def test_bad_config_file_exits_2_with_one_line(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('agent = "mcts"\n[mcts]\nrounds = "many"\n')
    proc = run_engine("--config", str(bad))
    assert proc.returncode == 2 and proc.stdout == b""
    lines = proc.stderr.decode().strip().split("\n")
    assert len(lines) == 1
    assert str(bad) in lines[0] and "mcts.rounds" in lines[0]

    bad.write_text("[mcts\nrounds = 1\n")
    proc = run_engine("--config", str(bad))
    assert proc.returncode == 2 and "not valid TOML" in proc.stderr.decode()

    proc = run_engine("--config", str(tmp_path / "missing.toml"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr.decode()

    proc = run_engine("--config", str(ROOT / "configs/engine/mcts.toml"), "--set", "agent=bogus")
    assert proc.returncode == 2
    assert re.fullmatch(r"dlgo-gtp: config error: .*bogus.*\n", proc.stderr.decode())

    bad.write_text("[time]\nlag_bufer = 1.0\n")
    proc = run_engine("--config", str(bad))
    assert proc.returncode == 2 and "unknown key 'time.lag_bufer'" in proc.stderr.decode()


def test_console_script_and_log_file(tmp_path) -> None:
    script = ROOT / ".venv" / "bin" / "dlgo-gtp"
    if not script.exists():
        pytest.skip("console script not installed (pip install -e .)")
    log = tmp_path / "engine.log"
    proc = subprocess.run(
        [
            str(script),
            "--config",
            str(ROOT / "configs/engine/random.toml"),
            "--set",
            f'log.file="{log}"',
            "--set",
            "log.level=info",
        ],
        input=b"name\nboardsize 9\ngenmove b\nquit\n",
        capture_output=True,
        timeout=60,
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith(b"= dlgo\n\n= \n\n= ")
    assert "genmove black" in log.read_text()


def test_per_size_agent_fallback(tmp_path) -> None:
    config = tmp_path / "mixed.toml"
    config.write_text('agent = "mcts"\n[mcts]\nrounds = 50\n[size.9]\nagent = "random"\n[size.9.random]\nseed = 3\n')
    eng = InProcessEngine("time.default_seconds=0", config=str(config))
    try:
        eng.ok("boardsize 9")
        eng.ok("genmove b")
        assert "RandomBot" in eng.ok("gomill-explain_last_move")
        eng.ok("boardsize 7")
        eng.ok("genmove b")
        assert "visits" in eng.ok("gomill-explain_last_move")
    finally:
        eng.close()


def test_unacceptable_size_only_when_no_agent_plays_it(monkeypatch) -> None:
    """A network-like agent that plays only 9x9, as the only agent: other sizes are refused."""
    small = registry.AgentType(
        name="nine_only",
        doc="test agent",
        params={},
        build=lambda params, size: registry.build_agent("random", {"seed": 1}, size),
        searches=False,
        supports_size=lambda params, size: size == 9,
    )
    monkeypatch.setitem(registry.REGISTRY, "nine_only", small)
    eng = InProcessEngine("agent=nine_only", config=None)
    try:
        eng.ok("boardsize 9")
        eng.ok("play b e5")
        assert eng.fail("boardsize 19") == "unacceptable size"
        assert eng.engine.game.rows == 9 and eng.engine.game.num_moves == 1
        eng.ok("genmove w")
    finally:
        eng.close()


def test_preload_builds_agent_in_background() -> None:
    with EngineProcess("engine.preload=true", "engine.board_size=9", "mcts.rounds=100") as eng:
        assert eng.ok("name") == "dlgo"
        assert re.fullmatch(r"[A-HJ][1-9]", eng.ok("genmove b"))


_DESCRIBE = b"boardsize 9\ngomill-describe_engine\nboardsize 19\ngomill-describe_engine\nquit\n"


def _plays_the_default(stdout: bytes) -> None:
    text = stdout.decode()
    assert text.count("agent: zero") == 2, text  # the shipped networks on 9x9 and 19x19
    assert f"config: {ROOT / 'configs' / 'engine' / 'default.toml'}" in text, text


def test_engine_without_config_plays_the_shipped_default() -> None:
    """The built-in defaults (MCTS everywhere) used to play when no --config was given, while the
    README promised configs/engine/default.toml; every key's built-in default equals the file's value
    (test_default_config_documents_every_key), and without --config the engine plays the file."""
    proc = run_engine("--set", "engine.preload=false", stdin=_DESCRIBE)
    assert proc.returncode == 0, proc.stderr.decode()
    _plays_the_default(proc.stdout)


def test_quick_start_script_plays_the_shipped_default() -> None:
    if not (ROOT / ".venv" / ".installed").exists():
        pytest.skip("scripts/run_engine.sh would set up .venv first (scripts/setup_env.sh)")
    proc = subprocess.run(
        [str(ROOT / "scripts" / "run_engine.sh"), "--set", "engine.preload=false"],
        input=_DESCRIBE,
        capture_output=True,
        timeout=120,
        cwd="/",
    )
    assert proc.returncode == 0, proc.stderr.decode()
    _plays_the_default(proc.stdout)
    other = subprocess.run(
        [str(ROOT / "scripts" / "run_engine.sh"), "--config", str(ROOT / "configs" / "engine" / "mcts.toml")],
        input=b"gomill-describe_engine\nquit\n",
        capture_output=True,
        timeout=120,
    )
    assert b"agent: mcts" in other.stdout and b"mcts.toml" in other.stdout


def test_readme_documents_every_key_and_command() -> None:
    from gtp_engine.commands import COMMANDS

    readme = (ROOT / "gtp_engine" / "README.md").read_text()
    for dotted, _ in describe_schema():
        assert f"`{dotted}`" in readme, f"gtp_engine/README.md lacks {dotted}"
    for name in COMMANDS:
        assert re.search(rf"`{re.escape(name)}[` ]", readme), f"gtp_engine/README.md lacks the command {name}"


def test_a_set_without_a_size_reaches_every_board_size() -> None:
    """`--set zero.model=X` with the shipped config plays X on every board the zero agent plays
    (the size tables set their own network; a command line beats the file), and a later
    `--set size.N...` still sets one size. A strength run once measured the shipped network under
    another's name when the top-level value reached no board."""
    shipped = str(ROOT / "configs" / "engine" / "default.toml")
    model = str(ROOT / "weights" / "zero-9x9.keras")
    config = load_config(shipped, [f"zero.model={model}"])
    for size in (9, 13, 19):
        assert config.agent_for_size(size)[1]["model"] == model
        assert config.agent_for_size(size, handicap=True)[1]["model"] == model  # handicap games too
    config = load_config(shipped, [f"zero.model={model}", "size.19.zero.model=weights/zero-19x19.keras"])
    assert config.agent_for_size(19)[1]["model"] == str(ROOT / "weights" / "zero-19x19.keras")
    assert config.agent_for_size(13)[1]["model"] == model
    config = load_config(shipped, ["time.default_seconds=0"])  # as the match tools set a budget
    assert [config.section("time", n)["default_seconds"] for n in (9, 13, 19)] == [0, 0, 0]
    config = load_config(shipped, ["size.9.zero.rounds=48", "zero.rounds=100"])  # in order: the last wins
    assert config.agent_for_size(9)[1]["rounds"] == 100
    run = subprocess.run(
        [PYTHON, "-m", "gtp_engine", "--config", shipped, "--set", f"zero.model={model}"],
        input="boardsize 19\ngomill-describe_engine\nquit\n", capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0 and f"model={model}" in run.stdout, run.stdout


def test_a_file_named_by_set_is_relative_to_the_current_folder(tmp_path, monkeypatch) -> None:
    """On a command line `--set zero.model=runs/x.keras` means ./runs/x.keras; in the file a path
    stays relative to the file's folder."""
    shipped = str(ROOT / "configs" / "engine" / "default.toml")
    monkeypatch.chdir(ROOT)
    config = load_config(shipped, ["size.9.zero.model=weights/zero-9x9.keras", "log.file=runs/engine.log"])
    files = dict(model_files(config))
    assert files["size.9.zero.model"] == str(ROOT / "weights" / "zero-9x9.keras")
    assert config.resolve_path(config.get("log.file")) == str(ROOT / "runs" / "engine.log")
    assert files["size.19.zero.model"] == str(ROOT / "weights" / "zero-13x13.keras")  # the file's own
    monkeypatch.chdir(tmp_path)
    config = load_config(shipped, ["size.9.zero.model=weights/zero-9x9.keras"])
    with pytest.raises(ConfigError, match=str(tmp_path / "weights" / "zero-9x9.keras")):
        check_model_files(config)


def test_a_duels_visits_reach_every_search_agent_and_size() -> None:
    """``dlgo-duel --visits N`` plays the shipped config's zero agent at N visits on every size,
    not at its 20,000 (its own size tables set them) with no clock to stop it."""
    from dlgo.match.players import dlgo_player

    spec = dlgo_player("configs/engine/default.toml")
    argv = spec.argv_for(19, visits=200)
    sets = [argv[i + 1] for i, a in enumerate(argv) if a == "--set"]
    config = load_config("configs/engine/default.toml", sets)
    for size in (9, 13, 19):
        assert config.get("zero.rounds", size) == 200 and config.get("mcts.rounds", size) == 200
        assert config.get("time.default_seconds", size) == 0
