"""Reviewing a list of jobs: one analyser for them all, a progress bar, one line per failure.

The bar counts positions across every record still to review (a record of ``n`` moves is
``n + 1`` searches) and shows the records done. A record that cannot be read, or whose board
no agent of the config plays, is one line on stderr naming the file and why; the others go on.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm import tqdm
from tqdm.contrib.logging import logging_redirect_tqdm

from dlgo import __version__
from dlgo.analysis import Analyzer
from dlgo.handicap import handicap_compensation
from dlgo.play.errors import PlayError
from dlgo.review import analyze_game, record_root, review_positions, reviewed_sgf
from dlgo.sgf import SgfError, SgfGame, read_game
from dlgo_review.jobs import Job, is_done, write_atomically

__all__ = ["Outcome", "review_jobs"]

PROG = "dlgo-review"
log = logging.getLogger("dlgo_review")


@dataclass
class Outcome:
    reviewed: int = 0
    skipped: int = 0
    failed: int = 0
    interrupted: bool = False


def _say(message: str) -> None:
    tqdm.write(f"{PROG}: {message}", file=sys.stderr)


def _header(analyzer: Analyzer, game: SgfGame, visits: int) -> str:
    rows, cols = game.board_size
    spec = analyzer.pool.agents.resolve(rows, cols)
    agent = "?" if spec is None else spec[0]
    model = spec[1].get("model") if spec is not None else None
    if model:
        agent += f" ({os.path.basename(model)})"
    return f"dlgo review ({PROG} {__version__}): {visits} visits per position, agent {agent}"


def _review_one(analyzer: Analyzer, job: Job, game: SgfGame, visits: int, bar: tqdm) -> None:
    rule = analyzer.config.get("engine.handicap_compensation")
    komi = game.komi + handicap_compensation(game.handicap, rule)
    positions = review_positions(game, komi=komi)
    analyses = analyze_game(analyzer, positions, visits, progress=lambda _: bar.update(1))
    text, _ = reviewed_sgf(game, analyses, header=_header(analyzer, game, visits), root=record_root(job.source))
    write_atomically(job.target, text)
    log.info("%s: reviewed into %s", job.source, job.target)


def _read(job: Job, outcome: Outcome, log_repairs: bool = True) -> SgfGame | None:
    try:
        return read_game(job.source, log_repairs=log_repairs)
    except SgfError as e:
        _say(f"{job.source}: {e.reason}")
    except OSError as e:  # read_game words most; a race with a deleted file is left
        _say(f"{job.source}: cannot read: {e.strerror or e}")
    outcome.failed += 1
    return None


def review_jobs(
    analyzer: Analyzer, jobs: Sequence[Job], visits: int, *, resume: bool, progress: bool | None
) -> Outcome:
    """Review ``jobs`` in order (``resume``: skip those already done); see the module's docstring.
    ``progress``: show the bar (None: when stderr is a terminal)."""
    outcome = Outcome()
    todo = []
    for job in jobs:
        if resume and is_done(job):
            outcome.skipped += 1
            log.info("%s: already reviewed in %s", job.source, job.target)
        else:
            todo.append(job)
    if outcome.skipped:
        _say(f"skipping {outcome.skipped} record(s) already reviewed (--force reviews them again)")
    # Counted first, so that the bar's total is right; read again to review (a folder of
    # records kept in memory with all their positions would be large).
    counts = {}
    for job in todo:
        game = _read(job, outcome, log_repairs=False)  # logged when it is reviewed
        if game is not None:
            counts[job] = len(game.moves) + 1
    with (
        logging_redirect_tqdm(),
        tqdm(
            total=sum(counts.values()), unit="pos", file=sys.stderr, disable=None if progress is None else not progress
        ) as bar,
    ):
        try:
            for done, job in enumerate(counts):
                bar.set_description(f"games {done}/{len(counts)}")
                game = _read(job, outcome)
                if game is None:
                    continue
                before = bar.n
                try:
                    _review_one(analyzer, job, game, visits, bar)
                except PlayError as e:  # no agent for the board size, a broken network, ...
                    _say(f"{job.source}: {e}")
                    outcome.failed += 1
                    bar.update(counts[job] - (bar.n - before))
                except OSError as e:
                    _say(f"{job.target}: cannot write: {e.strerror or e}")
                    outcome.failed += 1
                except Exception as e:  # noqa: BLE001 - a record we did not foresee costs that record only
                    log.debug("reviewing %s failed", job.source, exc_info=True)
                    _say(f"{job.source}: cannot review: {type(e).__name__}: {e}")
                    outcome.failed += 1
                    bar.update(counts[job] - (bar.n - before))
                else:
                    outcome.reviewed += 1
            bar.set_description(f"games {len(counts)}/{len(counts)}")
        except KeyboardInterrupt:
            outcome.interrupted = True
    return outcome
