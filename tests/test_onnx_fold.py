"""``fold_onnx``: the casts and batch norms that Keras' PyTorch export leaves are folded away,
with the same outputs; anything else is left as it was."""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from dlgo.inference.onnx_fold import fold_onnx

C, IN = 4, 3


def _model(path, sub_order=("x", "mean"), cast_int=False):
    """NHWC input -> Transpose -> Conv -> Transpose -> Cast -> Sub -> Mul -> Add -> Cast -> Relu,
    as Keras on PyTorch exports a convolution with its batch norm."""
    rng = np.random.default_rng(0)
    inits = [
        numpy_helper.from_array(rng.normal(size=(C, IN, 3, 3)).astype(np.float32), "w"),
        numpy_helper.from_array(rng.normal(size=(1, 1, 1, C)).astype(np.float32), "mean"),
        numpy_helper.from_array(rng.uniform(0.5, 2, size=(1, 1, 1, C)).astype(np.float32), "scale"),
        numpy_helper.from_array(rng.normal(size=(1, 1, 1, C)).astype(np.float32), "beta"),
    ]
    names = {"x": "c1", "mean": "mean"}
    nodes = [
        helper.make_node("Transpose", ["planes"], ["t0"], perm=[0, 3, 1, 2]),
        helper.make_node("Conv", ["t0", "w"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("Transpose", ["conv"], ["t1"], perm=[0, 2, 3, 1]),
        helper.make_node("Cast", ["t1"], ["c1"], to=TensorProto.FLOAT),
        helper.make_node("Sub", [names[sub_order[0]], names[sub_order[1]]], ["sub"]),
        helper.make_node("Mul", ["scale", "sub"], ["mul"]),  # the constant first: Mul commutes
        helper.make_node("Add", ["mul", "beta"], ["add"]),
        helper.make_node("Cast", ["add"], ["c2"], to=TensorProto.FLOAT),
        helper.make_node("Relu", ["c2"], ["out"]),
    ]
    outputs = [helper.make_tensor_value_info("out", TensorProto.FLOAT, [None, 5, 5, C])]
    if cast_int:  # a real conversion must stay
        nodes += [
            helper.make_node("Shape", ["out"], ["shape"]),
            helper.make_node("Cast", ["shape"], ["shape_f"], to=TensorProto.FLOAT),
        ]
        outputs.append(helper.make_tensor_value_info("shape_f", TensorProto.FLOAT, [4]))
    graph = helper.make_graph(
        nodes, "bn", [helper.make_tensor_value_info("planes", TensorProto.FLOAT, [None, 5, 5, IN])], outputs, inits
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def _run(path, x):
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"planes": x})


def _ops(path):
    return collections.Counter(n.op_type for n in onnx.load(str(path)).graph.node)


@pytest.fixture
def planes():
    return np.random.default_rng(1).normal(size=(2, 5, 5, IN)).astype(np.float32)


def test_batch_norm_and_casts_fold_into_the_convolution(tmp_path, planes):
    path = tmp_path / "m.onnx"
    _model(path)
    before = _run(path, planes)
    assert fold_onnx(path) == 5
    ops = _ops(path)
    assert ops == {"Transpose": 2, "Conv": 1, "Relu": 1}
    np.testing.assert_allclose(_run(path, planes)[0], before[0], rtol=1e-5, atol=1e-5)
    assert len(onnx.load(str(path)).graph.initializer) == 2  # folded weight and bias only


def test_what_is_not_the_pattern_stays(tmp_path, planes):
    path = tmp_path / "m.onnx"
    _model(path, sub_order=("mean", "x"), cast_int=True)  # mean - x is no batch norm
    before = _run(path, planes)
    fold_onnx(path)
    ops = _ops(path)
    assert ops["Sub"] == 1 and ops["Mul"] == 1 and ops["Add"] == 1
    assert ops["Cast"] == 1  # int64 -> float kept, float -> float dropped
    for got, want in zip(_run(path, planes), before):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_an_export_with_nothing_to_fold_is_left_untouched(tmp_path, planes):
    path = tmp_path / "m.onnx"
    _model(path)
    fold_onnx(path)
    data = path.read_bytes()
    assert fold_onnx(path) == 0 and path.read_bytes() == data
