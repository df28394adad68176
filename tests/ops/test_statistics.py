"""nansum/nanmean, aminmax, quantile/nanquantile, cov/corrcoef, cdist/dist/renorm, kron,
combinations and the trapezoid rule beyond the registry: NaN, argument forms, errors."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from ._parity import same, same_error

NAN = float("nan")


def test_nan_aware_reductions() -> None:
    data = [[1.0, NAN, 3.0], [NAN, NAN, NAN]]
    same(lambda lib: lib.nansum(lib.tensor(data), dim=1))
    same(lambda lib: lib.nanmean(lib.tensor(data), dim=1, keepdim=True))
    same(lambda lib: lib.tensor(data).nanquantile(0.5, dim=1))
    same(lambda lib: lib.tensor(data).quantile(lib.tensor([0.25, 0.75]), dim=1))
    same(lambda lib: lib.nansum(lib.tensor([1, 2, 3]), dtype=lib.float64))
    same(lambda lib: lib.aminmax(lib.tensor([[1, 5], [3, 2]]), dim=1, keepdim=True))


@pytest.mark.parametrize(
    "keywords", [{}, {"keepdim": True}, {"dim": 1}, {"dim": 0, "keepdim": True}]
)
def test_aminmax_is_one_node_with_two_outputs_as_pytorchs(keywords) -> None:
    """One AminmaxBackward0 for both results (not amin's and amax's nodes): a hook on the min
    fires before the node finds its saved max changed in place (fuzz seed 810870), as
    PyTorch runs a node's tensor and pre-hooks before it unpacks what it saved."""
    caught = []
    for lib in (gg, torch):
        x = lib.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.5]], requires_grad=True)
        low, high = x.aminmax(**keywords)
        seen: list = []
        low.register_hook(lambda g, seen=seen: seen.append(g.tolist()))
        node = low.grad_fn
        assert high.grad_fn is node and type(node).__name__ == "AminmaxBackward0"
        assert low._base is None and high._base is None
        high.copysign_(3)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            (low * 2 + high).sum().backward()
        (grad,) = lib.autograd.grad(x.aminmax(**keywords)[1].sum(), x)
        caught.append((seen, grad.tolist(), tuple(low.shape)))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_gradient_of_q_as_pytorchs(name) -> None:
    """PyTorch's quantile takes its ranks from q and interpolates with lerp_, so q gets
    lerp's weight gradient in linear mode (zero in a row holding NaN, whose rank quantile
    fills with the last one); glassgrad treated q as a constant (no gradient at all)."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor([[0.3, 1.2, -0.5, 2.0], [1.0, 2.0, 3.0, NAN]], dtype=lib.float64)
        q = lib.tensor([0.25, 0.6], dtype=lib.float64, requires_grad=True)
        y = getattr(lib, name)(x, q, dim=1)
        weights = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)
        (grad,) = lib.autograd.grad((y * weights).nansum(), q)
        results.append((y.tolist(), grad.tolist()))
    assert repr(results[0]) == repr(results[1])


def test_quantile_interpolations() -> None:
    for mode in ("linear", "lower", "higher", "midpoint", "nearest"):
        same(lambda lib, mode=mode: lib.quantile(lib.arange(6.0), 0.3, interpolation=mode))
        same(lambda lib, mode=mode: lib.quantile(lib.arange(4.0), 0.5, interpolation=mode))


def test_covariance_and_distances() -> None:
    data = [[1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 0.0, 3.0]]
    same(lambda lib: lib.cov(lib.tensor(data), correction=0).tolist())
    same(lambda lib: lib.corrcoef(lib.tensor(data)).tolist())
    same(lambda lib: lib.tensor(data).dist(lib.zeros(4), p=1))
    same(lambda lib: lib.cdist(lib.tensor([[0.0, 0.0]]), lib.tensor([[3.0, 4.0], [0.0, 0.0]])))
    same(lambda lib: lib.kron(lib.eye(2), lib.tensor([[1, 2]])))
    same(lambda lib: lib.combinations(lib.tensor([1, 2, 3]), r=2, with_replacement=True))
    same(lambda lib: lib.trapezoid(lib.tensor([1.0, 4.0, 9.0]), x=lib.tensor([0.0, 1.0, 3.0])))

    def zero_distance_gradient(lib: Any) -> Any:
        x = lib.tensor([[1.0, 2.0]], requires_grad=True)
        lib.cdist(x, x.detach()).sum().backward()
        return x.grad

    same(zero_distance_gradient)


def test_errors() -> None:
    same_error(lambda lib: lib.quantile(lib.tensor([1, 2]), 0.5))
    same_error(lambda lib: lib.quantile(lib.ones(3), 1.5))
    same_error(lambda lib: lib.quantile(lib.ones(3), 0.5, interpolation="cubic"))
    same_error(lambda lib: lib.quantile(lib.ones(3), lib.ones(2, 2) / 2))
    same_error(lambda lib: lib.nanmean(lib.tensor([1, 2])))
    same_error(lambda lib: lib.aminmax(lib.ones(0)))
    same_error(lambda lib: lib.aminmax(lib.ones(0, 3), dim=0))
    same_error(lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 4)))
    same_error(lambda lib: lib.cdist(lib.ones(3), lib.ones(2, 3)))
    same_error(lambda lib: lib.cdist(lib.ones(2, 3), lib.ones(2, 3), p=-1))
    same_error(lambda lib: lib.renorm(lib.ones(2, 2), 0, 0, 1.0))
    same_error(lambda lib: lib.combinations(lib.ones(2, 2)))
    same_error(lambda lib: lib.cov(lib.ones(2, 2, 2)))


def test_quantile_q_tensor_of_another_dtype_refused_as_pytorch() -> None:
    """PyTorch refuses a q tensor whose dtype is not the input's (fuzz seed 73126)."""
    for name in ("quantile", "nanquantile"):
        same_error(
            lambda lib, name=name: getattr(lib.zeros(3, 4, dtype=lib.float64), name)(
                lib.tensor([0.5], dtype=lib.float32), 0, True
            )
        )


