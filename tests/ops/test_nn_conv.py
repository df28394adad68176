"""conv1d / conv2d / conv_transpose2d / unfold / fold: what the registry can't say.

Graph structure as PyTorch records it, float32 parity on the benchmark's shapes, the adjoint
identities the backward formulas rely on, saved-tensor versioning, second derivatives through
``create_graph``, and the errors (type and message words). PyTorch is the oracle.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import _conv_kernels

GF = gg.nn.functional
TF = torch.nn.functional


def graph_signature(fn: Any) -> str:
    """The grad_fn tree as a string of class names ('-' for a None edge)."""
    if fn is None:
        return "-"
    children = ",".join(graph_signature(n) for n, _ in fn.next_functions)
    return f"{type(fn).__name__}({children})"


def leaves(lib: Any, *arrays: np.ndarray) -> list:
    return [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]


def close(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def rand(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape)


# --- graph structure -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda F, x, w, b: F.conv2d(x, w, b, padding=1),
        lambda F, x, w, b: F.conv2d(x, w),
        lambda F, x, w, b: F.conv2d(x[0], w, b),
        lambda F, x, w, b: F.conv1d(x[:, :, 0], w[:, :, 0], b, stride=2),
        lambda F, x, w, b: F.conv_transpose2d(x, w.transpose(0, 1), None, stride=2),
        lambda F, x, w, b: F.unfold(x, 2, padding=1),
        lambda F, x, w, b: F.fold(F.unfold(x, 2), (5, 5), 2),
    ],
    ids=["conv2d", "no-bias", "unbatched", "conv1d", "conv_transpose2d", "unfold", "fold"],
)
def test_graph_matches_pytorch(call: Any) -> None:
    rng = np.random.default_rng(0)
    arrays = rand(rng, 2, 3, 5, 5), rand(rng, 4, 3, 3, 3), rand(rng, 4)
    ours = call(GF, *leaves(gg, *arrays))
    theirs = call(TF, *leaves(torch, *arrays))
    assert graph_signature(ours.grad_fn) == graph_signature(theirs.grad_fn)
    close(ours, theirs)


def test_saved_attributes_are_named_like_pytorch() -> None:
    x, w = leaves(gg, np.ones((1, 2, 5, 5)), np.ones((4, 1, 3, 3)))
    info = GF.conv2d(x, w, stride=2, padding=1, groups=2).grad_fn._saved_info()
    assert info["stride"] == (2, 2) and info["dilation"] == (1, 1) and info["groups"] == 2
    assert info["transposed"] is False
    assert info["padding"] == ((1, 1), (1, 1))


# --- float32 parity on the benchmark CNN's shapes --------------------------------------------


def test_float32_cnn_shapes_forward_and_backward() -> None:
    rng = np.random.default_rng(1)
    x = rng.random((64, 1, 8, 8), dtype=np.float32)
    w1, b1 = rng.standard_normal((16, 1, 3, 3)).astype(np.float32), np.zeros(16, np.float32)
    w2 = (rng.standard_normal((32, 16, 3, 3)) / 12).astype(np.float32)
    b2 = rng.standard_normal(32).astype(np.float32)
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        ts = [lib.from_numpy(a.copy()) for a in (x, w1, b1, w2, b2)]
        for t in ts[1:]:
            t.requires_grad_()
        h = F.relu(F.conv2d(ts[0], ts[1], ts[2], padding=1))
        out = F.conv2d(h, ts[3], ts[4], padding=1)
        (out * out).sum().backward()
        results.append((out, [t.grad for t in ts[1:]]))
    (out_g, grads_g), (out_t, grads_t) = results
    assert out_g.dtype == gg.float32
    close(out_g, out_t, rtol=1e-5, atol=1e-5)
    for a, b in zip(grads_g, grads_t):
        scale = float(np.abs(b.numpy()).max())
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=1e-5 * scale)


def test_output_is_contiguous_so_view_works() -> None:
    x, w = leaves(gg, np.ones((2, 3, 6, 6)), np.ones((4, 3, 3, 3)))
    out = GF.conv2d(x, w)
    assert out.is_contiguous()
    assert out.view(2, -1).shape == (2, 64)


# --- identities the backward relies on -----------------------------------------------------


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"stride": 2, "padding": 1},
        {"stride": (2, 3), "padding": (1, 0), "dilation": (1, 2)},
        {"groups": 2, "stride": 2},
    ],
)
def test_conv_transpose_is_the_adjoint_of_conv(params: dict) -> None:
    """<conv(x, w), y> == <x, conv_transpose(y, w)> when the output sizes line up."""
    rng = np.random.default_rng(2)
    x = gg.tensor(rand(rng, 2, 4, 9, 10))
    w = gg.tensor(rand(rng, 6, 4 // params.get("groups", 1), 3, 3))
    y = gg.tensor(rand(rng, *GF.conv2d(x, w, **params).shape))
    back = GF.conv_transpose2d(y, w, **params)
    # Rows the strided forward never reached are padded back on with output_padding.
    pad = [s - b for s, b in zip(x.shape[2:], back.shape[2:])]
    back = GF.conv_transpose2d(y, w, output_padding=tuple(pad), **params)
    lhs = float((GF.conv2d(x, w, **params) * y).sum())
    rhs = float((x * back).sum())
    assert lhs == pytest.approx(rhs, rel=1e-10)


def test_unfold_and_fold_are_adjoint() -> None:
    rng = np.random.default_rng(3)
    x = gg.tensor(rand(rng, 2, 3, 7, 6))
    params = {"kernel_size": (3, 2), "dilation": (1, 2), "padding": 1, "stride": 2}
    cols = GF.unfold(x, **params)
    y = gg.tensor(rand(rng, *cols.shape))
    lhs = float((cols * y).sum())
    rhs = float((x * GF.fold(y, (7, 6), **params)).sum())
    assert lhs == pytest.approx(rhs, rel=1e-10)


def test_fold_of_unfold_counts_block_coverage() -> None:
    x = gg.ones(1, 2, 4, 4, dtype=gg.float64)
    counts = GF.fold(GF.unfold(x, 2), (4, 4), 2)
    expected = TF.fold(TF.unfold(torch.ones(1, 2, 4, 4, dtype=torch.float64), 2), (4, 4), 2)
    close(counts, expected)


def test_conv_as_unfold_matmul() -> None:
    """conv2d equals the textbook im2col: unfold, then a matrix product with the weight."""
    rng = np.random.default_rng(4)
    x, w = gg.tensor(rand(rng, 2, 3, 6, 5)), gg.tensor(rand(rng, 4, 3, 2, 3))
    cols = GF.unfold(x, (2, 3), padding=1, stride=2)
    manual = (w.reshape(4, -1) @ cols).reshape(2, 4, 4, 3)
    np.testing.assert_allclose(
        GF.conv2d(x, w, padding=1, stride=2).numpy(), manual.numpy(), rtol=1e-12
    )


# --- autograd behaviour -------------------------------------------------------------------


def test_input_modified_in_place_after_conv_refuses_backward() -> None:
    base, w = leaves(gg, np.ones((1, 1, 4, 4)), np.ones((1, 1, 3, 3)))
    x = base * 1.0
    out = GF.conv2d(x, w)
    x.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_backward_twice_with_retain_graph() -> None:
    rng = np.random.default_rng(5)
    x, w = leaves(gg, rand(rng, 2, 2, 5, 5), rand(rng, 3, 2, 3, 3))
    out = GF.conv2d(x, w, padding=1).sum()
    out.backward(retain_graph=True)
    first = w.grad.numpy().copy()
    out.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * first, rtol=1e-12)


def test_hessian_vector_product_matches_pytorch() -> None:
    """Second derivatives through create_graph: d/dw <grad_x (sum conv^2), v>."""
    rng = np.random.default_rng(6)
    arrays = rand(rng, 2, 2, 6, 6), rand(rng, 4, 2, 3, 3), rand(rng, 2, 2, 6, 6)
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        x, w, v = leaves(lib, *arrays)
        out = F.conv2d(x, w, stride=2, padding=1, dilation=2)
        (gx,) = lib.autograd.grad((out * out).sum(), x, create_graph=True)
        (hv,) = lib.autograd.grad((gx * v).sum(), w)
        results.append(hv)
    close(*results, rtol=1e-9)


def test_conv_with_integer_tensors_like_pytorch() -> None:
    x = np.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5)
    w = np.ones((4, 3, 3, 3), np.int64)
    close(GF.conv2d(gg.tensor(x), gg.tensor(w)), TF.conv2d(torch.tensor(x), torch.tensor(w)))


# --- errors ----------------------------------------------------------------------------------


def raises_like_pytorch(call: Any, *arrays: np.ndarray, words: tuple) -> None:
    """Both libraries raise the same exception type; ours names the op and has the words."""
    with pytest.raises(Exception) as theirs:
        call(TF, *[torch.tensor(a) for a in arrays])
    with pytest.raises(type(theirs.value)) as ours:
        call(GF, *[gg.tensor(a) for a in arrays])
    message = str(ours.value)
    for word in words:
        assert word in message, (word, message)


X4, W4 = np.ones((2, 3, 8, 8)), np.ones((4, 3, 3, 3))


@pytest.mark.parametrize(
    "call, arrays, words",
    [
        (
            lambda F, x, w: F.conv2d(x, w),
            (np.ones((2, 3)), W4),
            ("conv2d", "Expected 3D (unbatched) or 4D (batched) input", "[2, 3]"),
        ),
        (
            lambda F, x, w: F.conv2d(x, w),
            (np.ones((1, 2, 3, 4, 5)), W4),
            ("Expected 3D (unbatched) or 4D (batched) input to conv2d", "[1, 2, 3, 4, 5]"),
        ),
        (
            lambda F, x, w: F.conv2d(x, w),
            (np.ones((2, 5, 8, 8)), W4),
            (
                "Given groups=1, weight of size [4, 3, 3, 3], expected input[2, 5, 8, 8] to have 3 "
                "channels, but got 5 channels instead",
            ),
        ),
        (
            lambda F, x, w: F.conv2d(x, w),
            (np.ones((5, 8, 8)), W4),
            ("weight of size [4, 3, 3, 3], expected input[1, 5, 8, 8] to have 3 channels",),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, groups=2),
            (np.ones((2, 4, 8, 8)), np.ones((3, 2, 3, 3))),
            ("Given groups=2, expected weight to be divisible by 2 at dimension 0", "[3, 2, 3, 3]"),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, groups=2),
            (np.ones((2, 5, 8, 8)), W4),
            ("Given groups=2", "expected input[2, 5, 8, 8] to have 6 channels"),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, groups=0),
            (X4, W4),
            ("non-positive groups is not supported",),
        ),
        (
            lambda F, x, w: F.conv2d(x, w),
            (np.ones((2, 3, 2, 2)), W4),
            (
                "Calculated padded input size per channel: (2 x 2)",
                "Kernel size: (3 x 3)",
                "Kernel size can't be greater than actual input size",
            ),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, dilation=2),
            (np.ones((2, 3, 4, 4)), W4),
            ("Kernel size: (5 x 5)", "can't be greater than actual input size"),
        ),
        (
            lambda F, x, w, b: F.conv2d(x, w, b),
            (X4, W4, np.ones(8)),
            ("expected bias to be 1-dimensional with 4 elements", "[8]"),
        ),
        (lambda F, x, w: F.conv2d(x, w, stride=0), (X4, W4), ("non-positive stride",)),
        (lambda F, x, w: F.conv2d(x, w, padding=-1), (X4, W4), ("negative padding",)),
        (lambda F, x, w: F.conv2d(x, w, dilation=0), (X4, W4), ("non-positive dilation",)),
        (
            lambda F, x, w: F.conv2d(x, w, padding="same", stride=2),
            (X4, W4),
            ("padding='same' is not supported for strided convolutions",),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, padding="full"),
            (X4, W4),
            ("Invalid padding string: 'full'",),
        ),
        (
            lambda F, x, w: F.conv2d(x, w, stride=(1, 1, 1)),
            (X4, W4),
            ("expected stride to be a single integer value or a list of 2 values",),
        ),
        (
            lambda F, x, w: F.conv2d(x, w),
            (X4.astype(np.float32), W4),
            ("expected scalar type Float but found Double",),
        ),
        (
            lambda F, x, w: F.conv1d(x, w),
            (np.ones((3, 8, 8, 9)), np.ones((4, 3, 3))),
            ("Expected 2D (unbatched) or 3D (batched) input to conv1d", "[3, 8, 8, 9]"),
        ),
        (
            lambda F, x, w: F.conv1d(x, w),
            (np.ones((2, 5, 8)), np.ones((4, 3, 3))),
            ("weight of size [4, 3, 3], expected input[2, 5, 8] to have 3 channels",),
        ),
        (
            lambda F, x, w: F.conv1d(x, w),
            (np.ones((2, 3, 2)), np.ones((4, 3, 3))),
            ("Calculated padded input size per channel: (2). Kernel size: (3)",),
        ),
        (
            lambda F, x, w: F.conv_transpose2d(x, w),
            (np.ones((2, 5, 8, 8)), np.ones((3, 4, 3, 3))),
            (
                "Given transposed=1, weight of size [3, 4, 3, 3], expected input[2, 5, 8, 8] to "
                "have 3 channels, but got 5 channels instead",
            ),
        ),
        (
            lambda F, x, w: F.conv_transpose2d(x, w, groups=2),
            (np.ones((2, 3, 8, 8)), np.ones((3, 4, 3, 3))),
            ("expected weight to be divisible by 2 at dimension 0",),
        ),
        (
            lambda F, x, w: F.conv_transpose2d(x, w, stride=2, output_padding=2),
            (np.ones((2, 3, 8, 8)), np.ones((3, 4, 3, 3))),
            ("output padding must be smaller than either stride or dilation",),
        ),
        (
            lambda F, x, w: F.conv_transpose2d(x, w),
            (np.ones((2, 3)), np.ones((3, 4, 3, 3))),
            ("Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d",),
        ),
    ],
)
def test_conv_errors(call: Any, arrays: tuple, words: tuple) -> None:
    raises_like_pytorch(call, *arrays, words=words)


def test_conv_transpose_rejects_padding_strings() -> None:
    x, w = gg.ones(1, 3, 4, 4), gg.ones(3, 2, 3, 3)
    with pytest.raises(TypeError, match="conv_transpose2d.*padding"):
        GF.conv_transpose2d(x, w, padding="same")


def test_conv_requires_tensors() -> None:
    with pytest.raises(TypeError, match=r"conv2d\(\): argument 'weight' \(position 2\) must be"):
        GF.conv2d(gg.ones(1, 1, 3, 3), np.ones((1, 1, 3, 3)))


@pytest.mark.parametrize(
    "call, arrays, words",
    [
        (
            lambda F, x: F.unfold(x, 4),
            (np.ones((1, 2, 3, 3)),),
            (
                "unfold",
                "kernel_size=(4, 4)",
                "calculated shape of the array of sliding blocks as "
                "(0, 0), but its components must be at least one",
            ),
        ),
        (
            lambda F, x: F.fold(x, (4, 4), 2),
            (np.ones((1, 10, 9)),),
            (
                "fold",
                "Expected size of input's dimension 1 to be divisible by the product of "
                "kernel_size",
                "input.size(1)=10",
            ),
        ),
        (
            lambda F, x: F.fold(x, (4, 4), 2),
            (np.ones((1, 12, 8)),),
            ("to match the calculated number of sliding blocks 3 * 3 = 9", "input.size(2)=8"),
        ),
    ],
)
def test_unfold_fold_errors(call: Any, arrays: tuple, words: tuple) -> None:
    raises_like_pytorch(call, *arrays, words=words)


def test_same_shape_convolutions_share_no_state() -> None:
    """im2col matrices live in a reused workspace: two convolutions of the same shapes in one
    graph (forward A, forward B, then both backwards) must not see each other's data."""
    rng = np.random.default_rng(7)
    arrays = rand(rng, 2, 3, 6, 6), rand(rng, 3, 3, 3, 3), rand(rng, 3, 3, 3, 3)
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        x, w1, w2 = leaves(lib, *arrays)
        a = F.conv2d(x, w1, padding=1)
        b = F.conv2d(a, w2, padding=1)
        c = F.conv2d(x * 2, w2, padding=1)
        (b * c).sum().backward()
        results.append((b, x.grad, w1.grad, w2.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-9)


def test_backward_recomputes_windows_another_convolution_overwrote() -> None:
    """The backward reuses the forward's im2col matrix only while the workspace still holds
    it: a later convolution of the same shapes on other data must not leak into the gradient."""
    rng = np.random.default_rng(9)
    arrays = rand(rng, 2, 3, 5, 5), rand(rng, 2, 3, 5, 5), rand(rng, 4, 3, 3, 3)
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        x1, x2, w = leaves(lib, *arrays)
        a = F.conv2d(x1, w, padding=1)
        b = F.conv2d(x2, w, padding=1)  # same im2col shape: overwrites the shared buffer
        a.sum().backward(retain_graph=True)
        first = w.grad.clone()
        b.sum().backward()
        a.sum().backward()  # b's windows may now be the buffer's; a's must be recomputed
        results.append((first, w.grad, x1.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-9)


@pytest.mark.parametrize(
    "call, shapes",
    [
        (
            lambda F, x, w, b: F.conv2d(x, w, b, padding=1, groups=2),
            ((3, 4, 6, 5), (6, 2, 3, 3), 6),
        ),
        (
            lambda F, x, w, b: F.conv_transpose2d(x, w, b, stride=2, groups=2),
            ((3, 4, 4, 3), (4, 3, 2, 2), 6),
        ),
        (lambda F, x, w, b: F.conv1d(x, w, b, stride=2), ((3, 4, 9), (6, 4, 3), 6)),
    ],
    ids=["grouped", "transposed", "conv1d"],
)
def test_float32_weight_and_bias_gradients(call: Any, shapes: tuple) -> None:
    """Without a graph the bias gradient is summed from the weight gradient's channels-last
    copy of the output gradient: float32 parity for grouped, transposed and 1-d layouts."""
    rng = np.random.default_rng(10)
    x_shape, w_shape, out_channels = shapes
    arrays = [
        rng.standard_normal(x_shape).astype(np.float32),
        rng.standard_normal(w_shape).astype(np.float32),
        rng.standard_normal(out_channels).astype(np.float32),
    ]
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        x, w, b = leaves(lib, *arrays)
        out = call(F, x, w, b)
        (out * out).sum().backward()
        results.append((out, x.grad, w.grad, b.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-4, atol=1e-4)


FEW_CHANNEL_CASES = {
    "one-channel": ((3, 1, 9, 11), (4, 1, 3, 3), {"padding": 1}),
    "strided-dilated": ((2, 2, 13, 17), (3, 2, 3, 2), {"stride": 2, "dilation": (2, 1)}),
    "rect-padding": ((2, 1, 6, 12), (2, 1, 2, 3), {"padding": (1, 0)}),
    "conv1d": ((2, 1, 20), (3, 1, 3), {"padding": 2, "stride": 3}),
}


@pytest.mark.parametrize(
    "x_shape, w_shape, params", FEW_CHANNEL_CASES.values(), ids=list(FEW_CHANNEL_CASES.keys())
)
def test_few_channel_convolutions(x_shape: tuple, w_shape: tuple, params: dict) -> None:
    """Inputs with few channels and wide rows take the (C*kh*kw, N*Ho*Wo) im2col layout:
    values and all three gradients against PyTorch, twice (the second backward reuses the
    forward's windows)."""
    rng = np.random.default_rng(11)
    arrays = rand(rng, *x_shape), rand(rng, *w_shape), rand(rng, w_shape[0])
    results = []
    for lib, F in ((gg, GF), (torch, TF)):
        x, w, b = leaves(lib, *arrays)
        conv = F.conv2d if len(x_shape) == 4 else F.conv1d
        out = conv(x, w, b, **params)
        assert _conv_kernels._channels_first_suits(x_shape[1], w_shape[-1], out.shape[-1], 1)
        (out * out).sum().backward(retain_graph=True)
        first = [t.grad.clone() for t in (x, w, b)]
        (out * out).sum().backward()
        results.append((out, *first, x.grad, w.grad, b.grad))
    for ours, theirs in zip(*results):
        close(ours, theirs, rtol=1e-9)


# Transposed convolutions with a bias of another dtype than the input: PyTorch's oneDNN
# backend and slow 3-d kernel refuse it, its slow 1-d and 2-d kernels cast it; which one runs is ConvParams::use_mkldnn's
# choice (float32 only, by batch, groups, kernel and input size, output padding). Kernels of
# 1x1 without stride are in the next test: there PyTorch also asks its thread count.
BIAS_DTYPE_CASES = [
    # (n, input shape, weight shape, keyword arguments)
    (1, (2, 3, 5), (3, 2, 3), {}),  # batch 2: oneDNN
    (1, (1, 3, 5), (3, 2, 3), {}),  # batch 1, small: slow kernel
    (1, (3, 5), (3, 2, 3), {}),  # unbatched: as batch 1
    (1, (1, 4, 5), (4, 1, 3), {"groups": 2}),  # groups: oneDNN
    (1, (2, 3, 5), (3, 2, 3), {"stride": 2, "output_padding": 1, "dilation": 2}),
    (1, (2, 3, 5), (3, 2, 3), {"stride": 1, "output_padding": 1, "dilation": 2}),  # big pad
    (1, (0, 3, 5), (3, 2, 3), {}),  # empty batch: the Empty backend
    (2, (1, 2, 5, 5), (2, 2, 4, 4), {}),  # kernel above 3x3: oneDNN
    (2, (1, 2, 5, 5), (2, 2, 4, 3), {}),  # one kernel dim of 3: slow kernel
    (2, (1, 2, 110, 110), (2, 1, 2, 2), {"stride": 2}),  # more than 20480 elements
    (2, (1, 2, 100, 100), (2, 1, 2, 2), {"stride": 2}),  # 20000: slow kernel
    (3, (2, 2, 3, 3, 3), (2, 2, 2, 2, 2), {}),
    (3, (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), {}),
    (3, (0, 2, 3, 3, 3), (2, 2, 2, 2, 2), {}),
]


@pytest.mark.parametrize(("n", "x_shape", "w_shape", "kwargs"), BIAS_DTYPE_CASES)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float64", "float32")])
def test_transposed_conv_bias_dtype_follows_pytorchs_backend(
    n: int, x_shape: tuple, w_shape: tuple, kwargs: dict, dtypes: tuple
) -> None:
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    b = rng.standard_normal(w_shape[1] * kwargs.get("groups", 1))
    outcomes = []
    for lib, F in ((torch, TF), (gg, GF)):
        data, bias_dtype = getattr(lib, dtypes[0]), getattr(lib, dtypes[1])
        args = lib.tensor(x, dtype=data), lib.tensor(w, dtype=data), lib.tensor(b, dtype=bias_dtype)
        try:
            outcomes.append(getattr(F, f"conv_transpose{n}d")(*args, **kwargs))
        except RuntimeError as exc:
            outcomes.append(str(exc))
    theirs, ours = outcomes
    if isinstance(theirs, str):
        assert ours == theirs
    else:
        assert not isinstance(ours, str), ours
        assert ours.dtype == getattr(gg, dtypes[0])
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("batch", [1, 2, 16])
def test_transposed_conv_bias_dtype_of_1x1_kernels_follows_the_thread_count(
    threads: int, batch: int
) -> None:
    # PyTorch takes oneDNN for 1x1 kernels without stride and a batch under 16 only with
    # more than one thread; glassgrad asks its own count (get_num_threads).
    rng = np.random.default_rng(5)
    x, w, b = rng.standard_normal((batch, 4, 5)), rng.standard_normal((4, 2, 1)), np.ones(4)
    saved = torch.get_num_threads(), gg.get_num_threads()
    outcomes = []
    try:
        torch.set_num_threads(threads)
        gg.set_num_threads(threads)
        for lib, F in ((torch, TF), (gg, GF)):
            args = lib.tensor(x, dtype=lib.float32), lib.tensor(w, dtype=lib.float32)
            try:
                F.conv_transpose1d(*args, lib.tensor(b, dtype=lib.float64), groups=2)
                F.conv_transpose1d(*args, lib.tensor(b[:2], dtype=lib.float64))
                outcomes.append("casts")
            except RuntimeError as exc:
                outcomes.append(str(exc))
    finally:
        torch.set_num_threads(saved[0])
        gg.set_num_threads(saved[1])
    assert outcomes[0] == outcomes[1]
