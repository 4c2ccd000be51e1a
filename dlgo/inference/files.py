"""Saving and loading models: ``.keras`` file plus model card, with checks that fail clearly.

A network may also arrive as its ONNX export alone (``x.onnx`` with ``x.card.json``, as the
installed package ships its networks): it plays through ONNX Runtime without Keras, and a path
``x.keras`` that is absent names it too (:func:`network_file`), so one config serves a checkout
(which has the ``.keras``) and the package (which has only the exports). It cannot be trained.

``save_model(model, path, encoder, ...)`` writes both files atomically (a finished checkpoint is
never lost half-written). ``load_model(path, encoder=..., board_size=..., heads=...)`` loads
the model and checks that the card's encoder exists and that the model's input planes, board
size and output sizes agree with it and with what the caller expects; any mismatch raises
``ModelFileError`` with one message naming the file.
"""

from __future__ import annotations

import datetime
import json
import os
import zipfile
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dlgo.encoders import ENCODER_NAMES, Encoder, get_encoder_by_name
from dlgo.inference.card import ModelCard, card_path, read_card, write_card

if TYPE_CHECKING:
    import keras

__all__ = [
    "ModelFileError",
    "LoadedModel",
    "save_model",
    "load_model",
    "check_model",
    "model_heads",
    "HEADS",
    "head_size",
]


class ModelFileError(ValueError):
    """A model file that cannot be used as asked: missing, unreadable or mismatched."""


# Every head a model card may name. "ownership" (final owner per point, tanh, player to move)
# and "score" (final score difference / SCORE_SCALE, player to move) are KataGo's auxiliary heads.
HEADS = ("policy", "value", "ownership", "score")


def model_heads(model: keras.Model) -> list[str]:
    """The head of each output, by output name (a name containing one of ``HEADS``), else a
    single output of size 1 is a value and a wider one a policy."""
    names = list(getattr(model, "output_names", None) or [model.layers[-1].name])
    shapes = model.output_shape if isinstance(model.output_shape, list) else [model.output_shape]
    heads = []
    for name, shape in zip(names, shapes):
        named = [h for h in HEADS if h in name]
        heads.append(named[0] if named else "value" if shape[-1] == 1 else "policy")
    return heads


def head_size(head: str, encoder: Encoder) -> int:
    """Entries per position of ``head`` for ``encoder``'s board."""
    if head == "policy":
        return encoder.num_moves()
    return encoder.board_height * encoder.board_width if head == "ownership" else 1


def _input_shape(model: keras.Model, extra_inputs: bool = False) -> list[int | None]:
    """The board input's (rows, cols, planes). With ``extra_inputs`` the board is the first of
    several inputs (the Q network's board and action, book 11.2), which can be saved with a card
    but not played by the runners."""
    shape = model.input_shape
    if isinstance(shape, list):
        if not extra_inputs:
            raise ValueError("models with several inputs are not supported here")
        shape = shape[0]
    return list(shape[1:])


ONNX_SUFFIX = ".onnx"


def network_file(path: str | os.PathLike) -> Path:
    """The file that plays for ``path``: ``path`` itself, or, for an absent ``x.keras``, its ONNX
    export ``x.onnx`` beside it when that is there (a network shipped without its Keras file)."""
    path = Path(path)
    if path.suffix == ".keras" and not path.exists():
        export = path.with_suffix(ONNX_SUFFIX)
        if export.is_file():
            return export
    return path


def is_onnx_network(path: str | os.PathLike) -> bool:
    """True for a network given as its ONNX export (no Keras model behind it)."""
    return Path(path).suffix == ONNX_SUFFIX


