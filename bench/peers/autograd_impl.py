"""HIPS autograd: functional gradients of NumPy code; no conv, no optimizers (NumPy updates)."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from bench.peers.numpy_optim import Adam, sgd
from bench.workloads import Inputs, Prepared, Size


def load() -> ModuleType:
    import autograd
    import autograd.numpy  # noqa: F401
    import autograd.scipy.special  # noqa: F401

    return autograd


def chain(autograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    x, iterations = inputs["x"], size["ops"] // 2

    def total(parameters: tuple[np.ndarray, np.ndarray]) -> Any:
        a, b = parameters
        y = x
        for _ in range(iterations):
            y = y * a + b
        return autograd.numpy.sum(y)

    value_and_grad = autograd.value_and_grad(total)
    parameters = (inputs["a"], inputs["b"])
    last: list[Any] = []

    def step() -> None:
        last[:] = value_and_grad(parameters)

    return Prepared(
        step, lambda: [float(last[0]), float(np.sum(last[1][0])), float(np.sum(last[1][1]))]
    )


def _mlp_loss(autograd: ModuleType) -> Any:
    anp, logsumexp = autograd.numpy, autograd.scipy.special.logsumexp

    def loss(parameters: list[Any], x: np.ndarray, y: np.ndarray) -> Any:
        h = x
        for index in range(0, len(parameters), 2):
            h = anp.dot(h, parameters[index].T) + parameters[index + 1]
            if index + 2 < len(parameters):
                h = anp.maximum(h, 0.0)
        picked = h[np.arange(len(y)), y]
        return anp.mean(logsumexp(h, axis=1) - picked)

    return loss


def _training(autograd: ModuleType, inputs: Inputs, batches: list, update: Any) -> Prepared:
    parameters = [w.copy() for w in inputs["weights"]]
    value_and_grad = autograd.value_and_grad(_mlp_loss(autograd))
    optimizer_step = update(parameters)
    state: dict[str, Any] = {"index": 0}

    def step() -> None:
        x, y = batches[state["index"] % len(batches)]
        state["index"] += 1
        loss, gradients = value_and_grad(parameters, x, y)
        optimizer_step(gradients)
        state["loss"] = float(loss)

    return Prepared(step, lambda: [state["loss"]])


def mlp_digits_sgd(autograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    batches = list(zip(inputs["x"], inputs["y"], strict=True))
    return _training(
        autograd, inputs, batches, lambda arrays: lambda grads: sgd(arrays, grads, lr=0.1)
    )


def mlp_wide_adam(autograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    batches = [(inputs["x"], inputs["y"])]
    return _training(autograd, inputs, batches, lambda arrays: Adam(arrays, lr=1e-3).step)


def hvp_wide_mlp(autograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """Reverse-over-reverse, as in PyTorch's version: grad of ``sum(grad(loss) * v)``."""
    anp = autograd.numpy
    loss = _mlp_loss(autograd)
    x, y, vectors = inputs["x"], inputs["y"], inputs["v"]
    parameters = list(inputs["weights"])
    gradient = autograd.grad(loss)

    def directional(params: list[Any]) -> Any:
        return sum(anp.sum(g * v) for g, v in zip(gradient(params, x, y), vectors, strict=True))

    value_and_hvp = autograd.value_and_grad(directional)
    last: list[Any] = []

    def step() -> None:
        last[:] = value_and_hvp(parameters)

    def summary() -> list[float]:
        hv = [np.asarray(h, dtype=np.float64) for h in last[1]]
        v_hv = sum(float(np.vdot(h, v)) for h, v in zip(hv, vectors, strict=True))
        norm = float(np.sqrt(sum(float(np.vdot(h, h)) for h in hv)))
        return [float(loss(parameters, x, y)), float(last[0]), v_hv, norm]

    return Prepared(step, summary)


def lstm(autograd: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """The LSTM cell written out (gates i, f, g, o as in PyTorch)."""
    anp, hidden, x = autograd.numpy, size["hidden"], inputs["x"]

    def sigmoid(z: Any) -> Any:
        return 1.0 / (1.0 + anp.exp(-z))

    def loss(parameters: list[Any]) -> Any:
        w_ih, w_hh, b_ih, b_hh = parameters
        h = np.zeros((x.shape[1], hidden), dtype=np.float32)
        c = np.zeros((x.shape[1], hidden), dtype=np.float32)
        outputs = []
        for x_t in x:
            gates = anp.dot(x_t, w_ih.T) + b_ih + anp.dot(h, w_hh.T) + b_hh
            i = sigmoid(gates[:, :hidden])
            f = sigmoid(gates[:, hidden : 2 * hidden])
            g = anp.tanh(gates[:, 2 * hidden : 3 * hidden])
            o = sigmoid(gates[:, 3 * hidden :])
            c = f * c + i * g
            h = o * anp.tanh(c)
            outputs.append(h)
        out = anp.stack(outputs)
        return anp.mean(out * out)

    value_and_grad = autograd.value_and_grad(loss)
    parameters = list(inputs["weights"])
    last: list[Any] = []

    def step() -> None:
        last[:] = value_and_grad(parameters)

    def summary() -> list[float]:
        norms = [float(np.linalg.norm(g.astype(np.float64))) for g in last[1][:3]]
        return [float(last[0]), *norms]

    return Prepared(step, summary)


IMPLEMENTATIONS = {
    "chain_1": chain,
    "chain_100": chain,
    "scalar_chain_100k": chain,
    "scalar_chain_1m": chain,
    "mlp_digits_sgd": mlp_digits_sgd,
    "mlp_wide_adam": mlp_wide_adam,
    "lstm": lstm,
    "hvp_wide_mlp": hvp_wide_mlp,
}
