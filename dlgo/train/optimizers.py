"""How training compiles a network: optimizers, losses and metrics (Keras only, any backend).
The networks themselves come from the registry in ``dlgo.networks`` (``build_network``).

Losses: sparse categorical cross-entropy on the move index (the book's one-hot categorical
cross-entropy without building one-hot arrays), mean squared error on the game result for the
value head, weighted by ``value_weight``. Metrics: top-1 and top-5 move accuracy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import keras

__all__ = ["OPTIMIZERS", "compile_model", "has_value_head", "make_optimizer"]

OPTIMIZERS = ("adam", "sgd", "adadelta", "adagrad")


def has_value_head(model: keras.Model) -> bool:
    return len(model.outputs) == 2


def make_optimizer(name: str, learning_rate, momentum: float = 0.9, clipnorm: float | None = None):
    import keras

    kw = {"clipnorm": clipnorm} if clipnorm else {}
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=learning_rate, **kw)
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=learning_rate, momentum=momentum, nesterov=momentum > 0, **kw)
    if name == "adadelta":
        return keras.optimizers.Adadelta(learning_rate=learning_rate, **kw)
    if name == "adagrad":
        return keras.optimizers.Adagrad(learning_rate=learning_rate, **kw)
    raise ValueError(f"unknown optimizer {name!r}; known: {', '.join(OPTIMIZERS)}")


def compile_model(model: keras.Model, optimizer, value_weight: float = 1.0) -> None:
    """Compile with the losses and metrics of this module (outputs named "policy"/"value")."""
    import keras

    metrics = [
        keras.metrics.SparseCategoricalAccuracy(name="top1"),
        keras.metrics.SparseTopKCategoricalAccuracy(k=5, name="top5"),
    ]
    if has_value_head(model):
        policy_name, value_name = _output_names(model)
        model.compile(
            optimizer=optimizer,
            loss={policy_name: "sparse_categorical_crossentropy", value_name: "mean_squared_error"},
            loss_weights={policy_name: 1.0, value_name: float(value_weight)},
            metrics={policy_name: metrics},
        )
    else:
        model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy", metrics=metrics)


def _output_names(model: keras.Model) -> tuple[str, str]:
    names = list(model.output_names)
    if len(names) != 2 or "policy" not in names[0] or "value" not in names[1]:
        raise ValueError(f"expected outputs (policy, value), the model has {names}")
    return names[0], names[1]
