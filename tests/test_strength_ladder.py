"""The strength ladder of ``dlgo.match.strength``: its pairings (opponents, komi, time, the
equivalent duel commands), the report's columns, and one real game against Pachi when the
shared tools have it."""

from __future__ import annotations

from pathlib import Path

import pytest

from dlgo.match import strength


def _args(*argv: str):
    return strength._parser().parse_args(list(argv))


def test_the_ladder_pairs_the_default_config_with_gnugo_levels_and_pachi_budgets(tmp_path):
    args = _args(
        "--ladder", "--games9", "4", "--games19", "2", "--out", str(tmp_path), "--pachi", "/opt/pachi",
        "--engine-set", "zero.threads=1",
    )  # fmt: skip
    pairings = strength._pairings(args)
    nine = [p for p in pairings if p.size == 9]
    nineteen = [p for p in pairings if p.size == 19]
    assert [p.opponent for p in nine] == list(strength.LADDER_9)
    assert [p.opponent for p in nineteen] == ["gnugo-l10", "pachi-1000", "pachi-5000", "pachi-20000"]
    assert {p.config for p in pairings} == {"default"}
    assert {(p.komi, p.seconds, p.games) for p in nine} == {(7.0, 1.0, 4)}
    assert {(p.komi, p.seconds, p.games) for p in nineteen} == {(7.5, 2.0, 2)}
    pachi = next(p for p in nine if p.opponent == "pachi-20000")
    command = " ".join(pachi.command)
    assert "--opponent-cmd /opt/pachi -t =20000 threads=1" in command and "--komi 7 " in command
    level5 = next(p for p in nine if p.opponent == "gnugo-l5")
    assert "--level 5" in " ".join(level5.command) and "--engine-set zero.threads=1" in " ".join(level5.command)
    settings = strength._settings(level5, 1, sets=("zero.threads=1",))
    assert settings.engine.extra_sets == ("zero.threads=1",)
    assert settings.opponent.argv[-3:] == ("--level", "5", "--chinese-rules") and settings.rules.komi == 7.0


def test_thirteen_has_its_own_rungs_time_and_games(tmp_path):
    args = _args("--ladder", "--sizes", "13", "19", "--games13", "20", "--out", str(tmp_path), "--pachi", "/opt/pachi")
    thirteen = [p for p in strength._pairings(args) if p.size == 13]
    assert [p.opponent for p in thirteen] == ["gnugo-l10", "pachi-5000"]
    assert {(p.komi, p.seconds, p.games) for p in thirteen} == {(7.5, 1.5, 20)}
    assert "--size 13 --komi 7.5 --games 20 -j 2 --seconds-per-move 1.5" in " ".join(thirteen[1].command)
    same = _args("--sizes", "13", "--seconds19", "3", "--no-pachi", "--out", str(tmp_path))
    assert {(p.seconds, p.games) for p in strength._pairings(same)} == {(3.0, 4)}


def test_katago_rungs_play_its_network_at_fixed_visits_without_time_commands(tmp_path):
    folder = tmp_path / "katago"
    folder.mkdir()
    for name in ("katago", "net-b6c96.bin.gz", "gtp.cfg"):
        (folder / name).write_text("")
    args = _args("--sizes", "9", "--opponents", "katago-64", "--out", str(tmp_path), "--katago", str(folder))
    (pairing,) = [p for p in strength._pairings(args) if p.config == "default"]
    command = " ".join(pairing.command)
    assert f"--opponent-cmd {folder}/katago gtp -model {folder}/net-b6c96.bin.gz -config {folder}/gtp.cfg" in command
    assert "-override-config maxVisits=64 --opponent-name katago-64 --no-time-commands" in command
    opponent = strength._settings(pairing, 1, katago=str(folder)).opponent
    assert opponent.label == "katago-64" and opponent.argv[-1] == "maxVisits=64" and not opponent.time_commands
    (folder / "gtp.cfg").unlink()
    with pytest.raises(FileNotFoundError, match="KataGo's config not found"):
        strength._settings(pairing, 1, katago=str(folder))


def test_opponent_labels_and_the_old_gauntlet_stay_as_they_were(tmp_path):
    assert strength.opponent_kind("gnugo-l7") == ("gnugo", 7)
    assert strength.opponent_kind("pachi-1000") == ("pachi", 1000)
    assert strength.opponent_kind("katago-8") == ("katago", 8)
    with pytest.raises(ValueError, match="unknown opponent 'leela'"):
        strength.opponent_kind("leela")
    args = _args("--sizes", "9", "--no-pachi", "--out", str(tmp_path))
    pairings = strength._pairings(args)
    assert {p.opponent for p in pairings} == {"gnugo-l10"} and {p.komi for p in pairings} == {7.5}
    assert [p.config for p in pairings] == args.configs


def test_the_report_names_komi_per_size_before_any_game(tmp_path):
    report = tmp_path / "strength.md"
    args = _args("--ladder", "--out", str(tmp_path / "runs"), "--report", str(report), "--report-only")
    strength.write_report(strength._pairings(args), args, None)
    text = report.read_text()
    assert "komi 7 (9x9), 7.5 (19x19)" in text and "(no finished games yet)" in text
    assert "| config | board | komi | s/move |" in text
    assert text.count("python -m dlgo.match.duel") == len(strength.LADDER_9) + len(strength.LADDER_19)


def test_without_report_the_page_lands_in_the_run_folder_not_in_docs(tmp_path):
    out = tmp_path / "runs"
    args = _args("--ladder", "--sizes", "9", "--out", str(out), "--report-only")
    written = strength.write_report(strength._pairings(args), args, None)
    assert written == out / "report.md" and written.is_file()
    assert "# Strength report" in written.read_text()
    relative = _args("--out", "runs/x")
    assert strength._report_path(relative) == strength.ROOT / "runs" / "x" / "report.md"


def _installed(opponent: str) -> bool:
    if opponent.startswith("pachi-"):
        return strength.find_pachi(None) is not None
    exe, model, _ = strength.find_katago(None)
    return Path(exe).is_file() and Path(model).is_file()


@pytest.mark.slow
@pytest.mark.parametrize("opponent", ["pachi-500", "katago-1"])
def test_one_ladder_game_against_pachi_or_katago_is_played_and_reported(tmp_path, gnugo, opponent):
    if not _installed(opponent):
        pytest.skip(f"{opponent}: not found in ../shared/tools nor on PATH")
    report = tmp_path / "strength.md"
    args = _args(
        "--configs", "default", "--sizes", "9", "--opponents", opponent, "--games9", "1", "--seconds9", "0.3",
        "-j", "1", "--komi9", "7", "--out", str(tmp_path / "runs"), "--report", str(report),
    )  # fmt: skip
    assert strength.main_with(args) == 0
    assert f"| default | 9x9 | 7 | 0.3 | {opponent} | 1 |" in report.read_text()
