"""nn.functional losses: what the registry can't say.

Graphs as PyTorch records them, class-index checks (nothing silently clipped), target
shape and dtype errors, stability at logits of magnitude 1e4, ignore_index corner cases,
legacy reduction arguments, and binary_cross_entropy's clamps. PyTorch is the oracle.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def graph_signature(fn: Any, depth: int = 0) -> str:
    """The grad_fn tree as class names, edges in order ('-' for None)."""
    if fn is None:
        return "-"
    if depth > 10:
        return "..."
    children = ",".join(graph_signature(n, depth + 1) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


def tensor(lib: Any, a: Any, grad: bool = False) -> Any:
    a = np.asarray(a)
    t = lib.tensor(a.copy())
    if grad:
        t.requires_grad_(True)
    return t


def run_both(program: Callable[[Any], tuple]) -> list:
    """``program(lib) -> (output, leaves)`` in glassgrad and torch, warnings silenced."""
    results = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            results.append(program(lib))
    return results


def compare(
    program: Callable[[Any], tuple],
    rtol: float = 1e-10,
    graph: bool = True,
    grad_rtol: float = 1e-9,
) -> Any:
    """Values, dtypes, graph and gradients (backward of sum(out * c)) equal in both."""
    (ours, our_leaves), (theirs, their_leaves) = run_both(program)
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)
    if graph:
        assert graph_signature(ours.grad_fn) == graph_signature(theirs.grad_fn)
    c = np.random.default_rng(0).standard_normal(b.shape)
    (ours * gg.tensor(c, dtype=ours.dtype)).sum().backward()
    (theirs * torch.tensor(c, dtype=theirs.dtype)).sum().backward()
    for x, y in zip(our_leaves, their_leaves):
        np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=grad_rtol, atol=1e-12)
    return ours


RNG = np.random.default_rng(42)
X = RNG.standard_normal((5, 4))
T = RNG.standard_normal((5, 4))
IDX = np.array([0, 3, 1, 1, 2])
PROBS = np.exp(T) / np.exp(T).sum(1, keepdims=True)
W4 = 1.0 - RNG.random(4)
IMG = RNG.standard_normal((2, 3, 4, 5))
IMG_IDX = RNG.integers(0, 3, (2, 4, 5))
SEQ = RNG.standard_normal((2, 3, 6))
SEQ_IDX = RNG.integers(0, 3, (2, 6))
P = 0.05 + 0.9 * RNG.random((5, 4))
Q = 0.05 + 0.9 * RNG.random((5, 4))


def F(lib: Any) -> Any:
    return lib.nn.functional


# --- graphs -----------------------------------------------------------------------------------

GRAPH_PROGRAMS = {
    "mse": lambda lib: _pair(lib, lambda x, t: F(lib).mse_loss(x, t)),
    "mse_broadcast": lambda lib: _pair(lib, lambda x, t: F(lib).mse_loss(x, t[0])),
    "mse_weight": lambda lib: _pair(lib, lambda x, t: F(lib).mse_loss(x, t, weight=tensor(lib, P))),
    "l1": lambda lib: _pair(lib, lambda x, t: F(lib).l1_loss(x, t, reduction="sum")),
    "l1_broadcast": lambda lib: _pair(lib, lambda x, t: F(lib).l1_loss(x, t[:1])),
    "smooth_l1": lambda lib: _pair(lib, lambda x, t: F(lib).smooth_l1_loss(x, t, beta=0.7)),
    "smooth_l1_beta0": lambda lib: _pair(lib, lambda x, t: F(lib).smooth_l1_loss(x, t, beta=0.0)),
    "huber": lambda lib: _pair(lib, lambda x, t: F(lib).huber_loss(x, t, delta=0.5)),
    "huber_weight": lambda lib: _pair(
        lib, lambda x, t: F(lib).huber_loss(x, t, weight=tensor(lib, P), reduction="sum")
    ),
    "nll": lambda lib: _logits(lib, X, lambda x: F(lib).nll_loss(x, tensor(lib, IDX))),
    "nll_1d": lambda lib: _logits(lib, X[0], lambda x: F(lib).nll_loss(x, tensor(lib, 2))),
    "nll_image": lambda lib: _logits(
        lib, IMG, lambda x: F(lib).nll_loss(x, tensor(lib, IMG_IDX), reduction="none")
    ),
    "nll_sequence": lambda lib: _logits(
        lib, SEQ, lambda x: F(lib).nll_loss(x, tensor(lib, SEQ_IDX), reduction="none")
    ),
    "nll_sequence_mean": lambda lib: _logits(
        lib, SEQ, lambda x: F(lib).nll_loss(x, tensor(lib, SEQ_IDX))
    ),
    "nll_volume_noncontiguous": lambda lib: _logits(
        lib,
        IMG.transpose(0, 1, 3, 2)[..., None],
        lambda x: F(lib).nll_loss(x.transpose(2, 3), tensor(lib, IMG_IDX[..., None])),
    ),
    "ce": lambda lib: _logits(lib, X, lambda x: F(lib).cross_entropy(x, tensor(lib, IDX))),
    "ce_weight_sum": lambda lib: _logits(
        lib,
        X,
        lambda x: F(lib).cross_entropy(
            x, tensor(lib, IDX), weight=tensor(lib, W4), reduction="sum"
        ),
    ),
    "ce_smoothing": lambda lib: _logits(
        lib, X, lambda x: F(lib).cross_entropy(x, tensor(lib, IDX), label_smoothing=0.2)
    ),
    "ce_smoothing_weight": lambda lib: _logits(
        lib,
        X,
        lambda x: F(lib).cross_entropy(
            x, tensor(lib, IDX), weight=tensor(lib, W4), label_smoothing=0.3
        ),
    ),
    "ce_smoothing_image_none": lambda lib: _logits(
        lib,
        IMG,
        lambda x: F(lib).cross_entropy(
            x, tensor(lib, IMG_IDX), label_smoothing=0.1, reduction="none"
        ),
    ),
    "ce_probabilities": lambda lib: _pair(
        lib, lambda x, t: F(lib).cross_entropy(x, F(lib).softmax(t, 1)), a=X, b=T
    ),
    "ce_probabilities_smoothing": lambda lib: _pair(
        lib,
        lambda x, t: F(lib).cross_entropy(x, F(lib).softmax(t, 1), label_smoothing=0.4),
    ),
    "ce_probabilities_weight_none": lambda lib: _logits(
        lib,
        X,
        lambda x: F(lib).cross_entropy(
            x, tensor(lib, PROBS), weight=tensor(lib, W4), reduction="none"
        ),
    ),
    "bce": lambda lib: _pair(lib, lambda p, q: F(lib).binary_cross_entropy(p, q), a=P, b=Q),
    "bce_weight": lambda lib: _pair(
        lib,
        lambda p, q: F(lib).binary_cross_entropy(p, q, weight=tensor(lib, W4)),
        a=P,
        b=Q,
    ),
    "bce_logits": lambda lib: _pair(
        lib,
        lambda x, q: F(lib).binary_cross_entropy_with_logits(
            x, q, pos_weight=tensor(lib, W4), weight=tensor(lib, P)
        ),
        b=Q,
    ),
    "kl_batchmean": lambda lib: _pair(
        lib, lambda x, q: F(lib).kl_div(x, q, reduction="batchmean"), b=PROBS
    ),
    "kl_none": lambda lib: _pair(lib, lambda x, q: F(lib).kl_div(x, q, reduction="none"), b=P),
    "kl_mean": lambda lib: _pair(lib, lambda x, q: F(lib).kl_div(x, q), b=P),
    "kl_log_target": lambda lib: _pair(
        lib, lambda x, t: F(lib).kl_div(x, t, reduction="sum", log_target=True)
    ),
    "kl_constant_target": lambda lib: _logits(
        lib, X, lambda x: F(lib).kl_div(x, tensor(lib, PROBS), reduction="sum")
    ),
}


def _pair(lib: Any, loss: Callable, a: np.ndarray = X, b: np.ndarray = T) -> tuple:
    x, t = tensor(lib, a, grad=True), tensor(lib, b, grad=True)
    return loss(x, t), [x, t]


def _logits(lib: Any, a: np.ndarray, loss: Callable) -> tuple:
    x = tensor(lib, a, grad=True)
    return loss(x), [x]


@pytest.mark.parametrize("name", sorted(GRAPH_PROGRAMS))
def test_loss_graphs_values_and_gradients_match_torch(name: str) -> None:
    compare(GRAPH_PROGRAMS[name])


def test_nll_target_is_not_an_edge_like_torch() -> None:
    x = gg.tensor(X, requires_grad=True)
    out = gg.nn.functional.nll_loss(x, gg.tensor(IDX))
    assert len(out.grad_fn.next_functions) == 1
    bce = gg.nn.functional.binary_cross_entropy(gg.tensor(P, requires_grad=True), gg.tensor(Q))
    assert [n for n, _ in bce.grad_fn.next_functions][1] is None


# --- class indices: checked, never clipped ------------------------------------------------------

OUT_OF_RANGE = [
    ("2d_high", X, [0, 1, 4, 0, 0], 4),
    ("2d_negative", X, [0, -1, 2, 0, 0], -1),
    ("1d", X[0], 7, 7),
    ("image", IMG, np.where(IMG_IDX == 1, 3, IMG_IDX), 3),
    ("sequence", SEQ, np.where(SEQ_IDX == 0, -5, SEQ_IDX), -5),
]


@pytest.mark.parametrize("op", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("case", OUT_OF_RANGE, ids=[c[0] for c in OUT_OF_RANGE])
def test_class_index_out_of_range_names_op_and_value(op: str, case: tuple) -> None:
    _, logits, target, bad = case
    with pytest.raises(IndexError, match=rf"nll_loss(2d)?: Target {bad} is out of bounds"):
        getattr(gg.nn.functional, op)(gg.tensor(logits), gg.tensor(np.asarray(target)))
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
        getattr(torch.nn.functional, op)(torch.tensor(logits), torch.tensor(np.asarray(target)))


def test_out_of_range_error_says_the_valid_range_and_ignore_index() -> None:
    with pytest.raises(IndexError, match=r"\[0, 3\] or ignore_index=-100"):
        gg.nn.functional.cross_entropy(gg.tensor(X), gg.tensor([0, 1, 9, 0, 0]))


def test_an_out_of_range_value_equal_to_ignore_index_is_ignored() -> None:
    target = np.array([0, 1, 7, 2, 7])
    compare(
        lambda lib: _logits(
            lib, X, lambda x: F(lib).cross_entropy(x, tensor(lib, target), ignore_index=7)
        )
    )


def test_uint8_targets_are_accepted() -> None:
    target = IDX.astype(np.uint8)
    compare(lambda lib: _logits(lib, X, lambda x: F(lib).nll_loss(x, tensor(lib, target))))


@pytest.mark.parametrize("dtype, name", [(np.float32, "Float"), (np.int32, "Int"), (bool, "Bool")])
@pytest.mark.parametrize("op", ["nll_loss", "cross_entropy"])
def test_wrong_target_dtype_is_refused(op: str, dtype: Any, name: str) -> None:
    target = gg.tensor(np.array([0, 1, 1, 0, 1]).astype(dtype))
    with pytest.raises(
        RuntimeError, match=f"expected target dtype to be Long or Byte, but got {name}"
    ):
        getattr(gg.nn.functional, op)(gg.tensor(X), target)


def test_float_target_of_another_shape_explains_probabilities() -> None:
    with pytest.raises(RuntimeError, match=r"class probabilities only when its shape equals"):
        gg.nn.functional.cross_entropy(gg.tensor(X), gg.tensor(np.zeros((5, 3))))


def test_integer_target_of_the_input_shape_is_refused_as_probabilities() -> None:
    with pytest.raises(RuntimeError, match="Expected floating point type for target with class"):
        gg.nn.functional.cross_entropy(gg.tensor(X), gg.tensor(np.zeros((5, 4), dtype=np.int64)))


@pytest.mark.parametrize(
    "logits, target, error, words",
    [
        (
            X,
            IDX[:3],
            ValueError,
            r"Expected input batch_size \(5\) to match target batch_size \(3\)",
        ),
        (X, IDX[:, None], RuntimeError, "0D or 1D target tensor expected"),
        (X[0], IDX[:1], RuntimeError, "0D target tensor expected for a 1D input"),
        (IMG, IMG_IDX[:, :3], RuntimeError, r"Expected target size \[2, 4, 5\], got \[2, 3, 5\]"),
        (SEQ, SEQ_IDX[:, :4], RuntimeError, r"Expected target size \[2, 6\], got \[2, 4\]"),
        (np.array(1.0), np.array(0), ValueError, r"Expected 1 or more dimensions \(got 0\)"),
    ],
)
@pytest.mark.parametrize("op", ["nll_loss", "cross_entropy"])
def test_target_shape_mismatch(op: str, logits: Any, target: Any, error: type, words: str) -> None:
    with pytest.raises(error, match=rf"{op}: .*{words}|{op}: {words}"):
        getattr(gg.nn.functional, op)(gg.tensor(logits), gg.tensor(target))


@pytest.mark.parametrize("shape", [(3,), (2, 3), (2, 3, 4), (2, 3, 2, 2), (2, 3, 1, 2, 2)])
@pytest.mark.parametrize("name", ["nll_loss", "cross_entropy"])
def test_a_class_weight_requiring_grad_is_refused_by_pytorchs_kernel(name, shape) -> None:
    """nll_loss_nd computes an input of 3 dims or more as images: the refusal names
    nll_loss2d_forward there, nll_loss_forward below."""
    messages = []
    for lib in (gg, torch):
        x = lib.zeros(shape)
        target = lib.zeros(shape[:1] + shape[2:], dtype=lib.int64) if len(shape) > 1 else 0
        with pytest.raises(RuntimeError) as caught:
            getattr(lib.nn.functional, name)(
                x, lib.tensor(target), weight=lib.ones(3, requires_grad=True)
            )
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_class_weight_errors() -> None:
    F_ = gg.nn.functional
    with pytest.raises(RuntimeError, match=r"defined either for all 4 classes.*shape: \[3\]"):
        F_.cross_entropy(gg.tensor(X), gg.tensor(IDX), weight=gg.tensor(W4[:3]))
    with pytest.raises(RuntimeError, match=r"defined either for all 4 classes.*shape: \[5\]"):
        F_.cross_entropy(gg.tensor(X), gg.tensor(PROBS), weight=gg.ones(5, dtype=gg.float64))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        F_.nll_loss(gg.tensor(X), gg.tensor(IDX), weight=gg.tensor(W4).float())
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F_.nll_loss(gg.tensor(X), gg.tensor(IDX), weight=gg.tensor(W4, requires_grad=True))
    with gg.no_grad():  # outside grad mode a weight that requires grad is just values
        F_.nll_loss(gg.tensor(X), gg.tensor(IDX), weight=gg.tensor(W4, requires_grad=True))


@pytest.mark.parametrize("shape", [(2, 3, 4), (5, 3), (3,)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("smoothing", [0.0, 0.3])
def test_probability_targets_take_a_weight_that_requires_grad(
    shape: tuple, reduction: str, smoothing: float
) -> None:
    # Against class probabilities PyTorch's cross entropy is a composite
    # (cross_entropy_loss_prob_target): -(log_softmax * target * weight.view(1, C, 1...)),
    # differentiable in the weight (only nll_loss's kernel refuses one that requires grad).
    rng = np.random.default_rng(3)
    arrays = rng.standard_normal(shape), rng.random(shape), rng.random(3)
    results = []
    for lib in LIBS:
        x, t, w = (lib.tensor(a, requires_grad=True) for a in arrays)
        loss = lib.nn.functional.cross_entropy(
            x, t, weight=w, reduction=reduction, label_smoothing=smoothing
        )
        first = lib.autograd.grad((loss * loss).sum(), (x, t, w), create_graph=True)
        second = lib.autograd.grad(sum(g.sum() for g in first), (x, t, w))
        again = lib.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction)
        w.detach().mul_(2)  # the mul saved its view: changing it breaks the backward
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            again.sum().backward()
        results.append([loss, *first, *second])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9)


def test_label_smoothing_above_one_is_refused() -> None:
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0. Got: 1.5"):
        gg.nn.functional.cross_entropy(gg.tensor(X), gg.tensor(IDX), label_smoothing=1.5)


def test_negative_label_smoothing_means_none_like_torch() -> None:
    compare(
        lambda lib: _logits(
            lib, X, lambda x: F(lib).cross_entropy(x, tensor(lib, IDX), label_smoothing=-0.1)
        )
    )


# --- ignore_index and empty batches -------------------------------------------------------------

ALL_IGNORED = np.full(5, -100)


@pytest.mark.parametrize("smoothing", [0.0, 0.2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_every_target_ignored(reduction: str, smoothing: float) -> None:
    results = run_both(
        lambda lib: _logits(
            lib,
            X,
            lambda x: F(lib).cross_entropy(
                x, tensor(lib, ALL_IGNORED), reduction=reduction, label_smoothing=smoothing
            ),
        )
    )
    (ours, our_leaves), (theirs, their_leaves) = results
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    # With label smoothing the mean is 0/0; PyTorch's MaskedFillBackward0 writes exact zeros
    # at the ignored positions (grad.masked_fill(mask, 0)), so no NaN reaches the logits.
    np.testing.assert_array_equal(
        our_leaves[0].grad.numpy(),
        their_leaves[0].grad.numpy(),
        err_msg="ignored targets must get exactly 0 gradient (masked_fill backward, not grad*mask)",
    )


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_empty_batch(reduction: str) -> None:
    for target in (np.zeros(0, dtype=np.int64), np.zeros((0, 4))):
        results = run_both(
            lambda lib, target=target: _logits(
                lib,
                np.zeros((0, 4)),
                lambda x: F(lib).cross_entropy(x, tensor(lib, target), reduction=reduction),
            )
        )
        (ours, _), (theirs, _) = results
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


# --- numerical stability at 1e4 ----------------------------------------------------------------

HUGE = np.array([[1e4, -1e4, 0.0, 5e3], [-1e4, -1e4, 1e4, 1e4], [0.0, 1e4, -5e3, 3.0]])
HUGE_IDX = np.array([1, 0, 3])
HUGE_T = np.array([[1.0, 0.0, 0.5, 0.0], [0.0, 1.0, 1.0, 0.25], [0.5, 0.0, 1.0, 1.0]])

STABLE = {
    "cross_entropy": lambda lib, x: F(lib).cross_entropy(x, tensor(lib, HUGE_IDX)),
    "cross_entropy_none": lambda lib, x: F(lib).cross_entropy(
        x, tensor(lib, HUGE_IDX), reduction="none"
    ),
    "cross_entropy_smoothing": lambda lib, x: F(lib).cross_entropy(
        x, tensor(lib, HUGE_IDX), label_smoothing=0.1
    ),
    "cross_entropy_probabilities": lambda lib, x: F(lib).cross_entropy(
        x, tensor(lib, HUGE_T / HUGE_T.sum(1, keepdims=True))
    ),
    "bce_with_logits": lambda lib, x: F(lib).binary_cross_entropy_with_logits(
        x, tensor(lib, HUGE_T), reduction="sum"
    ),
    "bce_with_logits_pos_weight": lambda lib, x: F(lib).binary_cross_entropy_with_logits(
        x, tensor(lib, HUGE_T), pos_weight=tensor(lib, W4 + 1.0), reduction="none"
    ),
    "log_softmax_nll": lambda lib, x: F(lib).nll_loss(
        F(lib).log_softmax(x, 1), tensor(lib, HUGE_IDX), reduction="sum"
    ),
}


@pytest.mark.parametrize("name", sorted(STABLE))
def test_finite_values_and_gradients_for_logits_of_magnitude_1e4(name: str) -> None:
    ours = compare(lambda lib: _logits(lib, HUGE, lambda x: STABLE[name](lib, x)))
    assert np.isfinite(ours.detach().numpy()).all()


@pytest.mark.parametrize("name", ["cross_entropy", "bce_with_logits_pos_weight"])
def test_second_derivatives_finite_at_1e4(name: str) -> None:
    results = []
    for lib in LIBS:
        x = tensor(lib, HUGE, grad=True)
        (g,) = lib.autograd.grad(STABLE[name](lib, x).sum(), x, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), x)
        results.append(h.numpy())
    assert np.isfinite(results[0]).all()
    np.testing.assert_allclose(results[0], results[1], rtol=1e-9, atol=1e-12)


def test_bce_with_logits_target_gradient_at_1e4() -> None:
    compare(
        lambda lib: _pair(
            lib,
            lambda x, t: F(lib).binary_cross_entropy_with_logits(
                x, t, pos_weight=tensor(lib, W4 + 0.5)
            ),
            a=HUGE,
            b=HUGE_T,
        )
    )


# --- binary cross entropy ----------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, -0.5, float("nan")])
def test_bce_input_outside_unit_interval_is_refused(bad: float) -> None:
    with pytest.raises(
        RuntimeError, match=r"binary_cross_entropy: all elements of input should be between 0 and 1"
    ):
        gg.nn.functional.binary_cross_entropy(gg.tensor([0.5, bad]), gg.tensor([0.0, 1.0]))


def test_bce_target_outside_unit_interval_is_refused() -> None:
    with pytest.raises(
        RuntimeError, match=r"all elements of target should be between 0 and 1 \(found 2.0\)"
    ):
        gg.nn.functional.binary_cross_entropy(gg.tensor([0.5, 0.5]), gg.tensor([2.0, 1.0]))


def test_bce_shape_and_dtype_errors() -> None:
    F_ = gg.nn.functional
    with pytest.raises(ValueError, match=r"binary_cross_entropy: Using a target size \(\[3, 1\]\)"):
        F_.binary_cross_entropy(gg.rand(3), gg.rand(3, 1))
    with pytest.raises(ValueError, match=r"with_logits: Target size \(\[3, 1\]\) must be the same"):
        F_.binary_cross_entropy_with_logits(gg.rand(3), gg.rand(3, 1))
    with pytest.raises(RuntimeError, match="Found dtype Long but expected Float"):
        F_.binary_cross_entropy(gg.rand(3), gg.tensor([0, 1, 1]))
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        F_.binary_cross_entropy(gg.rand(3), gg.rand(3).double())
    with pytest.raises(
        RuntimeError, match="with_logits: expected a floating point target, got Long"
    ):
        F_.binary_cross_entropy_with_logits(gg.rand(3), gg.tensor([0, 1, 1]))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F_.binary_cross_entropy(gg.rand(3), gg.rand(3), weight=gg.rand(3, requires_grad=True))
    with pytest.raises(RuntimeError, match="argument 'pos_weight'"):
        F_.binary_cross_entropy_with_logits(
            gg.rand(3), gg.rand(3), pos_weight=gg.rand(3, requires_grad=True)
        )


def test_bce_at_exact_zero_and_one_uses_torchs_clamps() -> None:
    p = np.array([0.0, 1.0, 0.0, 1.0, 1e-13, 1.0 - 1e-13])
    q = np.array([0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    (ours, our_leaves), (theirs, their_leaves) = run_both(
        lambda lib: _logits(
            lib, p, lambda x: F(lib).binary_cross_entropy(x, tensor(lib, q), reduction="none")
        )
    )
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(our_leaves[0].grad.numpy(), their_leaves[0].grad.numpy(), rtol=1e-6)


def test_bce_with_logits_promotes_a_double_target() -> None:
    compare(
        lambda lib: _pair(
            lib,
            lambda x, t: F(lib).binary_cross_entropy_with_logits(x.float(), t),
            b=Q,
        ),
        rtol=1e-6,
        grad_rtol=1e-5,  # the float32 copy of x rounds differently inside the two kernels
    )


# --- regression losses -------------------------------------------------------------------------


def test_regression_errors_name_the_op() -> None:
    F_ = gg.nn.functional
    with pytest.raises(RuntimeError, match=r"mse_loss: The size of tensor a \(3\) must match"):
        F_.mse_loss(gg.rand(3), gg.rand(4))
    with pytest.raises(
        RuntimeError, match="smooth_l1_loss does not support negative values for beta"
    ):
        F_.smooth_l1_loss(gg.rand(3), gg.rand(3), beta=-1.0)
    with pytest.raises(
        RuntimeError, match="huber_loss does not support non-positive values for delta"
    ):
        F_.huber_loss(gg.rand(3), gg.rand(3), delta=0.0)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        F_.mse_loss(gg.rand(3), gg.rand(3), weight=gg.rand(1))
    with pytest.raises(NotImplementedError, match="mse_loss.*not implemented for 'Long'"):
        F_.mse_loss(gg.tensor([1, 2]), gg.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported"):
        F_.kl_div(gg.tensor([1, 2]), gg.tensor([0.0, 1.0]))


@pytest.mark.parametrize(
    "op", ["mse_loss", "l1_loss", "cross_entropy", "kl_div", "binary_cross_entropy"]
)
def test_unknown_reduction_is_refused(op: str) -> None:
    args = {
        "cross_entropy": (gg.tensor(X), gg.tensor(IDX)),
        "binary_cross_entropy": (gg.tensor(P), gg.tensor(Q)),
    }.get(op, (gg.tensor(X), gg.tensor(T)))
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        getattr(gg.nn.functional, op)(*args, reduction="avg")


def test_target_size_warning_like_torch() -> None:
    with pytest.warns(UserWarning, match="Using a target size .* different to the input size"):
        gg.nn.functional.mse_loss(gg.tensor(X), gg.tensor(T[0]))


def test_mixed_precision_promotes_like_torch() -> None:
    compare(lambda lib: _pair(lib, lambda x, t: F(lib).mse_loss(x.float(), t)), rtol=1e-6)


@pytest.mark.parametrize(
    "size_average, reduce, expected",
    [(None, False, "none"), (False, None, "sum"), (True, True, "mean"), (False, False, "none")],
)
def test_legacy_size_average_and_reduce(size_average: Any, reduce: Any, expected: str) -> None:
    x, t = gg.tensor(X), gg.tensor(T)
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        legacy = gg.nn.functional.mse_loss(x, t, size_average=size_average, reduce=reduce)
    modern = gg.nn.functional.mse_loss(x, t, reduction=expected)
    np.testing.assert_array_equal(legacy.numpy(), modern.numpy())
    with pytest.warns(UserWarning):
        kl = gg.nn.functional.kl_div(x, gg.tensor(P), size_average=size_average, reduce=reduce)
    np.testing.assert_array_equal(
        kl.numpy(), gg.nn.functional.kl_div(x, gg.tensor(P), reduction=expected).numpy()
    )


def test_kl_div_mean_warns_and_batchmean_of_a_scalar() -> None:
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        gg.nn.functional.kl_div(gg.tensor(X), gg.tensor(P))
    compare(
        lambda lib: _pair(
            lib, lambda x, t: F(lib).kl_div(x, t, reduction="batchmean"), a=X[0, 0], b=P[0, 0]
        )
    )


def test_kl_div_zero_target_contributes_zero_like_torch() -> None:
    target = PROBS.copy()
    target[:, 0] = 0.0
    compare(
        lambda lib: _logits(
            lib, X, lambda x: F(lib).kl_div(x, tensor(lib, target), reduction="batchmean")
        )
    )


def test_ignored_targets_get_zero_gradient_even_from_an_inf_upstream() -> None:
    target = np.array([0, -100, 2, -100, 1])
    upstream = np.array([1.0, np.inf, 2.0, -np.inf, 0.5])
    grads = []
    for lib in LIBS:
        x = tensor(lib, X, grad=True)
        F(lib).nll_loss(x, tensor(lib, target), reduction="none").backward(tensor(lib, upstream))
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize("dtypes", [("float64", "float32"), ("float32", "float64")])
def test_multi_margin_loss_weight_of_another_dtype_refused_as_pytorch(dtypes: tuple) -> None:
    """PyTorch's kernel reads the weight in the input's type and refuses another dtype (fuzz
    seed 73127); it was cast here."""
    messages = []
    for lib in (gg, torch):
        x = lib.zeros(5, 4, dtype=getattr(lib, dtypes[0]))
        weight = lib.ones(4, dtype=getattr(lib, dtypes[1]))
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.multi_margin_loss(x, lib.tensor([1, 3, 1, 0, 2]), weight=weight)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_kl_div_is_built_on_xlogy_with_its_gradient_off_the_domain() -> None:
    # Fuzz seed 710919: kl_div of negative targets written over by copy_ sends zeros back;
    # PyTorch's xlogy gradient in x is xlogy(grad, y), 0 where grad is 0 even where log(y) is
    # NaN. kl_div used a copy of xlogy's node with grad * log(y) (NaN) there.
    target_values = np.array([[-1.5, 0.3, 0.0, 2.0], [0.5, -0.2, 1.0, -3.0]])
    results = []
    for lib in (gg, torch):
        target = lib.tensor(target_values, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            loss = lib.nn.functional.kl_div(lib.tensor(X[:2]), target, reduction="none")
        grad = lib.tensor([[0.0, 1.0, 0.0, 2.0], [1.0, 0.0, 0.0, 0.0]])
        (first,) = lib.autograd.grad(loss, target, grad)
        results.append(first.numpy())
    np.testing.assert_array_equal(np.isnan(results[0]), np.isnan(results[1]))
    np.testing.assert_allclose(*results, rtol=1e-12)


@pytest.mark.parametrize("n", [5, 12])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_binary_cross_entropy_second_derivative_at_zero_as_pytorch(n: int, dtype: str) -> None:
    """The target's gradient is PyTorch's -logit(x) grad, so its derivative in x is logit's
    backward: dy * inf at 0 whatever the zero's sign (the kernel's scalar loop, which takes
    tensors smaller than its vectorized block; fuzz seed 723154: x all +-0)."""
    rng = np.random.default_rng(3)
    x = np.where(rng.random(n) < 0.5, -0.0, 0.0).astype(dtype)
    x[::7] = 0.25
    t = rng.random(n).astype(dtype)
    w = rng.standard_normal(n).astype(dtype)

    def program(L):
        xs = L.tensor(x, requires_grad=True)
        ts = L.tensor(t, requires_grad=True)
        loss = L.nn.functional.binary_cross_entropy(xs, ts)
        gx, gt = L.autograd.grad(loss, (xs, ts), create_graph=True)
        second = L.autograd.grad((gt * L.tensor(w)).sum(), xs)[0]
        return [a.detach().numpy() for a in (gx, gt, second)]

    for ours, theirs in zip(program(gg), program(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)
        np.testing.assert_array_equal(np.sign(ours), np.sign(theirs))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_double_backward_is_pytorchs(
    dtype: str, reduction: str, weighted: bool
) -> None:
    """The first derivative in x is PyTorch's kernel (its EPSILON a float32 1e-12), its
    derivatives derivatives.yaml's formulas, whose eps is added, not clamped: at x = 0 or 1
    the second derivative is about t / 1e-24, not 1 / 1e-12 (glassgrad's composite gave)."""
    rng = np.random.default_rng(4)
    x = rng.random((3, 4)).astype(dtype)
    x[0, 0], x[1, 1], x[2, 2], x[2, 3] = 0.0, 1.0, -0.0, 1e-13
    t, c, w = (rng.random(shape).astype(dtype) for shape in ((3, 4), (3, 4), (4,)))

    def program(L):
        xs, ts = L.tensor(x, requires_grad=True), L.tensor(t, requires_grad=True)
        weight = L.tensor(w) if weighted else None
        loss = L.nn.functional.binary_cross_entropy(xs, ts, weight=weight, reduction=reduction)
        go = L.ones_like(loss, requires_grad=True) * 1.5
        gx, gt = L.autograd.grad(loss, (xs, ts), go, create_graph=True)
        weighted_sum = (gx * L.tensor(c)).sum() + (gt * L.tensor(c)).sum()
        second = L.autograd.grad(weighted_sum, (xs, ts, go))
        return [a.detach().numpy() for a in (gx, gt, *second)]

    for ours, theirs in zip(program(gg), program(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5 if dtype == "float32" else 1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_soft_margin_loss_overflows_as_pytorchs(dtype) -> None:
    """PyTorch computes log1p(exp(-x t)) as written: exp overflows to inf past ~709 (~88 in
    float32), where a stable log-add-exp stays finite (fuzz seed 834310)."""
    values = []
    for lib in (gg, torch):
        x = lib.tensor([[0.34, -0.5, 1.5], [-2.0, 0.5, 3.0]], dtype=getattr(lib, dtype))
        t = lib.tensor([[1009.7, 2000.0, 1.0], [50.0, -200.0, 40.0]], dtype=getattr(lib, dtype))
        values.append(lib.nn.functional.soft_margin_loss(x, t, reduction="none").tolist())
    np.testing.assert_allclose(values[0], values[1], rtol=1e-6)  # float32's exp: SLEEF's ulp
    assert (
        np.isinf(values[0])[0, 1] and np.isinf(values[0]).tolist() == np.isinf(values[1]).tolist()
    )
