"""nn.functional activations, softmax family and similarities: what the registry can't say.

Graph structure (grad_fn names and edges as PyTorch records them), in-place variants,
PyTorch's choice of gradient at kinks, numerical stability at |x| = 1e4, dtype handling,
and the errors (type and message words). PyTorch is the oracle: the same program runs in
both libraries and the results are compared element by element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def graph_signature(fn: Any, depth: int = 0) -> str:
    """The grad_fn tree as a string of class names (edges in order; '-' for None)."""
    if fn is None:
        return "-"
    if depth > 8:
        return "..."
    children = ",".join(graph_signature(n, depth + 1) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


def run_both(program: Callable[[Any, list], Any], *arrays: np.ndarray) -> tuple:
    """Run ``program(lib, tensors)`` in glassgrad and torch on the same float64 leaves."""
    results = []
    for lib in LIBS:
        leaves = [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
        results.append((program(lib, leaves), leaves))
    return tuple(results)


def numpy_of(t: Any) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return t.detach().numpy()


def assert_same_values(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def assert_same_grads(ours: tuple, theirs: tuple, rtol: float = 1e-9, atol: float = 1e-12) -> None:
    """Backward from sum(out * c) in both libraries; compare every leaf's gradient."""
    (out_g, leaves_g), (out_t, leaves_t) = ours, theirs
    cotangent = np.random.default_rng(0).standard_normal(tuple(out_t.shape))
    (out_g * gg.tensor(cotangent, dtype=out_g.dtype)).sum().backward()
    (out_t * torch.tensor(cotangent, dtype=out_t.dtype)).sum().backward()
    for a, b in zip(leaves_g, leaves_t):
        if b.grad is None:
            assert a.grad is None
            continue
        np.testing.assert_allclose(numpy_of(a.grad), numpy_of(b.grad), rtol=rtol, atol=atol)


def grad_rtol(name: str) -> float:
    # PyTorch's hardsigmoid backward multiplies by 1/6 rounded to float32 (~3e-8 relative).
    return 1e-7 if name.startswith("hardsigmoid") else 1e-9


# --- graph structure ---------------------------------------------------------------------------

UNARY_CALLS = {
    "relu": lambda F, x: F.relu(x),
    "relu6": lambda F, x: F.relu6(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2),
    "elu": lambda F, x: F.elu(x, alpha=0.5),
    "selu": lambda F, x: F.selu(x),
    "celu": lambda F, x: F.celu(x, alpha=2.0),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "softplus": lambda F, x: F.softplus(x, beta=2.0, threshold=3.0),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 0.5),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "softsign": lambda F, x: F.softsign(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
    "tanh": lambda F, x: F.tanh(x),
    "softmax": lambda F, x: F.softmax(x, dim=1),
    "log_softmax": lambda F, x: F.log_softmax(x, 0),
    "softmin": lambda F, x: F.softmin(x, 1),
    "softmax_dtype": lambda F, x: F.softmax(x.float(), 1, dtype=x.dtype),
    "softmin_dtype": lambda F, x: F.softmin(x.float(), 1, dtype=x.dtype),
    "top_softmax": lambda F, x: x.softmax(-1),
    "top_log_softmax": lambda F, x: x.log_softmax(dim=0),
}


def _functional(lib: Any) -> Any:
    return lib.nn.functional


@pytest.mark.parametrize("name", sorted(UNARY_CALLS))
def test_graph_values_and_gradients_match_torch(name: str) -> None:
    call = UNARY_CALLS[name]
    x = 3.0 * np.random.default_rng(1).standard_normal((4, 5))
    ours, theirs = run_both(lambda lib, t: call(_functional(lib), t[0]), x)
    assert graph_signature(ours[0].grad_fn) == graph_signature(theirs[0].grad_fn)
    assert_same_values(ours[0], theirs[0])
    assert_same_grads(ours, theirs, rtol=grad_rtol(name))


