"""tinygrad: lazy tensors compiled to kernels (CPU device: C compiled by clang).

Training steps, the LSTM pass and the HVP run under ``TinyJit``, tinygrad's documented way to
run a repeated step (without it every step is re-scheduled and costs ~100x more).

The chains are not run: tinygrad builds them lazily and fuses them into one C expression. A chain of
200 ops runs (68 ms); at 2,000 ops clang rejects the expression ("bracket nesting level
exceeded maximum of 256"), and a 10,000-op chain spent over 8 minutes of CPU in scheduling without
reaching the compiler. ``chain`` stays here for anyone who wants to try again.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from bench.workloads import Inputs, Prepared, Size


def load() -> ModuleType:
    import tinygrad
    import tinygrad.nn.optim  # noqa: F401

    return tinygrad


def _tensors(tinygrad: ModuleType, arrays: list[np.ndarray]) -> list[Any]:
    return [tinygrad.Tensor(np.ascontiguousarray(a)).realize() for a in arrays]


def _training_context(tinygrad: ModuleType) -> Any:
    from tinygrad.helpers import Context

    return Context(TRAINING=1)


def chain(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    a, b, x = _tensors(tinygrad, [inputs["a"], inputs["b"], inputs["x"]])
    iterations = size["ops"] // 2
    last: list[float] = []

    def step() -> None:
        y = x
        for _ in range(iterations):
            y = y * a + b
        total = y.sum()
        grad_a, grad_b = total.gradient(a, b)
        last[:] = [total.item(), float(grad_a.sum().item()), float(grad_b.sum().item())]

    return Prepared(step, lambda: list(last))


def _training(
    tinygrad: ModuleType, inputs: Inputs, batches: list, forward: Any, make_optimizer: Any
) -> Prepared:
    parameters = _tensors(tinygrad, inputs["weights"])
    optimizer = make_optimizer(parameters)
    batches = [tuple(_tensors(tinygrad, [x, y])) for x, y in batches]
    state: dict[str, Any] = {"index": 0}

    @tinygrad.TinyJit
    def train_step(x: Any, y: Any) -> Any:
        optimizer.zero_grad()
        loss = forward(parameters, x).sparse_categorical_crossentropy(y)
        loss.backward()
        # One realize for both: a lazy loss realized after the update would see the new weights.
        tinygrad.Tensor.realize(loss, *optimizer.schedule_step())
        return loss

    def step() -> None:
        x, y = batches[state["index"] % len(batches)]
        state["index"] += 1
        with _training_context(tinygrad):
            state["loss"] = train_step(x, y).item()

    return Prepared(step, lambda: [state["loss"]])


def _mlp_forward(parameters: list[Any], x: Any) -> Any:
    h = x
    for index in range(0, len(parameters), 2):
        h = h.linear(parameters[index].T, parameters[index + 1])
        if index + 2 < len(parameters):
            h = h.relu()
    return h


def mlp_digits_sgd(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    batches = list(zip(inputs["x"], inputs["y"], strict=True))
    sgd = tinygrad.nn.optim.SGD
    return _training(tinygrad, inputs, batches, _mlp_forward, lambda p: sgd(p, lr=0.1))


def mlp_wide_adam(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    adam = tinygrad.nn.optim.Adam
    batches = [(inputs["x"], inputs["y"])]
    return _training(tinygrad, inputs, batches, _mlp_forward, lambda p: adam(p, lr=1e-3))


def cnn_digits(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    def forward(parameters: list[Any], x: Any) -> Any:
        w1, b1, w2, b2, w3, b3 = parameters
        h = x.conv2d(w1, b1, padding=1).relu()
        h = h.conv2d(w2, b2, padding=1).relu().max_pool2d(2)
        return h.reshape(h.shape[0], -1).linear(w3.T, b3)

    batches = list(zip(inputs["x"], inputs["y"], strict=True))
    sgd = tinygrad.nn.optim.SGD
    return _training(tinygrad, inputs, batches, forward, lambda p: sgd(p, lr=0.05))


def lstm(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """The LSTM cell written out (gates i, f, g, o as in PyTorch)."""
    tensor = tinygrad.Tensor
    parameters = _tensors(tinygrad, inputs["weights"])
    hidden = size["hidden"]
    (x,) = _tensors(tinygrad, [inputs["x"]])
    batch = inputs["x"].shape[1]
    state: dict[str, Any] = {}

    @tinygrad.TinyJit
    def forward_backward(x: Any) -> Any:
        w_ih, w_hh, b_ih, b_hh = parameters
        h = tensor.zeros(batch, hidden)
        c = tensor.zeros(batch, hidden)
        outputs = []
        for t in range(x.shape[0]):
            gates = x[t].linear(w_ih.T, b_ih) + h.linear(w_hh.T, b_hh)
            i = gates[:, :hidden].sigmoid()
            f = gates[:, hidden : 2 * hidden].sigmoid()
            g = gates[:, 2 * hidden : 3 * hidden].tanh()
            o = gates[:, 3 * hidden :].sigmoid()
            c = f * c + i * g
            h = o * c.tanh()
            outputs.append(h)
        out = tensor.stack(*outputs)
        loss = (out * out).mean()
        grads = loss.gradient(*parameters[:3])
        return [t.realize() for t in (loss, *grads)]

    def step() -> None:
        state["results"] = forward_backward(x)

    def summary() -> list[float]:
        loss, *grads = state["results"]
        norms = [float(np.linalg.norm(g.numpy().astype(np.float64))) for g in grads]
        return [loss.item(), *norms]

    return Prepared(step, summary)


def hvp_wide_mlp(tinygrad: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """Reverse-over-reverse: gradient of ``sum(grad(loss) * v)``."""
    parameters = _tensors(tinygrad, inputs["weights"])
    vectors = _tensors(tinygrad, inputs["v"])
    x, y = _tensors(tinygrad, [inputs["x"], inputs["y"]])
    state: dict[str, Any] = {}

    @tinygrad.TinyJit
    def hvp(x: Any, y: Any) -> Any:
        loss = _mlp_forward(parameters, x).sparse_categorical_crossentropy(y)
        grads = loss.gradient(*parameters)
        directional = grads[0].mul(vectors[0]).sum()
        for g, v in zip(grads[1:], vectors[1:], strict=True):
            directional = directional + (g * v).sum()
        hessian_vector = directional.gradient(*parameters)
        return [t.realize() for t in (loss, directional, *hessian_vector)]

    def step() -> None:
        state["results"] = hvp(x, y)

    def summary() -> list[float]:
        loss, directional, *hv = state["results"]
        hv = [h.numpy().astype(np.float64) for h in hv]
        v_hv = sum(float(np.vdot(h, v)) for h, v in zip(hv, inputs["v"], strict=True))
        norm = float(np.sqrt(sum(float(np.vdot(h, h)) for h in hv)))
        return [loss.item(), directional.item(), v_hv, norm]

    return Prepared(step, summary)


IMPLEMENTATIONS = {
    "mlp_digits_sgd": mlp_digits_sgd,
    "mlp_wide_adam": mlp_wide_adam,
    "cnn_digits": cnn_digits,
    "lstm": lstm,
    "hvp_wide_mlp": hvp_wide_mlp,
}
