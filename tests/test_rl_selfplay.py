"""Self-play into experience files (parallel, resumable), evaluation matches with the binomial test
and gating, and the ``python -m dlgo.rl`` command line; 5x5 boards, tiny networks."""

from __future__ import annotations

import json

import pytest

from dlgo.rl.evaluate import EvalSettings, gate_passed, run_evaluation
from dlgo.rl.selfplay import SelfPlaySettings, run_selfplay, task_files

pytest.importorskip("keras")
h5py = pytest.importorskip("h5py")

from dlgo.rl.agents import new_agent  # noqa: E402
from dlgo.rl.cli import main  # noqa: E402
from dlgo.rl.experience import experience_size, load_experience  # noqa: E402

SIZE = 5


@pytest.fixture(scope="module")
def pg_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("pg") / "pg-0000.keras"
    new_agent("pg", SIZE, width=8, seed=2).serialize(path)
    return path


def _settings(model, games: int, **kw) -> SelfPlaySettings:
    return SelfPlaySettings(model=str(model), games=games, board_size=SIZE, komi=0.5, games_per_task=2, **kw)


def test_selfplay_writes_the_books_files_and_resumes_without_replaying(pg_file, tmp_path) -> None:
    out = tmp_path / "exp"
    files = run_selfplay(_settings(pg_file, 4), out, progress=False)
    assert [f.name for f in files] == ["task-00000.h5", "task-00001.h5"]
    with h5py.File(files[0], "r") as f:
        buffer = load_experience(f)
    records = [json.loads(line) for line in task_files(out, 0)[1].read_text().splitlines()]
    assert len(records) == 2
    # every decision of a game carries that game's result for the player who made it
    assert set(buffer.rewards.tolist()) <= {-1.0, 1.0} and len(buffer) == sum(len(r["moves"]) for r in records) - sum(
        m[1] == "pass" for r in records for m in r["moves"]
    )
    kept = files[0].stat().st_mtime_ns
    files[1].unlink()
    run_selfplay(_settings(pg_file, 6), out, progress=False)  # replays task 1, adds task 2, keeps task 0
    assert files[0].stat().st_mtime_ns == kept
    assert all(task_files(out, i)[0].exists() for i in range(3))
    with pytest.raises(ValueError, match="another model or other settings"):
        run_selfplay(_settings(pg_file, 6, temperature=0.5), out, progress=False)


def test_selfplay_in_worker_processes(pg_file, tmp_path) -> None:
    files = run_selfplay(_settings(pg_file, 4, seed=5), tmp_path / "exp", workers=2, progress=False)
    assert sum(experience_size(f) for f in files) > 4 * 5


def _summary(wins: int, losses: int, draws: int = 0) -> dict:
    games = wins + losses + draws
    return {"games": games, "engine_wins": wins, "opponent_wins": losses, "win_rate": (wins + draws / 2) / games}


def test_gates_of_the_book_and_the_thesis() -> None:
    assert gate_passed(_summary(60, 40), "book") and not gate_passed(_summary(59, 41), "book")
    assert gate_passed(_summary(23, 17), "thesis")  # 57.5% of the decisive games
    assert not gate_passed(_summary(22, 18), "thesis")  # 55% is not more than 55%
    assert gate_passed(_summary(12, 9, 19), "thesis") and not gate_passed(_summary(12, 9, 19), "book")
    with pytest.raises(ValueError):
        gate_passed(_summary(1, 0), "elo")


def test_evaluation_alternates_colours_summarises_and_resumes(pg_file, tmp_path) -> None:
    out = tmp_path / "eval"
    settings = EvalSettings(agent=str(pg_file), opponent="random", games=4, board_size=SIZE, komi=0.5)
    summary = run_evaluation(settings, out, gate="book", progress=False)
    assert summary["games"] == 4 and summary["engine"] == "pg-0000" and summary["opponent"] == "random"
    assert summary["players"]["pg-0000"]["as_black"]["games"] == 2
    assert 0 <= summary["p_value"] <= 1 and "passed" in summary["gate"]
    assert len(list((out / "games").glob("*.sgf"))) == 4
    lines = (out / "results.jsonl").read_text().splitlines()
    more = run_evaluation(EvalSettings(**{**settings.__dict__, "games": 6}), out, progress=False)
    assert more["games"] == 6 and (out / "results.jsonl").read_text().splitlines()[:4] == lines


def test_command_line_init_selfplay_train_evaluate(tmp_path, capsys) -> None:
    v0, v1 = tmp_path / "ac-0000.keras", tmp_path / "ac-0001.keras"
    assert main(["init", "--kind", "ac", "--size", str(SIZE), "--width", "8", "--seed", "1", "--out", str(v0)]) == 0
    common = ["--size", str(SIZE), "--komi", "0.5", "--quiet"]
    assert main(["selfplay", "--agent", str(v0), "--games", "2", "--out", str(tmp_path / "exp"), *common]) == 0
    assert main(["train", "--agent", str(v0), "--experience", str(tmp_path / "exp"), "--out", str(v1)]) == 0
    from dlgo.inference import read_card

    card = read_card(v1)
    assert card.training["generation"] == 1 and card.training["decisions"] > 0 and card.extra["rl_agent"] == "ac"
    code = main(
        [
            "evaluate",
            "--agent",
            str(v1),
            "--opponent",
            str(v0),
            "--games",
            "2",
            "--out",
            str(tmp_path / "ev"),
            *common,
            "--gate",
            "thesis",
        ]
    )
    assert code in (0, 1)
    assert "p-value" in capsys.readouterr().out
