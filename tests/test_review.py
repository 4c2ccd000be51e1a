"""Game review (dlgo.review, the dlgo_review front end): numbers, judgements, SGF, command line.

The searches run the shipped 9x9 network at 32 visits (a few seconds for a whole game); the
game below has one blunder no search can miss: Black fills an eye of its living 7-stone corner
group (move 17, C1), which White can then capture at any time.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from sgfmill import sgf

from dlgo.analysis import Analyzer
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point
from dlgo.play.config import default_config_path, load_config
from dlgo.play.errors import UnsupportedSize
from dlgo.review import Thresholds, TurnAnalysis, analyze_game, review_positions, reviewed_sgf
from dlgo.review.analysis import Candidate
from dlgo.review.judge import judge_moves
from dlgo.review.record import record_root
from dlgo.sgf import read_game
from dlgo_review.__main__ import main
from dlgo_review.jobs import Job, find_jobs, is_done, write_atomically

ROOT = Path(__file__).resolve().parent.parent
VISITS = 32
# the 4x48 9x9 network: its score head gives the reviews' scores (default.toml's 10x128 has none)
SEEDED = ["zero.seed=1", "mcts.seed=1", f"size.9.zero.model={ROOT / 'weights' / 'zero-9x9.keras'}"]
BLUNDER_MOVE = 17
EYE_GAME = """(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]PB[Alice]PW[Bob]GN[eye test]C[a test game]
;B[bh];W[cg];B[ch];W[dg];B[dh];W[eh];B[di];W[ei];B[ah];W[bg];B[bi];W[ag]
;B[fc];W[ia]C[own comment];B[ge];W[ha];B[ci];W[ai];B[gg];W[fg];B[gd];W[ce])
"""
SHORT_GAME = "(;GM[1]FF[4]SZ[9]KM[7];B[ee];W[cc];B[gc];W[cg];B[gg];W[ec])"
B, W = Player.black, Player.white


@pytest.fixture(scope="module")
def analyzer():
    with Analyzer(load_config(default_config_path(), SEEDED), threads=2) as analyzer:
        yield analyzer


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """The eye game reviewed: (record, analyses, SGF text, annotations, source path). One search
    at a time, so that the seeded numbers repeat: searches side by side take the network's random
    symmetries in the order they happen to run, and at 32 visits another move can then seem to
    lose more points than the blunder."""
    path = tmp_path_factory.mktemp("review") / "eye.sgf"
    path.write_text(EYE_GAME, encoding="utf-8")
    game = read_game(path)
    calls = []
    with Analyzer(load_config(default_config_path(), SEEDED), threads=1) as analyzer:
        analyses = analyze_game(analyzer, review_positions(game), VISITS, progress=calls.append)
    assert sorted(calls, key=lambda a: a.turn) == analyses  # each as it was done, in any order
    text, notes = reviewed_sgf(game, analyses, header="test review", root=record_root(path))
    return game, analyses, text, notes, path


@pytest.fixture
def restore_logging():
    """``main`` sets up logging on the root logger, as a command does: undone after the test."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


# --- the numbers -------------------------------------------------------------------------------
def test_analyze_game_gives_every_position_in_both_views(reviewed):
    game, analyses, *_ = reviewed
    assert len(analyses) == len(game.moves) + 1
    assert [a.turn for a in analyses] == list(range(len(analyses)))
    for a, (player, _) in zip(analyses, game.moves):
        assert a.to_move is player
    for a in analyses:
        assert not a.score_estimated  # the 9x9 network has a score head
        assert a.visits == VISITS  # never stopped early: every position gets its visits
        assert 1 <= len(a.candidates) <= 5 and a.best_move == a.candidates[0].move
        assert a.pv[0] == a.best_move
        assert a.black_winrate == pytest.approx(a.winrate if a.to_move is B else 1 - a.winrate)
        assert a.black_score_lead == pytest.approx(a.score_lead if a.to_move is B else -a.score_lead)


def test_analyze_game_refuses_mixed_sizes_and_no_visits(analyzer):
    with pytest.raises(ValueError, match="one board size"):
        analyze_game(analyzer, [GameState.new_game(9), GameState.new_game(7)], VISITS)
    with pytest.raises(ValueError, match="visits"):
        analyze_game(analyzer, [GameState.new_game(9)], 0)
    with pytest.raises(UnsupportedSize, match="10x10"):  # 10x10: no agent of a minimax config
        analyze_game(load_config(default_config_path(), ["agent=minimax"]), [GameState.new_game(10)], 8)