PAIR_CALLS = {
    "normalize": lambda F, x, y: F.normalize(x),
    "normalize_p1_dim0": lambda F, x, y: F.normalize(x, p=1.0, dim=0),
    "normalize_p3_eps": lambda F, x, y: F.normalize(x, 3.0, -1, eps=0.5),
    "cosine_similarity": lambda F, x, y: F.cosine_similarity(x, y),
    "cosine_similarity_broadcast": lambda F, x, y: F.cosine_similarity(x[None], y[0], dim=-1),
    "cosine_similarity_dim0_eps": lambda F, x, y: F.cosine_similarity(x, y, 0, 1.0),
    "pairwise_distance": lambda F, x, y: F.pairwise_distance(x, y),
    "pairwise_distance_p1_keepdim": lambda F, x, y: F.pairwise_distance(x, y, 1.0, keepdim=True),
    "pairwise_distance_broadcast_p3": lambda F, x, y: F.pairwise_distance(x, y[1], p=3.0),
}


@pytest.mark.parametrize("name", sorted(PAIR_CALLS))
def test_similarity_graphs_values_and_gradients_match_torch(name: str) -> None:
    call = PAIR_CALLS[name]
    rng = np.random.default_rng(2)
    ours, theirs = run_both(
        lambda lib, t: call(lib.nn.functional, t[0], t[1]),
        rng.standard_normal((3, 4)),
        rng.standard_normal((3, 4)),
    )
    assert graph_signature(ours[0].grad_fn) == graph_signature(theirs[0].grad_fn)
    assert_same_values(ours[0], theirs[0])
    assert_same_grads(ours, theirs)


def test_normalize_and_cosine_similarity_at_zero_and_tiny_vectors() -> None:
    x = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0], [1e-5, 0.0, 0.0]])
    y = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    for program in (
        lambda lib, t: lib.nn.functional.normalize(t[0]),
        lambda lib, t: lib.nn.functional.cosine_similarity(t[0], t[1]),
        lambda lib, t: lib.nn.functional.cosine_similarity(t[0], t[1], eps=1e-4),
    ):
        ours, theirs = run_both(program, x, y)
        assert_same_values(ours[0], theirs[0])
        # Gradients reach 1e11 at the zero row; where the exact value is 0 both libraries
        # leave rounding noise of ~1e-11.
        assert_same_grads(ours, theirs, atol=1e-9)


# --- in-place variants -------------------------------------------------------------------------

INPLACE_CALLS = {
    "relu": lambda F, x: F.relu(x, inplace=True),
    "relu_": lambda F, x: F.relu_(x),
    "relu6": lambda F, x: F.relu6(x, inplace=True),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.3, inplace=True),
    "leaky_relu_": lambda F, x: F.leaky_relu_(x, 0.3),
    "elu": lambda F, x: F.elu(x, 0.7, inplace=True),
    "elu_": lambda F, x: F.elu_(x),
    "selu": lambda F, x: F.selu(x, inplace=True),
    "selu_": lambda F, x: F.selu_(x),
    "celu": lambda F, x: F.celu(x, 1.5, inplace=True),
    "celu_": lambda F, x: F.celu_(x, 1.5),
    "hardtanh": lambda F, x: F.hardtanh(x, -0.5, 2.0, inplace=True),
    "hardtanh_": lambda F, x: F.hardtanh_(x, -0.5, 2.0),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x, inplace=True),
    "hardswish": lambda F, x: F.hardswish(x, inplace=True),
    "silu": lambda F, x: F.silu(x, inplace=True),
    "mish": lambda F, x: F.mish(x, inplace=True),
}


@pytest.mark.parametrize("name", sorted(INPLACE_CALLS))
def test_inplace_writes_into_the_input_with_torch_graph(name: str) -> None:
    call = INPLACE_CALLS[name]
    x = 3.0 * np.random.default_rng(4).standard_normal((3, 5))
    results = []
    for lib in LIBS:
        leaf = lib.tensor(x.copy(), requires_grad=True)
        work = leaf.clone()
        out = call(lib.nn.functional, work)
        assert out is work
        results.append((out, [leaf]))
    (ours, _), (theirs, _) = results
    assert graph_signature(ours.grad_fn) == graph_signature(theirs.grad_fn)
    assert ours._version == theirs._version == 1
    assert_same_values(ours, theirs)
    assert_same_grads(results[0], results[1], rtol=grad_rtol(name))


