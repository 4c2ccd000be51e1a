"""The ONNX export cache: a model file is exported once (beside it, or in the user cache when
its folder is not writable), keyed by the file's content, and later loads run it with ONNX
Runtime without importing Keras or TensorFlow."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pytest
from conftest import save_tiny_zero

keras = pytest.importorskip("keras")
if importlib.util.find_spec("onnxruntime") is None or importlib.util.find_spec("tf2onnx") is None:
    pytest.skip("onnxruntime or tf2onnx missing", allow_module_level=True)

import dlgo.inference.onnx_cache as onnx_cache  # noqa: E402
from dlgo.goboard import GameState  # noqa: E402
from dlgo.inference import BatchEvaluator, load_model  # noqa: E402

# Keras' own model.save trips a NumPy 2 deprecation inside TensorFlow; not ours to fix.
pytestmark = pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning")


def _save(path, seed: int) -> None:
    save_tiny_zero(path, seed, blocks=1, filters=8)


@pytest.fixture
def model(model_folder):
    return save_tiny_zero(model_folder / "tiny.keras", 1, blocks=1, filters=8)


def _answers(evaluator: BatchEvaluator) -> tuple[np.ndarray, np.ndarray]:
    return evaluator.evaluate([GameState.new_game(9)])


def test_a_player_process_never_imports_tensorflow(model) -> None:
    """A process that plays a model (lazy load, as the engine's agents do) runs it with ONNX
    Runtime: the first time the export is made in a child process and kept beside the model,
    then it is reused. Keras and TensorFlow are never imported by the player."""
    script = (
        "import sys; from dlgo.inference import BatchEvaluator, load_model; from dlgo.goboard import GameState\n"
        f"ev = BatchEvaluator(load_model({str(model)!r}, lazy=True), cache_size=0)\n"
        "p, v = ev.evaluate([GameState.new_game(9)])\n"
        "print(ev.runner.name, ev.runner.path, float(v[0]), 'tensorflow' in sys.modules, 'keras' in sys.modules)\n"
    )
    for _ in ("cold", "warm"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
        name, path, value, tf_loaded, keras_loaded = out.stdout.split()
        assert name == "onnxruntime" and tf_loaded == "False" and keras_loaded == "False", out.stdout
        assert path == str(model.with_suffix(".onnx"))
    reloaded = BatchEvaluator(load_model(model, lazy=True), cache_size=0)
    assert not reloaded.loaded.model_loaded  # served from the cache
    assert reloaded.runner.metadata[onnx_cache.DIGEST_KEY] == onnx_cache.model_digest(model)
    reference = BatchEvaluator(load_model(model), backend="compiled", cache_size=0)
    assert float(value) == pytest.approx(float(_answers(reference)[1][0]), abs=1e-4)


def test_read_only_model_folder_uses_the_user_cache(model, monkeypatch) -> None:
    # (Tests may run as root, for whom no folder is read-only: say the model's is. The Keras
    # model is loaded here, so the export is made in this process, where that holds.)
    writable = onnx_cache._writable
    monkeypatch.setattr(onnx_cache, "_writable", lambda folder: folder != model.parent and writable(folder))
    evaluator = BatchEvaluator(load_model(model), cache_size=0)
    digest = onnx_cache.model_digest(model)
    cached = onnx_cache.user_cache_dir() / "onnx" / f"tiny-{digest[:16]}.onnx"
    assert evaluator.runner.path == cached and cached.is_file()
    assert not model.with_suffix(".onnx").exists()
    again = onnx_cache.open_cached(load_model(model, lazy=True))
    assert again is not None and again.path == cached


def test_a_changed_model_is_exported_again(model) -> None:
    old = _answers(BatchEvaluator(load_model(model), cache_size=0))
    _save(model, 2)  # other weights in the same file name; the old export is still beside it
    assert onnx_cache.open_cached(load_model(model, lazy=True)) is None  # the content hash differs
    evaluator = BatchEvaluator(load_model(model), cache_size=0)
    reference = BatchEvaluator(load_model(model), backend="compiled", cache_size=0)
    new = _answers(evaluator)
    assert not np.allclose(new[0], old[0], atol=1e-4)
    np.testing.assert_allclose(new[0], _answers(reference)[0], atol=1e-4)
    np.testing.assert_allclose(new[1], _answers(reference)[1], atol=1e-4)


def test_an_unstamped_export_is_checked_and_stamped(model) -> None:
    """Exports written by older code or dlgo.zero.loop carry no hash: checked against Keras once."""
    from dlgo.inference.runners import export_onnx

    export_onnx(load_model(model).model, model.with_suffix(".onnx"))
    assert onnx_cache.open_cached(load_model(model, lazy=True)) is None
    BatchEvaluator(load_model(model), cache_size=0)
    assert onnx_cache.open_cached(load_model(model, lazy=True)) is not None
