"""The main loop: queries in, answers out (docs/Analysis_Engine.md, "Protocol").

Each input line is one request; queries are checked in the reading thread (errors and warnings
go out at once), their turns queued to the ``Analyzer``, whose workers write each answer when
its search ends: answers may come in any order, each tagged with its query's ``id`` and
``turnNumber``. Actions are answered at once, by echoing the request with what it asked for.
Nothing on the input ends the process: a bad line gets an error and the next line is read. At
the end of the input the engine finishes what is queued and exits, as KataGo does (with
``quit_without_waiting``, it terminates it: KataGo's ``-quit-without-waiting``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from typing import Any, BinaryIO

from dlgo import __version__
from dlgo.analysis import Analyzer, QueueFull
from dlgo.analysis.positions import ReplayCache
from dlgo.play.config import model_files
from dlgo.play.errors import PlayError
from dlgo_analysis.output import JsonWriter
from dlgo_analysis.protocol import Action, Limits, ProtocolError, Query, parse_line

__all__ = ["AnalysisEngine", "MAX_LINE_BYTES", "read_lines"]

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 16 << 20  # a 19x19 record of a thousand moves is 20 KB; a longer line is refused
_MAX_BATCH = 256  # BatchEvaluator's max_batch: the largest batch one network call runs


def read_lines(stream: BinaryIO, limit: int = MAX_LINE_BYTES) -> Iterator[bytes | None]:
    """The input's lines; None for a line longer than ``limit`` bytes (read and dropped in
    pieces, so that it never sits in memory whole)."""
    while True:
        line = stream.readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = stream.readline(limit)
            yield None
            continue
        yield line


class AnalysisEngine:
    """Reads requests, answers them through ``analyzer`` on ``writer``."""

    def __init__(self, analyzer: Analyzer, writer: JsonWriter, limits: Limits) -> None:
        self.analyzer = analyzer
        self.writer = writer
        self.limits = limits
        self.replays = ReplayCache()  # a game's queries share its positions while they wait

    def run(self, stream: BinaryIO, quit_without_waiting: bool = False) -> int:
        """Serve until the end of ``stream`` (or until the client stops reading); 0."""
        for raw in read_lines(stream):
            if self.writer.closed:
                log.info("the client closed our output: stopping")
                quit_without_waiting = True
                break
            if raw is None:
                self.writer.write({"error": f"Request line longer than {MAX_LINE_BYTES} bytes, ignoring it"})
                continue
            self.handle(raw)
        log.info("end of input: %s", "terminating the analysis" if quit_without_waiting else "finishing the queue")
        self.analyzer.close(finish=not quit_without_waiting)
        return 0

    def handle(self, raw: bytes | str) -> None:
        """One input line; never raises on what the line holds."""
        try:
            line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        except UnicodeDecodeError:
            self.writer.write({"error": "could not parse input line as json request: it is not UTF-8"})
            return
        if not line.strip():
            return
        try:
            request = parse_line(line, self.limits, self.replays)
            if isinstance(request, Action):
                self._action(request)
            else:
                self._query(request)
        except ProtocolError as e:
            self.writer.write(e.as_json())
        except Exception as e:  # noqa: BLE001 - a bug must cost one query, not the engine
            log.exception("request failed: %.200s", line)
            self.writer.write({"error": f"internal error: {type(e).__name__}: {e}"})

    # --- queries -------------------------------------------------------------------------------------
    def _query(self, query: Query) -> None:
        try:
            self.analyzer.check_board(query.rows, query.cols)
        except PlayError as e:
            raise ProtocolError(str(e), "boardXSize", query.query_id) from None
        for warning in query.warnings:
            self.writer.write(warning)
        if not query.turns:  # analyzeTurns: [] asks for nothing (KataGo answers nothing)
            return
        query_id = query.query_id

        def on_answer(answer: dict[str, Any]) -> None:
            self.writer.write({"id": query_id, **answer})

        def on_error(turn: int, message: str) -> None:
            self.writer.write({"error": message, "id": query_id, "turnNumber": turn})

        try:
            self.analyzer.submit(query_id, query.turns, query.options, on_answer, on_error, query.priorities)
        except QueueFull as e:
            raise ProtocolError(str(e), None, query_id) from None

    # --- actions -------------------------------------------------------------------------------------
    def _action(self, action: Action) -> None:
        out = dict(action.raw)
        if action.name == "query_version":
            out.update(version=__version__, git_hash="<omitted>", name="dlgo")
        elif action.name == "clear_cache":
            self.analyzer.clear_cache()
        elif action.name in ("terminate", "terminate_all"):
            self.analyzer.terminate(action.terminate_id, action.turns)
        elif action.name == "query_models":
            out["models"] = self._models()
        self.writer.write(out)

    def _models(self) -> list[dict[str, Any]]:
        """The networks the config plays (KataGo's ``query_models`` fields, and the board sizes
        each plays; ``version`` is its model card's format)."""
        from dlgo.inference.card import read_card

        models, seen = [], set()
        for key, path in model_files(self.analyzer.config):
            if not path or path in seen:  # one network often plays several sizes
                continue
            seen.add(path)
            entry: dict[str, Any] = {
                "name": path,
                "internalName": os.path.splitext(os.path.basename(path))[0],
                "maxBatchSize": _MAX_BATCH,
                "usesHumanSLProfile": False,
                "usingFP16": "false",
                "configKey": key,
            }
            try:
                card = read_card(path)
            except (OSError, ValueError):
                card = None
            if card is not None:
                entry["version"] = card.format
                entry["boardSizes"] = "any" if card.size_independent else list(card.board_sizes)
                entry["heads"] = list(card.heads)
            models.append(entry)
        return models