@pytest.mark.parametrize("name", sorted(INPLACE_CALLS))
def test_inplace_without_grad_matches_out_of_place(name: str) -> None:
    x = 3.0 * np.random.default_rng(5).standard_normal((2, 6))
    t = gg.tensor(x.copy())
    out = INPLACE_CALLS[name](gg.nn.functional, t)
    reference = INPLACE_CALLS[name](torch.nn.functional, torch.tensor(x.copy()))
    np.testing.assert_allclose(t.numpy(), reference.numpy(), rtol=1e-12, atol=1e-15)
    assert out is t


def test_inplace_on_a_leaf_that_requires_grad_is_refused() -> None:
    x = gg.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        gg.nn.functional.elu(x, inplace=True)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda F, x: F.leaky_relu(x, -0.1, inplace=True), "In-place leakyReLu backward"),
        (lambda F, x: F.elu(x, -0.5, inplace=True), "In-place elu backward"),
    ],
)
def test_inplace_with_negative_slope_fails_in_backward_like_torch(call: Any, words: str) -> None:
    for lib in LIBS:
        leaf = lib.tensor([-1.0, 2.0], dtype=lib.float64, requires_grad=True)
        out = call(lib.nn.functional, leaf.clone())
        with pytest.raises(RuntimeError, match=words):
            out.sum().backward()


# --- kinks: PyTorch's choice of gradient -------------------------------------------------------

KINKS = np.array([-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 20.0])
KINK_CALLS = {
    "relu": lambda F, x: F.relu(x),
    "relu6": lambda F, x: F.relu6(x),
    "hardtanh": lambda F, x: F.hardtanh(x),
    "hardtanh_bounds": lambda F, x: F.hardtanh(x, -0.5, 0.5),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.1),
    "elu": lambda F, x: F.elu(x, 2.0),
    "celu": lambda F, x: F.celu(x, 0.5),
    "selu": lambda F, x: F.selu(x),
    "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x),
    "softplus_threshold": lambda F, x: F.softplus(x, beta=1.0, threshold=1.0),
    "softplus_beta": lambda F, x: F.softplus(x, beta=2.0, threshold=6.0),
}


@pytest.mark.parametrize("name", sorted(KINK_CALLS))
def test_gradient_at_kinks_follows_torch(name: str) -> None:
    call = KINK_CALLS[name]
    ours, theirs = run_both(lambda lib, t: call(lib.nn.functional, t[0]), KINKS)
    assert_same_values(ours[0], theirs[0])
    assert_same_grads(ours, theirs, rtol=1e-7, atol=1e-15)


SECOND_ORDER_KINK_CALLS = {
    **{name: call for name, call in KINK_CALLS.items() if name != "hardsigmoid"},
    "elu_inplace": lambda F, x: F.elu(x * 1, 2.0, inplace=True),
    "celu_inplace": lambda F, x: F.celu(x * 1, 0.5, inplace=True),
    "huber": lambda F, x: F.huber_loss(x, x.new_zeros(x.shape), reduction="none", delta=3.0),
    "smooth_l1": lambda F, x: F.smooth_l1_loss(x, x.new_zeros(x.shape), reduction="none", beta=3.0),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER_KINK_CALLS))
def test_second_derivative_at_kinks_follows_torch(name: str) -> None:
    # PyTorch's double-backward masks are strict where the first derivative's branch is not:
    # elu_double_backward's x < 0 (the slope at 0 is the exponential one), softplus's
    # beta x < threshold, huber's |d| < delta; there the second derivative is 0.
    call = SECOND_ORDER_KINK_CALLS[name]
    seconds = []
    for lib in LIBS:
        x = lib.tensor(KINKS, requires_grad=True)
        (first,) = lib.autograd.grad(call(lib.nn.functional, x).sum(), x, create_graph=True)
        weights = lib.tensor(np.linspace(0.5, 1.5, KINKS.size))
        (second,) = lib.autograd.grad(first, x, weights, allow_unused=True)
        seconds.append(None if second is None else numpy_of(second))
    if seconds[1] is None:
        assert seconds[0] is None or not seconds[0].any()
    else:
        np.testing.assert_allclose(seconds[0], seconds[1], rtol=1e-9, atol=1e-15)


