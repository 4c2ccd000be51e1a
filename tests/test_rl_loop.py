"""``python -m dlgo.rl loop | plot | ship``: the book's cycle (chapters 9-12) end to end, resumed
after a stop, gated, plotted and shipped; 5x5 boards, tiny networks, a few games."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from dlgo.rl.loop_config import RLConfigError, load_rl_config

pytest.importorskip("keras")
pytest.importorskip("h5py")

from dlgo.inference import read_card  # noqa: E402
from dlgo.rl import loop as loop_module  # noqa: E402
from dlgo.rl.cli import main  # noqa: E402
from dlgo.rl.loop import RLLoop, read_state  # noqa: E402

TINY = """
kind = "{kind}"
board_size = 5
komi = 0.5
[init]
width = 4
[selfplay]
games = 2
games_per_task = 1
jobs = 1
temperature = [0.3, 0.1]
[train]
batch_size = 32
window = 2
[gate]
games = 2
kind = "{gate}"
[loop]
iterations = {iterations}
[final]
games = {final}
"""


def _config(tmp_path: Path, kind: str = "pg", gate: str = "book", iterations: int = 2, final: int = 2) -> Path:
    path = tmp_path / f"tiny-{kind}.toml"
    path.write_text(TINY.format(kind=kind, gate=gate, iterations=iterations, final=final), encoding="utf-8")
    return path


def _run(config: Path, out: Path) -> dict:
    command = f"python -m dlgo.rl loop --config {config}"
    return RLLoop(load_rl_config(config), out, command=command, progress=False).run()


def _log(out: Path) -> list[dict]:
    with open(out / "log.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def pg_run(tmp_path_factory) -> Path:
    """Two iterations of policy gradient through the command line, every candidate accepted."""
    tmp = tmp_path_factory.mktemp("pg")
    out = tmp / "run"
    assert main(["loop", "--config", str(_config(tmp, gate="none")), "--out", str(out), "--quiet"]) == 0
    return out


def test_the_loop_runs_two_iterations_and_the_final_matches(pg_run) -> None:
    state = read_state(pg_run)
    assert state["iteration"] == 2 and state["generation"] == 2 and state["accepted"] == [1, 2]
    assert all((pg_run / f"gen-{g:04d}.keras").exists() for g in range(3))
    assert read_card(pg_run / "gen-0002.keras").extra["rl_agent"] == "pg"
    rows = _log(pg_run)
    assert [r["iteration"] for r in rows] == ["1", "2"] and [r["generation"] for r in rows] == ["0", "1"]
    assert [r["temperature"] for r in rows] == ["0.3", "0.1"]  # the schedule, one value per iteration
    # the window of 2 trains iteration 2 on both iterations' decisions
    assert int(rows[1]["train_decisions"]) == int(rows[0]["decisions"]) + int(rows[1]["decisions"])
    assert float(rows[1]["cpu_minutes"]) >= float(rows[0]["cpu_minutes"]) > 0
    assert all(r["gate_games"] == "2" and 0 <= float(r["win_rate"]) <= 1 for r in rows)  # measured, not gated
    final = state["final"]
    assert final["generation"] == 2 and set(final["results"]) == {"start", "random"}
    assert all(r["games"] == 2 and len(r["win_rate_95"]) == 2 for r in final["results"].values())
    assert (pg_run / "final" / "gen-0002-vs-random" / "summary.json").exists()


@pytest.mark.parametrize("kind", ["q", "ac"])
def test_the_loop_trains_the_q_and_actor_critic_agents(kind, tmp_path) -> None:
    out = tmp_path / "run"
    state = _run(_config(tmp_path, kind, final=0), out)
    assert state["iteration"] == 2 and state["final"] == {}
    assert read_card(out / "cand-0002.keras").extra["rl_agent"] == kind
    rows = _log(out)
    assert len(rows) == 2 and all(float(r["loss"]) == float(r["loss"]) for r in rows)
    assert state["generation"] == len(state["accepted"]) == sum(int(r["accepted"]) for r in rows)
    if kind == "ac":  # the two heads' losses beside the total
        assert "value" in rows[0]["losses"]
    if kind == "q":  # greedy players explore in the final matches when asked: the games differ
        config = _config(tmp_path, kind, final=4)
        config.write_text(config.read_text().replace("[final]", "[final]\ntemperature = 0.5"))
        state = _run(config, out)
        assert state["final"]["results"]["start"]["temperature"] == 0.5
        games = [
            json.loads(line)["moves"]
            for line in (out / "final" / f"gen-{state['generation']:04d}-vs-start-t0.5" / "results.jsonl").open()
        ]
        assert len(games) == 4 and len({json.dumps(m) for m in games}) > 2


def test_a_stopped_loop_resumes_without_replaying_a_game(tmp_path, monkeypatch) -> None:
    out = tmp_path / "run"
    _run(_config(tmp_path, iterations=1, final=0), out)
    done = sorted(p for p in out.rglob("*") if p.is_file() and p.name not in ("loop.json", "log.csv"))
    stamps = {p: p.stat().st_mtime_ns for p in done}
    assert any(p.suffix == ".h5" for p in done) and (out / "eval-0001" / "results.jsonl").exists()

    def stop(*args, **kwargs):
        raise KeyboardInterrupt  # a kill during the second iteration's match

    monkeypatch.setattr(loop_module, "run_evaluation", stop)
    with pytest.raises(KeyboardInterrupt):
        _run(_config(tmp_path, iterations=2, final=0), out)
    stopped = read_state(out)["pending"]
    assert {"selfplay", "train"} <= stopped.keys() and "gate" not in stopped and stopped["gate_stopped_seconds"] >= 0
    played = {p: p.stat().st_mtime_ns for p in [*(out / "exp-0002").glob("*.h5"), out / "cand-0002.keras"]}
    monkeypatch.undo()
    state = _run(_config(tmp_path, iterations=2, final=0), out)
    assert state["iteration"] == 2 and len(_log(out)) == 2
    assert {p: p.stat().st_mtime_ns for p in done} == stamps  # iteration 1 untouched
    assert {p: p.stat().st_mtime_ns for p in played} == played  # no self-play game replayed, no retraining
    assert len((out / "eval-0002" / "results.jsonl").read_text().splitlines()) == 2


def test_a_rejected_candidate_keeps_the_current_generation(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(loop_module, "gate_passed", lambda summary, gate: False)
    out = tmp_path / "run"
    state = _run(_config(tmp_path, final=0), out)
    assert state["generation"] == 0 and state["accepted"] == []
    assert not (out / "gen-0001.keras").exists() and (out / "cand-0002.keras").exists()
    # the next iteration self-plays the current version again
    assert json.loads((out / "exp-0002" / "selfplay.json").read_text())["model"] == str(out / "gen-0000.keras")
    assert [r["accepted"] for r in _log(out)] == ["0", "0"]


def test_plot_writes_a_png(pg_run, tmp_path) -> None:
    pytest.importorskip("matplotlib")
    assert main(["plot", "--run", str(pg_run), "--out", str(tmp_path / "t.png")]) == 0
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_ship_copies_the_final_version_with_its_measured_strength(pg_run, tmp_path) -> None:
    to = tmp_path / "weights" / "pg-5x5.keras"
    assert main(["ship", "--run", str(pg_run), "--to", str(to)]) == 0
    assert to.read_bytes() == (pg_run / "gen-0002.keras").read_bytes()
    card = read_card(to)
    final = read_state(pg_run)["final"]["results"]
    assert card.training["games"] == 4 and card.training["iterations"] == 2 and card.training["minutes"] >= 0
    assert card.training["command"].startswith("python -m dlgo.rl loop --config ")
    assert card.training["config"]["kind"] == "pg"
    for name in ("start", "random"):
        assert card.strength[f"vs_{name}"]["engine_wins"] == final[name]["engine_wins"]
        assert card.strength[f"vs_{name}"]["p_value"] == final[name]["p_value"]


def test_ship_refuses_an_unfinished_run(tmp_path) -> None:
    out = tmp_path / "run"
    RLLoop(load_rl_config(_config(tmp_path)), out, progress=False)._save()
    assert main(["ship", "--run", str(out), "--to", str(tmp_path / "x.keras")]) == 2


def test_config_errors_name_the_file_and_the_key(tmp_path) -> None:
    path = _config(tmp_path)
    text = path.read_text()
    for bad, match in (
        (text.replace("[loop]", "[loop]\nitertions = 3"), r"tiny-pg\.toml: unknown key loop\.itertions"),
        (text + "\n[replay]\nsize = 3\n", r"tiny-pg\.toml: unknown key replay"),
        (text.replace("temperature = [0.3, 0.1]", "temperature = [0.3, 2]"), r"selfplay\.temperature"),
        (text.replace('kind = "pg"', 'kind = "value"'), r"tiny-pg\.toml: kind must be one of pg, q, ac"),
        (text.replace("games = 2\nkind", "games = 0\nkind"), r"gate\.games must be at least 1"),
        (text.replace("[final]", '[final]\nopponents = ["nowhere.keras"]'), r"final\.opponents names no file"),
        (text.replace("[final]", "[final]\ntemperature = 1.5"), r"final\.temperature must be a number in \[0, 1\]"),
    ):
        path.write_text(bad)
        with pytest.raises(RLConfigError, match=match):
            load_rl_config(path)
    assert main(["loop", "--config", str(path)]) == 2


def test_a_rerun_with_other_settings_is_refused(tmp_path) -> None:
    out = tmp_path / "run"
    RLLoop(load_rl_config(_config(tmp_path)), out, progress=False)._save()
    other = _config(tmp_path)
    other.write_text(other.read_text().replace("batch_size = 32", "batch_size = 64"))
    with pytest.raises(RLConfigError, match=r"train\.batch_size \(32 -> 64\)"):
        RLLoop(load_rl_config(other), out, progress=False)
    more = _config(tmp_path, iterations=5, final=10)  # going on, or a longer final match, is fine
    RLLoop(load_rl_config(more), out, progress=False)


def test_the_shipped_configs_load() -> None:
    root = Path(__file__).resolve().parent.parent / "configs" / "train"
    configs = {kind: load_rl_config(root / f"rl-{kind}-9x9.toml") for kind in ("pg", "q", "ac")}
    assert {k: c.kind for k, c in configs.items()} == {"pg": "pg", "q": "q", "ac": "ac"}
    assert configs["q"].temperature(1) == 0.25 and configs["q"].temperature(99) == 0.1
    assert configs["pg"].train_settings() == {"lr": 0.01, "clipnorm": 1.0, "batch_size": 512}
    assert configs["pg"].init.trunk == configs["ac"].init.trunk == "conv"


def test_every_rl_config_in_the_repo_loads(tmp_path: Path) -> None:
    """Later stages start from an earlier stage's run folder, which a fresh checkout lacks: each
    config is loaded from a copy beside a stand-in for that folder's network (only its existence
    is checked when a config loads; the loop reads it when it begins)."""
    root = Path(__file__).resolve().parent.parent / "configs" / "train"
    paths = sorted(root.glob("rl-*.toml"))
    assert len(paths) >= 6
    folder = tmp_path / "configs" / "train"
    folder.mkdir(parents=True)
    (tmp_path / "weights").symlink_to(root.parent.parent / "weights")
    for path in paths:
        text = path.read_text()
        for start in re.findall(r'"\.\./\.\./(runs/[^"]+)"', text):
            (tmp_path / start).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / start).touch()
        copy = folder / path.name
        copy.write_text(text)
        assert load_rl_config(copy).kind in ("pg", "q", "ac"), path