class LoadedModel:
    """A model file's card and its Keras model, with the file it came from.

    ``load_model(..., lazy=True)`` checks the card only and leaves the Keras model unloaded:
    ``model`` loads it (importing Keras and TensorFlow) on first use, with the same checks.
    An ONNX export cached for the file (``dlgo.inference.onnx_cache``) then plays without it.
    """

    def __init__(self, model: Any, card: ModelCard, path: Path | None = None, *, checks: dict | None = None) -> None:
        self._model = model
        self.card = card
        self.path = path
        self._checks = dict(checks or {})  # load_model's arguments for a lazy load
        self._encoders: dict = {}

    @property
    def model(self) -> Any:
        """The Keras model (loaded now if ``load_model`` was lazy)."""
        if self._model is None:
            if self.path is None:
                raise ModelFileError("no model file to load")
            if is_onnx_network(self.path):
                raise ModelFileError(
                    f"{self.path}: an ONNX network plays but has no Keras model (training and "
                    "exporting need its .keras file)"
                )
            self._model = load_model(self.path, **self._checks).model
        return self._model

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    def __repr__(self) -> str:
        return f"LoadedModel(path={self.path}, encoder={self.card.encoder!r}, loaded={self.model_loaded})"

    def encoder(self, board_size: int | tuple[int, int] | None = None) -> Encoder:
        """The card's encoder for ``board_size`` (default: the first size on the card)."""
        size = board_size if board_size is not None else self.card.board_sizes[0]
        key = size if isinstance(size, tuple) else (size, size)
        if key not in self._encoders:
            self._encoders[key] = get_encoder_by_name(self.card.encoder, key)
        return self._encoders[key]

    @property
    def heads(self) -> list[str]:
        return list(self.card.heads)


def _versions() -> dict[str, str]:
    import keras

    from dlgo import __version__

    return {"dlgo": __version__, "keras": keras.__version__, "backend": keras.backend.backend()}


def save_model(
    model: keras.Model,
    path: str | os.PathLike,
    encoder: Encoder | str,
    board_sizes: Sequence[int] | None = None,
    *,
    card: ModelCard | None = None,
    **card_fields: Any,
) -> ModelCard:
    """Save ``model`` to ``path`` (``.keras``) with its card; returns the card written.

    Shape fields (encoder, planes, heads, input shape, parameter count, versions) are filled in
    from the model; ``card_fields`` (training, metrics, strength, notes, network) add the rest. A
    model with more inputs than the board (first) lists them in ``network.inputs``.
    """
    path = Path(path)
    if path.suffix != ".keras":
        raise ModelFileError(f"{path}: model files end in .keras")
    encoder_name = encoder if isinstance(encoder, str) else encoder.name()
    if board_sizes is None:
        if isinstance(encoder, str):
            raise ValueError("board_sizes is required when the encoder is given by name")
        board_sizes = [encoder.board_width]
    input_shape = _input_shape(model, extra_inputs=True)
    base = card.to_dict() if card is not None else {}
    base.update(card_fields)
    network = dict(base.get("network") or {})
    network.setdefault("name", model.name)
    if len(model.inputs) > 1:
        network["inputs"] = [t.name for t in model.inputs]
    network["parameters"] = int(model.count_params())
    base.update(
        encoder=encoder_name,
        board_sizes=[int(s) for s in board_sizes],
        num_planes=int(input_shape[-1]),
        heads=model_heads(model),
        input_shape=input_shape,
        network=network,
        versions=_versions(),
    )
    base.setdefault("created", datetime.datetime.now(datetime.UTC).replace(microsecond=0).isoformat())
    new_card = ModelCard.from_dict(base)
    _check(path, new_card, input_shape, _output_sizes(model))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".tmp.keras")
    model.save(tmp)
    os.replace(tmp, path)
    write_card(path, new_card)
    return new_card


def _output_sizes(model: keras.Model) -> list[int | None]:
    shapes = model.output_shape if isinstance(model.output_shape, list) else [model.output_shape]
    return [shape[-1] for shape in shapes]


