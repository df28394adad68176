"""linear / bilinear / embedding / one_hot / dropout: what the registry can't say.

Graphs recorded as PyTorch records them, embedding's padding row, max_norm renormalisation
and frequency scaling, dropout's seeded mask (the same mask in forward and backward, the
right rate and scale), and the errors. PyTorch is the oracle where it is deterministic.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

GF = gg.nn.functional
TF = torch.nn.functional
LIBS = ((gg, GF), (torch, TF))


def close(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def graph_signature(fn: Any) -> str:
    if fn is None:
        return "-"
    children = ",".join(graph_signature(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


def run_both(call: Any, *arrays: np.ndarray) -> list:
    """``call(F, *tensors)`` in both libraries, then backward of a fixed projection."""
    results = []
    for lib, F in LIBS:
        leaves = [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
        out = call(F, *leaves)
        if out.requires_grad:
            weights = np.random.default_rng(9).standard_normal(tuple(out.shape))
            (out * lib.tensor(weights)).sum().backward()
        results.append((out, [t.grad for t in leaves]))
    return results


def assert_same(results: list, graph: bool = True) -> None:
    (out_g, grads_g), (out_t, grads_t) = results
    close(out_g, out_t)
    if graph:
        assert graph_signature(out_g.grad_fn) == graph_signature(out_t.grad_fn)
    for a, b in zip(grads_g, grads_t):
        assert (a is None) == (b is None)
        if a is not None:
            close(a, b)


# --- linear and bilinear -------------------------------------------------------------------

R = np.random.default_rng(0)


@pytest.mark.parametrize(
    "call, arrays",
    [
        (lambda F, x, w, b: F.linear(x, w, b), (R.random((5, 3)), R.random((4, 3)), R.random(4))),
        (lambda F, x, w: F.linear(x, w), (R.random((5, 3)), R.random((4, 3)))),
        (
            lambda F, x, w, b: F.linear(x, w, b),
            (R.random((2, 5, 3)), R.random((4, 3)), R.random(4)),
        ),
        (lambda F, x, w: F.linear(x, w), (R.random((2, 5, 3)), R.random((4, 3)))),
        (lambda F, x, w, b: F.linear(x, w, b), (R.random(3), R.random((4, 3)), R.random(4))),
        (lambda F, x, w: F.linear(x, w), (R.random(3), R.random((4, 3)))),
        (
            lambda F, x, y, w, b: F.bilinear(x, y, w, b),
            (R.random((5, 3)), R.random((5, 2)), R.random((4, 3, 2)), R.random(4)),
        ),
        (
            lambda F, x, y, w: F.bilinear(x, y, w),
            (R.random((2, 5, 3)), R.random((2, 5, 2)), R.random((4, 3, 2))),
        ),
    ],
    ids=["linear", "no-bias", "3d", "3d-no-bias", "1d", "1d-no-bias", "bilinear", "bilinear-3d"],
)
def test_linear_graphs_match_pytorch(call: Any, arrays: tuple, request: Any) -> None:
    # PyTorch squeezes a 1-D input's product with its SqueezeBackward4 (a dims-list
    # overload glassgrad does not have); the rest of that graph is compared below.
    one_d = request.node.callspec.id == "1d-no-bias"
    results = run_both(call, *arrays)
    assert_same(results, graph=not one_d)
    if one_d:
        ours, theirs = (graph_signature(out.grad_fn.next_functions[0][0]) for out, _ in results)
        assert ours == theirs


def test_linear_float32_benchmark_head() -> None:
    rng = np.random.default_rng(1)
    arrays = (
        rng.random((64, 512), dtype=np.float32),
        (rng.random((10, 512), dtype=np.float32) - 0.5) / 20,
        rng.random(10, dtype=np.float32),
    )
    (out_g, grads_g), (out_t, grads_t) = run_both(lambda F, x, w, b: F.linear(x, w, b), *arrays)
    close(out_g, out_t, rtol=1e-5, atol=1e-6)
    for a, b in zip(grads_g, grads_t):
        close(a, b, rtol=1e-5, atol=1e-5)


# --- embedding -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"padding_idx": 1}, {"padding_idx": -2}, {"scale_grad_by_freq": True}],
    ids=str,
)
def test_embedding_gradients(kwargs: dict) -> None:
    indices = np.array([[1, 3, 1], [0, 1, 2]])
    weight = np.random.default_rng(2).standard_normal((4, 3))
    assert_same(run_both(lambda F, i, w: F.embedding(i, w, **kwargs), indices, weight))


def test_embedding_padding_row_gets_no_gradient() -> None:
    w = gg.tensor(np.ones((3, 2)), requires_grad=True)
    GF.embedding(gg.tensor([2, 2, 0]), w, padding_idx=2).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0]])


def test_embedding_max_norm_renormalises_rows_in_place() -> None:
    weight = np.random.default_rng(3).standard_normal((5, 3)) * 3
    indices = np.array([1, 2, 1, 4])
    results = []
    for lib, F in LIBS:
        w = lib.tensor(weight.copy(), requires_grad=True)
        version = w._version
        out = F.embedding(lib.tensor(indices), w, max_norm=1.5, norm_type=1.0)
        out.sum().backward()
        results.append((out, w, w.grad, w._version > version))
    (out_g, w_g, grad_g, bumped_g), (out_t, w_t, grad_t, bumped_t) = results
    close(out_g, out_t)
    close(w_g, w_t)
    close(grad_g, grad_t)
    assert bumped_g and bumped_t
    untouched = [0, 3]
    np.testing.assert_array_equal(w_g.detach().numpy()[untouched], weight[untouched])


def test_embedding_second_derivative() -> None:
    weight = np.random.default_rng(4).standard_normal((4, 3))
    results = []
    for lib, F in LIBS:
        w = lib.tensor(weight, requires_grad=True)
        out = F.embedding(lib.tensor([[0, 2], [2, 3]]), w, padding_idx=3)
        (g,) = lib.autograd.grad((out**3).sum(), w, create_graph=True)
        (h,) = lib.autograd.grad((g * g).sum(), w)
        results.append(h)
    close(*results)


def test_embedding_float32_and_int32_indices() -> None:
    weight = np.random.default_rng(5).standard_normal((6, 4)).astype(np.float32)
    idx = np.array([[5, 0], [3, 3]], dtype=np.int32)
    assert_same(run_both(lambda F, i, w: F.embedding(i, w), idx, weight))


# --- one_hot -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "labels, classes",
    [(np.array([0, 2, 1]), -1), (np.array([[1], [3]]), 5), (np.zeros(0, np.int64), 3)],
)
def test_one_hot_matches_pytorch(labels: np.ndarray, classes: int) -> None:
    ours = GF.one_hot(gg.tensor(labels), classes)
    theirs = TF.one_hot(torch.tensor(labels), classes)
    close(ours, theirs)
    assert not ours.requires_grad


# --- dropout -------------------------------------------------------------------------------


def test_dropout_returns_input_itself_when_inactive() -> None:
    x = gg.ones(3, requires_grad=True)
    assert GF.dropout(x, 0.5, training=False) is x
    assert GF.dropout(x, 0.0) is x


def test_dropout_mask_is_seeded_scaled_and_shared_with_backward() -> None:
    x = gg.tensor(np.random.default_rng(6).random((200, 50)) + 1.0, requires_grad=True)
    gg.manual_seed(7)
    first = GF.dropout(x, 0.3)
    gg.manual_seed(7)
    again = GF.dropout(x, 0.3)
    np.testing.assert_array_equal(first.detach().numpy(), again.detach().numpy())
    first.sum().backward()
    mask = first.detach().numpy() / x.detach().numpy()
    kept = mask != 0
    np.testing.assert_allclose(mask[kept], 1 / 0.7, rtol=1e-12)
    # The gradient is the same mask: dropped elements get nothing, kept ones 1/(1-p).
    np.testing.assert_allclose(x.grad.numpy(), mask, rtol=1e-12)
    # 10,000 draws at p = 0.3: the dropped fraction is within 5 standard deviations.
    dropped = 1 - kept.mean()
    assert abs(dropped - 0.3) < 5 * np.sqrt(0.3 * 0.7 / kept.size)


def test_dropout_graph_dtype_and_everything_dropped() -> None:
    x = gg.ones(4, 5, dtype=gg.float32, requires_grad=True)
    out = GF.dropout(x, 0.5)
    assert out.dtype == gg.float32
    theirs = TF.dropout(torch.ones(4, 5, requires_grad=True), 0.5)
    assert graph_signature(out.grad_fn) == graph_signature(theirs.grad_fn)
    zeros = GF.dropout(x, 1.0)
    np.testing.assert_array_equal(zeros.detach().numpy(), np.zeros((4, 5)))


def test_dropout_in_place() -> None:
    x = gg.ones(100, dtype=gg.float64) * 1.0
    gg.manual_seed(0)
    out = GF.dropout(x, 0.5, inplace=True)
    assert out is x
    assert set(np.unique(x.numpy())) <= {0.0, 2.0}


# --- errors --------------------------------------------------------------------------------


def raises_like_pytorch(call: Any, words: tuple) -> None:
    with pytest.raises(Exception) as theirs:
        call(TF, torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(GF, gg)
    for word in words:
        assert word in str(ours.value), (word, str(ours.value))


@pytest.mark.parametrize(
    "call, words",
    [
        (
            lambda F, lib: F.linear(lib.ones(2, 3), lib.ones(4, 5)),
            ("mat1 and mat2 shapes cannot be multiplied (2x3 and 5x4)",),
        ),
        (
            lambda F, lib: F.linear(lib.tensor(1.0), lib.ones(4, 3)),
            ("both arguments to linear need to be at least 1D, but they are 0D and 2D",),
        ),
        (
            lambda F, lib: F.bilinear(lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 5)),
            ("bilinear(): input2 size does not match weight size: got 4 but expected 5",),
        ),
        (
            lambda F, lib: F.bilinear(lib.ones(2, 3), lib.ones(3, 4), lib.ones(5, 3, 4)),
            ("bilinear(): input batch dimensions do not match at dim 0: got 2 and 3",),
        ),
        (
            lambda F, lib: F.bilinear(
                lib.ones(2, 3), lib.ones(2, 4), lib.ones(5, 3, 4), lib.ones(6)
            ),
            ("bilinear(): bias size does not match weight size: got 6 but expected 5",),
        ),
        (
            lambda F, lib: F.embedding(lib.tensor([5]), lib.ones(5, 3)),
            ("embedding", "index out of range in self", "5"),
        ),
        (
            lambda F, lib: F.embedding(lib.tensor([[0, -1]]), lib.ones(5, 3)),
            ("index out of range in self", "-1"),
        ),
        (
            lambda F, lib: F.embedding(lib.tensor([1.0]), lib.ones(5, 3)),
            (
                "Expected tensor for argument #1 'indices' to have one of the following scalar "
                "types: Long, Int",
            ),
        ),
        (
            lambda F, lib: F.embedding(lib.tensor([1]), lib.ones(5)),
            ("'weight' must be 2-D",),
        ),
        (
            lambda F, lib: F.embedding(lib.tensor([1]), lib.ones(5, 3), padding_idx=5),
            ("Padding_idx must be within num_embeddings",),
        ),
        (
            lambda F, lib: F.one_hot(lib.tensor([0, 3]), 2),
            ("one_hot", "Class values must be smaller than num_classes"),
        ),
        (
            lambda F, lib: F.one_hot(lib.tensor([-1])),
            ("Class values must be non-negative",),
        ),
        (
            lambda F, lib: F.one_hot(lib.tensor([1.0])),
            ("one_hot is only applicable to index tensor of type LongTensor",),
        ),
        (
            lambda F, lib: F.one_hot(lib.tensor([], dtype=lib.int64)),
            ("Can not infer total number of classes from empty tensor",),
        ),
        (
            lambda F, lib: F.dropout(lib.ones(3), 1.5),
            ("dropout probability has to be between 0 and 1, but got 1.5",),
        ),
    ],
)
def test_misc_errors(call: Any, words: tuple) -> None:
    raises_like_pytorch(call, words)
