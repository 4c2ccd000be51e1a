"""The game-archive pipeline (``dlgo.data``): split by game, samples (first move, handicap,
passes, results), malformed records, chunk round trips, augmentation, streaming, downloads.

Records are made in ``tmp_path`` (archives in the book's layout); one test reads a few games of
the shared archives and skips when ``../shared/data`` is missing.
"""

from __future__ import annotations

import http.server
import io
import json
import random
import tarfile
import threading
from collections import Counter
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from dlgo.agent.naive import RandomBot
from dlgo.data import (
    DataGenerator,
    GoDataProcessor,
    Split,
    augment_batch,
    iter_records,
    list_game_ids,
    load_manifest,
    parse_result,
    samples_from_sgf,
)
from dlgo.data.archives import default_sources
from dlgo.data.chunks import concat_packed, pack_planes, read_chunk, write_chunk
from dlgo.data.download import DownloadError, KGSIndex, download_file, parse_index
from dlgo.data.samples import SkipGame
from dlgo.encoders import get_encoder_by_name, symmetry
from dlgo.goboard import GameState, Move
from dlgo.gotypes import Player, Point

LETTERS = "abcdefghijklmnopqrs"


# --- records made here -------------------------------------------------------------------------------


def sgf_point(point: Point, size: int) -> str:
    return LETTERS[point.col - 1] + LETTERS[size - point.row]


def random_game_sgf(seed: int, size: int = 9, moves: int = 14, result: str = "B+R") -> str:
    """A legal game of random moves (no own-eye fills), as SGF text."""
    bot = RandomBot(seed=seed)
    state = GameState.new_game(size)
    nodes = []
    for _ in range(moves):
        move = bot.select_move(state)
        colour = "B" if state.next_player is Player.black else "W"
        nodes.append(f";{colour}[{sgf_point(move.point, size) if move.is_play else ''}]")
        state = state.apply_move(move)
    return f"(;GM[1]FF[4]SZ[{size}]KM[7.5]RE[{result}]{''.join(nodes)})"


SPECIAL = {
    "even.sgf": "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+R];B[ee];W[cc];B[gc];W[cg];B[gg])",
    "handicap.sgf": "(;GM[1]FF[4]SZ[9]HA[2]KM[0.50]RE[W+3.5]AB[cc][gg];W[ee];B[ce];W[ec])",
    "passes.sgf": "(;GM[1]FF[4]SZ[9]KM[7.5]RE[W+Time];B[ee];W[];B[cc];W[])",
    "forfeit.sgf": "(;GM[1]FF[4]SZ[9]KM[7.5]RE[B+Forfeit];B[ee];W[cc])",
    "void.sgf": "(;GM[1]FF[4]SZ[9]RE[Void];B[ee];W[cc])",
    "occupied.sgf": "(;GM[1]FF[4]SZ[9]RE[B+R];B[ee];W[ee])",
    "truncated.sgf": "(;GM[1]FF[4]SZ[9]RE[B+R];B[ee];W[c",
    "big.sgf": "(;GM[1]FF[4]SZ[13]RE[B+R];B[gg];W[dd])",
}


def make_archive(path: Path, games: dict[str, str], folder: str = "KGS2001") -> Path:
    """A ``.tar.gz`` in the book's KGS layout: a folder member, then ``folder/<name>.sgf``."""
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(folder)
        info.type = tarfile.DIRTYPE
        tar.addfile(info)
        for name, text in games.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{folder}/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture
def archives(tmp_path) -> Path:
    """A folder with two archives: 40 random 9x9 games plus the special records."""
    folder = tmp_path / "kgs"
    folder.mkdir()
    randoms = {f"g{i:03d}.sgf": random_game_sgf(i) for i in range(40)}
    make_archive(folder / "KGS-2001-19-40-.tar.gz", randoms, "KGS2001")
    make_archive(folder / "KGS-2002-19-8-.tar.gz", SPECIAL, "KGS2002")
    return folder