def _check(path: Path, card: ModelCard, input_shape: list[int | None], output_sizes: list[int | None]) -> None:
    def fail(problem: str) -> ModelFileError:
        return ModelFileError(f"{path}: {problem}")

    if card.encoder not in ENCODER_NAMES:
        raise fail(f"unknown encoder {card.encoder!r} on the model card (known: {', '.join(ENCODER_NAMES)})")
    if not card.board_sizes:
        raise fail("the model card lists no board size")
    if len(input_shape) != 3:
        raise fail(f"expected input (rows, cols, planes), the model takes {tuple(input_shape)}")
    if len(card.heads) != len(output_sizes) or any(h not in HEADS for h in card.heads):
        raise fail(f"model card heads {card.heads} do not match the model's {len(output_sizes)} outputs")
    for size in card.board_sizes:
        encoder = get_encoder_by_name(card.encoder, size)
        rows, cols, planes = encoder.shape()
        if input_shape[2] != planes:
            raise fail(
                f"encoder {card.encoder!r} gives {planes} planes but the model takes {input_shape[2]} "
                "(trained with another encoder?)"
            )
        if input_shape[0] not in (None, rows) or input_shape[1] not in (None, cols):
            raise fail(f"the model takes {input_shape[0]}x{input_shape[1]} boards, the card says {size}x{size}")
        for head, n in zip(card.heads, output_sizes):
            expected = head_size(head, encoder)
            if n is not None and n != expected:
                raise fail(f"{head} output has {n} entries, encoder {card.encoder!r} at {size}x{size} needs {expected}")


def check_model(
    path: str | os.PathLike,
    card: ModelCard,
    input_shape: Sequence[int | None],
    output_sizes: Sequence[int | None],
    board_size: int | None = None,
    heads: Sequence[str] | None = None,
) -> None:
    """Check a model (its input shape and output sizes, in the card's head order) against its
    card and the caller's ``board_size`` and ``heads``; ``ModelFileError`` naming the file."""
    path = Path(path)
    input_shape = list(input_shape)
    _check(path, card, input_shape, list(output_sizes))
    if card.input_shape and list(card.input_shape) != input_shape:
        raise ModelFileError(f"{path}: the model takes {input_shape}, its card says {card.input_shape}")
    if board_size is not None and board_size not in card.board_sizes:
        if input_shape[0] is not None:
            raise ModelFileError(
                f"{path}: the model plays {input_shape[0]}x{input_shape[1]} only, not {board_size}x{board_size}"
            )
        at_size = ModelCard.from_dict({**card.to_dict(), "board_sizes": [board_size]})
        _check(path, at_size, input_shape, list(output_sizes))
    for head in heads or ():
        if head not in card.heads:
            raise ModelFileError(f"{path}: the model has no {head} head (it has {', '.join(card.heads)})")


_HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
_KERAS_MEMBERS = ("config.json", "model.weights.h5")  # what Keras 3 needs inside a .keras zip
_ONNX_FIRST_BYTE = b"\x08"  # an ONNX file is a ModelProto whose first field is ir_version (1, varint)


def check_model_file(path: str | os.PathLike) -> ModelCard:
    """The card of ``path`` once the file itself looks usable, without importing Keras.

    Cheap checks that catch what users actually have: a missing or unreadable file, a truncated
    or damaged ``.keras`` (it is a zip: the directory, every member's CRC, the members Keras
    needs, a JSON architecture and an HDF5 weights file), and a missing or malformed card.
    ``ModelFileError`` (one line naming the file) otherwise.
    """
    path = network_file(path)
    if not path.exists():
        raise ModelFileError(f"{path}: model file not found")
    if not path.is_file():
        raise ModelFileError(f"{path}: not a regular file")
    try:
        with open(path, "rb") as f:
            head = f.read(8)
    except OSError as e:
        raise ModelFileError(f"{path}: cannot read the model file: {e.strerror or e}") from None
    if path.suffix == ".keras":
        _check_keras_zip(path)
    elif path.suffix == ".h5" and head != _HDF5_SIGNATURE:
        raise ModelFileError(f"{path}: not an HDF5 model file")
    elif is_onnx_network(path):
        _check_onnx(path, head)
    return card_of(path)


