"""Model files and fast inference.

- ``save_model`` / ``load_model``: ``.keras`` file plus a JSON model card beside it
  (``dlgo.nn.card``), checked on load (``ModelFileError`` names the file and the problem).
- ``BatchEvaluator``: batched evaluation of game states through ONNX Runtime or a compiled
  function, with a position cache and board symmetries (``dlgo.nn.evaluator``).
- ``make_runner``: the raw runners (``dlgo.nn.runners``).

Importing this package does not import Keras or TensorFlow; loading or running a model does.
"""

from __future__ import annotations

from dlgo.nn.card import ModelCard, card_path, read_card
from dlgo.nn.evaluator import BatchEvaluator
from dlgo.nn.files import LoadedModel, ModelFileError, load_model, save_model
from dlgo.nn.runners import make_runner

__all__ = [
    "ModelCard",
    "card_path",
    "read_card",
    "BatchEvaluator",
    "LoadedModel",
    "ModelFileError",
    "load_model",
    "save_model",
    "make_runner",
]