_COV_CASES = {
    "negative aweights": (
        [[1.0, 2.0, 3.0], [2.0, 1.0, 0.0]],
        {"aweights": ([1.0, -1.0, 2.0], "float32")},
    ),
    "negative fweights": ([[1.0, 2.0, 3.0]], {"fweights": ([1, -1, 2], "int64")}),
    "float fweights": ([1.0, 2.0, 3.0], {"fweights": ([1.0, 1.0, 1.0], "float32")}),
    "integer aweights": ([1.0, 2.0, 3.0], {"aweights": ([1, 2, 3], "int64")}),
    "weights of another length": ([1.0, 2.0, 3.0], {"aweights": ([1.0, 2.0], "float64")}),
    "2-d weights": ([1.0, 2.0], {"fweights": ([[1, 2]], "int64")}),
    "weights summing to zero": ([[1.0, 2.0], [0.0, 4.0]], {"aweights": ([0.0, 0.0], "float32")}),
    "bool input": ([True, False], {}),
    "no degrees of freedom": ([[1.0, 2.0], [0.0, 4.0]], {"correction": 2}),
    "integer input": ([[1, 2, 4], [2, 5, 0]], {"correction": 0}),
    "both weights": (
        [[1.0, 2.0, 4.0], [2.0, 5.0, 0.0]],
        {"fweights": ([2, 1, 3], "int64"), "aweights": ([0.5, 1.5, 0.25], "float64")},
    ),
    "one observation, aweights": ([[3.0], [1.0]], {"aweights": ([2.0], "float64")}),
    "one observation, fweights (zeroes the input)": ([[3.0], [1.0]], {"fweights": ([2], "int64")}),
    "complex": (
        [[1 + 2j, 2 - 1j, -1j], [3.0, 1j, 1 + 1j]],
        {"aweights": ([0.5, 1.0, 2.0], "float32")},
    ),
}


@pytest.mark.parametrize("case", list(_COV_CASES))
def test_cov_as_pytorchs(case: str) -> None:
    """PyTorch's cov (Correlation.cpp): its argument checks (fuzz seed 740206: negative
    aweights gave a value), degrees of freedom <= 0 warn and divide by 0, its corner cases
    for one observation (one kind of weights zeroes the input itself), complex input (it was
    cast to real), the product ``in @ (in * w).T.conj()``; gradients of the input and weights."""
    values, options = _COV_CASES[case]
    outcomes = []
    for lib in (torch, gg):
        x = lib.tensor(values)
        if x.dtype.is_floating_point or x.dtype.is_complex:
            x = x.requires_grad_()
        given = x * 1 if x.requires_grad else x
        kwargs = {"correction": options.get("correction", 1)}
        for name in ("fweights", "aweights"):
            if name in options:
                weights, dtype = options[name]
                kwargs[name] = lib.tensor(weights, dtype=getattr(lib, dtype))
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                c = lib.cov(given, **kwargs)
        except RuntimeError as exc:
            outcomes.append(str(exc))
            continue
        result = [str(c.dtype).split(".")[-1], c.detach().numpy(), given.detach().numpy()]
        # glassgrad's own NumPy RuntimeWarnings are filtered at import, not under "always"
        shown = [w for w in caught if w.category is UserWarning]
        result.append([str(w.message).split(" (Triggered")[0] for w in shown])
        if c.requires_grad:
            (grad,) = lib.autograd.grad(c.abs().sum(), x, allow_unused=True)
            result.append(None if grad is None else grad.numpy())
        outcomes.append(result)
    theirs, ours = outcomes
    if isinstance(theirs, str) or isinstance(ours, str):
        assert ours == theirs
        return
    assert ours[0] == theirs[0] and ours[3] == theirs[3] and len(ours) == len(theirs)
    for mine, reference in zip(ours[1:3] + ours[4:], theirs[1:3] + theirs[4:]):
        np.testing.assert_allclose(mine, reference, rtol=1e-6, atol=1e-7)
