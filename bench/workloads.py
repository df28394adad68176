"""The workloads of issues 6 and 18, each written once against PyTorch's API.

A workload function takes the library module (``torch``, or ``glassgrad`` imported under the same
name), the NumPy inputs built by its ``make_inputs`` and its size, and returns a :class:`Prepared`:
``step()`` runs one unit of work (a training step, one forward + backward pass, ...), and
``summary()`` returns a few floats that describe the result of the last unit (its loss, sums and
norms of gradients). The harness compares the summaries of the first ``check_units`` units of every
library with PyTorch's before it compares any time.

Example
-------
>>> import torch
>>> workload = WORKLOADS["chain_1"]
>>> size = workload.sizes["quick"]
>>> run = workload.torch_api(torch, workload.make_inputs(size), size)
>>> run.step()
>>> len(run.summary())
3
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, NamedTuple

import numpy as np

from bench.inputs import digits_batches, linear_layers, rng_for, uniform_weight


class Prepared(NamedTuple):
    """A workload ready to run in one library: ``step()`` does one unit, ``summary()`` reads it."""

    step: Callable[[], None]
    summary: Callable[[], list[float]]


Size = dict[str, int]
Inputs = dict[str, Any]
WorkloadFn = Callable[[ModuleType, Inputs, Size], Prepared]


@dataclass(frozen=True)
class Workload:
    """One row of the benchmark table.

    Attributes
    ----------
    name : str
        Key used by ``--only`` and in the JSON output.
    title : str
        What the row measures, with the sizes of the full mode.
    unit : str
        The unit of work that one time refers to.
    target : str
        The target from issue 18, in words.
    target_ratio : float or None
        Largest acceptable ``glassgrad / PyTorch`` time ratio (None: the target is not a ratio).
    sizes : dict
        ``{"full": {...}, "quick": {...}}``: the parameters of each mode.
    make_inputs : callable
        ``make_inputs(size) -> dict`` of NumPy arrays: the weights and data every library gets.
    torch_api : callable
        The workload written against PyTorch's API (see the module docstring).
    check_units : int
        Units run from the initial state whose summaries are compared across libraries.
    rtol, atol : float
        Tolerance of that comparison.
    """

    name: str
    title: str
    unit: str
    target: str
    target_ratio: float | None
    sizes: dict[str, Size]
    make_inputs: Callable[[Size], Inputs]
    torch_api: WorkloadFn
    check_units: int = 1
    rtol: float = 1e-4
    atol: float = 1e-6


def nn_functional(lib: ModuleType) -> ModuleType:
    """``lib.nn.functional``, imported if the package does not import it eagerly."""
    functional = getattr(lib.nn, "functional", None)
    if functional is None:
        import importlib

        functional = importlib.import_module(lib.__name__ + ".nn.functional")
    return functional


def assign(lib: ModuleType, parameters: list[Any], arrays: list[np.ndarray]) -> None:
    """Copy NumPy arrays into a library's parameters in place (no graph is recorded)."""
    with lib.no_grad():
        for parameter, array in zip(parameters, arrays, strict=True):
            if tuple(parameter.shape) != array.shape:
                raise ValueError(
                    f"assign: parameter of shape {tuple(parameter.shape)} cannot take an array "
                    f"of shape {array.shape}"
                )
            parameter.copy_(lib.from_numpy(array))


def leaf(lib: ModuleType, array: np.ndarray) -> Any:
    """A leaf tensor that requires grad, holding a copy of ``array``."""
    return lib.tensor(array, requires_grad=True)


def _norm(tensor: Any) -> float:
    return float(np.linalg.norm(np.asarray(tensor.detach().numpy(), dtype=np.float64)))


# --- elementwise and scalar chains -------------------------------------------------------------


def chain_inputs(size: Size) -> Inputs:
    """Leaves ``a`` in [0.5, 0.9] and ``b`` in [-1, 1] and a start value ``x``."""
    rng = rng_for("chain")
    shape = (size["elements"],) if size["elements"] else ()
    return {
        "a": rng.uniform(0.5, 0.9, size=shape).astype(np.float32),
        "b": rng.uniform(-1.0, 1.0, size=shape).astype(np.float32),
        "x": rng.standard_normal(shape).astype(np.float32),
    }