def all_chunks(folder: Path, part: str):
    manifest = load_manifest(folder)
    return [read_chunk(p) for p, _ in manifest.chunks(part)]


# --- results and split ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, winner, kind, ok",
    [
        ("B+R", Player.black, "resign", True),
        ("W+Resign", Player.white, "resign", True),
        ("B+12.5", Player.black, "score", True),
        ("w+0.5", Player.white, "score", True),
        ("B+Time", Player.black, "time", False),
        ("W+T", Player.white, "time", False),
        ("W+Forfeit", Player.white, "forfeit", False),
        ("B+Offline", Player.black, "forfeit", False),
        ("Void", None, "void", False),
        ("?", None, "unknown", False),
        (None, None, "unknown", False),
        ("0", None, "draw", True),
        ("Jigo", None, "draw", True),
    ],
)
def test_results_as_value_targets(text, winner, kind, ok) -> None:
    result = parse_result(text)
    assert (result.winner, result.kind, result.value_ok) == (winner, kind, ok)
    if winner is not None:
        assert result.value_for(winner) == 1 and result.value_for(winner.other) == -1


def test_split_is_by_game_id_stable_and_nested() -> None:
    ids = [f"A-{i}.tar.gz/g{i}.sgf" for i in range(2000)]
    split = Split(seed=7, test_fraction=0.1)
    train, test = split.select(ids)
    assert set(train).isdisjoint(test) and len(train) + len(test) == len(ids)
    assert 120 < len(test) < 280  # about 10%
    # A game's part depends on its id and the seed only, not on which other games are listed.
    assert all(split.is_test(g) for g in test) and not any(split.is_test(g) for g in train)
    train_small, _ = split.select(ids[:500] + ids[1500:])
    assert all(g in train for g in train_small)
    # Smaller samples are prefixes of larger ones (hash order).
    t50, _ = split.select(ids, train_games=50)
    t100, _ = split.select(ids, train_games=100)
    assert t100[:50] == t50
    assert Split(seed=8, test_fraction=0.1).select(ids)[1] != test


# --- samples -------------------------------------------------------------------------------------------


def zero9():
    return get_encoder_by_name("zero", 9)


def test_first_move_is_a_sample() -> None:
    s = samples_from_sgf(SPECIAL["even.sgf"], "even", zero9())
    enc = zero9()
    assert list(s.move_numbers) == [0, 1, 2, 3, 4]
    assert s.moves[0] == enc.encode_point(Point(5, 5))  # B[ee] = E5
    assert s.planes[0][..., 1:3].sum() == 0  # the empty board before the first move
    assert list(s.values) == [1, -1, 1, -1, 1] and s.value_mask.all()


def test_handicap_game_starts_with_white_on_the_setup() -> None:
    s = samples_from_sgf(SPECIAL["handicap.sgf"], "handicap", zero9())
    first = s.planes[0]
    # White to move: the handicap stones are the opponent's (plane 2), none are "own" (plane 1).
    assert first[..., 2].sum() == 2 and first[..., 1].sum() == 0
    assert first[2, 6, 2] == 1 and first[6, 2, 2] == 1  # C7 is row 7 col 3 -> [6, 2]; G3 -> [2, 6]
    assert first[..., 13].max() == 0  # not black to move
    assert first[0, 0, 14] == pytest.approx(0.5 / 15)  # komi 0.5 for White
    assert s.handicap == 2
    assert list(s.values) == [1, -1, 1]  # White won: +1 for White to move


def test_passes_are_labels_for_zero_and_skipped_without_pass_index() -> None:
    s = samples_from_sgf(SPECIAL["passes.sgf"], "passes", zero9())
    assert list(s.moves[[1, 3]]) == [81, 81]
    assert s.planes[2][0, 0, 15] == 1  # last move was a pass
    assert not s.value_mask.any()  # W+Time: the policy counts, the value does not
    seven = samples_from_sgf(SPECIAL["passes.sgf"], "passes", get_encoder_by_name("sevenplane", 9))
    assert list(seven.move_numbers) == [0, 2] and seven.skipped == {"pass": 2}