# --- numerical stability -----------------------------------------------------------------------

HUGE = np.array([[-1e4, -50.0, 0.0, 50.0, 1e4], [1e4, 1e4, -1e4, 0.0, 3.0]])
STABLE_CALLS = {
    "softplus": lambda F, x: F.softplus(x),
    "logsigmoid": lambda F, x: F.logsigmoid(x),
    "log_softmax": lambda F, x: F.log_softmax(x, dim=1),
    "log_softmax_dim0": lambda F, x: F.log_softmax(x, dim=0),
    "softmax": lambda F, x: F.softmax(x, dim=1),
    "softmin": lambda F, x: F.softmin(x, dim=1),
    "silu": lambda F, x: F.silu(x),
    "mish": lambda F, x: F.mish(x),
    "gelu": lambda F, x: F.gelu(x),
    "gelu_tanh": lambda F, x: F.gelu(x, approximate="tanh"),
    "elu": lambda F, x: F.elu(x),
    "selu": lambda F, x: F.selu(x),
    "sigmoid": lambda F, x: F.sigmoid(x),
}


@pytest.mark.parametrize("name", sorted(STABLE_CALLS))
def test_finite_values_and_gradients_for_logits_of_magnitude_1e4(name: str) -> None:
    call = STABLE_CALLS[name]
    ours, theirs = run_both(lambda lib, t: call(lib.nn.functional, t[0]), HUGE)
    assert np.isfinite(numpy_of(ours[0])).all()
    assert_same_values(ours[0], theirs[0])
    assert_same_grads(ours, theirs)
    assert np.isfinite(numpy_of(ours[1][0].grad)).all()


@pytest.mark.parametrize("name", ["softplus", "log_softmax", "softmax", "logsigmoid", "silu"])
def test_second_derivative_finite_at_1e4(name: str) -> None:
    call = STABLE_CALLS[name]
    grads = []
    for lib in LIBS:
        x = lib.tensor(HUGE.copy(), requires_grad=True)
        out = call(lib.nn.functional, x)
        (g,) = lib.autograd.grad(out.sum() + (out * out).sum(), x, create_graph=True)
        (gg2,) = lib.autograd.grad((g * g).sum(), x)
        grads.append(numpy_of(gg2))
    assert np.isfinite(grads[0]).all()
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


def test_softplus_without_threshold_stays_finite_where_the_naive_formula_overflows() -> None:
    # PyTorch computes log1p(exp(x)) below the threshold and overflows to inf at x = 1e4;
    # glassgrad uses log(1 + e^x) = max(x, 0) + log1p(e^-|x|), exact to rounding.
    x = gg.tensor(HUGE.copy(), requires_grad=True)
    out = gg.nn.functional.softplus(x, beta=0.5, threshold=1e9)
    expected = np.logaddexp(0.0, 0.5 * HUGE) / 0.5
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=1e-15)
    out.sum().backward()
    expected_grad = np.exp(-np.logaddexp(0.0, -0.5 * HUGE))  # sigmoid(x / 2), no overflow
    np.testing.assert_allclose(x.grad.numpy(), expected_grad, rtol=1e-15, atol=1e-17)


def test_float32_wide_inputs_match_torch() -> None:
    x = (10.0 * np.random.default_rng(6).standard_normal((6, 7))).astype(np.float32)
    for name in ("gelu", "gelu_tanh", "mish", "softplus", "log_softmax", "softmax", "elu"):
        call = STABLE_CALLS[name]
        ours = call(gg.nn.functional, gg.tensor(x))
        theirs = call(torch.nn.functional, torch.tensor(x))
        assert ours.dtype == gg.float32
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


def test_exact_gelu_matches_torch_to_float64_precision() -> None:
    x = np.linspace(-9.0, 9.0, 2001)
    ours = gg.nn.functional.gelu(gg.tensor(x)).numpy()
    theirs = torch.nn.functional.gelu(torch.tensor(x)).numpy()
    # Far left both compute 1 + erf(x/sqrt 2) by cancellation: agree to a few ulps of 1.
    np.testing.assert_allclose(ours, theirs, rtol=1e-14, atol=4e-15)


