"""Game review: every move of a record searched, judged in points lost, and written as SGF.

    game = read_game("game.sgf")
    analyses = analyze_game(config, review_positions(game), visits=200)   # an Analyzer, or a config
    text, notes = reviewed_sgf(game, analyses, header="dlgo review, 200 visits")

- :mod:`dlgo.review.analysis`: ``analyze_game``, the one source of the review's numbers (the
  analysis library's ``dlgo.analysis.Analyzer``: ``TurnAnalysis`` per position), and
  ``review_positions``;
- :mod:`dlgo.review.judge`: points lost (KaTrain's definition), classes and their thresholds;
- :mod:`dlgo.review.annotate`: comments, SGF marks and the root's summary;
- :mod:`dlgo.review.record`: the reviewed SGF text, with what the record had besides.

The command line is the ``dlgo_review`` front end (``dlgo-review``); docs/review.md.
"""

from dlgo.review.analysis import (
    AnalysisFailed,
    AnalysisStopped,
    Candidate,
    TurnAnalysis,
    analyze_game,
    review_positions,
)
from dlgo.review.annotate import Annotations, annotate
from dlgo.review.judge import MoveReview, Thresholds
from dlgo.review.record import RecordRoot, record_root, reviewed_sgf

__all__ = [
    "AnalysisFailed",
    "AnalysisStopped",
    "Annotations",
    "Candidate",
    "MoveReview",
    "RecordRoot",
    "Thresholds",
    "TurnAnalysis",
    "analyze_game",
    "annotate",
    "record_root",
    "review_positions",
    "reviewed_sgf",
]
