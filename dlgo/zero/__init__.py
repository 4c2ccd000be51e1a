"""AlphaGo Zero style search (book chapter 14, thesis B4-B5).

- ``tree``: ``ZeroTreeNode`` (branches as arrays: priors, visits, total values), ``puct_scores``.
- ``search``: ``PUCTSearch``, batched leaf evaluation with virtual loss, exact scoring of
  finished games, tree reuse, root noise, early stop; ``SearchStatistics`` for training.
- ``agent``: ``ZeroAgent``, the SearchAgent the GTP engine and self-play use.

Importing this package loads no Keras or TensorFlow; ``ZeroAgent.from_model`` does unless an ONNX
export of the model is cached (``dlgo.nn.onnx_cache``).
"""

from dlgo.zero.agent import ZeroAgent, default_temperature_moves
from dlgo.zero.search import (
    Evaluator,
    PUCTSearch,
    SearchSettings,
    SearchStatistics,
    dirichlet_alpha,
    visit_distribution,
)
from dlgo.zero.tree import ZeroTreeNode, puct_scores, terminal_value

__all__ = [
    "ZeroAgent",
    "default_temperature_moves",
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