def test_softmax_of_all_minus_infinity_is_nan_like_torch() -> None:
    x = np.full((2, 3), -np.inf)
    ours = gg.nn.functional.softmax(gg.tensor(x), dim=1).numpy()
    theirs = torch.nn.functional.softmax(torch.tensor(x), dim=1).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))


# --- dtypes, dims and signatures ---------------------------------------------------------------


def test_softmax_dtype_casts_first_and_returns_that_dtype() -> None:
    x = gg.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    out = gg.nn.functional.softmax(x, 1, dtype=gg.float64)
    assert out.dtype == gg.float64
    assert graph_signature(out.grad_fn) == "SoftmaxBackward0(ToCopyBackward0(AccumulateGrad()))"
    out[0, 0].backward()
    assert x.grad.dtype == gg.float32


def test_integer_input_with_dtype_is_accepted() -> None:
    ours = gg.nn.functional.log_softmax(gg.tensor([1, 2, 3]), 0, dtype=gg.float64)
    theirs = torch.nn.functional.log_softmax(torch.tensor([1, 2, 3]), 0, dtype=torch.float64)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-15)


@pytest.mark.parametrize("shape, expected_dim", [((), 0), ((4,), 0), ((2, 3), 1), ((2, 3, 4), 0)])
def test_implicit_softmax_dim_warns_and_picks_torchs_dim(shape: tuple, expected_dim: int) -> None:
    x = np.random.default_rng(7).standard_normal(shape)
    for name in ("softmax", "log_softmax", "softmin"):
        with pytest.warns(UserWarning, match="Implicit dimension choice"):
            ours = getattr(gg.nn.functional, name)(gg.tensor(x))
        with pytest.warns(UserWarning):
            theirs = getattr(torch.nn.functional, name)(torch.tensor(x))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    if shape:
        explicit = gg.nn.functional.softmax(gg.tensor(x), expected_dim).numpy()
        with pytest.warns(UserWarning):
            np.testing.assert_array_equal(gg.nn.functional.softmax(gg.tensor(x)).numpy(), explicit)


def test_top_level_softmax_and_methods() -> None:
    x = np.random.default_rng(8).standard_normal((3, 4))
    for ours, theirs in (
        (gg.softmax(gg.tensor(x), 1), torch.softmax(torch.tensor(x), 1)),
        (gg.log_softmax(gg.tensor(x), dim=0), torch.log_softmax(torch.tensor(x), dim=0)),
        (gg.tensor(x).softmax(-1), torch.tensor(x).softmax(-1)),
        (gg.tensor(x).log_softmax(1), torch.tensor(x).log_softmax(1)),
        (
            gg.tensor(x).float().softmax(1, dtype=gg.float64),
            torch.tensor(x).float().softmax(1, dtype=torch.float64),
        ),
    ):
        assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "softsign", "tanhshrink", "sigmoid"])
def test_integer_inputs_where_torch_accepts_them(name: str) -> None:
    x = np.array([3, -2, 0, 7])
    ours = getattr(gg.nn.functional, name)(gg.tensor(x))
    theirs = getattr(torch.nn.functional, name)(torch.tensor(x))
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


# --- errors ------------------------------------------------------------------------------------

FLOAT_ONLY = ("leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus")
FLOAT_ONLY += ("hardsigmoid", "hardswish", "logsigmoid")


