"""Model files and fast inference.

- ``save_model`` / ``load_model``: ``.keras`` file plus a JSON model card beside it
  (``dlgo.inference.card``), checked on load (``ModelFileError`` names the file and the problem).
- ``BatchEvaluator``: batched evaluation of game states through ONNX Runtime or a compiled
  function, with a position cache and board symmetries (``dlgo.inference.evaluator``);
  ``runtime="int8"`` runs the model's int8 quantized ONNX model (``dlgo.inference.quantize``).
- ``make_runner``: the raw runners (``dlgo.inference.runners``).

Importing this package does not import Keras or TensorFlow; loading or running a model does.
The names below load their module on first use, so ``dlgo.inference.files`` (the engine's start-up
check of its model files) costs no compiled kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dlgo.lazy import lazy_names

if TYPE_CHECKING:
    from dlgo.inference.card import ModelCard, card_path, read_card
    from dlgo.inference.evaluator import BatchEvaluator
    from dlgo.inference.files import LoadedModel, ModelFileError, load_model, save_model
    from dlgo.inference.runners import make_runner

_HOME = {
    "ModelCard": "card",
    "card_path": "card",
    "read_card": "card",
    "BatchEvaluator": "evaluator",
    "LoadedModel": "files",
    "ModelFileError": "files",
    "load_model": "files",
    "save_model": "files",
    "make_runner": "runners",
}


__getattr__ = lazy_names(__name__, {name: f".{module}" for name, module in _HOME.items()})


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
