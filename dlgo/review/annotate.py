"""A reviewed game as SGF annotations: comments, marks and the root's summary.

Per move node (the position after the move):

- a comment after the record's own: ``Black 54.3% | B+1.2 | best D4 (B+2.0) | lost 0.8 points``,
  Black's win rate and the score after the move, the search's best move in the position before
  it with that move's score, and the points the move lost (``dlgo.review.judge``); ``~`` marks a
  score the analysis estimated (the agent has no score head). A second line names the class and
  the search's line where the move was not the best;
- SGF's move annotations (FF[4]): ``BM[2]`` a blunder, ``BM[1]`` a mistake, ``DO[]`` (doubtful)
  an inaccuracy, ``TE[1]`` the search's first choice;
- ``TR[]`` on the best move's point where another move was played (empty after the move too: a
  move only empties points of the other colour), so a viewer shows where the engine would have
  played;
- ``SBKV[54.30]``: Black's win rate in percent, which Sabaki draws as its win rate graph (Sabaki's
  own property: SabakiHQ/Sabaki issue 479). The root has the first position's.

The root's comment: the review's settings, each player's average points lost and counts of
classes, and the largest mistakes with their move numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dlgo.goboard import Move
from dlgo.gotypes import Player
from dlgo.review.analysis import TurnAnalysis
from dlgo.review.judge import CLASSES, MoveReview, Thresholds, judge_moves, summarize
from dlgo.sgf.record import SGF_LETTERS
from dlgo.utils import move_to_text

__all__ = ["Annotations", "annotate", "score_text", "LARGEST_SHOWN"]

LARGEST_SHOWN = 5  # mistakes listed in the root's summary
PV_SHOWN = 6  # moves of the search's line in a comment
_COLOUR = {Player.black: "Black", Player.white: "White"}
_LETTER = {Player.black: "B", Player.white: "W"}
_PROPERTIES = {"blunder": ("BM", "2"), "mistake": ("BM", "1"), "inaccuracy": ("DO", "")}


@dataclass
class Annotations:
    """What ``write_game`` takes: ``comments`` and ``node_properties`` aligned with the moves."""

    comments: list[str]
    node_properties: list[dict[str, list[str]]]
    root_comment: str
    root_properties: dict[str, list[str]] = field(default_factory=dict)
    reviews: list[MoveReview] = field(default_factory=list)


def score_text(black_lead: float, estimated: bool = False) -> str:
    """``B+1.2`` / ``W+0.8`` (``~`` in front when estimated: no score head)."""
    lead = round(black_lead, 1) + 0.0  # no "-0.0"
    text = f"B+{lead:.1f}" if lead >= 0 else f"W+{-lead:.1f}"
    return ("~" if estimated else "") + text


def _point(move: Move, rows: int) -> str:
    point = move.point
    return SGF_LETTERS[point.col - 1] + SGF_LETTERS[rows - point.row]


def _best_text(before: TurnAnalysis) -> str:
    best = before.best
    if best is None:
        return "best -"
    lead = best.score_lead if before.to_move is Player.black else -best.score_lead
    return f"best {move_to_text(best.move)} ({score_text(lead, before.score_estimated)})"


def _move_comment(review: MoveReview) -> str:
    after = review.after
    line = (
        f"{_COLOUR[Player.black]} {100.0 * after.black_winrate:.1f}% | "
        f"{score_text(after.black_score_lead, after.score_estimated)} | {_best_text(review.before)} | "
        f"lost {review.points_lost:.1f} points"
    )
    if review.is_best:
        return line + "\nThe engine's first choice."
    if review.category is None:
        return line
    pv = " ".join(move_to_text(m) for m in review.before.pv[:PV_SHOWN])
    return (
        f"{line}\n{review.category.capitalize()}: {_COLOUR[review.player]} lost {review.points_lost:.1f} points "
        f"and {100.0 * max(0.0, review.winrate_lost):.1f}% win rate. Engine's line: {pv}"
    )


def _move_properties(review: MoveReview, rows: int) -> dict[str, list[str]]:
    props: dict[str, list[str]] = {"SBKV": [f"{100.0 * review.after.black_winrate:.2f}"]}
    if review.is_best:
        props["TE"] = ["1"]
    elif review.category is not None:
        ident, value = _PROPERTIES[review.category]
        props[ident] = [value]
    best = review.before.best_move
    if best is not None and best.is_play and not review.is_best:
        props["TR"] = [_point(best, rows)]
    return props


def _count_text(count: int, name: str) -> str:
    plural = name[:-1] + "ies" if name.endswith("y") else name + "s"
    return f"{count} {name if count == 1 else plural}"


def _player_line(reviews: Sequence[MoveReview], player: Player, name: str | None) -> str:
    s = summarize(reviews, player)
    who = f"{_COLOUR[player]} ({name})" if name else _COLOUR[player]
    counts = ", ".join(_count_text(s.counts[c], c) for c in reversed(CLASSES))
    return (
        f"{who}: {_count_text(s.moves, 'move')}, {s.average_points_lost:.2f} points lost per move, {counts}; "
        f"the engine's first choice {_count_text(s.best_moves, 'time')}"
    )


def _root_comment(
    reviews: Sequence[MoveReview], thresholds: Thresholds, header: str, names: tuple[str | None, str | None]
) -> str:
    lines = [header] if header else []
    if any(r.before.score_estimated for r in reviews):
        lines.append(
            "Scores (~) are estimated from win rates and random playouts: the agent has no score head (docs/review.md)."
        )
    lines.append(f"Thresholds: {thresholds.describe()}.")
    lines.append("")
    lines.append(_player_line(reviews, Player.black, names[0]))
    lines.append(_player_line(reviews, Player.white, names[1]))
    largest = sorted((r for r in reviews if r.category is not None), key=lambda r: r.severity, reverse=True)[
        :LARGEST_SHOWN
    ]
    if largest:
        lines += ["", "Largest mistakes:"]
        for r in largest:
            best = r.before.best_move
            lines.append(
                f"  move {r.number} ({_LETTER[r.player]} {move_to_text(r.move)}): {r.category}, "
                f"{r.points_lost:.1f} points and {100.0 * max(0.0, r.winrate_lost):.0f}% win rate lost; "
                f"best {move_to_text(best) if best is not None else '-'}"
            )
    else:
        lines += ["", "No move lost enough to count as an inaccuracy."]
    return "\n".join(lines)


def _joined(own: str | None, review: str) -> str:
    """The record's own comment first, then the review."""
    return f"{own.rstrip()}\n\n{review}" if own and own.strip() else review


def annotate(
    moves: Sequence[tuple[Player, Move]],
    analyses: Sequence[TurnAnalysis],
    board_size: tuple[int, int],
    *,
    comments: Sequence[str | None] = (),
    root_comment: str | None = None,
    header: str = "",
    names: tuple[str | None, str | None] = (None, None),
) -> Annotations:
    """The annotations of a review: ``analyses`` from ``analyze_game`` on ``review_positions``
    (one per move and the final position), ``comments`` and ``root_comment`` the record's own
    (kept before the review's), ``header`` the summary's first line, ``names`` Black's and
    White's, ``board_size`` (rows, columns)."""
    rows, cols = board_size
    thresholds = Thresholds.for_board(rows, cols)
    reviews = judge_moves(moves, analyses, thresholds)
    own = list(comments) + [None] * (len(moves) - len(comments))
    return Annotations(
        comments=[_joined(own[i], _move_comment(r)) for i, r in enumerate(reviews)],
        node_properties=[_move_properties(r, rows) for r in reviews],
        root_comment=_joined(root_comment, _root_comment(reviews, thresholds, header, names)),
        root_properties={"SBKV": [f"{100.0 * analyses[0].black_winrate:.2f}"]},
        reviews=reviews,
    )
