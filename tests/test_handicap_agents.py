"""Games with handicap stones play the agent keys of the config's ``[handicap]`` tables
(``[handicap.AGENT]`` for every size, ``[size.N.handicap.AGENT]`` for one): the score-aware
search where giving stones needs it, the even-game search everywhere else."""

from __future__ import annotations

import re

import pytest
from gtp_client import ROOT, InProcessEngine

from dlgo.play.config import ConfigError, int8_model_files, load_config, model_files

MIXED = (
    'agent = "mcts"\n[mcts]\nrounds = 50\n'
    "[handicap.mcts]\nrounds = 9\n"  # every size
    "[size.9.handicap.mcts]\nrounds = 7\n"  # 9x9 only: beats the top-level table
)


def _config(tmp_path, text: str, overrides: tuple[str, ...] = ()):
    path = tmp_path / "engine.toml"
    path.write_text(text)
    return load_config(str(path), overrides)


def test_handicap_tables_apply_only_in_handicap_games(tmp_path) -> None:
    config = _config(tmp_path, MIXED)
    assert config.agent_for_size(9) == ("mcts", config.section("mcts", 9))
    assert config.agent_for_size(9)[1]["rounds"] == 50
    assert config.agent_for_size(9, handicap=True)[1]["rounds"] == 7
    assert config.agent_for_size(13, handicap=True)[1]["rounds"] == 9
    assert config.agent_for_size(13)[1]["rounds"] == 50
    assert config.has_handicap_table("mcts", 9) and config.has_handicap_table("mcts", 13)
    assert not config.has_handicap_table("zero", 9)


def test_a_set_without_a_size_reaches_the_handicap_tables(tmp_path) -> None:
    """`--set mcts.rounds=99` means every game: the handicap tables that set the key get it too,
    and a later `--set size.9.handicap.mcts.rounds` still sets that one."""
    config = _config(tmp_path, MIXED, ("mcts.rounds=99",))
    assert [config.agent_for_size(n, h)[1]["rounds"] for n in (9, 13) for h in (False, True)] == [99] * 4
    config = _config(tmp_path, MIXED, ("mcts.rounds=99", "size.9.handicap.mcts.rounds=5"))
    assert config.agent_for_size(9, True)[1]["rounds"] == 5 and config.agent_for_size(13, True)[1]["rounds"] == 99


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[size.9.handicap.time]\nmax_seconds = 1\n", "unknown key 'size.9.handicap.time'"),
        ("[handicap.mcts]\nbogus = 1\n", "unknown key 'handicap.mcts.bogus'"),
        ("[handicap]\nmcts = 3\n", "handicap.mcts: expected a table"),
        ("[size.9.handicap.zero]\nscore_utility = -1\n", "size.9.handicap.zero.score_utility"),
    ],
)
def test_bad_handicap_tables_name_the_key(tmp_path, text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        _config(tmp_path, text)


def test_the_networks_of_handicap_games_are_checked_and_prepared(tmp_path) -> None:
    """A network named for handicap games is a file the engine loads: ``model_files`` names it
    with its key (so a missing file is refused at start-up) and ``--prepare`` quantizes it."""
    config = _config(
        tmp_path,
        'agent = "zero"\n[zero]\nmodel = "a.keras"\n[size.19.zero]\nmodel = "b.keras"\n'
        '[size.19.handicap.zero]\nmodel = "h.keras"\nscore_utility = 0.3\n',
    )
    files = dict(model_files(config))
    assert files["size.19.zero.model"] == str(tmp_path / "b.keras")
    assert files["size.19.handicap.zero.model"] == str(tmp_path / "h.keras")
    assert files["zero.model"] == str(tmp_path / "a.keras")
    assert set(int8_model_files(config)) == {str(tmp_path / n) for n in ("a.keras", "b.keras", "h.keras")}
    config = _config(tmp_path, 'agent = "zero"\n[zero]\nmodel = "a.keras"\n[handicap.zero]\nscore_utility = 0.3\n')
    assert model_files(config) == [("zero.model", str(tmp_path / "a.keras"))]  # the even game's network


def test_a_network_set_for_handicap_games_on_the_command_line_is_relative_to_the_current_folder(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = load_config(str(ROOT / "configs" / "engine" / "default.toml"), ["size.19.handicap.zero.model=w/h.keras"])
    assert dict(model_files(config))["size.19.handicap.zero.model"] == str(tmp_path / "w" / "h.keras")
    assert dict(model_files(config))["size.19.zero.model"] == str(ROOT / "weights" / "zero-13x13.keras")


@pytest.fixture
def mixed_engine(tmp_path):
    """An engine on MIXED with no clock: the visits of a move tell which agent played it."""
    path = tmp_path / "engine.toml"
    path.write_text(MIXED)
    eng = InProcessEngine("time.default_seconds=0", config=str(path))
    yield eng
    eng.close()


def _visits(eng, colour: str) -> int:
    """``genmove colour``, then the visits its search ran (7, 9: a handicap table's; 50: the even game's)."""
    eng.ok(f"genmove {colour}")
    return int(re.search(r"(\d+) visits in", eng.ok("gomill-explain_last_move")).group(1))


def test_the_engine_plays_the_handicap_agent_after_handicap_stones(mixed_engine, tmp_path) -> None:
    """fixed_handicap, set_free_handicap and a record with handicap stones switch to the
    handicap agent; clear_board goes back to the even game's."""
    eng = mixed_engine
    record = tmp_path / "h.sgf"
    record.write_text("(;GM[1]FF[4]SZ[9]HA[2]KM[0.5]AB[cc][gg];W[ee])")
    eng.ok("boardsize 9")
    eng.ok("fixed_handicap 2")
    assert _visits(eng, "w") == 7
    eng.ok("clear_board")
    assert _visits(eng, "b") == 50
    eng.ok("clear_board")
    eng.ok("set_free_handicap C3 G7")
    assert _visits(eng, "w") == 7
    eng.ok(f"loadsgf {record}")
    assert _visits(eng, "b") == 7
    eng.ok("boardsize 13")
    eng.ok("fixed_handicap 3")
    assert _visits(eng, "w") == 9


def test_the_default_config_gives_stones_with_the_score_aware_search() -> None:
    """19x19 handicap games play the network with a score head and KataGo's score utility
    (docs/strength.md, handicap games); even games and the other sizes are unchanged."""
    config = load_config(str(ROOT / "configs" / "engine" / "default.toml"))
    even, handicap = config.agent_for_size(19)[1], config.agent_for_size(19, handicap=True)[1]
    assert even["score_utility"] == 0 and handicap["score_utility"] > 0
    assert handicap["model"].endswith("zero-19x19-aux.keras") and not even["model"].endswith("aux.keras")
    for size in (9, 13):
        assert config.agent_for_size(size, handicap=True) == config.agent_for_size(size)


def test_stones_played_as_black_moves_are_a_handicap_game_as_katago_counts_them(mixed_engine) -> None:
    """gtp2ogs sends OGS's fixed handicap as Black moves (``play black ...``) before White's
    first: two or more of them make a handicap game, one (an even game's first move) does not."""
    eng = mixed_engine
    eng.ok("boardsize 9")
    eng.ok("play black C3")
    assert _visits(eng, "white") == 50
    eng.ok("clear_board")
    eng.ok("play black C3")
    eng.ok("play black G7")
    assert _visits(eng, "white") == 7
    # a third Black stone on a point White's reply left empty (the reply is the search's)
    assert any(eng.ask(f"play black {point}").ok for point in ("E5", "C7", "G3"))
    assert _visits(eng, "white") == 7  # still the handicap game
