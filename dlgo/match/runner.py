"""A match: N games between two engines, colours alternating, in parallel worker processes.

Output folder layout::

    match.json       the settings (a rerun must use the same ones: it resumes)
    results.jsonl    one finished game per line (see dlgo.match.record), appended as games end
    games/           game-0001.sgf ...
    logs/            each engine's stderr, per game
    summary.json     the summary so far (rewritten after every game), and summary.txt

A rerun with the same folder reads ``results.jsonl`` and plays only the games not there yet, so
an interrupted match (Ctrl-C, a crash, a reboot) loses at most the games in progress, and a
larger ``games`` extends a finished match. Game ``i`` (0-based) has the engine as Black when
``i`` is even.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dlgo.match.gnugo_count import GnuGoScorer
from dlgo.match.gtp_client import GtpClientError, GtpProcess
from dlgo.match.players import PlayerSpec
from dlgo.match.record import GameRecord, append_record, load_records, record_to_sgf, repair_records
from dlgo.match.referee import GameRules, play_game
from dlgo.match.summary import summarise, summary_text
from dlgo.parallel import follow_parent

__all__ = ["MatchSettings", "MatchResult", "MatchError", "run_match", "preflight", "players_of_game"]


class MatchError(RuntimeError):
    """A match that cannot start: bad settings, an engine that does not run, a folder of another match."""


@dataclass
class MatchSettings:
    engine: PlayerSpec
    opponent: PlayerSpec
    games: int
    rules: GameRules = field(default_factory=GameRules)
    jobs: int = 1
    gnugo_check: bool = True  # count every finished game with GNU Go too

    def __post_init__(self) -> None:
        if self.games < 0:
            raise ValueError("games must not be negative")
        if self.jobs < 1:
            raise ValueError("jobs must be at least 1")
        if self.engine.label == self.opponent.label:
            raise ValueError(f"both players are labelled {self.engine.label!r}: give them different names")

    def to_json(self) -> dict:
        return {
            "engine": self.engine.to_json(),
            "opponent": self.opponent.to_json(),
            "games": self.games,
            "rules": self.rules.to_json(),
            "jobs": self.jobs,
            "gnugo_check": self.gnugo_check,
        }

    @classmethod
    def from_json(cls, data: dict) -> MatchSettings:
        return cls(
            engine=PlayerSpec.from_json(data["engine"]),
            opponent=PlayerSpec.from_json(data["opponent"]),
            games=data["games"],
            rules=GameRules.from_json(data["rules"]),
            jobs=data.get("jobs", 1),
            gnugo_check=data.get("gnugo_check", True),
        )

    def describe(self) -> str:
        r = self.rules
        text = f"{r.size}x{r.size}, komi {r.komi:g}"
        if r.handicap:
            text += f", handicap {r.handicap} ({r.handicap_type})"
        return f"{text}, {r.describe_time()}"


@dataclass
class MatchResult:
    summary: dict
    records: list[GameRecord]
    interrupted: bool = False
    errors: list[str] = field(default_factory=list)
    elapsed: float = 0.0


def players_of_game(settings: MatchSettings, index: int) -> tuple[PlayerSpec, PlayerSpec]:
    """(black, white) of game ``index``: the engine takes Black in even games."""
    if index % 2 == 0:
        return settings.engine, settings.opponent
    return settings.opponent, settings.engine


# --- the output folder -----------------------------------------------------------------------


def _comparable(data: dict) -> dict:
    """Settings that must not change between runs into one folder (not games, jobs, python path)."""
    out = {"rules": data["rules"], "gnugo_check": data.get("gnugo_check", True)}
    for who in ("engine", "opponent"):
        p = dict(data[who])
        if p.get("kind") == "dlgo":
            p["argv"] = p["argv"][1:]  # the interpreter may move (another virtualenv)
        p.pop("cwd", None)
        out[who] = p
    return out


def _check_folder(out: Path, settings: MatchSettings) -> None:
    path = out / "match.json"
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise MatchError(f"{path}: unreadable ({e}); remove it or use another folder") from e
        before, now = _comparable(old), _comparable(settings.to_json())
        if before != now:
            changed = sorted(k for k in now if before.get(k) != now[k])
            raise MatchError(
                f"{out} holds a match with other settings ({', '.join(changed)} differ): "
                "use another output folder, or the same settings to resume"
            )
    out.mkdir(parents=True, exist_ok=True)
    (out / "games").mkdir(exist_ok=True)
    (out / "logs").mkdir(exist_ok=True)
    _write_atomic(path, json.dumps(settings.to_json(), indent=2) + "\n")


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def preflight(settings: MatchSettings, timeout: float = 120.0, log_dir: str | os.PathLike | None = None) -> None:
    """Start each engine once (``name``, ``boardsize``, ``quit``); MatchError when one cannot play.

    With ``log_dir``, each engine's stderr goes to ``preflight-LABEL.log`` there, and the end of
    it is quoted in the error.
    """
    size = settings.rules.size
    for spec in (settings.engine, settings.opponent):
        argv = spec.argv_for(size, settings.rules.seconds_per_move, settings.rules.visits)
        log = None if log_dir is None else Path(log_dir) / f"preflight-{spec.label}.log"
        if log is not None and log.exists():
            log.unlink()
        proc = GtpProcess(argv, spec.label, cwd=spec.cwd, stderr_path=log)
        try:
            proc.start()
            proc.send("name", timeout)
            ok, answer = proc.ask(f"boardsize {size}", timeout)
            if not ok:
                raise MatchError(f"{spec.label} cannot play {size}x{size}: ? {answer}")
        except GtpClientError as e:
            raise MatchError(
                f"{spec.label} does not work as a GTP engine: {e.message}\n  command: {' '.join(argv)}"
            ) from None
        finally:
            proc.close()


# --- running ---------------------------------------------------------------------------------


class _SigintDeferred:
    """Within ``with``, Ctrl-C (SIGINT) is held back: it is only noted in ``received``.

    On the way out the previous handler is restored and, when ``deliver`` is set and a SIGINT
    came, called (Python's default raises KeyboardInterrupt there, after the guarded writes are
    whole). A no-op outside the main thread, or where SIGINT is ignored or not handled by Python.
    """

    def __init__(self, deliver: bool = True) -> None:
        self.deliver = deliver
        self.received = False
        self._frame: Any = None
        self._old: Any = None

    def _note(self, signum: int, frame: Any) -> None:
        self.received = True
        self._frame = frame

    def __enter__(self) -> _SigintDeferred:
        if threading.current_thread() is threading.main_thread():
            old = signal.getsignal(signal.SIGINT)
            if callable(old):
                self._old = old
                signal.signal(signal.SIGINT, self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._old is None:
            return
        signal.signal(signal.SIGINT, self._old)
        if self.received and self.deliver and exc[0] is None:
            self._old(signal.SIGINT, self._frame)


class _Output:
    """Everything written when a game ends, and the progress display."""

    def __init__(self, out: Path, settings: MatchSettings, records: dict[int, GameRecord], progress: bool) -> None:
        self.out = out
        self.settings = settings
        self.records = records
        self.bar = self.status = None
        if progress:
            from tqdm import tqdm

            self.bar = tqdm(
                total=settings.games,
                initial=sum(1 for i in records if i < settings.games),
                desc=f"{settings.engine.label} vs {settings.opponent.label}",
                unit="game",
                file=sys.stderr,
                dynamic_ncols=True,
            )
            self.status = tqdm(total=0, position=1, bar_format="{desc}", file=sys.stderr, leave=True)
            self.status.set_description_str(self.score_line())

    def score_line(self, last: GameRecord | None = None) -> str:
        s = self.summary()
        if not s["games"]:
            return "score: no game finished yet"
        line = (
            f"score: {s['engine']} {s['engine_wins']} - {s['opponent_wins']} {s['opponent']}"
            f" ({100 * s['win_rate']:.0f}%, 95% CI {100 * s['win_rate_95'][0]:.0f}-{100 * s['win_rate_95'][1]:.0f}%)"
        )
        if last is not None:
            line += f" | game {last.index + 1}: {last.result} ({last.reason})"
        return line

    def summary(self) -> dict:
        planned = max(self.settings.games, max(self.records, default=-1) + 1)
        return summarise(self.records.values(), self.settings.engine.label, self.settings.opponent.label, planned)

    def finish(self, record: GameRecord) -> None:
        """Keep a finished game: SGF, a line of results.jsonl, the summary. Ctrl-C waits until all
        three are written, so the summary never lags behind results.jsonl and no line is torn."""
        with _SigintDeferred():
            (self.out / "games" / f"game-{record.index + 1:04d}.sgf").write_text(
                record_to_sgf(record), encoding="utf-8"
            )
            append_record(self.out / "results.jsonl", record)
            self.records[record.index] = record
            self.write_summary()
        if self.bar is not None:
            self.bar.update(1)
            self.status.set_description_str(self.score_line(record))

    def write_summary(self) -> dict:
        summary = self.summary()
        summary["settings"] = self.settings.describe()
        _write_atomic(self.out / "summary.json", json.dumps(summary, indent=2) + "\n")
        _write_atomic(self.out / "summary.txt", summary_text(summary, header=self.header()))
        return summary

    def header(self) -> str:
        return f"# {self.settings.describe()}; output {self.out}"

    def close(self) -> None:
        for bar in (self.status, self.bar):
            if bar is not None:
                bar.close()


def run_match(
    settings: MatchSettings,
    out_dir: str | os.PathLike,
    *,
    progress: bool = True,
    check_engines: bool = True,
    on_game: Callable[[GameRecord], None] | None = None,
) -> MatchResult:
    """Play the games of ``settings`` not yet in ``out_dir``; return the summary of all of them.

    Ctrl-C stops the games in progress (their engines are killed) and returns with
    ``interrupted`` set; every game finished before is kept and summarised.
    """
    out = Path(out_dir)
    began = time.monotonic()
    _check_folder(out, settings)
    repair_records(out / "results.jsonl")  # a line torn by a kill must not swallow the next one
    records = load_records(out / "results.jsonl")
    todo = [i for i in range(settings.games) if i not in records]
    output = _Output(out, settings, records, progress)
    errors: list[str] = []
    interrupted = False
    try:
        if todo and check_engines:
            preflight(settings, log_dir=out / "logs")
        if settings.jobs == 1 or len(todo) <= 1:
            interrupted = _run_here(settings, todo, out, output, on_game, errors)
        else:
            interrupted = _run_workers(settings, todo, out, output, on_game, errors)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        output.close()
    # Only this thread appends to results.jsonl, and the workers are gone by now (a game they
    # finished after Ctrl-C was drained and kept, or is discarded with their queue): the summary
    # is made from what the file holds, the record of the match that a resume will read.
    with _SigintDeferred(deliver=False) as late:
        records = load_records(out / "results.jsonl")
        output.records = records
        summary = output.write_summary()
    interrupted = interrupted or late.received
    return MatchResult(
        summary, sorted(records.values(), key=lambda r: r.index), interrupted, errors, time.monotonic() - began
    )


def _play_index(settings: MatchSettings, index: int, scorer: GnuGoScorer | None, out: Path) -> GameRecord:
    black, white = players_of_game(settings, index)
    return play_game(black, white, settings.rules, index=index, scorer=scorer, log_dir=out / "logs")


def _run_here(
    settings: MatchSettings,
    todo: list[int],
    out: Path,
    output: _Output,
    on_game: Callable[[GameRecord], None] | None,
    errors: list[str],
) -> bool:
    scorer = GnuGoScorer() if settings.gnugo_check else None
    try:
        for index in todo:
            try:
                record = _play_index(settings, index, scorer, out)
            except Exception:  # a referee bug: report, keep the match going
                errors.append(f"game {index + 1}: {traceback.format_exc()}")
                continue
            output.finish(record)
            if on_game is not None:
                on_game(record)
    except KeyboardInterrupt:
        return True
    finally:
        if scorer is not None:
            scorer.close()
    return False


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _worker(tasks: Any, results: Any, settings_json: dict, out: str, parent: int) -> None:
    """A worker process: plays the games it takes from ``tasks`` until it gets None, and ends
    with the match process however that ends (a worker left behind by ``kill`` went on playing
    the whole match)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops us with SIGTERM
    signal.signal(signal.SIGTERM, _exit_on_term)
    follow_parent(parent, own_term_handler=True)
    settings = MatchSettings.from_json(settings_json)
    scorer = GnuGoScorer() if settings.gnugo_check else None
    try:
        while True:
            index = tasks.get()
            if index is None:
                break
            try:
                record = _play_index(settings, index, scorer, Path(out))
            except Exception:
                results.put(("error", index, traceback.format_exc()))
                continue
            results.put(("done", index, record.to_json()))
    finally:
        if scorer is not None:
            scorer.close()


