"""Throughput of the data pipeline: positions per second from archive to training batch.

Two stages are timed on the same games: processing (archives -> SGF -> samples -> encoded,
packed chunk files, in ``jobs`` worker processes; done once per data set) and streaming (chunk
files -> shuffled, symmetry-augmented float32 batches; done every epoch, in the training process).
The cold figure divides all positions by both times together.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dlgo.data.generator import DataGenerator, Prefetch
from dlgo.data.processor import GoDataProcessor
from dlgo.data.split import Split

__all__ = ["bench_pipeline"]


def bench_pipeline(
    games: int = 200,
    encoder: str = "zero",
    board_size: int = 19,
    jobs: int | None = None,
    batch_size: int = 256,
    sources: Sequence[str | os.PathLike] | None = None,
    folder: str | os.PathLike | None = None,
    prefetch: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="dlgo-bench-") as tmp:
        out = Path(folder) if folder is not None else Path(tmp)
        processor = GoDataProcessor(encoder, board_size, out, sources=sources, split=Split(test_fraction=0.0))
        started = time.perf_counter()
        manifest = processor.process(train_games=games, test_games=0, jobs=jobs, progress=progress)
        process_s = time.perf_counter() - started
        positions = manifest.positions("train")
        gen = DataGenerator.from_folder(out, "train", batch_size=batch_size, seed=0)
        started = time.perf_counter()
        stream = gen.batches(augment=True, loop=False)
        it = Prefetch(stream) if prefetch else stream
        streamed = sum(len(b) for b in it)
        stream_s = time.perf_counter() - started
        chunk_bytes = sum(p.stat().st_size for p, _ in manifest.chunks("train"))
    return {
        "games": manifest.games("train"),
        "positions": positions,
        "encoder": encoder,
        "board_size": board_size,
        "jobs": jobs or os.cpu_count(),
        "cpu_count": os.cpu_count(),
        "process_seconds": round(process_s, 2),
        "process_positions_per_second": round(positions / process_s, 1),
        "stream_seconds": round(stream_s, 2),
        "stream_positions_per_second": round(streamed / stream_s, 1),
        "archive_to_batch_positions_per_second": round(positions / (process_s + stream_s), 1),
        "bytes_per_position_on_disk": round(chunk_bytes / max(1, positions), 1),
        "batch_size": batch_size,
        "skipped_games": manifest.data["parts"]["train"]["skipped_games"],
    }
