"""Ways to run a Keras model on a batch of planes, fastest first.

A runner is called with a float32 array ``(n, rows, cols, planes)`` and returns one numpy array
per model output, in the model's output order.

- ``OnnxRunner``: the model exported to ONNX (Keras' own ``model.export(format="onnx")``) and
  run by ONNX Runtime. Fastest on CPU by far (no framework dispatch per call).
- ``CompiledRunner``: the model call compiled once per input signature: ``tf.function`` with a
  fixed signature (batch and, for size-independent nets, board size left open) under the
  TensorFlow backend, ``jax.jit`` over ``stateless_call`` under JAX, ``torch.no_grad`` under
  PyTorch.
- ``PredictRunner``: ``model.predict``, the slow reference the benchmark compares with.

``make_runner(model, "auto")`` picks ONNX when ``onnxruntime`` is installed and the export works,
else the compiled function. TensorFlow, JAX, torch and ONNX Runtime are imported lazily.
"""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from dlgo.inference.onnx_fold import fold_onnx

if TYPE_CHECKING:
    import keras

__all__ = [
    "Runner",
    "OnnxRunner",
    "CompiledRunner",
    "PredictRunner",
    "make_runner",
    "export_onnx",
    "stamp_onnx",
    "BACKENDS",
]

log = logging.getLogger(__name__)
BACKENDS = ("auto", "onnx", "compiled", "predict")


class Runner(Protocol):
    name: str

    def __call__(self, x: np.ndarray) -> list[np.ndarray]: ...


def _as_list(out) -> list:
    if isinstance(out, dict):
        return list(out.values())
    if isinstance(out, list | tuple):
        return list(out)
    return [out]


def _sample_input(model: keras.Model, board_size: int = 9) -> np.ndarray:
    rows, cols, planes = model.input_shape[1:]
    return np.zeros((1, rows or board_size, cols or board_size, planes), dtype=np.float32)


class PredictRunner:
    """``model.predict`` on the whole batch (the reference; slow per call)."""

    name = "keras-predict"

    def __init__(self, model: keras.Model) -> None:
        self.model = model

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        return [np.asarray(o) for o in _as_list(self.model.predict(x, batch_size=max(1, len(x)), verbose=0))]


class CompiledRunner:
    """The model's forward pass, compiled for the active Keras backend."""

    def __init__(self, model: keras.Model) -> None:
        import keras

        self.model = model
        self.backend = keras.backend.backend()
        self.name = f"compiled-{self.backend}"
        if self.backend == "tensorflow":
            import tensorflow as tf

            shape = [None, *model.input_shape[1:]]
            self._fn = tf.function(
                lambda x: model(x, training=False),
                input_signature=[tf.TensorSpec(shape, tf.float32)],
                reduce_retracing=True,
            )
        elif self.backend == "jax":
            import jax

            def forward(trainable, non_trainable, x):
                out, _ = model.stateless_call(trainable, non_trainable, x, training=False)
                return out

            self._jit = jax.jit(forward)
            self._fn = self._call_jax
        elif self.backend == "torch":
            import torch

            def forward_torch(x):
                with torch.no_grad():
                    return model(x, training=False)

            self._fn = forward_torch
        else:
            self._fn = lambda x: model(x, training=False)

    def _call_jax(self, x: np.ndarray):
        trainable = [v.value for v in self.model.trainable_variables]
        non_trainable = [v.value for v in self.model.non_trainable_variables]
        return self._jit(trainable, non_trainable, x)

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        out = _as_list(self._fn(np.ascontiguousarray(x, dtype=np.float32)))
        if self.backend == "tensorflow":
            return [o.numpy() for o in out]
        import keras

        return [keras.ops.convert_to_numpy(o) for o in out]


def export_onnx(model: keras.Model, path: str | os.PathLike, metadata: dict[str, str] | None = None) -> Path:
    """Export ``model`` to an ONNX file with open batch (and open board size if the model has it).

    ``metadata``: strings stored in the file's ``metadata_props`` (``dlgo.inference.onnx_cache`` keeps
    the model file's hash and the output order there, so a later load needs no Keras).
    """
    path = Path(path)
    model(_sample_input(model), training=False)  # Keras exports only models that were called
    tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.onnx")  # unique: processes may race
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.export(str(tmp), format="onnx", verbose=False)
        fold_onnx(tmp)  # PyTorch's export leaves batch norms and casts unfolded
        if metadata:
            stamp_onnx(tmp, metadata)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return path


def stamp_onnx(path: str | os.PathLike, metadata: dict[str, str]) -> None:
    """Set ``metadata`` entries in an ONNX file's ``metadata_props`` (rewritten in place)."""
    import onnx

    proto = onnx.load(str(path))
    kept = [(p.key, p.value) for p in proto.metadata_props if p.key not in metadata]
    del proto.metadata_props[:]
    for key, value in [*kept, *metadata.items()]:
        entry = proto.metadata_props.add()
        entry.key, entry.value = key, str(value)
    onnx.save(proto, str(path))


