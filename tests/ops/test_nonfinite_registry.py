"""A NaN, +inf or -inf in one element of each floating input, over the registry's pointwise,
``nn.functional`` and ``special`` rows: values, first and second derivatives follow PyTorch's
(issue 14, values).

Each row's first sample is run with the poison in the middle element of one input at a time,
and with it in the middle element of the incoming gradient ``v`` (the first derivative) and
of the gradient of the first derivatives ``w`` (the second; ``v`` then requires grad too, so a
double backward's mask on its gradient is compared). NaN positions must be equal, infinities
equal with their signs, finite values close. ``KNOWN`` lists the rows that still differ, with
PyTorch's reason (docs/fuzzing.md, "Known differences"); a listed row that agrees fails, so the
list only shrinks.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import NoGrad, OpInfo, Sample
from tests.ops.test_registry import _call, _differentiable, _numpy, _outputs, _samples

POISONS = (float("nan"), float("inf"), float("-inf"))

# PyTorch 2.13's CPU kernels of these return their result variable uninitialised for a NaN
# argument (run-to-run garbage, NaN now and then): their NaN cases are not compared.
UNDEFINED_AT_NAN = {
    "special.chebyshev_polynomial_u",
    "special.chebyshev_polynomial_w",
    "special.shifted_chebyshev_polynomial_t",
    "special.shifted_chebyshev_polynomial_u",
    "special.shifted_chebyshev_polynomial_w",
    "special.laguerre_polynomial_l",
    "special.legendre_polynomial_p",
}

# PyTorch's vectorized CPU loops of these take the other branch at a NaN input than their
# scalar loop, which glassgrad follows: which one an element gets depends on its position and
# the machine's SIMD width (docs/fuzzing.md, "A NaN input to a branching pointwise backward"),
# so their NaN inputs are not compared.
BRANCH_AT_NAN = {
    "nn.functional.relu6",
    "nn.functional.hardtanh",
    "nn.functional.hardshrink",
    "nn.functional.softshrink",
}

# Rows whose non-finite results still differ from PyTorch's, and why (docs/fuzzing.md).
KNOWN: dict[str, str] = {}


def _rows() -> list:
    keys = []
    for key, info in REGISTRY.items():
        pointwise = any(getattr(node, "pointwise", False) for node in info.nodes)
        if pointwise or info.namespace in ("nn.functional", "special"):
            keys.append(key)
    return keys


def _poisoned(value: Any, where: list, poison: float) -> Any:
    """``value`` (a sample argument) with ``poison`` in the middle element of the float array
    counted ``where[0]`` (counting down across the arguments)."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.size:
        where[0] -= 1
        if where[0] == -1:
            value = value.copy()
            value.reshape(-1)[(value.size - 1) // 2] = poison
    elif isinstance(value, list):
        return [_poisoned(v, where, poison) for v in value]
    return value


def _float_inputs(sample: Sample) -> int:
    flat = [*sample.args, *sample.kwargs.values()]
    arrays = [v for a in flat for v in (a if isinstance(a, list) else [a])]
    return sum(isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.size > 0 for v in arrays)


def _tensor(value: Any, lib: Any, leaves: list) -> Any:
    if isinstance(value, NoGrad):
        return lib.tensor(value.array)
    if isinstance(value, np.generic):
        value = np.asarray(value)
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            t = lib.tensor(value, requires_grad=True)
            leaves.append(t)
            return t
        return lib.from_numpy(value.copy())
    if isinstance(value, list):
        return [_tensor(v, lib, leaves) for v in value]
    return value


def _middle(shape: tuple, poison: float | None) -> np.ndarray:
    """A gradient of ``shape``: 0.5 to 1.5, with ``poison`` in its middle element."""
    values = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    if poison is not None and values.size:
        values.reshape(-1)[(values.size - 1) // 2] = poison
    return values


def _run(info: OpInfo, args: tuple, kwargs: dict, lib: Any, order: int, at: str, poison: Any):
    """Forward values, first derivatives and (order 2) second derivatives, as arrays."""
    leaves: list = []
    args = tuple(_tensor(a, lib, leaves) for a in args)
    kwargs = {k: _tensor(v, lib, leaves) for k, v in kwargs.items()}
    outputs = _outputs(_call(info, lib, args, kwargs))
    phases = [("forward", [_numpy(o) for o in outputs])]
    outputs = _differentiable(outputs, lib)
    if order == 0 or not outputs or not leaves:
        return phases
    vs = [
        lib.tensor(_middle(tuple(o.shape), poison if at == "v" and i == 0 else None))
        .to(o.dtype)
        .requires_grad_(order > 1)
        for i, o in enumerate(outputs)
    ]
    grads = lib.autograd.grad(outputs, leaves, vs, create_graph=order > 1, allow_unused=True)
    phases.append(("first derivative", [_zeros_if_none(g, x) for g, x in zip(grads, leaves)]))
    if order < 2:
        return phases
    firsts = [g for g in grads if g is not None and g.requires_grad]
    wrt = leaves + vs
    second = [None] * len(wrt)
    if firsts:
        ws = [lib.tensor(_middle(tuple(g.shape), poison if at == "w" else None)) for g in firsts]
        ws = [w.to(g.dtype) for w, g in zip(ws, firsts)]
        second = lib.autograd.grad(firsts, wrt, ws, allow_unused=True)
    phases.append(("second derivative", [_zeros_if_none(g, x) for g, x in zip(second, wrt)]))
    return phases


def _zeros_if_none(g: Any, like: Any) -> np.ndarray:
    return np.zeros(tuple(like.shape)) if g is None else _numpy(g)


def _difference(ours: np.ndarray, theirs: np.ndarray) -> str | None:
    if ours.shape != theirs.shape:
        return f"shape {ours.shape} != {theirs.shape}"
    if ours.dtype.kind not in "fc":
        return None if np.array_equal(ours, theirs) else "values"
    parts = (np.real, np.imag) if ours.dtype.kind == "c" else (np.asarray,)
    for part in parts:
        a, b = part(ours), part(theirs)
        if (np.isnan(a) != np.isnan(b)).any():
            return f"NaN at other places: {a} vs {b}"
        infinite = np.isinf(a) | np.isinf(b)
        if (a[infinite] != b[infinite]).any():
            return f"infinities differ: {a} vs {b}"
        finite = np.isfinite(a) & np.isfinite(b)
        scale = max(1.0, float(np.abs(b[finite]).max(initial=0.0)))
        if not np.allclose(a[finite], b[finite], rtol=1e-6, atol=1e-8 * scale):
            return f"values: {a} vs {b}"
    return None


def _differences(key: str) -> list[str]:
    info = REGISTRY[key]
    samples = _samples(info)
    if not samples:
        return []
    sample = samples[0]
    order = 0 if not (info.differentiable and sample.grad) else 1
    if order and info.second_order and sample.gradgrad:
        order = 2
    cases = [("input", i) for i in range(_float_inputs(sample))]
    cases += [("v", None), ("w", None)] if order else []
    found = []
    for at, index in cases:
        for poison in POISONS:
            if key in UNDEFINED_AT_NAN and poison != poison:
                continue
            if key in BRANCH_AT_NAN and poison != poison and at == "input":
                continue
            args, kwargs = sample.args, sample.kwargs
            if at == "input":
                where = [index]
                args = tuple(_poisoned(a, where, poison) for a in args)
                kwargs = {k: _poisoned(v, where, poison) for k, v in kwargs.items()}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    theirs = _run(info, args, kwargs, torch, order, at, poison)
                except Exception:
                    continue  # PyTorch refuses the value (the error tests compare errors)
                ours = _run(info, args, kwargs, gg, order, at, poison)
            for (phase, mine), (_, reference) in zip(ours, theirs):
                where_ = f"{poison} in {at} {'' if index is None else index}: {phase}"
                for k, (a, b) in enumerate(zip(mine, reference)):
                    difference = _difference(a, b)
                    if difference:
                        found.append(f"{where_} {k}: {difference}")
                        break
    return found


@pytest.mark.parametrize("key", _rows())
def test_nonfinite_values_and_gradients_are_pytorchs(key: str) -> None:
    differences = _differences(key)
    if key in KNOWN:
        assert differences, f"{key} now agrees with PyTorch: remove it from KNOWN"
    else:
        assert not differences, f"{key}: " + "\n".join(differences[:3])
