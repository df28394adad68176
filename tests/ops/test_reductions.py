"""Reductions beyond sum/mean/max/min: what the registry's parity tests can't say.

Graph structure, prod and cumprod with zeros (first and second derivatives), ties of
amax/amin versus max(dim), argmax's choice on ties and NaN, var/std's argument forms and
degenerate cases, norm's orders, logsumexp at magnitude 1e4, and the errors (type and
message words). PyTorch is the oracle: the same program runs in both libraries.
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

LIBS = (gg, torch)


def numpy_of(t: Any) -> np.ndarray:
    # force: PyTorch's zero gradients can be ZeroTensors, which refuse a plain numpy().
    return t.detach().numpy(force=True)


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def derivatives(lib: Any, program: Callable, values: np.ndarray, order: int = 2) -> list:
    """The output, the gradient of sum(out * c) and the derivative of sum(grad * w)."""
    rng = np.random.default_rng(3)
    x = lib.tensor(values.copy(), requires_grad=True)
    out = program(lib, x)
    c = lib.tensor(rng.standard_normal(tuple(out.shape)))
    (grad,) = lib.autograd.grad((out * c).sum(), x, create_graph=order > 1, allow_unused=True)
    grad = lib.zeros_like(x) if grad is None else grad
    results = [out, grad]
    if order > 1:
        w = lib.tensor(rng.standard_normal(tuple(grad.shape)))
        second = None
        if grad.requires_grad:  # a gradient that is constant has a zero derivative
            (second,) = lib.autograd.grad((grad * w).sum(), x, allow_unused=True)
        results.append(lib.zeros_like(x) if second is None else second)
    return results


def compare_derivatives(program: Callable, values: np.ndarray, order: int = 2, rtol=1e-9):
    for ours, theirs in zip(
        derivatives(gg, program, values, order), derivatives(torch, program, values, order)
    ):
        assert_same(ours, theirs, rtol=rtol, atol=1e-12)


def graph_signature(fn: Any) -> str:
    if fn is None:
        return "-"
    children = ",".join(graph_signature(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


# --- graph structure --------------------------------------------------------------------------

GRAPH_PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "prod": lambda L, x: L.prod(x),
    "prod dim": lambda L, x: x.prod(1, keepdim=True),
    "amax": lambda L, x: L.amax(x, (0, 1)),
    "amin dim": lambda L, x: x.amin(1),
    "var": lambda L, x: L.var(x),
    "std dim": lambda L, x: x.std(1, correction=0),
    "var_mean": lambda L, x: L.var_mean(x, 1)[0] + L.var_mean(x, 1)[1],
    "std_mean": lambda L, x: L.std_mean(x)[1],
    "norm": lambda L, x: x.norm(),
    "norm p dim": lambda L, x: L.norm(x, 3, 1),
    "logsumexp": lambda L, x: x.logsumexp(1),
    "cumsum": lambda L, x: x.cumsum(0),
    "cumprod": lambda L, x: L.cumprod(x, 1),
}


@pytest.mark.parametrize("name", list(GRAPH_PROGRAMS))
def test_grad_fn_names_and_edges_match_torch(name: str) -> None:
    values = np.random.default_rng(1).standard_normal((2, 3))
    signatures = [
        graph_signature(GRAPH_PROGRAMS[name](lib, lib.tensor(values, requires_grad=True)).grad_fn)
        for lib in LIBS
    ]
    assert signatures[0] == signatures[1]


# --- prod and cumprod with zeros ----------------------------------------------------------------


def _with_zeros(positions: list) -> np.ndarray:
    x = np.random.default_rng(2).standard_normal((3, 4)) + 0.1
    for position in positions:
        x[position] = 0.0
    return x


ZERO_LAYOUTS = {
    "none": [],
    "one zero": [(1, 2)],
    "two zeros in a row": [(1, 0), (1, 3)],
    "three zeros in a row": [(1, 0), (1, 1), (1, 3)],
    "zeros in two rows": [(0, 1), (2, 2), (2, 3)],
}


@pytest.mark.parametrize("layout", list(ZERO_LAYOUTS))
@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.prod(x),
        lambda L, x: L.prod(x, 1),
        lambda L, x: L.prod(x, 0, keepdim=True),
        lambda L, x: L.cumprod(x, 1),
        lambda L, x: L.cumprod(x, 0),
    ],
    ids=["prod", "prod dim 1", "prod dim 0 keepdim", "cumprod dim 1", "cumprod dim 0"],
)
def test_zeros_give_torchs_first_and_second_derivatives(program: Callable, layout: str) -> None:
    compare_derivatives(program, _with_zeros(ZERO_LAYOUTS[layout]))


def test_prod_gradient_with_one_zero_is_the_product_of_the_others() -> None:
    x = gg.tensor([2.0, 0.0, 3.0, 5.0], requires_grad=True)
    gg.prod(x).backward()
    assert x.grad.tolist() == [0.0, 30.0, 0.0, 0.0]
    y = gg.tensor([2.0, 0.0, 3.0, 0.0], requires_grad=True)
    gg.prod(y).backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_cumprod_with_a_zero_first_and_a_single_element() -> None:
    compare_derivatives(lambda L, x: L.cumprod(x, 0), np.array([0.0, 2.0, -3.0, 0.5]))
    compare_derivatives(lambda L, x: L.cumprod(x, 0), np.array([0.0]))
    compare_derivatives(lambda L, x: L.cumprod(x, 0), np.array(1.5))


def test_prod_cumsum_cumprod_of_integers_accumulate_as_int64() -> None:
    values = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32)
    for program in (
        lambda L, x: L.prod(x),
        lambda L, x: L.prod(x, 1),
        lambda L, x: L.prod(x, 1, dtype=L.float64),
        lambda L, x: L.cumsum(x, 0),
        lambda L, x: L.cumprod(x > 2, 1),
        lambda L, x: L.cumsum(x, 1, dtype=L.float32),
    ):
        assert_same(program(gg, gg.tensor(values)), program(torch, torch.tensor(values)))


def test_cumsum_and_cumprod_in_place() -> None:
    results = []
    for lib in LIBS:
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x * 1.0
        y.cumsum_(0)
        y.cumprod_(1)
        y.sum().backward()
        results.append((y, x.grad))
    for ours, theirs in zip(*results):
        assert_same(ours, theirs)


# --- amax, amin, argmax, argmin -------------------------------------------------------------------

TIES = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0], [-1.0, -1.0, -1.0]])


@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.amax(x),
        lambda L, x: L.amax(x, 1),
        lambda L, x: L.amin(x, 0, keepdim=True),
        lambda L, x: L.amin(x, (0, 1)),
        lambda L, x: L.max(x),
        lambda L, x: L.max(x, 1).values,
        lambda L, x: L.min(x, 0).values,
    ],
)
def test_ties_follow_torch(program: Callable) -> None:
    """amax/amin share the gradient among ties; max(dim) gives it to one index."""
    compare_derivatives(program, TIES)


def test_amax_shares_but_max_dim_picks_one() -> None:
    x = gg.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    gg.amax(x, 1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5]]
    y = gg.tensor([[1.0, 3.0, 3.0]], requires_grad=True)
    gg.max(y, 1).values.sum().backward()
    assert y.grad.tolist() == [[0.0, 1.0, 0.0]]


@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.argmax(x),
        lambda L, x: L.argmax(x, 1),
        lambda L, x: L.argmin(x, 0, keepdim=True),
        lambda L, x: L.argmax(x, keepdim=True),
        lambda L, x: x.argmin(),
        lambda L, x: L.argmax(x[0, 0], 0),
    ],
)
@pytest.mark.parametrize("values", [TIES, np.array([[1.0, np.nan, 3.0], [np.nan, 2.0, np.nan]])])
def test_argmax_argmin_choose_like_torch(program: Callable, values: np.ndarray) -> None:
    ours = program(gg, gg.tensor(values, requires_grad=True))
    theirs = program(torch, torch.tensor(values, requires_grad=True))
    assert_same(ours, theirs)
    assert not ours.requires_grad


def test_reductions_of_integers_and_bools_match_torch() -> None:
    ints = np.array([[3, 1, 3], [2, 5, 5]])
    bools = np.array([[True, False], [True, True]])
    for program in (
        lambda L: L.amax(L.tensor(ints), 1),
        lambda L: L.amin(L.tensor(bools)),
        lambda L: L.argmax(L.tensor(ints), 1),
        lambda L: L.all(L.tensor(bools), 1),
        lambda L: L.any(L.tensor(ints) > 4),
        lambda L: L.all(L.tensor(ints, dtype=L.uint8)),
        lambda L: L.any(L.tensor([[0.0, float("nan")], [0.0, 0.0]]), 1, keepdim=True),
        lambda L: L.tensor(bools).all(),
        lambda L: L.logsumexp(L.tensor(ints), 1),
    ):
        assert_same(program(gg), program(torch))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (7,), (3, 5), (2, 3, 4), (0, 3)])
def test_sum_and_mean_give_numpys_exact_values(dtype: type, shape: tuple) -> None:
    # The ops call np.add.reduce directly (np.sum/np.mean are slow wrappers of it): bit for
    # bit NumPy's results, float16 means accumulating in float32 as np.mean does.
    x = np.asarray(np.random.default_rng(5).standard_normal(shape) * 10).astype(dtype)
    t = gg.from_numpy(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing is nan
        expected = [(t.sum(), np.sum(x)), (t.mean(), np.mean(x, dtype=dtype))]
        expected.append((t.mean(dtype=gg.float64), np.mean(x, dtype=np.float64)))
        for dim in range(len(shape)):
            for keepdim in (False, True):
                expected.append((t.sum(dim, keepdim), np.sum(x, dim, keepdims=keepdim)))
                mean = np.mean(x, dim, keepdims=keepdim).astype(dtype)
                expected.append((t.mean(dim, keepdim), mean))
    for ours, theirs in expected:
        ours, theirs = ours.numpy(), np.asarray(theirs)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        assert np.array_equal(ours, theirs, equal_nan=True)


def test_full_reduction_gradient_is_the_leafs_own_array() -> None:
    # The backward of sum/mean expands the incoming gradient as a read-only zero-strides view;
    # the leaf's .grad is still an array of its own that in-place ops and hooks may change.
    x = gg.ones(2, 3, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    x.mean().backward()
    x.grad.add_(1.0)
    x.sum().backward()
    sixth = np.float32(1) / np.float32(6)
    assert np.array_equal(x.grad.numpy(), np.full((2, 3), sixth + np.float32(1) + np.float32(1)))
    assert [g.tolist() for g in seen] == [[[float(sixth)] * 3] * 2, [[1.0] * 3] * 2]
    assert x.grad.numpy().flags.writeable and x.grad.numpy().strides == (12, 4)


# --- var and std --------------------------------------------------------------------------------


VALUES = np.random.default_rng(4).standard_normal((3, 4))


@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.var(x),
        lambda L, x: L.var(x, False),
        lambda L, x: L.var(x, 1, False, True),
        lambda L, x: L.var(x, dim=0, unbiased=True),
        lambda L, x: L.var(x, [0, 1], correction=3),
        lambda L, x: x.var(-1, keepdim=True, correction=0.5),
        lambda L, x: L.std(x, 0, True, True),
        lambda L, x: x.std(unbiased=False),
        lambda L, x: L.var_mean(x, 1, correction=0)[0] * L.var_mean(x, 1, correction=0)[1],
        lambda L, x: L.std_mean(x, 0, keepdim=True)[0] + 2.0 * L.std_mean(x, 0, keepdim=True)[1],
        lambda L, x: L.std_mean(x, (0, 1))[1],
    ],
)
def test_var_std_argument_forms_match_torch(program: Callable) -> None:
    compare_derivatives(program, VALUES)


def test_var_mean_returns_a_plain_pair() -> None:
    result = gg.var_mean(gg.tensor(VALUES), 1)
    assert type(result) is tuple and len(result) == 2


def test_std_of_constant_rows_has_zero_gradient_like_torch() -> None:
    values = np.array([[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]])
    compare_derivatives(lambda L, x: L.std(x, 1), values, order=1)
    x = gg.tensor(values, requires_grad=True)
    gg.std(x, 1).sum().backward()
    assert x.grad.numpy()[0].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.std(x, 1),
        lambda L, x: L.var(x, -1, keepdim=True),
        lambda L, x: L.std_mean(x, 1)[0] * L.std_mean(x, 1)[1],
        lambda L, x: L.var_mean(x.mT, 0)[0],
    ],
)
def test_constant_slices_have_exactly_zero_spread_like_torch(program, dtype) -> None:
    """PyTorch's Welford reduction (double accumulation) gives exactly 0 along a slice of
    equal values, where a mean computed as sum / n rounds away from them (0.1 * 7); std's
    backward then masks the zero after dividing by it, so its first derivative there is 0
    and its second NaN (0 / 0 in the division's backward: fuzz seed 806926)."""
    values = np.array([[0.1] * 7, [47.479931873797874] * 7, [-1.8918] * 7, [1.0, 2.0] * 3 + [4.0]])
    values = values.astype(dtype)
    ours, theirs = (program(lib, lib.tensor(values)) for lib in LIBS)
    assert (numpy_of(ours) == 0).tolist() == (numpy_of(theirs) == 0).tolist()
    compare_derivatives(program, values, rtol=1e-4)


def test_var_with_no_degrees_of_freedom_warns_and_gives_nan_like_torch() -> None:
    for lib in LIBS:
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            out = lib.var(lib.tensor([1.5]))
        assert math.isnan(out.item())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compare_derivatives(lambda L, x: L.var(x, 1), np.array([[1.0], [2.0]]), order=1)
        compare_derivatives(lambda L, x: L.var(x, correction=5), np.array([1.0, 2.0, 3.0]), order=1)


def test_var_warning_shown_once_in_a_loop_like_torch() -> None:
    """Python shows a warning once per line: no op in between may make it forget (a
    ``catch_warnings`` does, on its exit): reductions with ``dtype=``, of a complex input too."""
    for lib in LIBS:
        x, z = lib.tensor([1.5]), lib.tensor([1.0 + 2.0j])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("default")
            for _ in range(3):
                lib.var(x)
                lib.mean(x, dtype=lib.float64)
                lib.sum(x, dtype=lib.float64)
                lib.cumsum(x, 0, dtype=lib.float64)
                if lib is gg:  # PyTorch refuses a complex input with a real dtype
                    lib.sum(z, dtype=lib.float64)
        assert sum("degrees of freedom" in str(w.message) for w in caught) == 1, lib


def test_complex_sum_into_a_real_dtype_keeps_the_real_part_bit_for_bit() -> None:
    """``_integer_accumulator``: the real part cast, as NumPy's cast of the complex values (which
    warns) casts it, in every real dtype, specials included; no ComplexWarning."""
    from glassgrad.ops.reduction import _integer_accumulator

    values = [0.0, -0.0, 1.5, -2.5, 1e300, -1e300, np.inf, -np.inf, np.nan, 3.4e38, 7e4, 2.0**63]
    values += [-(2.0**63), 2.0**64, 1e-310, 0.5, 255.5, -129.7, 65504.0, 65520.0]
    real = np.array(values)
    for dtype in (np.complex64, np.complex128):
        for imag in (real[::-1], np.zeros_like(real), np.full_like(real, np.nan)):
            with np.errstate(all="ignore"):
                x = (real + 0j).astype(dtype)
                x.imag = imag
            for target in ("uint8", "int8", "int16", "int32", "int64", "float16", "float32"):
                with np.errstate(over="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("error", np.exceptions.ComplexWarning)
                    ours = _integer_accumulator(x, getattr(gg, target))
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                    expected = x.astype(target)
                assert ours.dtype == expected.dtype and ours.tobytes() == expected.tobytes()


# --- norm ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "program",
    [
        lambda L, x: L.norm(x),
        lambda L, x: L.norm(x, "fro", (0, 1)),
        lambda L, x: L.norm(x, 1, 1),
        lambda L, x: L.norm(x, 3, 0, True),
        lambda L, x: L.norm(x, 0.5),
        lambda L, x: L.norm(x, 1.5, 1),
        lambda L, x: L.norm(x, float("inf"), 1),
        lambda L, x: L.norm(x, -float("inf")),
        lambda L, x: L.norm(x, 0, 1),
        lambda L, x: x.norm(p=4, dim=-1),
    ],
)
def test_norm_orders_match_torch(program: Callable) -> None:
    compare_derivatives(program, VALUES)


def test_norm_gradient_at_zero_is_zero_like_torch() -> None:
    zeros = np.zeros((2, 3))
    zeros[1] = [3.0, 0.0, -4.0]
    for p in (2, 3, 1.5, 0.5, 1, float("inf")):
        compare_derivatives(lambda L, x, p=p: L.norm(x, p, 1), zeros, order=1)


def test_norm_with_dtype_matches_torch() -> None:
    values = VALUES.astype(np.float32)
    assert_same(
        gg.norm(gg.tensor(values), dtype=gg.float64),
        torch.norm(torch.tensor(values), dtype=torch.float64),
    )


# --- logsumexp ----------------------------------------------------------------------------------


@pytest.mark.parametrize("scale", [1.0, 1e4, 1e30])
def test_logsumexp_is_stable_at_large_magnitudes(scale: float) -> None:
    values = scale * np.array([[1.0, -1.0, 0.5], [-3.0, -2.0, -2.5]])
    compare_derivatives(lambda L, x: L.logsumexp(x, 1), values)
    x = gg.tensor(values, requires_grad=True)
    out = gg.logsumexp(x, 1)
    out.sum().backward()
    assert np.isfinite(numpy_of(out)).all() and np.isfinite(x.grad.numpy()).all()


def test_logsumexp_with_infinities_matches_torch() -> None:
    values = np.array([[np.inf, 1.0], [-np.inf, -np.inf], [-np.inf, 2.0]])
    assert_same(gg.logsumexp(gg.tensor(values), 1), torch.logsumexp(torch.tensor(values), 1))


def test_logsumexp_float32_at_1e4() -> None:
    values = np.array([1e4, 1e4 - 1.0, -1e4], dtype=np.float32)
    assert_same(
        gg.logsumexp(gg.tensor(values), 0), torch.logsumexp(torch.tensor(values), 0), rtol=1e-6
    )


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression, error, message",
    [
        (
            lambda L, x: L.prod(x, 2),
            IndexError,
            "Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got 2\\)",
        ),
        (
            lambda L, x: L.amax(x, -3),
            IndexError,
            "Dimension out of range \\(expected to be in range of \\[-2, 1\\], but got -3\\)",
        ),
        (lambda L, x: L.argmax(x, 5), IndexError, "Dimension out of range"),
        (lambda L, x: L.var(x, 2), IndexError, "Dimension out of range"),
        (lambda L, x: L.std(x, (0, 7)), IndexError, "Dimension out of range"),
        (lambda L, x: L.norm(x, 2, 3), IndexError, "Dimension out of range"),
        (lambda L, x: L.logsumexp(x, 2), IndexError, "Dimension out of range"),
        (lambda L, x: L.cumsum(x, 2), IndexError, "Dimension out of range"),
        (lambda L, x: L.cumprod(x, -3), IndexError, "Dimension out of range"),
        (lambda L, x: L.all(x, 2), IndexError, "Dimension out of range"),
        (
            lambda L, x: L.amax(x, (0, 0)),
            RuntimeError,
            "appears multiple times in the list of dims",
        ),
        (lambda L, x: L.prod(x, (0, 1)), TypeError, "prod\\(\\)"),
        (
            lambda L, x: L.amax(L.zeros(0, 3)),
            RuntimeError,
            "amax\\(\\): Expected reduction dim to be specified for input.numel\\(\\) == 0",
        ),
        (
            lambda L, x: L.amin(L.zeros(0, 3), 0),
            IndexError,
            "amin\\(\\): Expected reduction dim 0 to have non-zero size",
        ),
        (
            lambda L, x: L.argmax(L.zeros(0, 3)),
            IndexError,
            "argmax\\(\\): Expected reduction dim to be specified for input.numel\\(\\) == 0",
        ),
        (
            lambda L, x: L.argmin(L.zeros(0, 3), 0),
            IndexError,
            "argmin\\(\\): Expected reduction dim 0 to have non-zero size",
        ),
        (
            lambda L, x: L.argmax(L.tensor([True])),
            RuntimeError,
            "argmax\\(\\): does not support bool input",
        ),
        (
            lambda L, x: L.var(L.tensor([1, 2])),
            RuntimeError,
            "std and var only support floating point and complex dtypes",
        ),
        (
            lambda L, x: L.std(x, unbiased=False, correction=0),
            TypeError,
            "std\\(\\) received an invalid combination of arguments",
        ),
        (
            lambda L, x: L.norm(L.tensor([1, 2])),
            RuntimeError,
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long",
        ),
        (lambda L, x: L.norm(x, "abc"), RuntimeError, "Order abc not supported"),
        (
            lambda L, x: L.norm(L.zeros(0), float("inf")),
            RuntimeError,
            "cannot compute the inf norm on an empty tensor",
        ),
        (lambda L, x: L.cumsum(x), TypeError, "dim"),
        (lambda L, x: L.logsumexp(x), TypeError, "dim"),
        (
            lambda L, x: L.prod([1.0]),
            TypeError,
            "argument 'input' \\(position 1\\) must be Tensor, not list",
        ),
    ],
)
def test_reduction_errors_match_torch(expression: Callable, error: type, message: str) -> None:
    for lib in LIBS:
        with pytest.raises(error, match=message):
            expression(lib, lib.ones(2, 3))


def test_norm_nuclear_and_out_dispatch_to_linalg_as_pytorch() -> None:
    a = np.random.default_rng(9).standard_normal((2, 3, 4))
    results = []
    for lib in (gg, torch):
        x = lib.tensor(a)
        out = lib.empty(0, dtype=lib.float64)
        lib.norm(x, 2, -1, out=out)
        results.append((lib.norm(x[0], "nuc"), lib.norm(x, "nuc", (1, 2), True), out))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
        assert tuple(ours.shape) == tuple(theirs.shape)
