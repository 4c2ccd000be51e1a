"""``python -m dlgo.data``: process archives into chunks, measure the pipeline, download.

python -m dlgo.data process --out runs/data-zero19 --games 20000 --test-games 500 -j 2
python -m dlgo.data bench --games 300 -j 2
python -m dlgo.data info runs/data-zero19
python -m dlgo.data download --dest data/kgs [--url https://u-go.net/gamerecords/]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from dlgo.data.split import DEFAULT_SEED, DEFAULT_TEST_FRACTION, Split


def _split_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--split-seed", type=int, default=DEFAULT_SEED, help="seed of the train/test split by game")
    p.add_argument("--test-fraction", type=float, default=DEFAULT_TEST_FRACTION, help="share of games held out")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dlgo.data", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("process", help="archives -> train/test chunk files")
    p.add_argument("--out", required=True, help="folder for the chunks and manifest.json")
    p.add_argument("--sources", nargs="+", help="folders, archives or .sgf files (default: ../shared/data/kgs, tom9d)")
    p.add_argument("--encoder", default="zero")
    p.add_argument("--size", type=int, default=19)
    p.add_argument("--games", type=int, help="training games (default: all)")
    p.add_argument("--test-games", type=int, default=500, help="held-out games to process (default 500)")
    p.add_argument("--games-per-chunk", type=int, default=48)
    p.add_argument("-j", "--jobs", type=int, help="worker processes (default: one per core)")
    _split_args(p)

    b = sub.add_parser("bench", help="positions/s from archive to training batch")
    b.add_argument("--sources", nargs="+")
    b.add_argument("--encoder", default="zero")
    b.add_argument("--size", type=int, default=19)
    b.add_argument("--games", type=int, default=200)
    b.add_argument("--batch-size", type=int, default=256)
    b.add_argument("-j", "--jobs", type=int)

    i = sub.add_parser("info", help="print a data folder's manifest summary")
    i.add_argument("folder")

    d = sub.add_parser("download", help="fetch the u-go.net KGS archives (needs network)")
    d.add_argument("--dest", required=True, help="folder for the archives (and the cached index page)")
    d.add_argument("--url", default=None, help="index page (default: https://u-go.net/gamerecords/)")
    d.add_argument("--max-archives", type=int)
    d.add_argument("--refresh", action="store_true", help="fetch the index page again")
    d.add_argument("-j", "--jobs", type=int, default=4)

    args = parser.parse_args(argv)
    if args.command == "process":
        from dlgo.data.processor import GoDataProcessor

        processor = GoDataProcessor(
            args.encoder,
            args.size,
            args.out,
            sources=args.sources,
            split=Split(args.split_seed, args.test_fraction),
            games_per_chunk=args.games_per_chunk,
        )
        manifest = processor.process(args.games, args.test_games, jobs=args.jobs)
        print(json.dumps(_summary(manifest.data), indent=2))
    elif args.command == "bench":
        from dlgo.data.bench import bench_pipeline

        result = bench_pipeline(
            args.games, args.encoder, args.size, args.jobs, args.batch_size, sources=args.sources, progress=True
        )
        print(json.dumps(result, indent=2))
    elif args.command == "info":
        from dlgo.data.processor import load_manifest

        print(json.dumps(_summary(load_manifest(args.folder).data), indent=2))
    elif args.command == "download":
        from dlgo.data.download import KGS_INDEX_URL, DownloadError, KGSIndex

        index = KGSIndex(args.url or KGS_INDEX_URL, args.dest)
        try:
            paths = index.download_files(jobs=args.jobs, max_archives=args.max_archives, refresh=args.refresh)
        except DownloadError as e:
            print(f"dlgo.data download: {e}", file=sys.stderr)
            return 1
        print(json.dumps({"archives": [str(p) for p in paths]}, indent=2))
    return 0


def _summary(data: dict) -> dict:
    parts = {
        name: {k: v for k, v in part.items() if k != "chunks"} | {"chunks": len(part["chunks"])}
        for name, part in data["parts"].items()
    }
    keep = ("encoder", "board_size", "shape", "split", "sources", "games_listed", "error_count", "errors")
    return {k: data[k] for k in keep} | {
        "parts": parts,
        "seconds": data["seconds"],
        "positions_per_second": data["positions_per_second"],
    }


if __name__ == "__main__":
    sys.exit(main())
