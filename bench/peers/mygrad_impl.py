"""mygrad: NumPy-backed tensors with backward; no optimizers (NumPy updates) and no double backward."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from bench.peers.numpy_optim import Adam, sgd
from bench.workloads import Inputs, Prepared, Size


def load() -> ModuleType:
    import mygrad
    import mygrad.nnet  # noqa: F401

    return mygrad


def chain(mg: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    a, b, x = mg.tensor(inputs["a"]), mg.tensor(inputs["b"]), mg.tensor(inputs["x"])
    iterations = size["ops"] // 2
    last: list[Any] = []

    def step() -> None:
        y = x
        for _ in range(iterations):
            y = y * a + b
        total = y.sum()
        total.backward()
        last[:] = [total]

    return Prepared(step, lambda: [float(last[0].item()), float(a.grad.sum()), float(b.grad.sum())])


def _mlp_loss(mg: ModuleType, parameters: list[Any], x: Any, y: np.ndarray) -> Any:
    h = x
    for index in range(0, len(parameters), 2):
        w, b = parameters[index], parameters[index + 1]
        h = h @ w.T + b
        if index + 2 < len(parameters):
            h = mg.nnet.relu(h)
    return mg.nnet.softmax_crossentropy(h, y)


def _training(mg: ModuleType, inputs: Inputs, loss_of: Any, update: Any, batches: list) -> Prepared:
    parameters = [mg.tensor(w) for w in inputs["weights"]]
    state: dict[str, Any] = {"index": 0}
    optimizer_step = update([p.data for p in parameters])

    def step() -> None:
        x, y = batches[state["index"] % len(batches)]
        state["index"] += 1
        loss = loss_of(parameters, x, y)
        loss.backward()
        optimizer_step([p.grad for p in parameters])
        state["loss"] = float(loss.item())

    return Prepared(step, lambda: [state["loss"]])


def mlp_digits_sgd(mg: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    batches = list(zip(inputs["x"], inputs["y"], strict=True))

    def update(arrays: list[np.ndarray]) -> Any:
        return lambda grads: sgd(arrays, grads, lr=0.1)

    return _training(mg, inputs, lambda p, x, y: _mlp_loss(mg, p, x, y), update, batches)


def mlp_wide_adam(mg: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    def update(arrays: list[np.ndarray]) -> Any:
        return Adam(arrays, lr=1e-3).step

    batches = [(inputs["x"], inputs["y"])]
    return _training(mg, inputs, lambda p, x, y: _mlp_loss(mg, p, x, y), update, batches)


def cnn_digits(mg: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    nnet = mg.nnet

    def loss_of(parameters: list[Any], x: np.ndarray, y: np.ndarray) -> Any:
        w1, b1, w2, b2, w3, b3 = parameters
        h = nnet.relu(nnet.conv_nd(x, w1, stride=1, padding=1) + b1.reshape(1, -1, 1, 1))
        h = nnet.relu(nnet.conv_nd(h, w2, stride=1, padding=1) + b2.reshape(1, -1, 1, 1))
        h = nnet.max_pool(h, (2, 2), 2)
        return nnet.softmax_crossentropy(h.reshape(h.shape[0], -1) @ w3.T + b3, y)

    def update(arrays: list[np.ndarray]) -> Any:
        return lambda grads: sgd(arrays, grads, lr=0.05)

    batches = list(zip(inputs["x"], inputs["y"], strict=True))
    return _training(mg, inputs, loss_of, update, batches)


def lstm(mg: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """The LSTM cell written out (gates i, f, g, o as in PyTorch)."""
    parameters = [mg.tensor(w) for w in inputs["weights"]]
    hidden, x = size["hidden"], inputs["x"]
    state: dict[str, Any] = {}

    def step() -> None:
        w_ih, w_hh, b_ih, b_hh = parameters
        h = mg.zeros((x.shape[1], hidden), dtype=np.float32)
        c = mg.zeros((x.shape[1], hidden), dtype=np.float32)
        outputs = []
        for x_t in x:
            gates = x_t @ w_ih.T + b_ih + h @ w_hh.T + b_hh
            i = mg.nnet.sigmoid(gates[:, :hidden])
            f = mg.nnet.sigmoid(gates[:, hidden : 2 * hidden])
            g = mg.tanh(gates[:, 2 * hidden : 3 * hidden])
            o = mg.nnet.sigmoid(gates[:, 3 * hidden :])
            c = f * c + i * g
            h = o * mg.tanh(c)
            outputs.append(h)
        out = mg.stack(outputs)
        loss = (out * out).mean()
        loss.backward()
        state["loss"] = float(loss.item())

    def summary() -> list[float]:
        norms = [float(np.linalg.norm(p.grad.astype(np.float64))) for p in parameters[:3]]
        return [state["loss"], *norms]

    return Prepared(step, summary)


IMPLEMENTATIONS = {
    "chain_1": chain,
    "chain_100": chain,
    "scalar_chain_100k": chain,
    "scalar_chain_1m": chain,
    "mlp_digits_sgd": mlp_digits_sgd,
    "mlp_wide_adam": mlp_wide_adam,
    "cnn_digits": cnn_digits,
    "lstm": lstm,
}
