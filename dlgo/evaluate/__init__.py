"""Evaluating models on game records: ``python -m dlgo.evaluate policy --model FILE --sgf PATH``."""

from __future__ import annotations

from dlgo.evaluate.policy import PolicyScore, evaluate_policy, record_in_card, score_batch

__all__ = ["PolicyScore", "evaluate_policy", "record_in_card", "score_batch"]