@pytest.mark.parametrize("name", ["forfeit.sgf", "void.sgf"])
def test_forfeit_and_void_mask_values(name) -> None:
    s = samples_from_sgf(SPECIAL[name], name, zero9())
    assert len(s) == 2 and not s.value_mask.any()


@pytest.mark.parametrize(
    "name, reason", [("occupied.sgf", "malformed"), ("truncated.sgf", "malformed"), ("big.sgf", "board_size")]
)
def test_bad_records_raise_skip_with_reason(name, reason) -> None:
    with pytest.raises(SkipGame) as info:
        samples_from_sgf(SPECIAL[name], name, zero9())
    assert info.value.reason == reason


# --- processing ----------------------------------------------------------------------------------------


def test_processing_splits_by_game_without_leakage(archives, tmp_path) -> None:
    split = Split(seed=3, test_fraction=0.3)
    out = tmp_path / "data"
    manifest = GoDataProcessor("zero", 9, out, sources=[archives], split=split, games_per_chunk=7).process(
        jobs=1, progress=False
    )
    ids = {part: {g for c in all_chunks(out, part) for g in c.game_ids} for part in ("train", "test")}
    assert ids["train"] and ids["test"] and ids["train"].isdisjoint(ids["test"])
    for part in ("train", "test"):
        assert all(split.part(g) == part for g in ids[part])
        for c in all_chunks(out, part):
            assert len(c.game) == len(c) and c.game.max() < len(c.game_ids)
            # Every game keeps its first move.
            firsts = {int(g) for g, n in zip(c.game, c.move_numbers) if n == 0}
            assert firsts == set(range(len(c.game_ids)))
    data = manifest.data
    skipped = Counter(data["parts"]["train"]["skipped_games"]) + Counter(data["parts"]["test"]["skipped_games"])
    assert skipped == {"malformed": 2, "board_size": 1}
    assert manifest.games("train") + manifest.games("test") == 40 + 5
    positions = sum(len(c) for part in ("train", "test") for c in all_chunks(out, part))
    assert positions == manifest.positions("train") + manifest.positions("test")
    results = Counter(data["parts"]["train"]["results"]) + Counter(data["parts"]["test"]["results"])
    assert results["time"] == 1 and results["forfeit"] == 1 and results["void"] == 1


