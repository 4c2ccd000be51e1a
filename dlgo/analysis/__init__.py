"""Analysis of positions as KataGo's analysis engine gives it (docs/analysis.md).

``Analyzer`` runs many turns at once on the config's agents, their network work merged into
shared batches (``dlgo.inference.shared``); ``positions.replay`` turns a game record into the
positions of its turns; ``report`` formats a search as KataGo's answer; ``perspective`` turns
values to the side they are reported from. The front end speaking KataGo's JSON protocol is
``dlgo_analysis``.
"""

from __future__ import annotations

from dlgo.analysis.analyzer import DEFAULT_MAX_QUEUED, DEFAULT_THREADS, Analyzer
from dlgo.analysis.options import MoveFilter, TurnOptions
from dlgo.analysis.positions import GameRecord, RecordError, ReplayCache, replay
from dlgo.analysis.scheduler import DEFAULT_MAX_QUEUED_BYTES, QueueFull
from dlgo.rules import RulesError, RuleSet, parse_rules

__all__ = [
    "Analyzer",
    "DEFAULT_THREADS",
    "DEFAULT_MAX_QUEUED",
    "DEFAULT_MAX_QUEUED_BYTES",
    "TurnOptions",
    "MoveFilter",
    "GameRecord",
    "RecordError",
    "ReplayCache",
    "replay",
    "RuleSet",
    "RulesError",
    "parse_rules",
    "QueueFull",
]