@pytest.mark.parametrize("name", FLOAT_ONLY)
def test_integer_input_is_refused_naming_op_and_dtype(name: str) -> None:
    with pytest.raises(NotImplementedError, match=rf"{name}.*not implemented for 'Long'"):
        getattr(gg.nn.functional, name)(gg.tensor([1, -2]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        getattr(torch.nn.functional, name)(torch.tensor([1, -2]))


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_integer_softmax_without_dtype_is_refused(name: str) -> None:
    with pytest.raises(NotImplementedError, match=r"softmax.*not implemented for 'Long'"):
        getattr(gg.nn.functional, name)(gg.tensor([1, 2]), 0)


def test_bool_inputs_are_refused_like_torch() -> None:
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        gg.nn.functional.relu(gg.tensor([True, False]))
    with pytest.raises(RuntimeError, match="Bool inputs not supported for hardtanh"):
        gg.nn.functional.hardtanh(gg.tensor([True, False]))


def test_argument_errors_name_the_op_and_value() -> None:
    F = gg.nn.functional
    x = gg.randn(2, 3)
    with pytest.raises(ValueError, match=r"hardtanh: min_val cannot be greater than max_val.*2"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(RuntimeError, match=r"gelu: approximate argument must be.*'erf'"):
        F.gelu(x, approximate="erf")
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(x, alpha=0.0)
    with pytest.raises(IndexError, match=r"softmax.*Dimension out of range.*got 2"):
        F.softmax(x, 2)
    with pytest.raises(IndexError, match=r"log_softmax.*Dimension out of range.*got -3"):
        F.log_softmax(x, -3)
    with pytest.raises(TypeError, match=r"softmax\(\): argument 'input'.*must be Tensor, not list"):
        F.softmax([1.0, 2.0], 0)


def test_similarity_errors_name_the_op_and_shapes() -> None:
    F = gg.nn.functional
    with pytest.raises(RuntimeError, match=r"cosine_similarity.*\(4\).*\(5\)"):
        F.cosine_similarity(gg.randn(3, 4), gg.randn(3, 5))
    with pytest.raises(RuntimeError, match=r"pairwise_distance.*\(4\).*\(5\)"):
        F.pairwise_distance(gg.randn(3, 4), gg.randn(3, 5))
    with pytest.raises(RuntimeError, match="cosine_similarity: expected common dtype to be float"):
        F.cosine_similarity(gg.tensor([[1, 2]]), gg.tensor([[3, 4]]))
    with pytest.raises(
        RuntimeError, match="normalize: Expected a floating point or complex tensor.*Long"
    ):
        F.normalize(gg.tensor([[1, 2]]))


@pytest.mark.parametrize("name", ["relu6", "hardtanh", "hardsigmoid", "hardswish"])
def test_inf_gradient_is_zeroed_where_the_derivative_is_zero(name: str) -> None:
    # PyTorch selects (where), it does not multiply by a mask: inf * 0 would give NaN.
    x = np.array([-7.0, -4.0, 0.25, 4.0, 7.0])
    upstream = np.array([np.inf, -np.inf, 1.0, np.inf, np.inf])
    grads = []
    for lib in LIBS:
        leaf = lib.tensor(x.copy(), requires_grad=True)
        getattr(lib.nn.functional, name)(leaf).backward(lib.tensor(upstream))
        grads.append(numpy_of(leaf.grad))
    assert not np.isnan(grads[0]).any()
    np.testing.assert_allclose(grads[0], grads[1], rtol=grad_rtol(name))


def test_gelu_backward_twice_with_retain_graph_gives_the_same_gradient() -> None:
    # The forward's CDF is reused by the first backward only; the second recomputes it.
    x = gg.tensor(np.linspace(-3.0, 3.0, 7), requires_grad=True)
    y = gg.nn.functional.gelu(x)
    y.sum().backward(retain_graph=True)
    first = x.grad.numpy().copy()
    x.grad = None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), first)
    t = torch.tensor(np.linspace(-3.0, 3.0, 7), requires_grad=True)
    torch.nn.functional.gelu(t).sum().backward()
    np.testing.assert_allclose(first, t.grad.numpy(), rtol=1e-12)


# --- relu and threshold: PyTorch's threshold_backward in the second derivative -----------------

THRESHOLD_CALLS = {
    "relu": lambda F, t: F.relu(t),
    "threshold": lambda F, t: F.threshold(t, 0.1, 2.0),
    "threshold_": lambda F, t: F.threshold_(t.clone(), 0.1, 2.0),
    "relu_inplace": lambda F, t: F.relu(t.clone(), inplace=True),
    "relu_method_": lambda F, t: t.clone().relu_(),
    # In place through a view kept alive: the saved result's history is the view's new
    # grad_fn (AsStridedBackward0), as PyTorch's SavedVariable holds it.
    "relu_on_view": lambda F, t: F.relu_(t.clone()[1:]),
    "threshold_on_view": lambda F, t: F.threshold_(t.clone()[1:], 0.1, 2.0),
}


def _edges(fn: Any) -> list:
    return [None if f is None else (type(f).__name__, nr) for f, nr in fn.next_functions]


def _graph(fn: Any) -> Any:
    """``fn``'s graph as nested (name, input number, edges) tuples, None for no edge."""
    if fn is None:
        return None
    return (type(fn).__name__, [(nr, _graph(f)) for f, nr in fn.next_functions])


@pytest.mark.parametrize("name", sorted(THRESHOLD_CALLS))
def test_relu_and_threshold_second_derivative_is_threshold_backward_like_torch(name: str) -> None:
    call = THRESHOLD_CALLS[name]
    seen = []
    for lib in LIBS:
        x = lib.tensor([-1.0, 0.05, 0.5, 2.0, float("nan")], dtype=lib.float64, requires_grad=True)
        a = x * 2
        out = call(lib.nn.functional, a)
        upstream = lib.ones_like(out, requires_grad=True)
        (g,) = lib.autograd.grad(out, a, upstream, create_graph=True)
        # The whole graph of the first derivative: below CopySlices for a write through a
        # view, CopySlices' own double backward (CopyBackwards, AsStridedBackward0 ...).
        graph = _graph(g.grad_fn)
        second = lib.autograd.grad((g * g).sum(), (x, upstream))
        seen.append((numpy_of(g), graph, [numpy_of(s) for s in second]))
    (g_ours, nodes_ours, second_ours), (g_torch, nodes_torch, second_torch) = seen
    np.testing.assert_array_equal(g_ours, g_torch)  # a NaN input passes its gradient
    assert nodes_ours == nodes_torch, (nodes_ours, nodes_torch)
    for a, b in zip(second_ours, second_torch):
        np.testing.assert_array_equal(a, b)


def test_threshold_in_place_masks_by_the_input_not_the_result() -> None:
    # value > threshold: the result cannot tell a replaced element from a kept one.
    grads = []
    for lib in LIBS:
        x = lib.tensor([-1.0, 0.05, 0.5], requires_grad=True)
        lib.nn.functional.threshold_(x.clone(), 0.1, 2.0).sum().backward()
        grads.append(numpy_of(x.grad))
    np.testing.assert_array_equal(grads[0], grads[1])


def test_inplace_op_saves_a_recorded_clone_of_its_input_like_torch() -> None:
    # mul_ reads the old self for other's gradient: PyTorch saves self.clone(), a node of
    # its own in the second derivative.
    seen = []
    for lib in LIBS:
        x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.5, 1.5, -1.0], dtype=lib.float64, requires_grad=True)
        out = (x * 2).clone().mul_(w)
        (g,) = lib.autograd.grad(out.sum(), w, create_graph=True)
        saved_self = g.grad_fn.next_functions[1][0]
        (second,) = lib.autograd.grad(g.sum(), x)
        seen.append((_edges(g.grad_fn), _edges(saved_self), numpy_of(second)))
    assert seen[0][:2] == seen[1][:2]
    np.testing.assert_array_equal(seen[0][2], seen[1][2])


SIGNED_ZERO_CALLS = {
    "relu": lambda L, x: L.relu(x),
    "relu_": lambda L, x: x.clone().relu_(),
    "softshrink": lambda L, x: L.nn.functional.softshrink(x, 1.5),
}


@pytest.mark.parametrize("name", sorted(SIGNED_ZERO_CALLS))
def test_sign_of_zero_results_as_torch(name: str) -> None:
    """relu(-0.0) is -0.0 and softshrink's middle is x * 0 in PyTorch: 1 / result shows it."""
    x = np.array([-1.2, -0.3, -0.0, 0.0, 0.3, 2.0])
    ours, theirs = (1 / SIGNED_ZERO_CALLS[name](L, L.tensor(x)) for L in (gg, torch))
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(
    "call", [lambda L, x: L.relu(x), lambda L, x: x.relu_(), lambda L, x: x.relu()]
)
def test_relu_of_bool_refused_as_torch(call: Any) -> None:
    errors = []
    for L in (gg, torch):
        with pytest.raises(RuntimeError) as info:
            call(L, L.tensor([True, False]))
        errors.append(str(info.value))
    assert errors[0] == errors[1]
