"""Second derivatives through PyTorch's double-backward formulas (derivatives.yaml and
FunctionsManual.cpp), recorded as PyTorch's nodes: the first derivatives' ``grad_fn`` names
under ``create_graph`` and the second derivatives (in the inputs and in the incoming gradient)
equal PyTorch's, with a NaN, +inf or -inf in an input, in the incoming gradient ``v`` or in
the gradient ``w`` of the first derivatives (issue 14, values).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

NAN, INF = float("nan"), float("inf")
RNG = np.random.default_rng(14)
X = RNG.standard_normal((2, 4, 3))
T = RNG.standard_normal((2, 4, 3))
W3, B3 = RNG.standard_normal(3), RNG.standard_normal(3)
W4, B4 = RNG.standard_normal(4), RNG.standard_normal(4)
X[0, 1, 2] = 0.0  # prelu's double backward masks by x >= 0, its kernel by x > 0

CASES: dict[str, tuple[Any, tuple]] = {
    "gelu": (lambda lib, x: lib.nn.functional.gelu(x), (X,)),
    "gelu_tanh": (lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh"), (X,)),
    "smooth_l1_loss": (
        lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t, beta=0.8),
        (X, T),
    ),
    "smooth_l1_loss_none": (
        lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t, reduction="none"),
        (X, T),
    ),
    "smooth_l1_loss_sum": (
        lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t, reduction="sum", beta=0.0),
        (X, T),
    ),
    "huber_loss": (lambda lib, x, t: lib.nn.functional.huber_loss(x, t, delta=0.8), (X, T)),
    "huber_loss_none": (
        lambda lib, x, t: lib.nn.functional.huber_loss(x, t, reduction="none"),
        (X, T),
    ),
    "huber_loss_sum": (
        lambda lib, x, t: lib.nn.functional.huber_loss(x, t, reduction="sum"),
        (X, T),
    ),
    "layer_norm": (
        lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (3,), w, b),
        (X, W3, B3),
    ),
    "layer_norm_2d": (lambda lib, x, w: lib.nn.functional.layer_norm(x, (4, 3), w), (X, X[0])),
    "layer_norm_plain": (lambda lib, x: lib.nn.functional.layer_norm(x, (4, 3)), (X,)),
    "batch_norm": (
        lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, training=True),
        (X, W4, B4),
    ),
    "batch_norm_plain": (
        lambda lib, x: lib.nn.functional.batch_norm(x, None, None, training=True),
        (X,),
    ),
    "batch_norm_eval": (
        lambda lib, x, w, b: lib.nn.functional.batch_norm(
            x, lib.tensor(B4 * 0.1), lib.tensor(W4 * W4 + 0.5), w, b
        ),
        (X, W4, B4),
    ),
    "group_norm": (
        lambda lib, x, w, b: lib.nn.functional.group_norm(x, 2, w, b),
        (X, W4, B4),
    ),
    "group_norm_plain": (lambda lib, x: lib.nn.functional.group_norm(x, 4), (X,)),
    "glu": (lambda lib, x: lib.nn.functional.glu(x, 1), (X,)),
    "prelu": (
        lambda lib, x, w: lib.nn.functional.prelu(x, w),
        (X, np.array([0.2, -0.3, 1.5, 0.0])),
    ),
}


def _first_and_second(lib: Any, case: str, arrays: tuple, v: np.ndarray, w_poison: Any) -> list:
    fn, _ = CASES[case]
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    vt = lib.tensor(v, requires_grad=True)
    firsts = lib.autograd.grad(out, xs, vt, create_graph=True, allow_unused=True)
    names = [None if f is None else type(f.grad_fn).__name__ for f in firsts]
    used = [f for f in firsts if f is not None and f.requires_grad]
    ws = [lib.tensor(_middle(tuple(f.shape), w_poison)) for f in used]
    seconds = lib.autograd.grad(used, [*xs, vt], ws, allow_unused=True)
    values = [f for f in firsts] + list(seconds)
    return [names] + [
        None if g is None else g.detach().numpy(force=True) if lib is torch else g.detach().numpy()
        for g in values
    ]


def _middle(shape: tuple, poison: Any) -> np.ndarray:
    values = np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape)
    if poison is not None and values.size:
        values.reshape(-1)[values.size // 2] = poison
    return values


def _places(case: str) -> list:
    arrays = CASES[case][1]
    return [("input", i) for i in range(len(arrays))] + [("v", None), ("w", None)]


@pytest.mark.parametrize("poison", [NAN, INF, -INF])
@pytest.mark.parametrize(("case", "place"), [(c, p) for c in CASES for p in _places(c)])
def test_second_derivatives_are_pytorchs(case: str, place: tuple, poison: float) -> None:
    _, arrays = CASES[case]
    arrays = [a.copy() for a in arrays]
    where, index = place
    if where == "input":
        arrays[index].reshape(-1)[arrays[index].size // 2] = poison
    results = []
    for lib in (gg, torch):
        out_shape = tuple(CASES[case][0](torch, *[torch.tensor(a) for a in arrays]).shape)
        v = _middle(out_shape, poison if where == "v" else None)
        results.append(_first_and_second(lib, case, arrays, v, poison if where == "w" else None))
    ours, theirs = results
    assert ours[0] == theirs[0]  # the first derivatives' grad_fn names
    for a, b in zip(ours[1:], theirs[1:]):
        assert (a is None) == (b is None)
        if b is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
