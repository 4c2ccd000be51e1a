"""Read every record of game archives with dlgo.sgf and, optionally, with GNU Go as the referee.

    .venv/bin/python experiments/sgf_scan.py [ARCHIVE_OR_FOLDER ...] [--every N] [--gnugo] [--compare N]

Archives are ``.tar.gz`` files of ``.sgf`` records (the book's KGS layout; default: every archive
under ``../shared/data``). Each record is read with ``dlgo.sgf.read_game``; the summary counts the
records refused (by reason) and those read with repairs (by kind) or with notes (ko cycles legal
under the record's own rules). With ``--gnugo`` every refused or repaired record, plus
``--compare N`` others spread over the sample, is also loaded by GNU Go (``loadsgf``) and the final
positions and colours to move are compared. ``--keep DIR`` writes the refused and repaired records
there for a closer look. GNU Go is found as in the tests (PATH or /usr/games).
"""

from __future__ import annotations

import argparse
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.players import find_gnugo
from dlgo.sgf import SgfError, SgfGame, read_game
from dlgo.utils import coords_from_point

ROOT = Path(__file__).resolve().parents[1]  # the checkout; the archives default to ../shared/data beside it


def archives(paths: list[str]) -> list[Path]:
    found: list[Path] = []
    for text in paths or [str(ROOT.parent / "shared" / "data")]:
        path = Path(text)
        found += sorted(path.rglob("*.tar.gz")) if path.is_dir() else [path]
    return found


def records(paths: list[Path], every: int):
    """(label, bytes) of every ``every``-th ``.sgf`` member of each archive."""
    for archive in paths:
        with tarfile.open(archive) as tar:
            index = -1
            for member in tar:
                if not (member.isfile() and member.name.endswith(".sgf")):
                    continue
                index += 1
                if index % every == 0:
                    yield f"{archive.name}:{member.name}", tar.extractfile(member).read()


class GnuGoReferee:
    """GNU Go (Chinese rules, level 1) through the GTP client, restarted when a file kills it."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.engine = self._start()

    def _start(self) -> GtpProcess:
        engine = GtpProcess([self.path, "--mode", "gtp", "--chinese-rules", "--level", "1"], label="GNU Go")
        engine.start()
        return engine

    def load(self, data: bytes) -> tuple[str | None, dict[str, str] | None]:
        """GNU Go's colour to move and stones after ``loadsgf`` (None, None: refused or died)."""
        with tempfile.NamedTemporaryFile(suffix=".sgf") as f:
            f.write(data)
            f.flush()
            try:
                ok, colour = self.engine.ask(f"loadsgf {f.name}", timeout=None)
            except GtpClientError:  # GNU Go exits on some broken files ("expected: ]")
                self.engine.close()
                self.engine = self._start()
                return None, None
            if not ok:
                return None, None
            stones = {}
            for c in ("black", "white"):
                for vertex in self.engine.send(f"list_stones {c}", timeout=None).split():
                    stones[vertex.upper()] = c
            return colour, stones


def our_position(game: SgfGame) -> tuple[str, dict[str, str]]:
    final = game.final_state
    return final.next_player.name, {coords_from_point(p): c.name for p, c in final.board.stones()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", help="archives or folders of archives (default: ../shared/data)")
    parser.add_argument("--every", type=int, default=1, help="read every N-th record of each archive")
    parser.add_argument("--gnugo", action="store_true", help="compare with GNU Go's loadsgf")
    parser.add_argument("--compare", type=int, default=0, help="also compare N unrepaired records")
    parser.add_argument("--keep", type=Path, help="write refused and repaired records here")
    args = parser.parse_args(argv)

    referee = None
    if args.gnugo:
        path = find_gnugo()
        if path is None:
            parser.error("GNU Go not found (PATH or /usr/games)")
        referee = GnuGoReferee(path)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
    paths = archives(args.paths)
    total = 0
    refused: Counter[str] = Counter()
    repaired: Counter[str] = Counter()
    noted = with_repairs = 0
    gnugo: Counter[str] = Counter()
    examples: dict[str, str] = {}
    started = time.monotonic()
    sample = list(records(paths, args.every))
    stride = max(1, len(sample) // args.compare) if args.compare else 0
    for i, (label, data) in enumerate(sample):
        total += 1
        try:
            game = read_game(data, name=label, log_repairs=False)
        except SgfError as e:
            reason = e.reason.split(":")[0]
            refused[reason] += 1
            examples.setdefault(f"refused: {reason}", f"{label}: {e.reason}")
            game = None
        else:
            with_repairs += bool(game.repairs)
            for kind in sorted({r.kind for r in game.repairs}):
                repaired[kind] += 1
                examples.setdefault(f"repaired: {kind}", f"{label}: {game.repairs[0].message}")
            noted += bool(game.notes)
            if game.notes:
                examples.setdefault("noted", f"{label}: {game.notes[0]}")
        odd = game is None or game.repairs or game.notes
        if odd and args.keep:
            (args.keep / label.replace("/", "__").replace(":", "__")).write_bytes(data)
        if referee is not None and (odd or (stride and i % stride == 0)):
            theirs = referee.load(data)
            ours = our_position(game) if game is not None else (None, None)
            if theirs[0] is None:
                gnugo["GNU Go refuses"] += 1
                gnugo["... and so do we"] += game is None
            elif game is None:
                gnugo["GNU Go loads, we refuse"] += 1
            else:
                gnugo["both load"] += 1
                gnugo["... same stones"] += ours[1] == theirs[1]
                gnugo["... same colour to move"] += ours[0] == theirs[0]
                if ours != theirs:
                    examples.setdefault("differs from GNU Go", label)
    print(f"{total} records from {len(paths)} archives in {time.monotonic() - started:.0f} s")
    print(f"refused: {sum(refused.values())}  {dict(refused)}")
    print(f"read with repairs: {with_repairs}  by kind {dict(repaired)}")
    print(f"read with notes (ko cycles legal under the record's rules): {noted}")
    if referee is not None:
        print(f"GNU Go: {dict(gnugo)}")
    for key, text in sorted(examples.items()):
        print(f"  e.g. {key}: {text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