def _session(path: Path, threads: int | None):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    # Idle pool threads sleep instead of spinning: on a shared or busy machine spinning threads
    # fight for the cores and one batch could stall a search by a second (measured on 2 cores).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _sessions(path: Path, threads: int | None):
    """(the session, a ``SessionChooser`` or None): with ``threads`` unset on a machine with more
    than one core, a one-thread session beside the all-cores one, the faster of the two answering
    (``dlgo.inference.threads``: a busy machine makes the one thread faster)."""
    session = _session(path, threads)
    if threads or (os.cpu_count() or 1) < 2:
        return session, None
    from dlgo.inference.threads import SessionChooser

    return session, SessionChooser([session, _session(path, 1)])


def _dim(value) -> int | None:
    return value if isinstance(value, int) else None


def _float32_outputs(model: keras.Model, x: np.ndarray) -> list[np.ndarray]:
    """The Keras outputs in full float32: on a GPU, PyTorch's default TF32 convolutions differ
    from ONNX Runtime's float32 by about 1e-3, more than the export check allows."""
    import keras

    def run() -> list[np.ndarray]:
        return [np.array(keras.ops.convert_to_numpy(o)) for o in _as_list(model(x, training=False))]

    if keras.backend.backend() != "torch":
        return run()
    import torch

    saved = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        return run()
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = saved


class OnnxRunner:
    """An ONNX Runtime session on the exported model (CPU, ``threads`` intra-op threads)."""

    name = "onnxruntime"

    def __init__(self, model: keras.Model, onnx_path: str | os.PathLike | None = None, threads: int | None = None):
        self._tmpdir = None
        if onnx_path is None:
            self._tmpdir = tempfile.TemporaryDirectory(prefix="dlgo-onnx-")
            onnx_path = Path(self._tmpdir.name) / "model.onnx"
            export_onnx(model, onnx_path)
        self.path = Path(onnx_path)
        self.session, self._chooser = _sessions(self.path, threads)
        self._input = self.session.get_inputs()[0].name
        self.order = self._match_outputs(model)

    @classmethod
    def from_file(
        cls, onnx_path: str | os.PathLike, order: list[int] | None = None, threads: int | None = None
    ) -> OnnxRunner:
        """A runner on an exported file without its Keras model: ``order[i]`` is the ONNX output
        that gives the Keras model's output ``i`` (as found at export time; default: the same)."""
        runner = cls.__new__(cls)
        runner._tmpdir = None
        runner.path = Path(onnx_path)
        runner.session, runner._chooser = _sessions(runner.path, threads)
        runner._input = runner.session.get_inputs()[0].name
        runner.reorder(list(range(len(runner.session.get_outputs()))) if order is None else order)
        return runner

    def reorder(self, order: list[int]) -> None:
        """Set which ONNX output gives each Keras output (``ValueError`` if it cannot be)."""
        outputs = len(self.session.get_outputs())
        if len(set(order)) != len(order) or not all(0 <= j < outputs for j in order):
            raise ValueError(f"{self.path}: output order {order} does not fit its {outputs} outputs")
        self.order = list(order)

    @property
    def metadata(self) -> dict[str, str]:
        """The file's ``metadata_props``."""
        return dict(self.session.get_modelmeta().custom_metadata_map)

    @property
    def input_shape(self) -> list[int | None]:
        """(rows, cols, planes) the file takes; None where open."""
        return [_dim(d) for d in self.session.get_inputs()[0].shape[1:]]

    @property
    def output_sizes(self) -> list[int | None]:
        """The last dimension of each output, in the Keras model's order (None where open)."""
        outputs = self.session.get_outputs()
        return [_dim(outputs[j].shape[-1]) for j in self.order]

    def _match_outputs(self, model: keras.Model) -> list[int]:
        """Map Keras outputs to ONNX outputs by running both on one sample (checks the export too)."""
        x = _sample_input(model)
        x[..., 0] = 1.0
        ref = _float32_outputs(model, x)
        got = self.session.run(None, {self._input: x})
        order = []
        for r in ref:
            # Not one taken already: value and score are both one number per position.
            match = [
                j for j, g in enumerate(got) if j not in order and g.shape == r.shape and np.allclose(g, r, atol=1e-4)
            ]
            if not match:
                raise RuntimeError(f"ONNX export of {model.name} does not reproduce the Keras outputs")
            order.append(match[0])
        return order

    def __call__(self, x: np.ndarray) -> list[np.ndarray]:
        feed = {self._input: np.ascontiguousarray(x, dtype=np.float32)}
        out = self.session.run(None, feed) if self._chooser is None else self._chooser.run(feed, len(x))
        return [out[j] for j in self.order]


def make_runner(
    model: keras.Model,
    backend: str = "auto",
    onnx_path: str | os.PathLike | None = None,
    threads: int | None = None,
) -> Runner:
    """A runner for ``model``: ``auto`` (ONNX Runtime if it works, else compiled), ``onnx``,
    ``compiled`` or ``predict``."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown inference backend {backend!r}; known: {', '.join(BACKENDS)}")
    if backend == "predict":
        return PredictRunner(model)
    if backend == "compiled":
        return CompiledRunner(model)
    try:
        return OnnxRunner(model, onnx_path, threads)
    except Exception as e:  # missing onnxruntime/tf2onnx, unsupported op, failed check
        if backend == "onnx":
            raise
        log.info("ONNX Runtime unavailable for %s (%s); using the compiled model", model.name, e)
        return CompiledRunner(model)