def test_a_stop_ends_the_analysis(analyzer):
    import threading

    from dlgo.review import AnalysisStopped

    stop, seen = threading.Event(), []

    def stop_after_one(analysis):
        seen.append(analysis)
        stop.set()

    positions = review_positions(read_game(SHORT_GAME))
    with pytest.raises(AnalysisStopped, match="after 1 of 7"):
        analyze_game(analyzer, positions, VISITS, progress=stop_after_one, stop=stop)
    assert len(seen) == 1
    assert analyzer.wait_idle(30)  # the other searches were terminated


def test_review_positions_apply_the_scoring_komi_and_go_on_after_passes():
    game = read_game("(;GM[1]FF[4]SZ[9]KM[0.5]HA[2]AB[cc][gg];W[ee];B[];W[])")
    positions = review_positions(game, komi=2.5)
    assert len(positions) == 4 and all(p.komi == 2.5 for p in positions)
    assert [p.next_player for p in positions] == [W, B, W, B]
    assert not positions[-1].is_over() and positions[-1].legal_moves() != [Move.pass_turn()]
    assert positions[1].board == game.states()[1].board
    # after a pass: a node with no move, so that passing back does not end the search's game at once
    assert positions[2].last_move is None and positions[2].previous_state.last_move == Move.pass_turn()


# --- the judgements ----------------------------------------------------------------------------
def _turn(turn: int, to_move: Player, winrate: float, lead: float, best: Move) -> TurnAnalysis:
    return TurnAnalysis(turn, to_move, winrate, lead, False, 10, (Candidate(best, 10, winrate, lead, 1.0, (best,)),))


def test_points_lost_is_katrains_difference_of_the_movers_leads():
    d4, e5, c3 = Move.play(Point(4, 4)), Move.play(Point(5, 5)), Move.play(Point(3, 3))
    analyses = [
        _turn(0, B, 0.6, 2.0, d4),  # Black leads by 2
        _turn(1, W, 0.5, 1.0, e5),  # after Black's move White leads by 1: Black lost 3 points
        _turn(2, B, 0.3, -1.5, d4),  # after White's best move Black trails by 1.5: White "lost" -0.5
        _turn(3, W, 0.95, 0.0, d4),  # Black's c3 lost no points but 25% win rate
    ]
    moves = [(B, c3), (W, e5), (B, c3)]
    reviews = judge_moves(moves, analyses, Thresholds.for_board(19, 19))
    assert [r.lost for r in reviews] == pytest.approx([3.0, -0.5, -1.5])
    assert [r.points_lost for r in reviews] == pytest.approx([3.0, 0.0, 0.0])
    assert reviews[0].winrate_lost == pytest.approx(0.1)
    assert [r.category for r in reviews] == ["mistake", None, "mistake"]  # the last by win rate
    assert reviews[1].is_best and not reviews[0].is_best
    with pytest.raises(ValueError, match="analyses"):
        judge_moves(moves, analyses[:3], Thresholds.for_board(19, 19))


def test_thresholds_scale_with_the_board():
    assert Thresholds.for_board(19, 19).points == (1.0, 3.0, 8.0)
    assert Thresholds.for_board(13, 13).points == (0.5, 2.0, 5.5)
    assert Thresholds.for_board(9, 9).points == (0.5, 1.5, 4.0)
    t = Thresholds.for_board(19, 19)
    assert [t.classify(x) for x in (0.9, 1.0, 3.0, 8.0)] == [None, "inaccuracy", "mistake", "blunder"]
    assert t.classify(0.0, 0.45) == "blunder" and t.classify(0.0, 0.05) is None


# --- the reviewed SGF --------------------------------------------------------------------------
def test_reviewed_sgf_reads_back_with_a_comment_on_every_move(reviewed):
    game, _, text, notes, _ = reviewed
    again = read_game(text)
    assert again.moves == game.moves
    assert all(c for c in again.comments)
    assert again.comments[13].startswith("own comment\n\n")  # the record's own, then the review's
    lost = [float(m) for c in again.comments for m in re.findall(r"lost (-?[\d.]+) points", c)]
    assert len(lost) >= len(game.moves) and min(lost) >= 0.0
    assert all(r.points_lost >= 0 for r in notes.reviews)


def test_the_root_keeps_the_record_and_sums_up(reviewed):
    *_, text, _, _ = reviewed
    root = sgf.Sgf_game.from_string(text).get_root()
    comment = root.get("C")
    assert comment.startswith("a test game\n\ntest review")
    assert "Black (Alice):" in comment and "White (Bob):" in comment and "points lost per move" in comment
    assert f"move {BLUNDER_MOVE} (B C1): blunder" in comment.split("Largest mistakes:")[1].splitlines()[1]
    assert root.get("GN") == "eye test" and root.get("AP")[0] == "dlgo-review"
    assert 0.0 <= float(root.get("SBKV")) <= 100.0


