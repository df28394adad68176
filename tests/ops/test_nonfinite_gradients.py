"""NaN and inf in forward values and gradients follow PyTorch's kernels (issue 14, values).

PyTorch's backward kernels touch only the positions their loops visit: a NaN gradient of a
pooled or resampled output reaches its window's inputs only, and a branch chooses by the test
the kernel writes (``x <= 0`` or ``x > 0``), so a NaN input takes the branch PyTorch's does.
A formula that multiplies by a mask (``grad * isfinite(x)``) spreads a NaN gradient where
PyTorch's does. Each case compares values and the NaN/inf pattern with PyTorch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

NAN, INF = float("nan"), float("inf")


def _both(fn, *arrays, grad=None, create_graph=False):
    """fn's output and the gradient of its inputs (and, with create_graph, the second
    derivative along ones) in glassgrad and PyTorch."""
    results = []
    for lib in (gg, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        out = fn(lib, *xs)
        g = lib.tensor(np.ones(tuple(out.shape)) if grad is None else grad)
        grads = lib.autograd.grad(out, xs, g, create_graph=create_graph, allow_unused=True)
        row = [_numpy(out), *[np.zeros(1) if x is None else _numpy(x) for x in grads]]
        if create_graph:  # the second derivative along ones, as the fuzzer takes it
            firsts = [gr for gr in grads if gr is not None and gr.requires_grad]
            ones = [lib.ones_like(gr) for gr in firsts]
            second = lib.autograd.grad(firsts, xs, ones, allow_unused=True) if firsts else ()
            row += [np.zeros(1) if s is None else _numpy(s) for s in second]
        results.append(row)
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, equal_nan=True)


def _numpy(t):
    t = t.detach()
    return t.numpy(force=True) if isinstance(t, torch.Tensor) else t.numpy()


def _with(values, where, value):
    values = np.array(values, dtype=np.float64)
    values[where] = value
    return values


POOL_INPUT = np.arange(2 * 3 * 7, dtype=np.float64).reshape(2, 3, 7) / 10


@pytest.mark.parametrize("poison", [NAN, INF])
@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 3),
        lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, (2, 4)),
        lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x[None], (1, 2, 3)),
        lambda lib, x: lib.nn.functional.interpolate(x, size=11, mode="linear"),
        lambda lib, x: lib.nn.functional.interpolate(x[None], size=(5, 4), mode="bilinear"),
        lambda lib, x: lib.nn.functional.interpolate(x[None], size=(2, 9), mode="bicubic"),
        lambda lib, x: lib.nn.functional.interpolate(x, size=4, mode="nearest"),
    ],
    ids=["avg1d", "avg2d", "avg3d", "linear", "bilinear", "bicubic", "nearest"],
)
def test_windows_spread_a_nan_only_over_their_inputs(fn, poison):
    # A non-finite input and a non-finite output gradient: each reaches the positions
    # PyTorch's loops visit, not every position a dense matrix product would.
    _both(fn, _with(POOL_INPUT, (1, 2, 3), poison))
    out_shape = tuple(fn(torch, torch.tensor(POOL_INPUT)).shape)
    grad = np.ones(out_shape)
    grad.reshape(-1)[len(grad.reshape(-1)) // 3] = poison
    _both(fn, POOL_INPUT, grad=grad)


def test_windows_second_derivative_keeps_the_nan_in_its_window():
    grad = np.ones((2, 3, 3))
    grad[0, 1, 2] = NAN
    _both(
        lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 3) ** 2,
        POOL_INPUT,
        grad=grad,
        create_graph=True,
    )


X = np.array([[NAN, 0.6, -0.35, -2.5], [1.2, NAN, INF, -INF]])
T = np.array([-0.4, 1.3, 0.5, -0.2])


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x, t: lib.abs(x) * t,
        lambda lib, x, t: lib.sgn(x) + lib.sign(x) + t,
        lambda lib, x, t: lib.nn.functional.l1_loss(x, t, reduction="none"),
        lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t, reduction="none", beta=0.7),
        lambda lib, x, t: lib.nn.functional.smooth_l1_loss(x, t),
        lambda lib, x, t: lib.nn.functional.huber_loss(x, t, reduction="none"),
        lambda lib, x, t: lib.nn.functional.elu(x) * t,
        lambda lib, x, t: lib.nn.functional.selu(x) * t,
        lambda lib, x, t: lib.nn.functional.celu(x, alpha=0.5) * t,
        lambda lib, x, t: lib.nn.functional.hardswish(x) * t,
        lambda lib, x, t: lib.xlogy(t, lib.nan_to_num(x)),
    ],
    ids=[
        "abs",
        "sgn",
        "l1",
        "smooth_l1",
        "smooth_l1_mean",
        "huber",
        "elu",
        "selu",
        "celu",
        "hardswish",
        "nan_to_num",
    ],
)
def test_pointwise_branches_take_pytorchs_side_at_nan(fn):
    # (Tensors of 8 elements: PyTorch's scalar loop, whose branch is its formula's; its
    # vectorized loop, for 16 or more, may pick the other side: see docs/fuzzing.md.)
    _both(fn, X, T, create_graph=True)


def test_nan_to_num_multiplies_the_gradient_by_the_mask():
    grad = np.array([[NAN, 1.0, 1.0, INF], [1.0, INF, NAN, 1.0]])
    _both(lambda lib, x, t: lib.nan_to_num(x) + t, X, T, grad=grad)


def test_complex_of_infinite_parts_keeps_them_apart():
    real = np.array([0.5, -1.0, INF, NAN])
    imag = np.array([INF, -INF, 2.0, 1.0])
    ours = gg.complex(gg.tensor(real), gg.tensor(imag)).numpy()
    theirs = torch.complex(torch.tensor(real), torch.tensor(imag)).numpy()
    np.testing.assert_array_equal(ours.real, theirs.real)
    np.testing.assert_array_equal(ours.imag, theirs.imag)


@pytest.mark.parametrize("right", [False, True])
def test_bucketize_and_searchsorted_halve_as_pytorch_on_unsorted_boundaries(right):
    rng = np.random.default_rng(0)
    for n in range(0, 9):
        boundaries = rng.standard_normal(n).round(1)
        values = rng.standard_normal((3, 5)).round(1)
        values[0, 0] = NAN
        ours = gg.bucketize(gg.tensor(values), gg.tensor(boundaries), right=right)
        theirs = torch.bucketize(torch.tensor(values), torch.tensor(boundaries), right=right)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        rows = rng.standard_normal((3, n)).round(1)
        ours = gg.searchsorted(gg.tensor(rows), gg.tensor(values), right=right)
        theirs = torch.searchsorted(torch.tensor(rows), torch.tensor(values), right=right)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_kthvalue_picks_pytorchs_index_among_ties():
    rng = np.random.default_rng(1)
    for n in (2, 3, 5, 8, 13, 21):
        values = rng.integers(0, 3, (4, n)).astype(np.float64)
        values[1, rng.integers(n)] = values[2, 0] = NAN
        for k in range(1, n + 1):
            ours = gg.kthvalue(gg.tensor(values), k, 1)
            theirs = torch.kthvalue(torch.tensor(values), k, 1)
            np.testing.assert_array_equal(ours.indices.numpy(), theirs.indices.numpy())
            np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())


@pytest.mark.parametrize("create_graph", [False, True])
def test_solve_ex_of_a_singular_matrix(create_graph):
    # Without a graph PyTorch's backward solves with the forward's LU, unchecked (inf/NaN);
    # under create_graph it calls linalg.solve, which refuses the singular matrix.
    outcomes = []
    for lib in (gg, torch):
        a = lib.tensor([[1.0, 0.0], [0.0, 0.0]], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([1.1, -0.12], dtype=lib.float64, requires_grad=True)
        x = lib.linalg.solve_ex(a, b).result
        try:
            grads = lib.autograd.grad(x.sum(), (a, b), create_graph=create_graph)
            outcomes.append([g.detach().numpy() for g in grads])
        except RuntimeError as error:
            assert "singular" in str(error)
            outcomes.append("singular")
    if create_graph:
        assert outcomes == ["singular", "singular"]
    else:
        for ours, theirs in zip(*outcomes):
            np.testing.assert_array_equal(ours, theirs)


def test_nextafter_saves_nothing_for_other_alone():
    # Only self's gradient reads the saved inputs: other alone may change in place after.
    for lib in (gg, torch):
        a = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64)
        b0 = lib.tensor([0.5, 1.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = b0 * 1
        out = lib.nextafter(a, b)
        a[2] = 5.0
        b.add_(1.0)
        out.sum().backward()
        assert b0.grad.tolist() == [0.0, 0.0, 0.0]


CONV_TRANSPOSE = [
    (1, (1, 4, 4), (4, 3, 2), dict(stride=3, padding=1, output_padding=2, groups=2, dilation=2)),
    (2, (1, 2, 3, 3), (2, 2, 2, 3), dict(stride=(1, 2), padding=(0, 1), dilation=2)),
    (3, (1, 2, 2, 2, 3), (2, 1, 2, 2, 2), dict(stride=2, padding=1, output_padding=1)),
]


@pytest.mark.parametrize("poison", [NAN, INF])
@pytest.mark.parametrize("where", ["input", "weight", "grad"])
@pytest.mark.parametrize("n, x_shape, w_shape, kwargs", CONV_TRANSPOSE, ids=["1d", "2d", "3d"])
def test_transposed_convolution_puts_a_nan_where_col2im_does(
    n, x_shape, w_shape, kwargs, where, poison
):
    # PyTorch adds each kernel tap's column at the output positions it reaches (col2im), and
    # gathers the weight gradient there: a NaN weight, or an infinite gradient at a position
    # no tap reaches (seed 97015: the reciprocal of such a zero), stays where it lands.
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    if where == "input":
        x.reshape(-1)[3] = poison
    if where == "weight":
        w.reshape(-1)[1] = poison

    def fn(lib, x, w):
        return getattr(lib.nn.functional, f"conv_transpose{n}d")(x, w, **kwargs)

    grad = rng.standard_normal(tuple(fn(torch, torch.tensor(x), torch.tensor(w)).shape))
    if where == "grad":
        grad.reshape(-1)[0] = poison
    _both(fn, x, w, grad=grad, create_graph=True)

    def ordinary(lib, y, w):  # its input gradient is a transposed convolution with w
        conv_kwargs = {k: v for k, v in kwargs.items() if k != "output_padding"}
        return getattr(lib.nn.functional, f"conv{n}d")(y, w, **conv_kwargs)

    grad_x = rng.standard_normal(x_shape)
    if where == "grad":
        grad_x.reshape(-1)[0] = poison
    _both(ordinary, rng.standard_normal(grad.shape), w, grad=grad_x, create_graph=True)


# A NaN point with border or reflection padding makes PyTorch read outside the input (its
# kernel takes every corner as inside there): not compared.
GRID_SAMPLE_POISONS = [
    (padding, where)
    for padding in ("zeros", "border", "reflection")
    for where in ("input", "grid", "grad")
    if where != "grid" or padding == "zeros"
]


@pytest.mark.parametrize("poison", [NAN, INF])
@pytest.mark.parametrize("padding, where", GRID_SAMPLE_POISONS)
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_reads_no_corner_outside(mode, padding, where, poison):
    # ATen's kernel gathers a corner outside the input as zero (a masked gather: no value
    # times zero), scatters only to corners inside, and forms the grid gradient as
    # ((ne - nw) * s + (se - sw) * n) * grad: NaN and inf land where its kernel puts them.
    rng = np.random.default_rng(3)
    x, grid = rng.standard_normal((2, 3, 4, 5)), rng.uniform(-1.3, 1.3, (2, 3, 4, 2))
    grad = rng.standard_normal((2, 3, 3, 4))
    {"input": x, "grid": grid, "grad": grad}[where].reshape(-1)[[5, 17]] = poison

    def fn(lib, x, grid):
        return lib.nn.functional.grid_sample(
            x, grid, mode=mode, padding_mode=padding, align_corners=False
        )

    _both(fn, x, grid, grad=grad)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("dim", [None, 0, 1])
@pytest.mark.parametrize(
    "values",
    [
        [[0.0, NAN, 2.0], [1.0, NAN, 3.0]],
        [[0.0, 0.0, NAN], [1.0, 2.0, 3.0]],
        [[NAN, 2.0], [3.0, 0.0]],
    ],
    ids=["one-zero", "two-zeros", "zero-elsewhere"],
)
def test_prod_with_zeros_takes_the_exclusive_products(values, dim, create_graph):
    # PyTorch's prod_backward: grad * (out / x) without zeros; with a zero anywhere, the
    # products of the elements before and after each one (a NaN reaches its slice's other
    # elements only); the whole product with two zeros, without a graph, zeros.
    def fn(lib, x):
        return x.prod() if dim is None else x.prod(dim)

    _both(fn, np.array(values), create_graph=create_graph)


@pytest.mark.parametrize("ord", [1, 1.5, 2, 3, INF, -INF])
def test_vector_norm_sign_of_nan_is_zero_in_backward(ord):
    # sgn(NaN) = 0 in PyTorch's kernels, in backward formulas too (the array path used
    # NumPy's sign, NaN).
    x = np.arange(12.0).reshape(3, 4) - 5
    x[0, 1] = NAN
    _both(lambda lib, x: lib.linalg.vector_norm(x, ord, dim=1), x)


@pytest.mark.parametrize("poison", [NAN, INF])
@pytest.mark.parametrize("where", [(0, 0, 0), (0, 2, 1), (1, 0, 0)], ids=["A00", "A21", "B00"])
@pytest.mark.parametrize("upper, left", [(True, True), (False, False)])
def test_solve_triangular_substitutes_a_nan_as_trsm(upper, left, where, poison):
    # LAPACK's trsm substitutes row by row: a NaN reaches the rows that depend on it only
    # (LU with pivoting, used for finite operands, would mix every row).
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 3))
    (a, b)[where[0]][where[1:]] = poison
    _both(lambda lib, a, b: lib.linalg.solve_triangular(a, b, upper=upper, left=left), a, b)


GRID = np.random.default_rng(3).uniform(-1.3, 1.3, (1, 2, 3, 2))
VOLUME_GRID = np.random.default_rng(4).uniform(-1.3, 1.3, (1, 2, 2, 3, 3))


@pytest.mark.parametrize("poison", [NAN, INF, -INF])
@pytest.mark.parametrize(
    "fn, arrays",
    [
        (lambda lib, x, y: lib.cdist(x, y, p=1.0), (POOL_INPUT[0, :, :4], POOL_INPUT[1, :, 3:])),
        (lambda lib, x, y: lib.cdist(x, y, p=float("inf")), (POOL_INPUT[0], POOL_INPUT[1])),
        (lambda lib, x, y: lib.cdist(x, y, p=0.0), (POOL_INPUT[0], POOL_INPUT[1])),
        (lambda lib, x, y: lib.cdist(x, y, p=1.5), (POOL_INPUT[0], POOL_INPUT[1])),
        (lambda lib, x: lib.nn.functional.pdist(x, p=1.0), (POOL_INPUT[0],)),
        (lambda lib, x: lib.nn.functional.pdist(x, p=float("inf")), (POOL_INPUT[1],)),
        (lambda lib, x: lib.nn.functional.pdist(x, p=0.0), (POOL_INPUT[1],)),
        (lambda lib, x: lib.trapezoid(x, dx=0.5), (POOL_INPUT[0],)),
        (lambda lib, x, t: lib.trapezoid(x, t), (POOL_INPUT[0], np.arange(7.0) ** 1.5)),
        (lambda lib, x: lib.cumulative_trapezoid(x, dim=0), (POOL_INPUT[0],)),
        (lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 1.5), (POOL_INPUT[0, 0, :6] - 1,)),
        (lambda lib, x: lib.nn.functional.relu6(x * 5), (POOL_INPUT[0, 0, :6],)),
        (
            lambda lib, x, w, b: lib.nn.functional.batch_norm(x, None, None, w, b, True),
            (POOL_INPUT, np.array([0.5, -2.0, 1.5]), np.array([0.1, 0.2, -0.3])),
        ),
        (
            lambda lib, x, w, b: lib.nn.functional.batch_norm(x.mT, None, None, w, b, True),
            (POOL_INPUT[:, :, :3], np.array([0.5, -2.0, 1.5]), np.array([0.1, 0.2, -0.3])),
        ),
        (
            lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b),
            (POOL_INPUT, np.array([0.5, -2.0, 1.5]), np.array([0.1, 0.2, -0.3])),
        ),
        (
            lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (7,), w, b),
            # (no element equal to its row's mean: there x_hat is 0 or a rounding residue of
            # PyTorch's Welford mean, and an infinite weight gives NaN or inf)
            (np.sqrt(POOL_INPUT + 0.1), np.linspace(-1, 1, 7), np.linspace(0, 1, 7)),
        ),
        (
            lambda lib, x, y, w: lib.nn.functional.bilinear(x, y, w),
            (
                POOL_INPUT[0, :, :4],
                POOL_INPUT[1, :, 2:],
                np.linspace(-1, 1, 2 * 4 * 5).reshape(2, 4, 5),
            ),
        ),
        (
            lambda lib, x, g: lib.nn.functional.grid_sample(x, g, align_corners=False),
            (POOL_INPUT[None, :, :, :5], GRID),
        ),
        (
            lambda lib, x, g: lib.nn.functional.grid_sample(x, g, align_corners=True),
            (POOL_INPUT.reshape(1, 2, 3, 7, 1).repeat(3, axis=4), VOLUME_GRID),
        ),
    ],
    ids=[
        "cdist1",
        "cdist_inf",
        "cdist0",
        "cdist1.5",
        "pdist1",
        "pdist_inf",
        "pdist0",
        "trapezoid",
        "trapezoid_x",
        "cumulative_trapezoid",
        "hardtanh",
        "relu6",
        "batch_norm",
        "batch_norm_strided",
        "group_norm",
        "layer_norm",
        "bilinear",
        "grid_sample",
        "grid_sample_3d",
    ],
)
def test_kernels_place_nan_and_inf_as_pytorch(fn, arrays, poison):
    # Each floating input in turn, then the incoming gradient, holds the poison; the first
    # derivatives are compared (hardtanh and relu6 on 6 elements, less than one vectorized
    # block of PyTorch's loop: its scalar loop, see docs/fuzzing.md).
    for k in range(len(arrays)):
        poisoned = [np.array(a, dtype=np.float64) for a in arrays]
        poisoned[k].reshape(-1)[poisoned[k].size // 2] = poison
        _both(fn, *poisoned)
    out_shape = tuple(fn(torch, *[torch.tensor(a) for a in arrays]).shape)
    grad = np.linspace(0.5, 1.5, int(np.prod(out_shape))).reshape(out_shape)
    grad.reshape(-1)[grad.size // 2] = poison
    _both(fn, *arrays, grad=grad)


@pytest.mark.parametrize("poison", [NAN, INF, -INF])
def test_margin_losses_skip_terms_that_are_not_positive(poison):
    scores = np.linspace(-1, 1, 12).reshape(3, 4)
    scores[1, 2] = poison
    target = torch.tensor([0, 2, 3])
    labels = torch.tensor([[0, 3, -1, 1], [2, -1, 0, 0], [1, 0, 3, -1]])
    for lib_target, loss in (
        (target, lambda lib, x, t: lib.nn.functional.multi_margin_loss(x, t, p=2)),
        (target, lambda lib, x, t: lib.nn.functional.multi_margin_loss(x, t, reduction="none")),
        (labels, lambda lib, x, t: lib.nn.functional.multilabel_margin_loss(x, t)),
    ):
        results = []
        for lib in (gg, torch):
            x = lib.tensor(scores, requires_grad=True)
            out = loss(lib, x, lib.tensor(lib_target.numpy()))
            (grad,) = lib.autograd.grad(out, x, lib.ones_like(out))
            results.append((_numpy(out), _numpy(grad)))
        for ours, theirs in zip(*results):
            np.testing.assert_allclose(ours, theirs, rtol=1e-10, equal_nan=True)


def test_sigmoid_and_elu_second_derivatives_take_pytorchs_formulas():
    # An infinite incoming gradient: sigmoid's (1 - 2 y) factor, not inf - inf; a NaN one:
    # elu's double backward multiplies by the mask x < 0 (NaN where x > 0).
    x = np.array([0.3, -1.2, 2.0, -0.1])
    for grad in (np.array([1.0, INF, 2.0, -INF]), np.array([NAN, 1.0, NAN, 1.0])):
        for fn in (
            lambda lib, t: lib.sigmoid(t),
            lambda lib, t: lib.nn.functional.elu(t, alpha=0.7),
            lambda lib, t: lib.nn.functional.selu(t),
            lambda lib, t: lib.nn.functional.celu(t, alpha=1.3),
        ):
            results = []
            for lib in (gg, torch):
                t = lib.tensor(x, requires_grad=True)
                v = lib.tensor(grad, requires_grad=True)
                (first,) = lib.autograd.grad(fn(lib, t), t, v, create_graph=True)
                seconds = lib.autograd.grad(first, (t, v), lib.ones_like(first))
                results.append([_numpy(first), *[_numpy(s) for s in seconds]])
            for ours, theirs in zip(*results):  # (celu's 1 / alpha is rounded in PyTorch)
                np.testing.assert_allclose(ours, theirs, rtol=1e-7, equal_nan=True)
