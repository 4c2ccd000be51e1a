"""One typed settings object for the search (``dlgo.search.settings.SearchSettings``): each setting
has one name, default and check; the engine's ``zero`` keys, the Zero loop's self-play and gating
and our engine in the anchor's matches all come from it; the older names are aliases; and every
shipped config builds the settings it built before the object existed (the tables below were
read from the code of that time)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from dlgo import agent_registry as registry
from dlgo.alphago.agent import AlphaGoMCTS
from dlgo.match.players import DEFAULT_ENGINE_CONFIG, engine_search_settings, zero_engine_player
from dlgo.play.config import ConfigError, load_config
from dlgo.search import SearchSettings
from dlgo.search.settings import ALIASES, config_keys
from dlgo.search.zero_agent import ZeroAgent
from dlgo.tomlfile import format_overrides, parse_override, read_toml
from dlgo.zero.loop_config import LoopConfigError, load_loop_config
from dlgo.zero.workers import GatingTask

ROOT = Path(__file__).resolve().parent.parent

#: every setting's value where no config changes it
BASE = dict(
    rounds=800, exploration=2.0, batch_size=16, batch_growth=4, reuse_tree=True, tree="compiled",
    fpu_reduction=-1.0, score_utility=0.0, score_scale=5.0, settled_count=0.0, select_by="visits", virtual_loss=1.0,
    noise_weight=0.25, dirichlet_alpha=None, early_stop=True, pipeline=True,
)  # fmt: skip

#: (engine config, board size) -> (agent kind, the settings that differ from BASE) before the object
ENGINE = {
    ("alphago-19x19.toml", 9): ("alphago", {"batch_size": 8, "exploration": 5.0, "rounds": 1000}),
    ("alphago-19x19.toml", 13): ("alphago", {"batch_size": 8, "exploration": 5.0, "rounds": 1000}),
    ("alphago-19x19.toml", 19): ("alphago", {"batch_size": 8, "exploration": 5.0, "rounds": 1000}),
    ("alphago-9x9.toml", 9): ("alphago", {"batch_size": 8, "exploration": 5.0, "rounds": 200}),
    ("default.toml", 9): ("zero", {"batch_growth": 32, "fpu_reduction": 0.25, "rounds": 20000, "select_by": "lcb"}),
    ("default.toml", 13): ("zero", {"batch_size": 4, "rounds": 20000, "select_by": "lcb"}),
    ("default.toml", 19): ("zero", {"batch_size": 4, "rounds": 20000, "select_by": "lcb"}),
    ("zero-19x19.toml", 9): ("zero", {"batch_size": 4, "rounds": 1600, "select_by": "lcb"}),
    ("zero-19x19.toml", 13): ("zero", {"batch_size": 4, "rounds": 1600, "select_by": "lcb"}),
    ("zero-19x19.toml", 19): ("zero", {"batch_size": 4, "rounds": 1600, "select_by": "lcb"}),
    ("zero-9x9.toml", 9): ("zero", {"batch_growth": 32, "fpu_reduction": 0.25, "rounds": 20000, "select_by": "lcb"}),
    ("zero-9x9.toml", 13): ("zero", {"batch_growth": 32, "fpu_reduction": 0.25, "rounds": 20000, "select_by": "lcb"}),
    ("zero-9x9.toml", 19): ("zero", {"batch_growth": 32, "fpu_reduction": 0.25, "rounds": 20000, "select_by": "lcb"}),
}

#: Zero loop config -> (self-play agent's, gating players') settings that differ from BASE, before the object
TRAIN = {
    "zero-calibrate-19x19.toml": ({"batch_size": 8, "rounds": 128}, {"batch_size": 8, "rounds": 100}),
    "zero-selfplay-13x13.toml": ({"batch_size": 8, "rounds": 128}, {"batch_size": 8, "rounds": 100}),
    "zero-selfplay-19x19.toml": ({"batch_size": 4, "rounds": 100}, {"batch_size": 4, "rounds": 100}),
    "zero-selfplay-9x9-10x128.toml": ({"batch_size": 8, "rounds": 160}, {"batch_size": 8, "rounds": 100}),
    "zero-selfplay-9x9-counted.toml": ({"batch_size": 8, "rounds": 160}, {"batch_size": 8, "rounds": 100}),
    "zero-train-13x13.toml": ({"batch_size": 8, "rounds": 128}, {"batch_size": 8, "rounds": 100}),
    "zero-train-9x9-aux.toml": ({"batch_size": 8, "rounds": 256}, {"batch_size": 8, "rounds": 100}),
    "zero-train-9x9-continue.toml": ({"batch_size": 8, "rounds": 256}, {"batch_size": 8, "rounds": 100}),
    "zero-train-9x9.toml": ({"batch_size": 8, "rounds": 256}, {"batch_size": 8, "rounds": 100}),
}


class _NoNetwork:
    """An evaluator that is never asked: these tests only build agents."""

    def evaluate(self, states):
        raise AssertionError("not searched")


def _values(settings: SearchSettings) -> dict:
    return dataclasses.asdict(settings)


# --- the object ---------------------------------------------------------------------------------


def test_each_setting_has_one_name_and_the_old_names_are_aliases() -> None:
    settings = SearchSettings()
    assert _values(settings) == BASE
    assert ALIASES == {"rounds_per_move": "rounds", "c": "exploration", "c_puct": "exploration"}
    for alias, name in ALIASES.items():
        assert getattr(settings.replace(**{alias: 3}), name) == 3
        assert getattr(SearchSettings.from_config({alias: 3}), name) == 3
    assert not hasattr(settings, "c_puct") and not hasattr(settings, "c")
    with pytest.raises(ValueError, match="c_puct and exploration are the same setting"):
        settings.replace(exploration=1.0, c_puct=1.5)
    with pytest.raises(TypeError, match="unknown search setting 'cpuct'"):
        settings.replace(cpuct=1.0)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"rounds": 0}, "rounds: must be at least 1"),
        ({"exploration": -0.5}, "exploration: must be at least 0"),
        ({"batch_size": 257}, "batch_size: must be at most 256"),
        ({"noise_weight": 1.5}, "noise_weight: must be at most 1"),
        ({"tree": "rust"}, "tree: expected one of compiled, python, got 'rust'"),
        ({"select_by": "winrate"}, "select_by: expected one of visits, lcb, got 'winrate'"),
    ],
)
def test_the_object_checks_every_setting(change: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchSettings(**change)


def test_the_engines_zero_keys_are_the_objects() -> None:
    """Key, type, default, doc and range: written once, in the object; the aliases too."""
    zero = registry.get("zero")
    for name, (kind, default, key) in config_keys().items():
        param = zero.params[name]
        assert (param.type, param.default, param.doc) == (kind, default, key.doc)
        assert (param.choices, param.minimum, param.maximum) == (key.choices, key.minimum, key.maximum)
    assert dict(zero.aliases) == ALIASES
    assert set(config_keys()) == {f.name for f in dataclasses.fields(SearchSettings)} - {
        "virtual_loss", "noise_weight", "dirichlet_alpha", "early_stop", "pipeline",
    }  # fmt: skip
    assert SearchSettings().config() == {name: default for name, (_, default, _) in config_keys().items()}


def test_an_agent_takes_the_object_and_the_books_names() -> None:
    book = ZeroAgent(_NoNetwork(), rounds_per_move=64, c=1.5, batch_size=4)
    typed = ZeroAgent(_NoNetwork(), SearchSettings(rounds=64, exploration=1.5, batch_size=4))
    assert book.settings == typed.settings and book.rounds_per_move == 64
    assert book.default_budget().max_visits == 64
    book.rounds_per_move = 8
    assert book.settings.rounds == 8 and book.default_budget().max_visits == 8


# --- every shipped config builds what it built before ------------------------------------------


def _alphago_without_networks(cls, policy, value=None, *, board_size=None, settings=None, seed=None, **network):
    return cls(_NoNetwork(), settings=settings, seed=seed)


def test_every_shipped_engine_config_builds_the_same_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AlphaGoMCTS, "from_models", classmethod(_alphago_without_networks))
    built = {}
    for path in sorted((ROOT / "configs" / "engine").glob("*.toml")):
        config = load_config(str(path))
        for size in (9, 13, 19):
            found = config.agent_for_size(size)
            if found is None or found[0] not in ("zero", "alphago"):
                continue
            name, params = found
            full = registry.default_params(name, params)
            if name == "zero":
                agent = registry.build_agent("zero", params, size, evaluator=_NoNetwork())
            else:
                agent = AlphaGoMCTS.from_params({**full, "seed": None}, size)
            built[(path.name, size)] = (name, _values(agent.settings))
    expected = {
        key: (kind, {**BASE, **changes, **({"tree": "python"} if kind == "alphago" else {})})
        for key, (kind, changes) in ENGINE.items()
    }
    assert built == expected


@pytest.mark.parametrize("name", sorted(TRAIN))
def test_every_shipped_zero_loop_config_builds_the_same_search(name: str) -> None:
    data = read_toml(ROOT / "configs" / "train" / name)
    data.get("loop", {}).pop("init_model", None)  # a run's network: not needed for its settings
    config = load_loop_config(None, data)
    selfplay, gating = TRAIN[name]
    assert _values(config.selfplay.agent_search()) == {**BASE, **selfplay}
    task = GatingTask.for_game(0, 0, 1, None, None, config.selfplay, config.gating)
    assert _values(task.search) == {**BASE, **gating}
    agent = ZeroAgent(_NoNetwork(), config.selfplay.agent_search(), self_play=True)
    assert agent.settings == config.selfplay.agent_search()


def test_every_shipped_zero_loop_config_is_in_the_table() -> None:
    assert sorted(p.name for p in (ROOT / "configs" / "train").glob("zero-*.toml")) == sorted(TRAIN)


# --- the old names in configs --------------------------------------------------------------------


def test_the_engine_config_takes_the_old_names() -> None:
    old = load_config(None, ["zero.rounds_per_move=70", "zero.c_puct=3", "size.9.zero.c=1.5"])
    new = load_config(None, ["zero.rounds=70", "zero.exploration=3", "size.9.zero.exploration=1.5"])
    for size in (9, 19):
        assert SearchSettings.from_config(old.section("zero", size)) == SearchSettings.from_config(
            new.section("zero", size)
        )
    assert SearchSettings.from_config(old.section("zero", 9)).exploration == 1.5
    with pytest.raises(ConfigError, match="zero.c_puct and zero.exploration are the same setting"):
        load_config(None, ["zero={c_puct = 1.0, exploration = 2.0}"])


def test_the_zero_loop_config_takes_exploration_and_its_old_name() -> None:
    old = load_loop_config(None, {"selfplay": {"c_puct": 1.5, "batch_size": 4}})
    new = load_loop_config(None, {"selfplay": {"exploration": 1.5, "batch_size": 4}})
    assert old.selfplay == new.selfplay
    assert new.selfplay.search == SearchSettings(exploration=1.5, batch_size=4)
    assert load_loop_config(None).selfplay.search == SearchSettings(batch_size=8)  # self-play's default
    with pytest.raises(LoopConfigError, match="selfplay.c_puct and selfplay.exploration are the same setting"):
        load_loop_config(None, {"selfplay": {"exploration": 1.5, "c_puct": 1.0}})
    with pytest.raises(LoopConfigError, match="batch_size: must be at least 1"):
        load_loop_config(None, {"selfplay": {"batch_size": 0}})
    with pytest.raises(LoopConfigError, match="selfplay.batch_size must be an integer"):
        load_loop_config(None, {"selfplay": {"batch_size": 4.5}})
    with pytest.raises(LoopConfigError, match="unknown key selfplay.search"):
        load_loop_config(None, {"selfplay": {"search": {"exploration": 1.0}}})
    with pytest.raises(LoopConfigError, match="unknown key selfplay.select_by"):
        load_loop_config(None, {"selfplay": {"select_by": "lcb"}})  # gating's tasks carry two settings only


def test_the_zero_loop_config_as_a_dict_reads_back() -> None:
    config = load_loop_config(None, {"selfplay": {"c_puct": 1.5, "batch_size": 4}})
    table = config.to_dict()["selfplay"]
    assert table["exploration"] == 1.5 and table["batch_size"] == 4 and "search" not in table
    assert load_loop_config(None, config.to_dict()).selfplay == config.selfplay


# --- our engine in a match -------------------------------------------------------------------------


@pytest.mark.parametrize("size, visits", [(9, 200), (13, 400), (19, 400)])
def test_the_anchor_engine_from_settings_plays_as_with_its_old_overrides(size: int, visits: int) -> None:
    """The anchor's engine as ``dlgo.zero.matches`` writes it by hand, and from the settings object
    (the shipped config's search on that board at the anchor's visits): the same engine config."""
    model = "/tmp/run/generations/gen-0003.keras"
    by_hand = (
        "agent=zero", f"zero.model={model}", f"zero.rounds={visits}", "zero.threads=1",
        "time.default_seconds=0", f"engine.board_size={size}", f"resign.threshold={0.12345:.3f}",
    )  # fmt: skip
    search = engine_search_settings(size).replace(rounds=visits)
    spec = zero_engine_player(model, search, board_size=size, label="zero-gen3", resign_threshold=round(0.12345, 3))
    assert spec.argv[-2:] == ("--config", str(DEFAULT_ENGINE_CONFIG))
    old = load_config(str(DEFAULT_ENGINE_CONFIG), list(by_hand))
    new = load_config(str(DEFAULT_ENGINE_CONFIG), list(spec.extra_sets))
    for key in ("time.default_seconds", "engine.board_size", "resign.threshold", "time.max_seconds"):
        assert old.get(key, size) == new.get(key, size)
    assert old.agent_name(size) == new.agent_name(size) == "zero"
    assert old.section("zero", size) == new.section("zero", size)
    assert SearchSettings.from_config(new.section("zero", size)) == search


def test_overrides_read_back_as_written() -> None:
    tables = {"agent": "zero", "zero": {"model": Path("/a b/ü.keras"), "rounds": 4, "exploration": 2.0}}
    tables["zero"] |= {"reuse_tree": False, "select_by": "lcb"}
    sets = format_overrides(tables)
    assert sets[:3] == ['agent="zero"', 'zero.model="/a b/\\u00fc.keras"', "zero.rounds=4"]
    merged: dict = {}
    for text in sets:
        for table, value in parse_override(text).items():
            merged[table] = {**merged.get(table, {}), **value} if isinstance(value, dict) else value
    assert merged == {**tables, "zero": {**tables["zero"], "model": "/a b/ü.keras"}}