def test_the_blunder_is_marked_and_the_best_moves_are_legal_points(reviewed):
    game, analyses, text, notes, _ = reviewed
    nodes = sgf.Sgf_game.from_string(text).get_main_sequence()[1:]
    assert nodes[BLUNDER_MOVE - 1].get("BM") == 2
    assert notes.reviews[BLUNDER_MOVE - 1].category == "blunder"
    assert "Blunder: Black lost" in nodes[BLUNDER_MOVE - 1].get("C")
    marked = 0
    for i, node in enumerate(nodes):
        player, move = game.moves[i]
        if node.has_property("TR"):
            ((row, col),) = node.get("TR")  # sgfmill: (row from the bottom - 1, col - 1)
            point = Point(row + 1, col + 1)
            assert game.states()[i].illegal_reason(player, Move.play(point)) is None
            assert point == analyses[i].best_move.point and move != analyses[i].best_move
            marked += 1
        assert node.has_property("TE") == (move == analyses[i].best_move)
        assert 0.0 <= float(node.get("SBKV")) <= 100.0
    assert marked >= 5


def test_katrain_reads_the_review_as_notes(reviewed, tmp_path):
    pytest.importorskip("katrain")
    # Kivy's settings as tests/katrain_driver.py has them: no argv parsing, no log files
    for name, value in (("KIVY_NO_ARGS", "1"), ("KIVY_NO_CONSOLELOG", "1"), ("KIVY_NO_FILELOG", "1")):
        os.environ.setdefault(name, value)
    os.environ.setdefault("KIVY_HOME", str(Path(tempfile.gettempdir()) / "dlgo-kivy-home"))
    from katrain.core.game import KaTrainSGF

    *_, text, _, _ = reviewed
    path = tmp_path / "reviewed.sgf"
    path.write_text(text, encoding="utf-8")
    node, notes = KaTrainSGF.parse_file(str(path)), []
    while node.children:
        node = node.children[0]
        notes.append(node.note)
    assert len(notes) == 22 and all("| lost " in note for note in notes)


def test_without_a_score_head_the_scores_are_estimated(analyzer):
    game = read_game("(;GM[1]FF[4]SZ[5]KM[0.5];B[cc];W[bb];B[dd])")  # 5x5: the config's MCTS
    analyses = analyze_game(analyzer, review_positions(game), 16)
    assert all(a.score_estimated for a in analyses)
    for a in analyses:  # the analysis's estimate (dlgo.analysis.score): ahead in points where ahead in win rate
        assert a.score_lead * (a.winrate - 0.5) >= 0
        assert all(c.score_lead * (c.winrate - 0.5) >= 0 for c in a.candidates)
    text, _ = reviewed_sgf(game, analyses)
    assert "are estimated from win rates and random playouts" in sgf.Sgf_game.from_string(text).get_root().get("C")
    assert all("~" in c for c in read_game(text).comments)


# --- files and the command line ----------------------------------------------------------------
def test_jobs_mirror_a_folder_and_writes_are_whole(tmp_path):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "a.sgf").write_text(SHORT_GAME)
    (tmp_path / "in" / "sub" / "b.SGF").write_text(SHORT_GAME)
    (tmp_path / "in" / "notes.txt").write_text("x")
    (tmp_path / "in" / "out").mkdir()
    (tmp_path / "in" / "out" / "a.sgf").write_text(SHORT_GAME)  # an earlier review inside the input
    jobs = find_jobs(tmp_path / "in", tmp_path / "in" / "out")
    assert [j.source.relative_to(tmp_path / "in").as_posix() for j in jobs] == ["a.sgf", "sub/b.SGF"]
    assert jobs[1].target == tmp_path / "in" / "out" / "sub" / "b.SGF"
    assert not is_done(jobs[1])
    write_atomically(jobs[1].target, "(;)")
    assert is_done(jobs[1]) and jobs[1].target.read_text() == "(;)"
    assert [p.name for p in jobs[1].target.parent.iterdir()] == ["b.SGF"]  # no temporary file left
    os.utime(jobs[1].source, (jobs[1].target.stat().st_mtime + 10,) * 2)
    assert not is_done(Job(jobs[1].source, jobs[1].target))  # the record changed since: again


