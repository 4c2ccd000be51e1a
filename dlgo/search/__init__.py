"""The search wing: what every search agent shares, and the PUCT search that the Zero and
AlphaGo agents (book chapters 13-14) stand on side by side; MCTS with rollouts (book chapter 4)
uses the shared budget, result and agent interface.

- ``base``: ``SearchBudget``, ``SearchResult``/``CandidateInfo`` (one result type for analysis),
  ``SearchAgent`` (the interface the GTP engine, self-play and benchmarks call).
- ``tree``: ``ZeroTreeNode`` (branches as arrays), ``puct_scores``, ``terminal_value``.
- ``puct``: ``PUCTSearch`` (batched leaf evaluation with virtual loss, tree reuse, root noise,
  early stop) and ``SearchStatistics`` (training targets).
- ``agent``: ``PUCTAgent``, the generic PUCT ``SearchAgent`` on any evaluator.
"""

from dlgo.search.agent import PUCTAgent
from dlgo.search.base import (
    CandidateInfo,
    ProgressCallback,
    SearchAgent,
    SearchBudget,
    SearchResult,
    lower_confidence_bound,
)
from dlgo.search.puct import (
    Evaluator,
    PUCTSearch,
    SearchSettings,
    SearchStatistics,
    dirichlet_alpha,
    visit_distribution,
)
from dlgo.search.tree import ZeroTreeNode, puct_scores, terminal_value

__all__ = [
    "SearchBudget",
    "CandidateInfo",
    "SearchResult",
    "SearchAgent",
    "ProgressCallback",
    "lower_confidence_bound",
    "PUCTAgent",
    "Evaluator",
    "PUCTSearch",
    "SearchSettings",
    "SearchStatistics",
    "dirichlet_alpha",
    "visit_distribution",
    "ZeroTreeNode",
    "puct_scores",
    "terminal_value",
]