def test_damaged_archive_is_counted_not_fatal(archives, tmp_path) -> None:
    good = (archives / "KGS-2002-19-8-.tar.gz").read_bytes()
    (archives / "KGS-2003-19-9-.tar.gz").write_bytes(good[: len(good) // 2])  # cut short
    (archives / "KGS-2004-19-9-.tar.gz").write_bytes(b"not an archive at all")
    manifest = GoDataProcessor("zero", 9, tmp_path / "d", sources=[archives], split=Split(test_fraction=0.0)).process(
        jobs=1, progress=False
    )
    assert manifest.games("train") >= 45
    assert any("KGS-2004" in e for e in manifest.data["errors"])
    assert manifest.data["error_count"] >= 2 + 3  # the two archives, malformed x2, board size


def test_parallel_processing_matches_serial(archives, tmp_path) -> None:
    runs = {}
    for jobs in (1, 2):
        out = tmp_path / f"j{jobs}"
        GoDataProcessor("zero", 9, out, sources=[archives], split=Split(test_fraction=0.2)).process(
            jobs=jobs, progress=False
        )
        runs[jobs] = [(c.game_ids, c.moves.tolist(), c.planes().sum()) for c in all_chunks(out, "train")]
    assert runs[1] == runs[2]


def test_load_or_process_reuses_and_refuses_other_data(archives, tmp_path) -> None:
    out = tmp_path / "data"
    p = GoDataProcessor("zero", 9, out, sources=[archives], split=Split(test_fraction=0.2))
    first = p.load_or_process(10, 3, jobs=1, progress=False)
    assert first.games("train") == 10
    again = p.load_or_process(10, 3, jobs=1, progress=False)
    assert again.data == first.data
    with pytest.raises(ValueError, match="holds data made for"):
        p.load_or_process(20, 3, jobs=1, progress=False)


# --- chunks, augmentation, streaming ---------------------------------------------------------------------


def test_chunk_round_trip_is_exact(tmp_path) -> None:
    rng = np.random.default_rng(0)
    n = 37
    planes = np.zeros((n, 9, 9, 5), dtype=np.float32)
    planes[..., 0] = rng.integers(0, 2, (n, 9, 9))  # bits
    planes[..., 1] = rng.normal(size=(n, 1, 1))  # one value per sample
    planes[..., 2] = rng.integers(-1, 2, (n, 9, 9))  # small ints
    planes[..., 3] = rng.normal(size=(n, 9, 9)).astype(np.float16)  # dense
    planes[..., 4] = 1.0
    packed = pack_planes(planes)
    assert packed.kinds == ["bits", "scalars", "ints", "dense", "bits"]
    assert np.array_equal(packed.unpack(), planes)
    idx = np.array([3, 5, 30])
    assert np.array_equal(packed.unpack(idx), planes[idx])
    moves = rng.integers(0, 82, n)
    path = write_chunk(
        tmp_path / "c.npz", planes, moves, np.ones(n), np.ones(n, bool), np.zeros(n), np.arange(n), ["g"], "zero"
    )
    chunk = read_chunk(path)
    assert np.array_equal(chunk.planes(), planes) and np.array_equal(chunk.moves, moves)
    assert chunk.game_ids == ["g"] and chunk.encoder == "zero"
    # Parts whose plane kinds differ are re-packed together, still exactly.
    other = planes.copy()
    other[..., 0] = 0.5
    merged = concat_packed([pack_planes(planes), pack_planes(other)])
    assert np.array_equal(merged.unpack(), np.concatenate([planes, other]))


def transformed_game(moves: list[Move], k: int, size: int) -> list[Move]:
    return [Move.play(symmetry.apply_to_point(m.point, k, size)) if m.is_play else m for m in moves]


@pytest.mark.parametrize("k", range(8))
def test_augmentation_equals_encoding_the_transformed_game(k) -> None:
    encoder = zero9()
    bot = RandomBot(seed=11)
    state = GameState.new_game(9)
    moves = []
    for _ in range(25):
        move = bot.select_move(state)
        moves.append(move)
        state = state.apply_move(move)
    moves.append(Move.pass_turn())
    states = [GameState.new_game(9)]
    for m in moves:
        states.append(states[-1].apply_move(m))
    x = encoder.encode_batch(states[:-1])
    labels = np.array([encoder.encode_move(m) for m in moves])
    ax, alabels = augment_batch(x, labels, np.full(len(labels), k))
    t_states = [GameState.new_game(9)]
    for m in transformed_game(moves, k, 9):
        t_states.append(t_states[-1].apply_move(m))
    assert np.array_equal(ax, encoder.encode_batch(t_states[:-1]))
    assert list(alabels) == [encoder.encode_move(m) for m in transformed_game(moves, k, 9)]
    assert alabels[-1] == 81  # pass untouched


@pytest.fixture
def processed(archives, tmp_path) -> Path:
    out = tmp_path / "data"
    GoDataProcessor("zero", 9, out, sources=[archives], split=Split(test_fraction=0.2), games_per_chunk=5).process(
        jobs=1, progress=False
    )
    return out


def test_generator_one_pass_yields_every_sample_once(processed) -> None:
    gen = DataGenerator.from_folder(processed, "train", batch_size=16, seed=2, buffer_chunks=2)
    total = gen.get_num_samples()
    batches = list(gen.batches(augment=False, loop=False))
    assert sum(len(b) for b in batches) == total
    labels = np.sort(np.concatenate([b.moves for b in batches]))
    expected = np.sort(np.concatenate([c.moves for c in all_chunks(processed, "train")]))
    assert np.array_equal(labels, expected)
    assert all(b.x.shape[1:] == (9, 9, 16) and b.x.dtype == np.float32 for b in batches)


def test_generator_is_deterministic_and_resumes_at_a_pass(processed) -> None:
    def gen():
        return DataGenerator.from_folder(processed, "train", batch_size=16, seed=5)

    first = list(islice(gen().batches(), 6))
    again = list(islice(gen().batches(), 6))
    assert all(np.array_equal(a.x, b.x) and np.array_equal(a.moves, b.moves) for a, b in zip(first, again))
    g = gen()
    per_pass = g.get_num_samples() // 16
    stream = list(islice(g.batches(), per_pass + 3))[per_pass:]
    resumed = list(islice(gen().batches(start=g.get_num_samples()), 3))
    assert all(np.array_equal(a.x, b.x) and np.array_equal(a.moves, b.moves) for a, b in zip(stream, resumed))


def test_value_weights_average_over_counted_samples() -> None:
    from dlgo.data.generator import Batch

    b = Batch(np.zeros((4, 9, 9, 1)), np.zeros(4, int), np.array([1, -1, 1, 1.0]), np.array([1, 1, 0, 0], bool))
    w = b.value_weights()
    assert list(w) == [2, 2, 0, 0]


def test_generator_drops_pass_labels_for_networks_without_pass(processed) -> None:
    gen = DataGenerator.from_folder(processed, "train", batch_size=8, num_moves=81)
    labels = np.concatenate([b.moves for b in gen.batches(loop=False)])
    assert labels.max() < 81


# --- sources, bench, CLI ------------------------------------------------------------------------------


def test_sources_folders_archives_and_loose_files(archives, tmp_path) -> None:
    loose = tmp_path / "loose"
    (loose / "sub").mkdir(parents=True)
    (loose / "sub" / "a.sgf").write_text(SPECIAL["even.sgf"])
    ids = list_game_ids([archives, loose, loose / "sub" / "a.sgf"])
    assert "KGS-2002-19-8-.tar.gz/KGS2002/even.sgf" in ids and "sub/a.sgf" in ids and "a.sgf" in ids
    assert len(ids) == 40 + len(SPECIAL) + 2
    wanted = {"KGS-2001-19-40-.tar.gz/KGS2001/g005.sgf"}
    records = list(iter_records([archives], wanted=wanted))
    assert [r.game_id for r in records] == list(wanted) and records[0].data.startswith(b"(;GM[1]")


def test_bench_reports_positive_rates(archives) -> None:
    from dlgo.data.bench import bench_pipeline

    result = bench_pipeline(games=20, board_size=9, jobs=1, batch_size=32, sources=[archives])
    assert 15 <= result["games"] <= 20 and result["positions"] > 0  # a few special records are skipped
    for key in ("process_positions_per_second", "stream_positions_per_second", "archive_to_batch_positions_per_second"):
        assert result[key] > 0


def test_cli_process_and_info(archives, tmp_path, capsys) -> None:
    from dlgo.data.__main__ import main

    out = tmp_path / "cli"
    args = ["process", "--out", str(out), "--sources", str(archives), "--size", "9", "--games", "12"]
    assert main([*args, "--test-games", "4", "-j", "1", "--test-fraction", "0.3"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["parts"]["train"]["games"] == 12 and summary["parts"]["test"]["games"] == 4
    assert main(["info", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["parts"] == summary["parts"]


SHARED = default_sources()


@pytest.mark.skipif(not SHARED, reason="../shared/data (kgs, tom9d archives) not found")
def test_a_few_games_of_the_shared_archives() -> None:
    archive = sorted(SHARED[-1].glob("*.tar.gz"))[0]
    encoder = get_encoder_by_name("zero", 19)
    for record in islice(iter_records([archive]), 3):
        s = samples_from_sgf(record.data, record.game_id, encoder)
        assert len(s) > 50 and s.move_numbers[0] == 0 and s.planes.shape[1:] == (19, 19, 16)


# --- download ------------------------------------------------------------------------------------------


class _RangeHandler(http.server.BaseHTTPRequestHandler):
    files: dict[str, bytes] = {}
    requests: list[str | None] = []
    cut: int | None = None  # drop the connection after this many bytes (once)

    def do_GET(self) -> None:  # noqa: N802
        data = self.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        rng = self.headers.get("Range")
        type(self).requests.append(rng)
        start = int(rng.split("=")[1].rstrip("-")) if rng else 0
        body = data[start:]
        self.send_response(206 if rng else 200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if type(self).cut is not None:
            self.wfile.write(body[: type(self).cut])
            type(self).cut = None
            self.wfile.flush()
            self.connection.close()
            return
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def server(archives):
    data = (archives / "KGS-2002-19-8-.tar.gz").read_bytes()
    index = b'<html><a href="KGS-2002-19-8-.tar.gz">x</a> <a href="/files/KGS-2001-19-40-.tar.gz">y</a></html>'
    _RangeHandler.files = {
        "/gamerecords/": index,
        "/gamerecords/KGS-2002-19-8-.tar.gz": data,
        "/files/KGS-2001-19-40-.tar.gz": (archives / "KGS-2001-19-40-.tar.gz").read_bytes(),
    }
    _RangeHandler.requests = []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _RangeHandler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_index_parsing_like_the_book() -> None:
    links = parse_index('<a href="https://dl.u-go.net/gamerecords/KGS-2017_12-19-1488-.tar.gz">', KGS_URL)
    assert [(link.filename, link.num_games, link.year) for link in links] == [
        ("KGS-2017_12-19-1488-.tar.gz", 1488, 2017)
    ]


KGS_URL = "https://u-go.net/gamerecords/"


def test_download_caches_index_and_skips_present_archives(server, tmp_path, archives) -> None:
    index = KGSIndex(f"{server}/gamerecords/", tmp_path / "dl")
    paths = index.download_files(jobs=2)
    assert [p.name for p in paths] == ["KGS-2002-19-8-.tar.gz", "KGS-2001-19-40-.tar.gz"]
    assert paths[0].read_bytes() == (archives / "KGS-2002-19-8-.tar.gz").read_bytes()
    assert (tmp_path / "dl" / "kgs_index.html").exists()
    n = len(_RangeHandler.requests)
    index.download_files()  # cached index, archives present: no request at all
    assert len(_RangeHandler.requests) == n
    assert len(list_game_ids([tmp_path / "dl"])) == 40 + len(SPECIAL)


def test_interrupted_download_resumes_with_range(server, tmp_path, archives) -> None:
    url = f"{server}/gamerecords/KGS-2002-19-8-.tar.gz"
    target = tmp_path / "a.tar.gz"
    _RangeHandler.cut = 100
    with pytest.raises(DownloadError, match="run again to resume"):
        download_file(url, target)
    assert not target.exists() and (tmp_path / "a.tar.gz.part").stat().st_size == 100
    download_file(url, target)
    assert _RangeHandler.requests[-1] == "bytes=100-"
    assert target.read_bytes() == (archives / "KGS-2002-19-8-.tar.gz").read_bytes()


def test_no_network_is_a_clear_error(tmp_path) -> None:
    index = KGSIndex("http://127.0.0.1:9/gamerecords/", tmp_path / "dl", timeout=5)
    with pytest.raises(DownloadError, match="cannot fetch http://127.0.0.1:9/gamerecords/.*Without network"):
        index.download_files()


def test_random_games_are_legal() -> None:
    text = random_game_sgf(random.Random(4).randrange(1000))
    s = samples_from_sgf(text, "r", zero9())
    assert len(s) == 14
