"""The loop's command line: ``--set TABLE.KEY=VALUE`` overrides one config key for a run."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlgo.zero.loop import main

ROOT = Path(__file__).resolve().parents[1]
CONFIG = str(ROOT / "configs" / "train" / "zero-train-9x9.toml")


def _run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["--config", CONFIG, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_set_overrides_reach_the_loop(tmp_path, capsys, monkeypatch):
    import dlgo.zero.loop as cli

    seen = {}
    real = cli.load_loop_config

    def spy(path, overrides):
        seen.update(overrides)
        return real(path, overrides)

    monkeypatch.setattr(cli, "load_loop_config", spy)
    code, out, _ = _run(
        capsys,
        "--set", "anchor.games=0",
        "--set", "selfplay.games_per_iteration=600",
        "--set", f"loop.out={tmp_path / 'run'}",  # not TOML: taken as a string
        "--set", 'loop.init_model=""',
        "--status",
    )  # fmt: skip
    assert code == 0 and "iteration 0" in out
    assert seen["anchor"] == {"games": 0} and seen["selfplay"] == {"games_per_iteration": 600}
    assert seen["loop"] == {"out": str(tmp_path / "run"), "init_model": ""}


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("anchor.games", "expected key=value"),
        ("anchor=1", "expected TABLE.KEY=VALUE"),
        ("a.b.c=1", "expected TABLE.KEY=VALUE"),
        ("train.nonsense=1", "unknown key train.nonsense"),
        ("selfplay.full_visits=many", "selfplay.full_visits"),
        ("nowhere.games=1", "unknown table [nowhere]"),
    ],
)
def test_a_bad_set_is_one_clear_error(tmp_path, capsys, override, message):
    code, out, err = _run(capsys, "--set", f"loop.out={tmp_path / 'run'}", "--set", override, "--status")
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1