def _run_workers(
    settings: MatchSettings,
    todo: list[int],
    out: Path,
    output: _Output,
    on_game: Callable[[GameRecord], None] | None,
    errors: list[str],
) -> bool:
    ctx = multiprocessing.get_context("spawn")
    tasks, results = ctx.Queue(), ctx.Queue()
    jobs = min(settings.jobs, len(todo))
    for index in todo:
        tasks.put(index)
    for _ in range(jobs):
        tasks.put(None)
    workers = [
        ctx.Process(
            target=_worker, args=(tasks, results, settings.to_json(), str(out), os.getpid()), name=f"duel-worker-{k}"
        )
        for k in range(jobs)
    ]
    for w in workers:
        w.start()
    remaining = len(todo)
    try:
        while remaining:
            try:
                message = results.get(timeout=0.5)
            except queue.Empty:
                if not any(w.is_alive() for w in workers):
                    try:  # a last message may still be in the pipe
                        message = results.get(timeout=1.0)
                    except queue.Empty:
                        errors.append(f"workers ended with {remaining} games unplayed")
                        break
                else:
                    continue
            remaining -= 1
            with _SigintDeferred():  # a game taken off the queue is kept whole, Ctrl-C or not
                record = _keep(message, output, errors)
            if record is not None and on_game is not None:
                on_game(record)
        return False
    except KeyboardInterrupt:
        _drain(results, output, errors, on_game)
        return True
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()  # SIGTERM: the worker closes its engines on the way out
        deadline = time.monotonic() + 15.0
        for w in workers:
            w.join(timeout=max(0.1, deadline - time.monotonic()))
            if w.is_alive():
                w.kill()
                w.join(timeout=5.0)
        for q in (tasks, results):
            q.cancel_join_thread()
            q.close()


def _keep(message: tuple, output: _Output, errors: list[str]) -> GameRecord | None:
    """A worker's message: a finished game is written out (and returned), an error noted."""
    kind, index, payload = message
    if kind == "error":
        errors.append(f"game {index + 1}: {payload}")
        return None
    record = GameRecord.from_json(payload)
    output.finish(record)
    return record


def _drain(results: Any, output: _Output, errors: list[str], on_game: Callable[[GameRecord], None] | None) -> None:
    """Keep the games that finished while Ctrl-C was being pressed (before the workers are stopped:
    a game that ends after this is discarded with the queue, never written after the summary)."""
    while True:
        try:
            message = results.get_nowait()
        except (queue.Empty, OSError, ValueError, EOFError):
            return
        with _SigintDeferred():
            record = _keep(message, output, errors)
        if record is not None and on_game is not None:
            on_game(record)
