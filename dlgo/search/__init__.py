"""The search wing: what every search agent shares, and the PUCT search that the Zero and
AlphaGo agents (book chapters 13-14) stand on side by side; MCTS with rollouts (book chapter 4)
uses the shared budget, result and agent interface.

- ``base``: ``SearchBudget``, ``SearchResult``/``CandidateInfo`` (one result type for analysis),
  ``SearchAgent`` (the interface the GTP engine, self-play and benchmarks call).
- ``tree``: ``ZeroTreeNode`` (branches as arrays), ``NodeAux`` (a network's ownership and score
  per node), ``puct_scores``, ``terminal_value``.
- ``report``: the tree read into a ``SearchResult`` (candidates, PVs, and KataGo's averaged
  ownership and score leads when the network has those heads).
- ``settings``: ``SearchSettings``, the one typed object of search settings (each with its one
  name, default and range; the engine's ``zero`` config keys come from it).
- ``settled``: the count a network's ownership head implies, believed at a leaf it settles
  (``SearchSettings.settled_count``): the komi that a value head trained at one komi ignores.
- ``puct``: ``PUCTSearch`` (batched leaf evaluation with virtual loss, tree reuse, root noise,
  early stop) and ``SearchStatistics`` (training targets).
- ``arena``, ``compiled``: the same search on a tree of numba arrays (``CompiledPUCTSearch``):
  each batch's descents, board play, superko, leaf encoding and backup in one compiled call that
  releases the GIL; what the Zero agent searches on (``zero.tree``).
- ``agent``: ``PUCTAgent``, the generic PUCT ``SearchAgent`` on any evaluator (the compiled tree
  where the evaluator supports it).
- ``zero_agent``: ``ZeroAgent``, ``PUCTAgent`` on a Zero network (book 14), the agent the GTP
  engine plays and the Zero training loop (``dlgo.zero``) searches with.
"""

from dlgo.lazy import lazy_names
from dlgo.search.base import (
    CandidateInfo,
    ProgressCallback,
    SearchAgent,
    SearchBudget,
    SearchResult,
    lower_confidence_bound,
)

# The PUCT search compiles with numba: loaded on first use, so that the GTP engine's start-up
# (which only needs the interface above) stays fast.
_LAZY = {
    "PUCTAgent": "dlgo.search.agent",
    "ZeroAgent": "dlgo.search.zero_agent",
    "Evaluator": "dlgo.search.puct",
    "PUCTSearch": "dlgo.search.puct",
    "CompiledPUCTSearch": "dlgo.search.compiled",
    "SearchSettings": "dlgo.search.settings",
    "SearchStatistics": "dlgo.search.puct",
    "dirichlet_alpha": "dlgo.search.puct",
    "visit_distribution": "dlgo.search.puct",
    "ZeroTreeNode": "dlgo.search.tree",
    "puct_scores": "dlgo.search.tree",
    "terminal_value": "dlgo.search.tree",
}


__getattr__ = lazy_names(__name__, _LAZY)


__all__ = [
    "SearchBudget",
    "CandidateInfo",
    "SearchResult",
    "SearchAgent",
    "ProgressCallback",
    "lower_confidence_bound",
    "PUCTAgent",
    "ZeroAgent",
    "Evaluator",
    "PUCTSearch",
    "CompiledPUCTSearch",
    "SearchSettings",
    "SearchStatistics",
    "dirichlet_alpha",
    "visit_distribution",
    "ZeroTreeNode",
    "puct_scores",
    "terminal_value",
]