def _check_onnx(path: Path, head: bytes) -> None:
    """An ONNX network file: a protobuf whose top-level fields all lie within the file (a cut or
    foreign file fails here, before ONNX Runtime is asked to open it)."""
    from dlgo.inference.onnx_meta import OnnxFormatError, read_metadata

    if head[:1] != _ONNX_FIRST_BYTE:
        raise ModelFileError(f"{path}: not an ONNX model file")
    try:
        read_metadata(path)
    except OnnxFormatError as e:
        raise ModelFileError(f"{path}: not a usable ONNX model file ({e})") from None


def _check_keras_zip(path: Path) -> None:
    def fail(problem: str) -> ModelFileError:
        return ModelFileError(f"{path}: not a usable .keras model file ({problem})")

    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
            missing = [m for m in _KERAS_MEMBERS if m not in names]
            if missing:
                raise fail(f"it lacks {', '.join(missing)}")
            damaged = z.testzip()  # reads every member: catches a cut or corrupted body
            if damaged is not None:
                raise fail(f"{damaged} is damaged")
            config = json.loads(z.read("config.json").decode("utf-8"))
            with z.open("model.weights.h5") as weights:
                signature = weights.read(8)
    except zipfile.BadZipFile:
        raise fail("truncated, or not a zip archive") from None
    except (OSError, EOFError, zlib.error, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise fail(f"damaged: {e}") from None
    if not isinstance(config, dict) or "class_name" not in config:
        raise fail("config.json is not a Keras model architecture")
    if signature != _HDF5_SIGNATURE:
        raise fail("model.weights.h5 is not an HDF5 file")


def load_model(
    path: str | os.PathLike,
    encoder: str | None = None,
    board_size: int | None = None,
    heads: Sequence[str] | None = None,
    compile: bool = False,
    lazy: bool = False,
) -> LoadedModel:
    """Load ``path`` and its card, checking shapes and the caller's expectations.

    ``encoder``: the encoder name the caller will feed (must match the card). ``board_size``: the
    size to play (must be on the card unless the network is size-independent). ``heads``: heads
    the caller needs (e.g. ``["policy", "value"]`` for Zero search). ``lazy``: check the card
    only and load the Keras model at its first use (no Keras import here).
    """
    path = network_file(path)
    card = check_model_file(path)  # before Keras: its message for a damaged zip is "File not found"
    if encoder is not None and encoder != card.encoder:
        raise ModelFileError(f"{path}: the model was trained with encoder {card.encoder!r}, not {encoder!r}")
    if card.encoder not in ENCODER_NAMES:
        raise ModelFileError(f"{path}: unknown encoder {card.encoder!r} on the model card")
    if is_onnx_network(path) and not lazy:
        raise ModelFileError(f"{path}: an ONNX network plays but has no Keras model to load (its .keras file does)")
    if lazy and len(card.input_shape) == 3:
        # What the card promises is checked now; the model itself when it is loaded.
        check_model(path, card, card.input_shape, [None] * len(card.heads), board_size, heads)
        checks = {"encoder": encoder, "board_size": board_size, "heads": heads, "compile": compile}
        return LoadedModel(None, card, path, checks=checks)

    import keras

    import dlgo.networks  # noqa: F401  (custom objects, if any, register on import)

    try:
        model = keras.saving.load_model(path, compile=compile)
    except Exception as e:  # Keras raises many types for a bad file
        raise ModelFileError(f"{path}: cannot load the Keras model: {e}") from e
    try:
        input_shape = _input_shape(model)
    except ValueError as e:
        raise ModelFileError(f"{path}: {e}") from None
    check_model(path, card, input_shape, _output_sizes(model), board_size, heads)
    return LoadedModel(model, card, path)


def card_of(path: str | os.PathLike) -> ModelCard:
    """The card of a model file without loading Keras (``ModelFileError`` if missing)."""
    try:
        return read_card(path)
    except ValueError as e:
        raise ModelFileError(str(e)) from None


__all__ += ["card_of", "card_path", "check_model_file", "HEADS", "network_file", "is_onnx_network"]