def test_folder_run_names_bad_files_goes_on_and_resumes(tmp_path, capsys, restore_logging):
    source, out = tmp_path / "games", tmp_path / "reviewed"
    (source / "more").mkdir(parents=True)
    (source / "good.sgf").write_text(SHORT_GAME)
    (source / "more" / "good2.sgf").write_text(SHORT_GAME.replace("KM[7]", "KM[6]"))
    (source / "broken.sgf").write_text("this is no SGF")
    (source / "ten.sgf").write_text("(;GM[1]FF[4]SZ[10];B[ee])")  # minimax plays up to 7x7 only
    argv = [str(source), "-o", str(out), "--visits", "8", "--set", "agent=minimax", *_sets()]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert re.search(r"broken\.sgf: .*malformed", err)
    assert re.search(r"ten\.sgf: no agent of the config plays 10x10", err)
    assert "2 reviewed, 0 skipped (already reviewed), 2 failed" in err and "2 of 4 record(s) failed" in err
    reviewed = [out / "good.sgf", out / "more" / "good2.sgf"]
    assert all(read_game(p).comments[0] for p in reviewed)
    assert not (out / "broken.sgf").exists() and not (out / "ten.sgf").exists()
    stamps = [p.stat().st_mtime_ns for p in reviewed]

    assert main(argv) == 1  # the bad ones fail again; the reviewed ones are not redone
    err = capsys.readouterr().err
    assert "skipping 2 record(s) already reviewed" in err and "0 reviewed, 2 skipped" in err
    assert [p.stat().st_mtime_ns for p in reviewed] == stamps


def test_ctrl_c_keeps_finished_reviews(tmp_path, capsys, restore_logging, monkeypatch):
    import dlgo_review.runner as runner

    source, out = tmp_path / "games", tmp_path / "reviewed"
    source.mkdir()
    for name in ("a.sgf", "b.sgf"):
        (source / name).write_text(SHORT_GAME)
    real, calls = runner.analyze_game, []

    def interrupted_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(runner, "analyze_game", interrupted_second)
    assert main([str(source), "-o", str(out), "--visits", "8", *_sets()]) == 130
    assert "interrupted: 1 reviewed" in capsys.readouterr().err
    assert [p.name for p in out.iterdir()] == ["a.sgf"] and read_game(out / "a.sgf").comments[0]


def _sets() -> list[str]:
    return [arg for value in SEEDED for arg in ("--set", value)]


def test_command_line_reviews_one_file(tmp_path):
    record, reviewed = tmp_path / "game.sgf", tmp_path / "out" / "game-reviewed.sgf"
    record.write_text(SHORT_GAME)
    reviewed.parent.mkdir()
    command = [sys.executable, "-m", "dlgo_review", str(record), "-o", str(reviewed), "--visits", "8", *_sets()]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "1 reviewed" in done.stderr
    game = read_game(reviewed)
    assert len(game.moves) == 6 and all(game.comments)


def test_command_line_config_errors_exit_2(tmp_path):
    record = tmp_path / "game.sgf"
    record.write_text(SHORT_GAME)
    command = [sys.executable, "-m", "dlgo_review", str(record), "-o", str(tmp_path / "r.sgf"), "--set", "zero.nope=1"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "config error" in done.stderr and "zero.nope" in done.stderr
    missing = [sys.executable, "-m", "dlgo_review", str(tmp_path / "none.sgf"), "-o", str(tmp_path / "r.sgf")]
    done = subprocess.run(missing, capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "none.sgf: no such file or folder" in done.stderr


def test_a_root_comment_that_is_not_its_charset_costs_one_line_and_the_rest_is_reviewed(
    tmp_path, capsys, restore_logging
):
    # Found by a hostile sweep: C[\xc0\xaf] under CA[UTF-8] ended the run with a traceback, and
    # the records after it in a folder were never reviewed.
    source, out = tmp_path / "games", tmp_path / "reviewed"
    source.mkdir()
    (source / "a_bad.sgf").write_bytes(b"(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[7]C[\xc0\xaf];B[ee];W[cc])")
    (source / "b_good.sgf").write_text(SHORT_GAME)
    assert main([str(source), "-o", str(out), "--visits", "8", *_sets()]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert len([line for line in err.splitlines() if "a_bad.sgf" in line]) == 1
    assert "2 reviewed, 0 skipped (already reviewed), 0 failed" in err
    assert read_game(out / "b_good.sgf").comments[0]
    assert "\ufffd" in (out / "a_bad.sgf").read_text(encoding="utf-8")  # the comment kept, replaced


def test_a_review_never_overwrites_its_own_record(tmp_path, capsys, restore_logging):
    record = tmp_path / "same.sgf"
    record.write_text(SHORT_GAME)
    assert main([str(record), "-o", str(record), "--visits", "8", *_sets()]) == 2
    assert "would overwrite the record itself" in capsys.readouterr().err
    assert record.read_text() == SHORT_GAME
    link = tmp_path / "link.sgf"
    link.symlink_to(record)  # the same file by another name
    assert main([str(record), "-o", str(link), "--visits", "8", *_sets()]) == 2
    assert record.read_text() == SHORT_GAME
