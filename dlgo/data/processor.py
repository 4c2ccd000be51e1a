"""Processing game archives into chunk files, in parallel worker processes (book 7.2.2-7.2.4).

    processor = GoDataProcessor("zero", 19, "runs/data-zero19")
    manifest = processor.process(train_games=20000, test_games=500, jobs=2)

1. List the game ids of the sources (2 s for the 87,000 shared games) and split them by game
   (``dlgo.data.split``): the first ``train_games`` training games and ``test_games`` test games in
   hash order.
2. Stream the archives once; group the selected records into tasks of ``games_per_chunk`` games.
3. Each worker reads its records (``dlgo.sgf``), turns them into samples (``dlgo.data.samples``)
   and writes one chunk file (``dlgo.data.chunks``): ``train/chunk-00000.npz``, ``test/...``.
4. ``manifest.json`` records the request (encoder, size, split, counts, sources), the chunks with
   their sizes, and what was skipped and why: malformed records, other board sizes, games
   without samples; moves not sampled (passes for encoders without a pass index, a colour moving
   out of turn); results that mask the value target (time, forfeit, void, unknown).

Nothing here imports Keras. Workers are spawned (not forked), so a parent that has loaded
TensorFlow does not hand its threads to them.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import Counter, deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dlgo.data.archives import default_sources, iter_records, list_game_ids
from dlgo.data.chunks import concat_packed, pack_planes, write_chunk
from dlgo.data.samples import SkipGame, samples_from_sgf
from dlgo.data.split import Split
from dlgo.encoders import Encoder, get_encoder_by_name

__all__ = ["GoDataProcessor", "Manifest", "load_manifest", "MANIFEST", "PARTS", "ManifestMismatch"]

MANIFEST = "manifest.json"
MANIFEST_FORMAT = 1
PARTS = ("train", "test")
MAX_ERRORS = 20


class ManifestMismatch(ValueError):
    """A data folder holds chunks made for another request."""


@dataclass
class _Task:
    part: str
    index: int
    path: str
    encoder: str
    board_size: int
    records: list[tuple[str, bytes]]


@dataclass
class _TaskResult:
    part: str
    file: str | None
    games: int = 0
    positions: int = 0
    value_positions: int = 0
    handicap_games: int = 0
    skipped: Counter = field(default_factory=Counter)
    skipped_moves: Counter = field(default_factory=Counter)
    results: Counter = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


_ENCODERS: dict[tuple[str, int], Encoder] = {}


def _encoder(name: str, size: int) -> Encoder:
    key = (name, size)
    if key not in _ENCODERS:
        _ENCODERS[key] = get_encoder_by_name(name, size)
    return _ENCODERS[key]


def _run_task(task: _Task) -> _TaskResult:
    """Worker: one chunk file from a list of records (never raises for a bad record)."""
    encoder = _encoder(task.encoder, task.board_size)
    out = _TaskResult(task.part, None)
    packed, moves, values, masks, games, numbers, ids = [], [], [], [], [], [], []
    for game_id, data in task.records:
        try:
            s = samples_from_sgf(data, game_id, encoder)
        except SkipGame as e:
            out.skipped[e.reason] += 1
            if len(out.errors) < MAX_ERRORS:
                out.errors.append(str(e))
            continue
        out.games += 1
        out.positions += len(s)
        out.value_positions += int(s.value_mask.sum())
        out.handicap_games += int(s.handicap >= 2)
        out.results[s.result.kind] += 1
        out.skipped_moves.update(s.skipped)
        packed.append(pack_planes(s.planes))
        moves.append(s.moves)
        values.append(s.values)
        masks.append(s.value_mask)
        games.append(np.full(len(s), len(ids), dtype=np.int32))
        numbers.append(s.move_numbers)
        ids.append(game_id)
    if ids:
        write_chunk(
            task.path,
            concat_packed(packed),
            np.concatenate(moves),
            np.concatenate(values),
            np.concatenate(masks),
            np.concatenate(games),
            np.concatenate(numbers),
            ids,
            encoder.name(),
        )
        out.file = os.path.basename(task.path)
    return out


@dataclass
class Manifest:
    """What a data folder holds (``manifest.json``)."""

    folder: Path
    data: dict[str, Any]

    def chunks(self, part: str) -> list[tuple[Path, int]]:
        """(chunk path, samples) of ``part`` ("train" or "test")."""
        return [(self.folder / part / c["file"], int(c["positions"])) for c in self.data["parts"][part]["chunks"]]

    def positions(self, part: str) -> int:
        return int(self.data["parts"][part]["positions"])

    def games(self, part: str) -> int:
        return int(self.data["parts"][part]["games"])

    @property
    def encoder(self) -> str:
        return str(self.data["encoder"])

    @property
    def board_size(self) -> int:
        return int(self.data["board_size"])

    @property
    def split(self) -> Split:
        return Split.from_dict(self.data["split"])


def load_manifest(folder: str | os.PathLike) -> Manifest:
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no processed data here (run python -m dlgo.data process)") from None
    if data.get("format") != MANIFEST_FORMAT:
        raise ValueError(f"{path}: manifest format {data.get('format')}, this code reads {MANIFEST_FORMAT}")
    return Manifest(Path(folder), data)


class GoDataProcessor:
    """Turns archives into train/test chunk folders (the book's ``GoDataProcessor``)."""

    def __init__(
        self,
        encoder: str = "zero",
        board_size: int = 19,
        data_directory: str | os.PathLike = "runs/data",
        sources: Sequence[str | os.PathLike] | None = None,
        split: Split | None = None,
        games_per_chunk: int = 48,
    ) -> None:
        self.encoder_name = encoder
        self.board_size = int(board_size)
        self.encoder = get_encoder_by_name(encoder, self.board_size)
        self.data_dir = Path(data_directory)
        self.sources = [Path(s) for s in sources] if sources is not None else default_sources()
        if not self.sources:
            raise FileNotFoundError(
                "no game archives: give sources, or put the archives in ../shared/data/kgs and ../shared/data/tom9d "
                "(or set DLGO_DATA)"
            )
        self.split = split or Split()
        self.games_per_chunk = max(1, int(games_per_chunk))

    # --- the request and reuse ----------------------------------------------------------------
    def request(self, train_games: int | None, test_games: int | None) -> dict[str, Any]:
        return {
            "encoder": self.encoder_name,
            "board_size": self.board_size,
            "split": self.split.to_dict(),
            "sources": sorted(s.name for s in self.sources),
            "train_games": train_games,
            "test_games": test_games,
        }

    def matches(self, train_games: int | None, test_games: int | None) -> Manifest | None:
        """The existing manifest when it was made for exactly this request, else None."""
        try:
            manifest = load_manifest(self.data_dir)
        except (FileNotFoundError, ValueError):
            return None
        return manifest if manifest.data.get("request") == self.request(train_games, test_games) else None

    def load_or_process(
        self, train_games: int | None, test_games: int | None, jobs: int | None = None, progress: bool = True
    ) -> Manifest:
        """Reuse the folder's chunks when they answer this request; process into an empty folder
        otherwise (``ManifestMismatch`` if the folder holds other data)."""
        manifest = self.matches(train_games, test_games)
        if manifest is not None:
            return manifest
        if (self.data_dir / MANIFEST).exists():
            old = json.loads((self.data_dir / MANIFEST).read_text(encoding="utf-8")).get("request")
            raise ManifestMismatch(
                f"{self.data_dir} holds data made for {old}, not {self.request(train_games, test_games)}: "
                "choose another --data folder or delete this one"
            )
        return self.process(train_games, test_games, jobs=jobs, progress=progress)

    # --- processing -------------------------------------------------------------------------------
    def _tasks(self, part_of: dict[str, str], errors: list[str]) -> Iterator[_Task]:
        buffers: dict[str, list[tuple[str, bytes]]] = {p: [] for p in PARTS}
        counters = dict.fromkeys(PARTS, 0)

        def task(part: str) -> _Task:
            index = counters[part]
            counters[part] += 1
            records, buffers[part] = buffers[part], []
            path = self.data_dir / part / f"chunk-{index:05d}.npz"
            return _Task(part, index, str(path), self.encoder_name, self.board_size, records)

        def on_error(where: str, e: Exception) -> None:
            errors.append(f"{where}: {type(e).__name__}: {e}")

        for record in iter_records(self.sources, wanted=part_of, on_error=on_error):
            part = part_of[record.game_id]
            buffers[part].append((record.game_id, record.data))
            if len(buffers[part]) >= self.games_per_chunk:
                yield task(part)
        for part in PARTS:
            if buffers[part]:
                yield task(part)

    def process(
        self,
        train_games: int | None = None,
        test_games: int | None = None,
        jobs: int | None = None,
        progress: bool = True,
    ) -> Manifest:
        """Process the selected games into ``data_directory``; returns the manifest written."""
        from tqdm import tqdm

        started = time.perf_counter()
        archive_errors: list[str] = []
        ids = list_game_ids(self.sources, on_error=lambda w, e: archive_errors.append(f"{w}: {e}"))
        train, test = self.split.select(ids, train_games, test_games)
        part_of = {g: "train" for g in train} | {g: "test" for g in test}
        for part in PARTS:
            (self.data_dir / part).mkdir(parents=True, exist_ok=True)
        jobs = max(1, int(jobs or os.cpu_count() or 1))
        results: list[_TaskResult] = []
        bar = tqdm(total=len(part_of), unit="game", desc=f"processing ({jobs} workers)", disable=not progress)
        tasks = self._tasks(part_of, archive_errors)
        try:
            if jobs == 1:
                for t in tasks:
                    results.append(_run_task(t))
                    bar.update(len(t.records))
            else:
                for r, n in _parallel(tasks, jobs):
                    results.append(r)
                    bar.update(n)
                    bar.set_postfix(positions=sum(x.positions for x in results), refresh=False)
        finally:
            bar.close()
        seconds = time.perf_counter() - started
        data = self._manifest_data(results, train_games, test_games, archive_errors, seconds, len(ids))
        path = self.data_dir / MANIFEST
        tmp = path.with_name(MANIFEST + ".tmp")
        tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(tmp, path)
        return Manifest(self.data_dir, data)

    def _manifest_data(
        self,
        results: list[_TaskResult],
        train_games: int | None,
        test_games: int | None,
        archive_errors: list[str],
        seconds: float,
        games_listed: int,
    ) -> dict[str, Any]:
        parts: dict[str, Any] = {}
        for part in PARTS:
            rs = sorted((r for r in results if r.part == part), key=lambda r: r.file or "")
            skipped: Counter = Counter()
            skipped_moves: Counter = Counter()
            kinds: Counter = Counter()
            for r in rs:
                skipped.update(r.skipped)
                skipped_moves.update(r.skipped_moves)
                kinds.update(r.results)
            parts[part] = {
                "games": sum(r.games for r in rs),
                "positions": sum(r.positions for r in rs),
                "value_positions": sum(r.value_positions for r in rs),
                "handicap_games": sum(r.handicap_games for r in rs),
                "skipped_games": dict(sorted(skipped.items())),
                "skipped_moves": dict(sorted(skipped_moves.items())),
                "results": dict(sorted(kinds.items())),
                "chunks": [{"file": r.file, "positions": r.positions} for r in rs if r.file],
            }
        errors = archive_errors + [e for r in results for e in r.errors]
        positions = parts["train"]["positions"] + parts["test"]["positions"]
        return {
            "format": MANIFEST_FORMAT,
            "request": self.request(train_games, test_games),
            "encoder": self.encoder_name,
            "board_size": self.board_size,
            "shape": list(self.encoder.shape()),
            "num_moves": self.encoder.num_moves(),
            "split": self.split.to_dict(),
            "sources": [str(s) for s in self.sources],
            "games_listed": games_listed,
            "parts": parts,
            "errors": errors[:MAX_ERRORS],
            "error_count": len(archive_errors) + sum(sum(r.skipped.values()) for r in results),
            "seconds": round(seconds, 2),
            "positions_per_second": round(positions / seconds, 1) if seconds > 0 else None,
        }


def _parallel(tasks: Iterable[_Task], jobs: int) -> Iterator[tuple[_TaskResult, int]]:
    """Run tasks in ``jobs`` spawned processes, at most ``4 * jobs`` in flight (bounded memory)."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(jobs) as pool:
        pending: deque = deque()
        for t in tasks:
            pending.append((pool.apply_async(_run_task, (t,)), len(t.records)))
            while len(pending) >= 4 * jobs or (pending and pending[0][0].ready()):
                r, n = pending.popleft()
                yield r.get(), n
        while pending:
            r, n = pending.popleft()
            yield r.get(), n
