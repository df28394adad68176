"""Pointwise ops beyond the core set: what the registry's parity tests can't say.

Graph structure (grad_fn names and edges as PyTorch records them), in-place variants and
operators, PyTorch's subgradients at ties and bounds, the accuracy of erf/erfinv, integer
and bool semantics, and the errors (type and message words). PyTorch is the oracle: the same
program runs in both libraries and the results are compared element by element.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import _erf

LIBS = (gg, torch)


def leaves_of(lib: Any, arrays: tuple) -> list:
    """Tensors of ``lib`` from arrays; float arrays require grad."""
    return [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]


def numpy_of(t: Any) -> np.ndarray:
    return t.detach().numpy()


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def grads_of(lib: Any, out: Any, leaves: list) -> list:
    """Gradients of sum(out * c) for a fixed random c; zeros for unused leaves."""
    c = np.random.default_rng(7).standard_normal(tuple(out.shape))
    grads = lib.autograd.grad(
        (out * lib.tensor(c, dtype=out.dtype)).sum(),
        [x for x in leaves if x.requires_grad],
        allow_unused=True,
    )
    return [lib.zeros_like(x) if g is None else g for g, x in zip(grads, leaves)]


def compare(program: Callable[[Any, list], Any], *arrays: np.ndarray, grads: bool = True):
    """Run ``program(lib, leaves)`` in both libraries; compare values and gradients."""
    outs, all_leaves = [], []
    for lib in LIBS:
        leaves = leaves_of(lib, arrays)
        outs.append(program(lib, leaves))
        all_leaves.append(leaves)
    assert_same(outs[0], outs[1])
    if grads and outs[1].requires_grad:
        for a, b in zip(
            grads_of(gg, outs[0], all_leaves[0]), grads_of(torch, outs[1], all_leaves[1])
        ):
            assert_same(a, b, rtol=1e-9)
    return outs


def graph_signature(fn: Any) -> str:
    if fn is None:
        return "-"
    children = ",".join(graph_signature(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


# --- graph structure --------------------------------------------------------------------------

RNG = np.random.default_rng(0)
X = RNG.random((2, 3)) * 0.8 + 0.1  # inside every domain (log, asin, atanh, erfinv, ...)
Y = RNG.random((2, 3)) + 0.5

GRAPH_PROGRAMS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "true_divide": lambda L, x, y: L.true_divide(x, y),
    "remainder tensor": lambda L, x, y: L.remainder(x, y),
    "remainder scalar": lambda L, x, y: L.remainder(x, 0.3),
    "remainder scalar first": lambda L, x, y: L.remainder(2.0, x),
    "floor_divide": lambda L, x, y: L.floor_divide(x, y),
    "div floor": lambda L, x, y: L.div(x, y, rounding_mode="floor"),
    "div trunc scalar": lambda L, x, y: L.div(x, 2.0, rounding_mode="trunc"),
    "exp2": lambda L, x, y: L.exp2(x),
    "expm1": lambda L, x, y: L.expm1(x),
    "log2": lambda L, x, y: L.log2(x),
    "log10": lambda L, x, y: L.log10(x),
    "log1p": lambda L, x, y: L.log1p(x),
    "rsqrt": lambda L, x, y: L.rsqrt(x),
    "square": lambda L, x, y: L.square(x),
    "tan": lambda L, x, y: L.tan(x),
    "asin": lambda L, x, y: L.asin(x),
    "acos": lambda L, x, y: L.acos(x),
    "atan": lambda L, x, y: L.atan(x),
    "atan2": lambda L, x, y: L.atan2(x, y),
    "sinh": lambda L, x, y: L.sinh(x),
    "cosh": lambda L, x, y: L.cosh(x),
    "asinh": lambda L, x, y: L.asinh(x),
    "acosh": lambda L, x, y: L.acosh(y + 1),
    "atanh": lambda L, x, y: L.atanh(x),
    "erf": lambda L, x, y: L.erf(x),
    "erfinv": lambda L, x, y: L.erfinv(x),
    "floor": lambda L, x, y: L.floor(x),
    "ceil": lambda L, x, y: L.ceil(x),
    "round": lambda L, x, y: L.round(x),
    "round decimals": lambda L, x, y: L.round(x, decimals=2),
    "trunc": lambda L, x, y: L.trunc(x),
    "frac": lambda L, x, y: L.frac(x),
    "clamp_min": lambda L, x, y: L.clamp_min(x, 0.3),
    "clamp_max tensor": lambda L, x, y: L.clamp_max(x, y),
    "clamp min tensor": lambda L, x, y: L.clamp(x, y),
    "clamp max tensor": lambda L, x, y: L.clamp(x, None, y),
    "clamp both tensors": lambda L, x, y: L.clamp(x, y, y + 1),
    "maximum": lambda L, x, y: L.maximum(x, y),
    "max with a tensor": lambda L, x, y: L.max(x, y),
    "minimum": lambda L, x, y: L.minimum(x, y),
    "lerp scalar": lambda L, x, y: L.lerp(x, y, 0.3),
    "lerp tensor": lambda L, x, y: L.lerp(x, y, x),
    "addcmul": lambda L, x, y: L.addcmul(x, x, y, value=2),
    "addcdiv": lambda L, x, y: L.addcdiv(x, x, y, value=2),
    "nan_to_num": lambda L, x, y: L.nan_to_num(x),
}


@pytest.mark.parametrize("name", list(GRAPH_PROGRAMS))
def test_grad_fn_names_and_edges_match_torch(name: str) -> None:
    program = GRAPH_PROGRAMS[name]
    signatures = []
    for lib in LIBS:
        x, y = leaves_of(lib, (X, Y))
        signatures.append(graph_signature(program(lib, x, y).grad_fn))
    assert signatures[0] == signatures[1]


# --- in-place variants and operators ------------------------------------------------------------

INPLACE_PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "exp2_": lambda x, y: x.exp2_(),
    "expm1_": lambda x, y: x.expm1_(),
    "log2_": lambda x, y: x.log2_(),
    "log10_": lambda x, y: x.log10_(),
    "log1p_": lambda x, y: x.log1p_(),
    "rsqrt_": lambda x, y: x.rsqrt_(),
    "square_": lambda x, y: x.square_(),
    "tan_": lambda x, y: x.tan_(),
    "asin_": lambda x, y: x.asin_(),
    "acos_": lambda x, y: x.acos_(),
    "atan_": lambda x, y: x.atan_(),
    "atan2_": lambda x, y: x.atan2_(y),
    "sinh_": lambda x, y: x.sinh_(),
    "cosh_": lambda x, y: x.cosh_(),
    "asinh_": lambda x, y: x.asinh_(),
    "acosh_": lambda x, y: (x + 1.5).acosh_(),
    "atanh_": lambda x, y: x.atanh_(),
    "erf_": lambda x, y: x.erf_(),
    "erfinv_": lambda x, y: x.erfinv_(),
    "floor_": lambda x, y: x.floor_(),
    "ceil_": lambda x, y: x.ceil_(),
    "trunc_": lambda x, y: x.trunc_(),
    "frac_": lambda x, y: x.frac_(),
    "round_": lambda x, y: x.round_(decimals=1),
    "clamp_ tensors": lambda x, y: x.clamp_(y - 1, y),
    "clamp_ numbers": lambda x, y: x.clamp_(0.3, 0.6),
    "clip_": lambda x, y: x.clip_(max=y),
    "clamp_min_": lambda x, y: x.clamp_min_(0.4),
    "clamp_max_": lambda x, y: x.clamp_max_(y - 0.8),
    "lerp_": lambda x, y: x.lerp_(y, 0.25),
    "addcmul_": lambda x, y: x.addcmul_(y, y, value=0.5),
    "addcdiv_": lambda x, y: x.addcdiv_(y, y + 1, value=0.5),
    "nan_to_num_": lambda x, y: x.nan_to_num_(),
    "remainder_": lambda x, y: x.remainder_(y),
    "true_divide_": lambda x, y: x.true_divide_(y),
    "div_ trunc": lambda x, y: x.div_(y, rounding_mode="trunc"),
    "__imod__": lambda x, y: x.__imod__(0.25),
}


TORCH_LACKS_INPLACE_DERIVATIVE = ("asinh_", "acosh_", "atanh_")


@pytest.mark.parametrize("name", list(INPLACE_PROGRAMS))
def test_inplace_variants_match_torch(name: str) -> None:
    """The in-place op on a non-leaf: same values, same grad_fn, same gradients."""
    program = INPLACE_PROGRAMS[name]

    def run(lib: Any, leaves: list) -> Any:
        x, y = leaves
        target = x * 1.0
        out = program(target, y)
        assert out is target or name == "acosh_"
        return out

    if name in TORCH_LACKS_INPLACE_DERIVATIVE:
        # PyTorch raises "the derivative for 'inplace version of asinh' is not implemented";
        # glassgrad differentiates it: compare with PyTorch's out-of-place op.
        x, y = leaves_of(gg, (X, Y))
        ours = program(x * 1.0, y)
        tx = torch.tensor(X, requires_grad=True)
        theirs = getattr(torch, name[:-1])(tx + 1.5 if name == "acosh_" else tx)
        assert_same(ours, theirs)
        assert_same(grads_of(gg, ours, [x])[0], grads_of(torch, theirs, [tx])[0])
        return
    ours, theirs = compare(run, X, Y)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_floor_divide_operators_and_inplace_on_integers() -> None:
    for lib in LIBS:
        assert lib.tensor([7, -7]).floor_divide(2).tolist() == [3, -4]
    values = np.arange(-6, 7)
    for expression in (
        lambda t: t // 4,
        lambda t: 17 // (t + 7),
        lambda t: t % 4,
        lambda t: 17 % (t + 7),
        lambda t: t.clone().floor_divide_(3),
        lambda t: t.clone().remainder_(-4),
        lambda t: t.div(4, rounding_mode="trunc"),
        lambda t: t.div(-4, rounding_mode="floor"),
    ):
        ours = expression(gg.tensor(values))
        theirs = expression(torch.tensor(values))
        assert_same(ours, theirs)


def test_floor_divide_records_not_implemented_and_backward_raises() -> None:
    for lib in LIBS:
        x = lib.tensor([1.5, -2.5], requires_grad=True)
        out = lib.floor_divide(x, 2.0)
        assert out.requires_grad
        assert type(out.grad_fn).__name__ == "NotImplemented"
        assert out.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(
            RuntimeError, match="derivative for aten::floor_divide is not implemented"
        ):
            out.sum().backward()


@pytest.mark.parametrize(
    "call",
    [
        "x.floor_divide(v)",
        "x.floor_divide_(v)",
        "x.heaviside(v)",
        "x.heaviside_(v)",
        "(x * w).heaviside_(v)",
        "x.new_zeros(3, 0).heaviside_(v)",
        "x.view(3, 1)[:, 1:].heaviside_(v)",  # fuzz seed 700193
        "x.view(3, 1)[:, :1].floor_divide_(v)",
        "(x * w).view(3, 1)[:, :1].heaviside_(v)",
    ],
)
def test_ops_without_a_derivative_in_place_as_pytorch(call: str) -> None:
    # PyTorch's NotImplemented node has an edge per input that requires grad only, and its
    # error names the in-place op. Written into a view of a base without history, the node's
    # edges from the second on go to CopySlices: the values get no gradient, not the error.
    outcomes = []
    for lib in LIBS:
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        w = lib.tensor(3.0, dtype=lib.float64, requires_grad=True)
        out = eval(call, {"x": lib.ones(3, dtype=lib.float64), "v": v, "w": w})
        try:
            outcomes.append(lib.autograd.grad(out.sum(), [v], allow_unused=True))
        except RuntimeError as error:
            outcomes.append(str(error))
        outcomes[-1] = (type(out.grad_fn).__name__, len(out.grad_fn.next_functions), outcomes[-1])
    assert outcomes[0] == outcomes[1]


def test_division_by_zero_integers_raise_floats_follow_ieee() -> None:
    for lib in LIBS:
        for op in (lib.floor_divide, lib.remainder):
            with pytest.raises(RuntimeError, match="ZeroDivisionError"):
                op(lib.tensor([3, -7]), 0)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            lib.div(lib.tensor([3]), lib.tensor([0]), rounding_mode="trunc")
    floats = np.array([1.0, -1.0, 0.0])
    for fn in (
        lambda L, t: L.floor_divide(t, 0.0),
        lambda L, t: L.remainder(t, 0.0),
        lambda L, t: L.div(t, 0.0, rounding_mode="trunc"),
    ):
        assert_same(fn(gg, gg.tensor(floats)), fn(torch, torch.tensor(floats)))


def test_div_rejects_an_unknown_rounding_mode() -> None:
    for lib in LIBS:
        with pytest.raises(
            RuntimeError,
            match="rounding_mode to be one of None, 'trunc', or 'floor' but found 'up'",
        ):
            lib.div(lib.tensor([1.0]), 2, rounding_mode="up")


def test_bool_operands_of_integer_division_are_rejected() -> None:
    b = np.array([True, False])
    for name, kernel in (("floor_divide", "div_floor_cpu"), ("remainder", "remainder_cpu")):
        for lib in LIBS:
            with pytest.raises(
                NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"
            ):
                getattr(lib, name)(lib.tensor(b), lib.tensor(b))


# --- logical and bitwise ops ----------------------------------------------------------------------

BOOLS = np.array([[True, False, True], [False, False, True]])
BOOLS2 = np.array([True, True, False])
INTS = np.array([[3, -7, 0], [12, 5, -1]])
FLOATS = np.array([[1.5, 0.0, -2.0], [0.0, np.nan, 3.0]])


@pytest.mark.parametrize(
    "expression",
    [
        lambda a, b, i, f: a & b,
        lambda a, b, i, f: a | b,
        lambda a, b, i, f: a ^ b,
        lambda a, b, i, f: ~a,
        lambda a, b, i, f: i & 6,
        lambda a, b, i, f: i | b,
        lambda a, b, i, f: i ^ (i + 1),
        lambda a, b, i, f: ~i,
        lambda a, b, i, f: 5 & i,
        lambda a, b, i, f: True | a,
        lambda a, b, i, f: 1 ^ a,
        lambda a, b, i, f: a & True,
        lambda a, b, i, f: a & 1,
        lambda a, b, i, f: a.logical_and(b),
        lambda a, b, i, f: a.logical_or(i),
        lambda a, b, i, f: f.logical_xor(i),
        lambda a, b, i, f: f.logical_not(),
        lambda a, b, i, f: i.logical_not(),
        lambda a, b, i, f: f.isnan(),
        lambda a, b, i, f: i.isfinite(),
        lambda a, b, i, f: a.isinf(),
        lambda a, b, i, f: a.bitwise_not(),
        lambda a, b, i, f: i.bitwise_xor(3),
    ],
)
def test_logical_and_bitwise_results_match_torch(expression: Callable) -> None:
    results = []
    for lib in LIBS:
        args = [lib.tensor(v) for v in (BOOLS, BOOLS2, INTS, FLOATS)]
        results.append(expression(*args))
    assert_same(results[0], results[1])
    assert not results[0].requires_grad


def test_logical_ops_return_bool_for_float_inputs_without_gradient() -> None:
    x = gg.tensor([0.0, 2.0, -1.0], requires_grad=True)
    for out in (gg.logical_and(x, x), gg.logical_not(x), gg.isfinite(x), x.logical_or(x)):
        assert out.dtype == gg.bool
        assert not out.requires_grad and out.grad_fn is None


def test_inplace_logical_and_bitwise_ops_match_torch() -> None:
    results = []
    for lib in LIBS:
        a, b, i = lib.tensor(BOOLS), lib.tensor(BOOLS2), lib.tensor(INTS)
        a &= b
        i |= 3
        i ^= lib.tensor([1, 2, 4])
        f = lib.tensor([0.0, 2.0, 5.0])
        f.logical_and_(lib.tensor([1, 0, 1]))
        c = lib.tensor(BOOLS).logical_not_()
        results.append((a, i, f, c))
    for ours, theirs in zip(*results):
        assert_same(ours, theirs)


def test_inplace_bitwise_cannot_store_an_integer_result_in_a_bool_tensor() -> None:
    with pytest.raises(
        RuntimeError, match="result type Long can't be cast to the desired output type Bool"
    ):
        b = gg.tensor([True, False])
        b &= gg.tensor([1, 0])
    with pytest.raises(RuntimeError, match="can't be cast"):
        b = torch.tensor([True, False])
        b &= torch.tensor([1, 0])


@pytest.mark.parametrize(
    "expression, error, message",
    [
        (
            lambda L, x: x & x,
            NotImplementedError,
            "\"bitwise_and_cpu\" not implemented for 'Float'",
        ),
        (
            lambda L, x: x | L.tensor([1, 2]),
            NotImplementedError,
            "\"bitwise_or_cpu\" not implemented for 'Float'",
        ),
        (
            lambda L, x: L.tensor([1, 2]) ^ x,
            NotImplementedError,
            "\"bitwise_xor_cpu\" not implemented for 'Float'",
        ),
        (
            lambda L, x: L.tensor([1, 2]) & 2.0,
            NotImplementedError,
            "\"bitwise_and_cpu\" not implemented for 'Float'",
        ),
        (
            lambda L, x: L.bitwise_not(x),
            NotImplementedError,
            "\"bitwise_not_cpu\" not implemented for 'Float'",
        ),
        (lambda L, x: ~x, TypeError, "only implemented on integer and Boolean-type tensors"),
        (
            lambda L, x: L.logical_xor(x, 1),
            TypeError,
            "argument 'other' \\(position 2\\) must be Tensor, not int",
        ),
        (
            lambda L, x: L.logical_and(x, L.ones(3)),
            RuntimeError,
            "The size of tensor a \\(2\\) must match the size of tensor b \\(3\\)",
        ),
    ],
)
def test_logical_and_bitwise_errors_match_torch(expression, error, message) -> None:
    for lib in LIBS:
        with pytest.raises(error, match=message):
            expression(lib, lib.tensor([1.5, 2.0]))


# --- subgradients at ties and bounds ----------------------------------------------------------------

A_TIES = np.array([1.0, 2.0, 3.0, 0.5, np.nan, 4.0])
B_TIES = np.array([1.0, 0.0, 3.0, 0.5, 1.0, np.nan])


@pytest.mark.parametrize("name", ["maximum", "minimum", "max", "min"])
def test_maximum_minimum_split_ties_evenly_and_propagate_nan(name: str) -> None:
    def run(lib: Any, leaves: list) -> Any:
        a, b = leaves
        return getattr(lib, name)(a, b)

    compare(run, A_TIES, B_TIES)
    x = gg.tensor([2.0], requires_grad=True)
    gg.maximum(x, x).sum().backward()
    assert x.grad.tolist() == [1.0]  # two halves


def test_clamp_with_tensor_bounds_follows_torch_on_bounds_and_crossed_bounds() -> None:
    x = np.array([0.0, 1.0, 1.5, 2.0, 3.0, -1.0])
    low = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 0.0])
    high = np.array([2.0, 2.0, 2.0, 2.0, 1.0, 0.0])  # crossed at 4, equal at 5
    compare(lambda L, v: L.clamp(v[0], v[1], v[2]), x, low, high)
    compare(lambda L, v: L.clamp(v[0], min=v[1]), x, low)
    compare(lambda L, v: L.clamp(v[0], max=v[1]), x, high)
    compare(lambda L, v: L.clamp_min(v[0], v[1]), x, low)
    compare(lambda L, v: L.clamp_max(v[0], v[1]), x, high)
    compare(lambda L, v: L.clamp(v[0], 1.0, 2.0), x)


def test_clamp_argument_errors() -> None:
    for lib in LIBS:
        x = lib.tensor([1.0, 2.0])
        with pytest.raises(RuntimeError, match="At least one of 'min' or 'max' must not be None"):
            lib.clamp(x)
        with pytest.raises(
            TypeError, match="clamp\\(\\) received an invalid combination of arguments"
        ):
            lib.clamp(x, lib.tensor([0.0, 0.0]), 1.5)
        with pytest.raises(RuntimeError, match="must match the size of tensor b"):
            lib.clamp(lib.ones(3), lib.ones(2))
        with pytest.raises(TypeError, match="must be Tensor, not float"):
            lib.maximum(x, 2.0)


def test_clamp_promotes_integers_with_float_bounds() -> None:
    for bound in (0.5, np.array([0.5])):
        results = []
        for lib in LIBS:
            b = lib.tensor(bound) if isinstance(bound, np.ndarray) else bound
            results.append(lib.clamp_min(lib.tensor([1, -2, 3]), b))
        assert_same(*results)


# --- integer-valued ops: zero gradient, PyTorch's integer and bool behaviour -------------------------


@pytest.mark.parametrize("name", ["floor", "ceil", "round", "trunc", "sign"])
def test_integer_valued_ops_have_a_constant_zero_gradient(name: str) -> None:
    x = gg.tensor([-1.5, 0.3, 2.5], requires_grad=True)
    (grad,) = gg.autograd.grad(getattr(gg, name)(x).sum() * 3.0, x, create_graph=True)
    assert grad.tolist() == [0.0, 0.0, 0.0]
    t = torch.tensor([-1.5, 0.3, 2.5], requires_grad=True)
    (t_grad,) = torch.autograd.grad(getattr(torch, name)(t).sum() * 3.0, t, create_graph=True)
    assert grad.requires_grad == t_grad.requires_grad


def test_round_halves_to_even_and_with_decimals_like_torch() -> None:
    values = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 1.25, 2.675, 125.0, -150.0, 0.125])
    for kwargs in ({}, {"decimals": 1}, {"decimals": 2}, {"decimals": -2}):
        for dtype in (np.float64, np.float32):
            ours = gg.round(gg.tensor(values.astype(dtype)), **kwargs)
            theirs = torch.round(torch.tensor(values.astype(dtype)), **kwargs)
            assert_same(ours, theirs, rtol=0, atol=0)


@pytest.mark.parametrize(
    "expression, error, message",
    [
        (
            lambda L: L.frac(L.tensor([1, 2])),
            NotImplementedError,
            "\"frac_cpu\" not implemented for 'Long'",
        ),
        (
            lambda L: L.floor(L.tensor([True])),
            NotImplementedError,
            "\"floor_vml_cpu\" not implemented for 'Bool'",
        ),
        (
            lambda L: L.round(L.tensor([1, 2]), decimals=1),
            NotImplementedError,
            "\"round_cpu\" not implemented for 'Long'",
        ),
        (lambda L: L.round(L.tensor([1.0]), decimals=1.5), TypeError, "decimals"),
        (
            lambda L: L.lerp(L.tensor([1, 2]), L.tensor([1, 2]), 0.5),
            NotImplementedError,
            "lerp_kernel_scalar",
        ),
        (
            lambda L: L.lerp(L.ones(2), L.ones(2, dtype=L.float64), 0.5),
            RuntimeError,
            "expected dtype float for `end` but got dtype double",
        ),
        (
            lambda L: L.lerp(L.ones(2), L.ones(2), L.ones(2, dtype=L.float64)),
            RuntimeError,
            "expected dtype float for `weight` but got dtype double",
        ),
        (
            lambda L: L.addcdiv(L.tensor([1]), L.tensor([1]), L.tensor([2])),
            RuntimeError,
            "Integer division with addcdiv is no longer supported",
        ),
        (lambda L: L.addcmul(L.ones(3), L.ones(2), L.ones(3)), RuntimeError, "must match the size"),
        (
            lambda L: L.addcmul(*[L.tensor([True, False])] * 3),
            NotImplementedError,
            "\"addcmul_cpu_out\" not implemented for 'Bool'",
        ),
        (
            lambda L: L.atan2(L.ones(2), 2.0),
            TypeError,
            "argument 'other' \\(position 2\\) must be Tensor",
        ),
        (
            lambda L: L.remainder(L.ones(3), L.ones(2)),
            RuntimeError,
            "The size of tensor a \\(3\\) must match the size of tensor b \\(2\\)",
        ),
        (
            lambda L: L.exp2([1.0]),
            TypeError,
            "exp2\\(\\): argument 'input' \\(position 1\\) must be Tensor, not list",
        ),
        (
            lambda L: L.ones(2, dtype=L.int64).exp2_(),
            RuntimeError,
            "result type Float can't be cast to the desired output type Long",
        ),
    ],
)
def test_pointwise_errors_match_torch(expression, error, message) -> None:
    for lib in LIBS:
        with pytest.raises(error, match=message):
            expression(lib)


@pytest.mark.parametrize(
    "expression",
    [
        lambda L: L.square(L.tensor([3, -7, 0])),
        lambda L: L.square(L.tensor([True, False])),
        lambda L: L.floor(L.tensor([3, -7])),
        lambda L: L.round(L.tensor([3, -7])),
        lambda L: L.exp2(L.tensor([3, -7])),
        lambda L: L.erf(L.tensor([True, False])),
        lambda L: L.erfinv(L.tensor([1, -1, 0, 2])),
        lambda L: L.atan2(L.tensor([1, -1, 0]), L.tensor([-1, -1, 1])),
        lambda L: L.maximum(L.tensor([1, 5]), L.tensor([3.0, 2.0])),
        lambda L: L.maximum(L.tensor([True, False]), L.tensor([False, False])),
        lambda L: L.addcmul(L.tensor([1, 2]), L.tensor([1, 2]), L.tensor([3, 4]), value=2),
        lambda L: L.addcmul(L.tensor([1, 2]), L.tensor([1, 2]), L.tensor([1.0, 2.0])),
        lambda L: L.nan_to_num(L.tensor([1, 2])),
        lambda L: L.floor_divide(L.tensor([7, -7]), 2.5),
        lambda L: L.clamp_min(L.tensor([1, -2]), 0),
        lambda L: L.isnan(L.tensor([1, 2])),
        lambda L: L.isinf(L.tensor([True])),
    ],
)
def test_integer_and_bool_inputs_match_torch(expression: Callable) -> None:
    assert_same(expression(gg), expression(torch))


def test_nan_to_num_defaults_are_the_dtype_limits() -> None:
    values = np.array([np.nan, np.inf, -np.inf, 1.0])
    for dtype in (np.float32, np.float64):
        ours = gg.nan_to_num(gg.tensor(values.astype(dtype)))
        theirs = torch.nan_to_num(torch.tensor(values.astype(dtype)))
        assert_same(ours, theirs, rtol=0, atol=0)


# --- erf and erfinv: accuracy without SciPy -------------------------------------------------------


def test_erf_matches_torch_to_float64_accuracy() -> None:
    x = np.concatenate([np.linspace(-7.0, 7.0, 20001), [1e-300, -1e-12, 5.9999, 6.0, 26.0]])
    ours = _erf.erf(x)
    theirs = torch.erf(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=2e-15, atol=0)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])
    np.testing.assert_array_equal(_erf.erf(special), [0.0, -0.0, 1.0, -1.0, np.nan])


def test_erfc_keeps_relative_accuracy_in_the_tail() -> None:
    x = np.linspace(0.0, 26.0, 2001)
    expected = np.array([math.erfc(v) for v in x])
    np.testing.assert_allclose(_erf.erfc(x), expected, rtol=5e-14)


def test_erfinv_matches_torch_and_inverts_erf() -> None:
    p = np.concatenate([np.linspace(-1.0, 1.0, 20001)[1:-1], [1 - 1e-15, -1 + 2**-53, 1e-300]])
    ours = _erf.erfinv(p)
    theirs = torch.erfinv(torch.from_numpy(p)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0)
    # Cephes' rational approximation is within ~7e-16 relative: erf(x) within 4 ulps of 1 of p.
    np.testing.assert_allclose(_erf.erf(ours), p, rtol=0, atol=4.5e-16)
    special = np.array([1.0, -1.0, 1.5, -2.0, np.nan, 0.0])
    np.testing.assert_array_equal(
        _erf.erfinv(special), [np.inf, -np.inf, np.nan, np.nan, np.nan, 0.0]
    )


def test_erf_and_erfinv_keep_float32() -> None:
    x = np.array([0.1, -0.5, 0.9], dtype=np.float32)
    for fn in ("erf", "erfinv"):
        ours = getattr(gg, fn)(gg.tensor(x))
        theirs = getattr(torch, fn)(torch.tensor(x))
        assert_same(ours, theirs, rtol=1e-6, atol=1e-7)


def test_erfinv_backward_from_the_kept_result_and_recomputed() -> None:
    """The first backward reads the forward's kept result, a second (retain_graph) recomputes it:
    the same gradients; a write into the result in place does not reach the kept copy."""
    values = np.array([-0.99, -0.3, 0.0, 0.6, 0.8, 0.999999])
    x = gg.tensor(values, requires_grad=True)
    y = gg.erfinv(x)
    y.backward(gg.ones_like(y), retain_graph=True)
    first = x.grad.numpy().copy()
    x.grad = None
    y.backward(gg.ones_like(y))
    np.testing.assert_array_equal(x.grad.numpy(), first)
    grads = []
    for lib in LIBS:
        x = lib.tensor(values, requires_grad=True)
        y = lib.erfinv(x)
        y.mul_(2.0)
        y.sum().backward()
        grads.append(x.grad)
    assert_same(*grads, rtol=1e-13)


def test_erfinv_second_derivative_matches_torch() -> None:
    values = np.array([-0.95, -0.3, 0.0, 0.6, 0.99])
    hessians = []
    for lib in LIBS:
        x = lib.tensor(values, requires_grad=True)
        (g,) = lib.autograd.grad(lib.erfinv(x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x)
        hessians.append(h)
    assert_same(*hessians, rtol=1e-12)


# --- numerics that differ from a naive formula ----------------------------------------------------


def test_lerp_is_exact_at_both_ends() -> None:
    start, end = np.array([1e16, -3.0, 0.1]), np.array([1.0, 7.0, 0.3])
    for weight in (0.0, 1.0, 0.5, 0.75):
        assert_same(
            gg.lerp(gg.tensor(start), gg.tensor(end), weight),
            torch.lerp(torch.tensor(start), torch.tensor(end), weight),
            rtol=0,
            atol=0,
        )


def test_expm1_and_log1p_are_accurate_near_zero() -> None:
    tiny = np.array([1e-12, -1e-15, 1e-300])
    for name in ("expm1", "log1p"):
        assert_same(
            getattr(gg, name)(gg.tensor(tiny)), getattr(torch, name)(torch.tensor(tiny)), rtol=1e-15
        )


def test_true_divide_and_its_method_are_div() -> None:
    x = gg.tensor([1, 3])
    assert gg.true_divide(x, 2).tolist() == [0.5, 1.5]
    assert x.true_divide(2).tolist() == [0.5, 1.5]
    y = gg.tensor([1.0, 3.0], requires_grad=True)
    assert type(gg.true_divide(y, 2.0).grad_fn).__name__ == "DivBackward0"


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_sigmoid_at_the_extremes_matches_torch(dtype: str) -> None:
    # 1 / (1 + exp(-x)) as PyTorch computes it: exactly 0 where exp(-x) overflows (below about
    # -88 in float32), no overflow warning, float16 computed in float32, gradients finite.
    values = [-1000.0, -100.0, -90.0, -88.0, -20.0, -12.0, -1.0, 0.0, 0.5, 20.0, 100.0]
    x = gg.tensor(values, dtype=getattr(gg, dtype), requires_grad=True)
    expected = torch.sigmoid(torch.tensor(values, dtype=getattr(torch, dtype)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = gg.sigmoid(x)
        out.sum().backward()
    assert out.dtype == x.dtype
    np.testing.assert_allclose(out.detach().numpy(), expected.numpy(), rtol=1e-6, atol=0)
    assert np.all((out.detach().numpy() == 0) == (expected.numpy() == 0))
    assert np.all(np.isfinite(x.grad.numpy()))


def test_sign_of_booleans_as_pytorch() -> None:
    """sign and sign_ of a bool tensor give it back (NumPy's sign has no bool loop: a
    TypeError here before; fuzz seeds 50856, 70904, 72354)."""
    for lib in (gg, torch):
        a = lib.tensor([True, False])
        assert lib.sign(a).tolist() == [True, False]
        assert a.sign_().tolist() == [True, False] and a.dtype == lib.bool


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_heaviside_is_pytorchs_kernel_at_nan_and_signed_zeros(dtype: str) -> None:
    # Seed 701266: heaviside(NaN, v) is 0 in PyTorch (x == 0 ? v : x > 0), NaN in NumPy's.
    floating = dtype.startswith("float")
    values = [float("nan"), -float("inf"), float("inf"), 0.0, -0.0, 2.0, -3.0]
    results = []
    for lib in LIBS:
        x = lib.tensor(values if floating else [0, 1, -1, 0, 2, 0, 1]).to(getattr(lib, dtype))
        v = lib.tensor(float("nan") if floating else 1).to(x.dtype)
        results.append((x.heaviside(v).tolist(), x.clone().heaviside_(v).tolist()))
    assert str(results[0]) == str(results[1])


@pytest.mark.parametrize(
    "call", ["torch.fmod(x, x)", "x.clone().fmod_(x)", "x.clone().fmod_(True)", "x % x"]
)
def test_fmod_of_bools_is_refused_as_pytorch(call: str) -> None:
    # Seed 703142: PyTorch's fmod kernel has no Bool case (remainder has); glassgrad gave int8.
    outcomes = []
    for lib in LIBS:
        try:
            result = eval(call, {"torch": lib, "x": lib.tensor([True, False])})
            outcomes.append((str(result.dtype).split(".")[-1], result.tolist()))
        except (RuntimeError, NotImplementedError) as error:
            outcomes.append((type(error).__name__, str(error)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("exponent", [0.5, -0.5, -1, 2, 3, -2, -3, 1.5, -1.5, 4, 0.25, 2.5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_power_of_a_number_is_pytorchs_kernel(exponent: float, dtype: str) -> None:
    """Fuzz seed 770671: ``x ** 0.5`` at -0.0 has the gradient 0.5 * rsqrt(-0.0) = -inf in
    PyTorch (its kernels: sqrt, rsqrt, reciprocal, x*x, x*x*x, 1/(x*x) at 0.5, -0.5, -1, 2,
    3, -2), where NumPy's power gave +inf; float32 otherwise is pow in double, rounded once;
    the backward is ``grad * (exponent * x ** (exponent - 1))``. On fewer elements than
    PyTorch's vectorized loop takes (its SIMD pow rounds otherwise): float32 bit for bit,
    float64 to one rounding (NumPy's float64 pow is not glibc's)."""
    values = [0.0, -0.0, 1.2573022109, -1.321, 6.4042265, math.inf, -math.inf, math.nan, 1e-30]
    gradient = [0.7, -1.3, -0.23, 0.6, 1.1, -0.4, 0.9, 1.0, 0.3]
    results = []
    for lib in (torch, gg):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = x**exponent
        y.backward(lib.tensor(gradient, dtype=x.dtype))
        results.append((y.detach().numpy(), x.grad.numpy()))
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=0 if dtype == "float32" else 2**-52)
        numbers = ~np.isnan(theirs)
        np.testing.assert_array_equal(np.signbit(ours[numbers]), np.signbit(theirs[numbers]))
