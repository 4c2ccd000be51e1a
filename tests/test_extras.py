"""What each optional part needs (``dlgo.extras``): training asks for the Keras backend it will run
on, so a GPU image with JAX or PyTorch and no TensorFlow can train (scripts/gpu_train.sh,
scripts/gpu_lease.sh); exporting to ONNX still needs TensorFlow."""

from __future__ import annotations

import importlib.util

import pytest

from dlgo import extras


@pytest.fixture
def installed(monkeypatch):
    """Pretend exactly these modules are installed."""

    def use(*names: str) -> None:
        monkeypatch.setattr(importlib.util, "find_spec", lambda name: object() if name in names else None)

    return use


@pytest.mark.parametrize(
    ("backend", "module"),
    [(None, "tensorflow"), ("tensorflow", "tensorflow"), ("jax", "jax"), ("torch", "torch"), (" JAX ", "jax")],
)
def test_training_asks_for_the_chosen_backend(monkeypatch, installed, backend, module) -> None:
    if backend is None:
        monkeypatch.delenv("KERAS_BACKEND", raising=False)
    else:
        monkeypatch.setenv("KERAS_BACKEND", backend)
    assert extras.keras_backend_module() == module
    installed("keras", "h5py")
    assert extras.missing_modules("train") == [module]
    installed("keras", "h5py", module)
    assert extras.missing_modules("train") == []


def test_a_gpu_image_without_tensorflow_trains_but_does_not_export(monkeypatch, installed, capsys) -> None:
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    installed("keras", "h5py", "jax", "onnx")
    extras.require_extra("train", "python -m dlgo.train")  # no exit
    assert extras.missing_modules("export") == ["tensorflow", "tf2onnx"]
    with pytest.raises(SystemExit) as stop:
        extras.require_extra("export", "python -m dlgo.zero.export")
    assert stop.value.code == 2
    assert "needs the 'train' extra (tensorflow, tf2onnx not installed)" in capsys.readouterr().err


def test_without_keras_training_stops_with_the_install_line(monkeypatch, installed, capsys) -> None:
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    installed("jax")
    with pytest.raises(SystemExit):
        extras.require_extra("train", "python -m dlgo.train")
    err = capsys.readouterr().err
    assert "python -m dlgo.train: needs the 'train' extra (keras, h5py not installed)" in err
    assert "pip install 'dlgo-engine[train]'" in err