def chain(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """``y = y * a + b`` repeated until ``size["ops"]`` ops are recorded; backward of ``y.sum()``.

    Summary: ``[y.sum(), a.grad.sum(), b.grad.sum()]``.
    """
    a, b = leaf(torch, inputs["a"]), leaf(torch, inputs["b"])
    x = torch.tensor(inputs["x"])
    iterations = size["ops"] // 2
    last: list[Any] = []

    def step() -> None:
        a.grad = None
        b.grad = None
        y = x
        for _ in range(iterations):
            y = y * a + b
        total = y.sum()
        total.backward()
        last[:] = [total]

    def summary() -> list[float]:
        return [last[0].item(), a.grad.sum().item(), b.grad.sum().item()]

    return Prepared(step, summary)


def scalar_operand_chain(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """``y = y * 1.0001 + 0.1`` (Python-number operands) until ``size["ops"]`` ops are
    recorded, from the leaf ``x``; backward of ``y.sum()``.

    Summary: ``[y.sum(), x.grad.sum()]``.
    """
    x = leaf(torch, inputs["x"])
    iterations = size["ops"] // 2
    last: list[Any] = []

    def step() -> None:
        x.grad = None
        y = x
        for _ in range(iterations):
            y = y * 1.0001 + 0.1
        total = y.sum()
        total.backward()
        last[:] = [total]

    return Prepared(step, lambda: [last[0].item(), x.grad.sum().item()])


VIEW_CHAIN_OPS = 7  # recorded ops per iteration of view_chain


def view_chain(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """Views, indexing and a reduction with ``dim``, keeping the shape ``(n,)``:
    ``y = y.view(1, -1)[0] * a + y.mean(0, keepdim=True) * 0.05 + b`` (view, select, mul,
    mean, mul, add, add: 7 ops) until ``size["ops"]`` ops are recorded, from the leaf ``x``;
    backward of ``y.sum()``. ``a`` in [0.5, 0.9] keeps the values bounded.

    Summary: ``[y.sum(), x.grad.sum(), a.grad.sum(), b.grad.sum()]``.
    """
    a, b, x = leaf(torch, inputs["a"]), leaf(torch, inputs["b"]), leaf(torch, inputs["x"])
    iterations = size["ops"] // VIEW_CHAIN_OPS
    last: list[Any] = []

    def step() -> None:
        x.grad = a.grad = b.grad = None
        y = x
        for _ in range(iterations):
            y = y.view(1, -1)[0] * a + y.mean(0, keepdim=True) * 0.05 + b
        total = y.sum()
        total.backward()
        last[:] = [total]

    def summary() -> list[float]:
        grads = (x.grad.sum().item(), a.grad.sum().item(), b.grad.sum().item())
        return [last[0].item(), *grads]

    return Prepared(step, summary)


# --- MLPs ----------------------------------------------------------------------------------------


def mlp_digits_inputs(size: Size) -> Inputs:
    rng = rng_for("mlp_digits")
    x, y = digits_batches(rng, size["batch"], image=False)
    return {"weights": linear_layers(rng, [64, size["hidden"], 10]), "x": x, "y": y}


def mlp_digits_sgd(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """One SGD step (lr 0.1) of a 64-hidden-10 ReLU MLP with cross-entropy, on the next batch.

    Summary: ``[loss]`` of the step.
    """
    nn, functional = torch.nn, nn_functional(torch)
    hidden = size["hidden"]
    layer1, layer2 = nn.Linear(64, hidden), nn.Linear(hidden, 10)
    parameters = [layer1.weight, layer1.bias, layer2.weight, layer2.bias]
    assign(torch, parameters, inputs["weights"])
    optimizer = torch.optim.SGD(parameters, lr=0.1)
    batches = [
        (torch.from_numpy(x), torch.from_numpy(y))
        for x, y in zip(inputs["x"], inputs["y"], strict=True)
    ]
    state = {"index": 0, "loss": None}

    def step() -> None:
        x, y = batches[state["index"] % len(batches)]
        state["index"] += 1
        optimizer.zero_grad()
        loss = functional.cross_entropy(layer2(functional.relu(layer1(x))), y)
        loss.backward()
        optimizer.step()
        state["loss"] = loss.detach()

    return Prepared(step, lambda: [state["loss"].item()])


def mlp_wide_inputs(size: Size) -> Inputs:
    """Weights of the wide MLP, one random batch (MNIST-shaped) and, for the HVP, vectors ``v``."""
    rng = rng_for("mlp_wide")
    widths = [size["inputs"], size["hidden"], size["hidden"], 10]
    weights = linear_layers(rng, widths)
    return {
        "widths": widths,
        "weights": weights,
        "x": rng.uniform(0.0, 1.0, size=(size["batch"], size["inputs"])).astype(np.float32),
        "y": rng.integers(0, 10, size=size["batch"]).astype(np.int64),
        "v": [rng.standard_normal(w.shape).astype(np.float32) for w in weights],
    }


def mlp_wide_adam(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """One Adam step (lr 1e-3) of a 784-1024-1024-10 ReLU MLP with cross-entropy on one batch.

    Summary: ``[loss]`` of the step.
    """
    nn, functional = torch.nn, nn_functional(torch)
    widths = inputs["widths"]
    layers = [nn.Linear(i, o) for i, o in zip(widths[:-1], widths[1:], strict=True)]
    parameters = [p for layer in layers for p in (layer.weight, layer.bias)]
    assign(torch, parameters, inputs["weights"])
    optimizer = torch.optim.Adam(parameters, lr=1e-3)
    x, y = torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["y"])
    state = {"loss": None}

    def step() -> None:
        optimizer.zero_grad()
        h = functional.relu(layers[0](x))
        h = functional.relu(layers[1](h))
        loss = functional.cross_entropy(layers[2](h), y)
        loss.backward()
        optimizer.step()
        state["loss"] = loss.detach()

    return Prepared(step, lambda: [state["loss"].item()])


def hvp_wide_mlp(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """Hessian-vector product ``H v`` of the wide MLP's loss w.r.t. its parameters.

    Double backward: ``g = grad(loss, params, create_graph=True)``, then ``grad(sum(g * v))``.
    Written with raw tensors (``x @ w.T + b``) so it needs only the core ops.
    Summary: ``[loss, v . g, v . Hv, |Hv|]``.
    """
    functional = nn_functional(torch)
    parameters = [leaf(torch, w) for w in inputs["weights"]]
    vectors = [torch.from_numpy(v) for v in inputs["v"]]
    x, y = torch.from_numpy(inputs["x"]), torch.from_numpy(inputs["y"])
    last: dict[str, Any] = {}

    def step() -> None:
        w1, b1, w2, b2, w3, b3 = parameters
        h = functional.relu(x @ w1.T + b1)
        h = functional.relu(h @ w2.T + b2)
        loss = functional.cross_entropy(h @ w3.T + b3, y)
        grads = torch.autograd.grad(loss, parameters, create_graph=True)
        directional = sum((g * v).sum() for g, v in zip(grads, vectors, strict=True))
        hessian_vector = torch.autograd.grad(directional, parameters)
        last.update(loss=loss.detach(), directional=directional.detach(), hv=hessian_vector)

    def summary() -> list[float]:
        hv = [np.asarray(h.numpy(), dtype=np.float64) for h in last["hv"]]
        v_hv = sum(float(np.vdot(h, v)) for h, v in zip(hv, inputs["v"], strict=True))
        norm = float(np.sqrt(sum(float(np.vdot(h, h)) for h in hv)))
        return [last["loss"].item(), last["directional"].item(), v_hv, norm]

    return Prepared(step, summary)


# --- CNN and LSTM --------------------------------------------------------------------------------


def cnn_inputs(size: Size) -> Inputs:
    rng = rng_for("cnn_digits")
    c1, c2 = size["channels1"], size["channels2"]
    x, y = digits_batches(rng, size["batch"], image=True)
    weights = [
        uniform_weight(rng, (c1, 1, 3, 3), 9),
        uniform_weight(rng, (c1,), 9),
        uniform_weight(rng, (c2, c1, 3, 3), c1 * 9),
        uniform_weight(rng, (c2,), c1 * 9),
        uniform_weight(rng, (10, c2 * 16), c2 * 16),
        uniform_weight(rng, (10,), c2 * 16),
    ]
    return {"weights": weights, "x": x, "y": y}


def cnn_digits(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """One SGD step (lr 0.05) of conv(1->16, 3x3, pad 1) - ReLU - conv(16->32, 3x3, pad 1) - ReLU
    - max-pool 2x2 - linear(32*4*4 -> 10) with cross-entropy, on the next digits batch (8x8 images).

    Summary: ``[loss]`` of the step.
    """
    nn, functional = torch.nn, nn_functional(torch)
    c1, c2 = size["channels1"], size["channels2"]
    conv1 = nn.Conv2d(1, c1, 3, padding=1)
    conv2 = nn.Conv2d(c1, c2, 3, padding=1)
    head = nn.Linear(c2 * 16, 10)
    parameters = [conv1.weight, conv1.bias, conv2.weight, conv2.bias, head.weight, head.bias]
    assign(torch, parameters, inputs["weights"])
    optimizer = torch.optim.SGD(parameters, lr=0.05)
    batches = [
        (torch.from_numpy(x), torch.from_numpy(y))
        for x, y in zip(inputs["x"], inputs["y"], strict=True)
    ]
    state = {"index": 0, "loss": None}

    def step() -> None:
        x, y = batches[state["index"] % len(batches)]
        state["index"] += 1
        optimizer.zero_grad()
        h = functional.relu(conv1(x))
        h = functional.max_pool2d(functional.relu(conv2(h)), 2)
        loss = functional.cross_entropy(head(h.reshape(h.shape[0], -1)), y)
        loss.backward()
        optimizer.step()
        state["loss"] = loss.detach()

    return Prepared(step, lambda: [state["loss"].item()])


def lstm_inputs(size: Size) -> Inputs:
    rng = rng_for("lstm")
    hidden, features = size["hidden"], size["features"]
    weights = [
        uniform_weight(rng, (4 * hidden, features), hidden),
        uniform_weight(rng, (4 * hidden, hidden), hidden),
        uniform_weight(rng, (4 * hidden,), hidden),
        uniform_weight(rng, (4 * hidden,), hidden),
    ]
    x = rng.standard_normal((size["sequence"], size["batch"], features)).astype(np.float32)
    return {"weights": weights, "x": x}


def lstm(torch: ModuleType, inputs: Inputs, size: Size) -> Prepared:
    """Forward + backward of a one-layer ``nn.LSTM`` over a sequence; loss ``mean(out * out)``.

    Input ``(sequence, batch, features)``, zero initial state, gates ordered i, f, g, o.
    Summary: ``[loss, |dW_ih|, |dW_hh|, |db_ih|]``.
    """
    module = torch.nn.LSTM(size["features"], size["hidden"])
    parameters = [
        module.weight_ih_l0,
        module.weight_hh_l0,
        module.bias_ih_l0,
        module.bias_hh_l0,
    ]
    assign(torch, parameters, inputs["weights"])
    x = torch.from_numpy(inputs["x"])
    state = {"loss": None}

    def step() -> None:
        for parameter in parameters:
            parameter.grad = None
        out, _ = module(x)
        loss = (out * out).mean()
        loss.backward()
        state["loss"] = loss.detach()

    def summary() -> list[float]:
        return [state["loss"].item(), *(_norm(p.grad) for p in parameters[:3])]

    return Prepared(step, summary)


# --- the registry --------------------------------------------------------------------------------


def _chain_sizes(full_ops: int, quick_ops: int, elements: int) -> dict[str, Size]:
    return {
        "full": {"ops": full_ops, "elements": elements},
        "quick": {"ops": quick_ops, "elements": elements},
    }


def _chain_pair(
    name: str,
    title: str,
    full_ops: int,
    quick_ops: int,
    target_ratio: float,
    torch_api: Callable[..., Any],
) -> list[Workload]:
    """The chain workload ``name`` on 1 and on 100 elements: rows ``name_1`` and ``name_100``."""
    return [
        Workload(
            name=f"{name}_{elements}",
            title=f"{title}, 10,000 ops, {elements} element{'s' * (elements > 1)}, fwd + bwd",
            unit="chain",
            target=f"<= {target_ratio}",
            target_ratio=target_ratio,
            sizes=_chain_sizes(full_ops, quick_ops, elements),
            make_inputs=chain_inputs,
            torch_api=torch_api,
        )
        for elements in (1, 100)
    ]


_WIDE_SIZES = {
    "full": {"inputs": 784, "hidden": 1024, "batch": 256},
    "quick": {"inputs": 64, "hidden": 32, "batch": 8},
}

WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in [
        *_chain_pair("chain", "elementwise chain y = y * a + b", 10_000, 200, 0.7, chain),
        *_chain_pair(
            "chain_scalar",
            "elementwise chain y = y * 1.0001 + 0.1 (Python numbers)",
            10_000,
            200,
            0.7,
            scalar_operand_chain,
        ),
        *_chain_pair(
            "chain_views",
            "view/indexing/reduction chain y = y.view(1, -1)[0] * a + y.mean(0, keepdim=True) "
            "* 0.05 + b",
            10_003,
            203,
            1.0,
            view_chain,
        ),
        Workload(
            name="mlp_digits_sgd",
            title="MLP 64-128-10, batch 64, SGD step on scikit-learn digits",
            unit="step",
            target="<= 0.8",
            target_ratio=0.8,
            sizes={"full": {"hidden": 128, "batch": 64}, "quick": {"hidden": 16, "batch": 16}},
            make_inputs=mlp_digits_inputs,
            torch_api=mlp_digits_sgd,
            check_units=3,
        ),
        Workload(
            name="mlp_wide_adam",
            title="MLP 784-1024-1024-10, batch 256, Adam step",
            unit="step",
            target="<= 1.0",
            target_ratio=1.0,
            sizes=_WIDE_SIZES,
            make_inputs=mlp_wide_inputs,
            torch_api=mlp_wide_adam,
            check_units=3,
            rtol=1e-4,
        ),
        Workload(
            name="cnn_digits",
            title="CNN on digits (conv 1->16 3x3, conv 16->32 3x3, max-pool, linear), "
            "batch 64, SGD step",
            unit="step",
            target="<= 1.2",
            target_ratio=1.2,
            sizes={
                "full": {"batch": 64, "channels1": 16, "channels2": 32},
                "quick": {"batch": 8, "channels1": 2, "channels2": 4},
            },
            make_inputs=cnn_inputs,
            torch_api=cnn_digits,
            check_units=3,
        ),
        Workload(
            name="lstm",
            title="LSTM, sequence 32, batch 32, hidden 128 (input 64), fwd + bwd",
            unit="pass",
            target="<= 1.2",
            target_ratio=1.2,
            sizes={
                "full": {"sequence": 32, "batch": 32, "hidden": 128, "features": 64},
                "quick": {"sequence": 4, "batch": 4, "hidden": 8, "features": 8},
            },
            make_inputs=lstm_inputs,
            torch_api=lstm,
            rtol=1e-4,
        ),
        Workload(
            name="scalar_chain_100k",
            title="scalar (0-d) chain y = y * a + b, 100,000 ops, fwd + bwd",
            unit="chain",
            target="<= 0.8",
            target_ratio=0.8,
            sizes=_chain_sizes(100_000, 500, 0),
            make_inputs=chain_inputs,
            torch_api=chain,
        ),
        Workload(
            name="scalar_chain_1m",
            title="scalar (0-d) chain y = y * a + b, 1,000,000 ops, fwd + bwd",
            unit="chain",
            target="1M costs <= 10x the 100k",
            target_ratio=None,
            sizes=_chain_sizes(1_000_000, 5_000, 0),
            make_inputs=chain_inputs,
            torch_api=chain,
        ),
        Workload(
            name="hvp_wide_mlp",
            title="Hessian-vector product of the 784-1024-1024-10 MLP (double backward)",
            unit="hvp",
            target="<= 1.0",
            target_ratio=1.0,
            sizes=_WIDE_SIZES,
            make_inputs=mlp_wide_inputs,
            torch_api=hvp_wide_mlp,
            rtol=1e-3,
            atol=1e-5,
        ),
    ]
}
