"""Linear algebra on matrices holding a NaN or an inf, against PyTorch 2.13's CPU build.

PyTorch's LAPACK is MKL; NumPy's is OpenBLAS, and the two spread a NaN or inf differently
(which pivot getrf takes when a column holds a NaN, which entries a solve reaches). Each case
puts one NaN, inf or -inf at every position of a matrix, row-major and column-major (det and
slogdet factor A^T for a row-major A), and compares where the results are NaN or infinite,
their values, the first derivatives, and whether an error is raised.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

_rng = np.random.default_rng(7)
MATRIX = _rng.standard_normal((3, 3)) + 2 * np.eye(3)
RHS = _rng.standard_normal((3, 2))
TAU = np.array([1.2, 0.5, 0.0])
SPD = MATRIX @ MATRIX.T + np.eye(3)
FACTOR = np.linalg.cholesky(SPD)


def _lu_solve(lib: Any, a: Any) -> list:
    lu, pivots, _ = lib.linalg.lu_factor_ex(a)
    return [lib.linalg.lu_solve(lu, pivots, lib.tensor(RHS))]


# op name -> the outputs of the op on a (3, 3) Tensor, in either library
OPS: dict[str, Callable[[Any, Any], list]] = {
    "det": lambda lib, a: [lib.linalg.det(a)],
    "slogdet": lambda lib, a: list(lib.linalg.slogdet(a)),
    "logdet": lambda lib, a: [lib.logdet(a)],
    "inv": lambda lib, a: [lib.linalg.inv(a)],
    "inv_ex": lambda lib, a: list(lib.linalg.inv_ex(a)),
    "solve": lambda lib, a: [lib.linalg.solve(a, lib.tensor(RHS))],
    "solve_vector": lambda lib, a: [lib.linalg.solve(a, lib.tensor(RHS[:, 0]))],
    "solve_right": lambda lib, a: [lib.linalg.solve(a, lib.tensor(RHS.T), left=False)],
    "solve_ex": lambda lib, a: list(lib.linalg.solve_ex(a, lib.tensor(RHS))),
    "solve_of_b": lambda lib, b: [lib.linalg.solve(lib.tensor(MATRIX), b)],
    "lu_factor_ex": lambda lib, a: list(lib.linalg.lu_factor_ex(a)),
    "lu": lambda lib, a: list(lib.linalg.lu(a)),
    "lu_solve": _lu_solve,
    "tensorinv": lambda lib, a: [lib.linalg.tensorinv(a, 1)],
    "qr": lambda lib, a: list(lib.linalg.qr(a)),
    "qr_of_tall": lambda lib, a: list(lib.linalg.qr(a[:, :2], mode="complete")),
    "qr_of_wide": lambda lib, a: list(lib.linalg.qr(a[:2], mode="r")),
    "geqrf": lambda lib, a: list(lib.geqrf(a)),
    "householder_product": lambda lib, a: [lib.linalg.householder_product(a, lib.tensor(TAU))],
    "householder_product_of_tau": lambda lib, t: [
        lib.linalg.householder_product(lib.tensor(MATRIX), t[0, :2])
    ],
    "ormqr": lambda lib, a: [lib.ormqr(a, lib.tensor(TAU[:2]), lib.tensor(RHS))],
    "ormqr_of_other": lambda lib, c: [lib.ormqr(lib.tensor(MATRIX), lib.tensor(TAU), c)],
    "cholesky": lambda lib, a: [lib.linalg.cholesky_ex(a).L],
    "cholesky_inverse": lambda lib, f: [lib.cholesky_inverse(f)],
    "cholesky_inverse_upper": lambda lib, f: [lib.cholesky_inverse(f.mT, upper=True)],
}
# the matrix an op gets a NaN or inf in (MATRIX unless named)
BASES = {"solve_of_b": RHS, "ormqr_of_other": RHS, "cholesky": SPD}
BASES |= {"cholesky_inverse": FACTOR, "cholesky_inverse_upper": FACTOR}

# the ops that factor A^T for a row-major A, and those that might (PyTorch 2.13 does not)
TAKE_A_LAYOUT = {"det", "slogdet", "logdet", "inv", "solve", "solve_right"}


def _pattern(x: np.ndarray) -> str:
    """Where ``x`` is NaN (N), +inf (+), -inf (-) or finite (.)."""
    return "".join(
        "N" if np.isnan(v) else "+" if v == np.inf else "-" if v == -np.inf else "."
        for v in np.asarray(x, dtype=float).ravel()
    )


def outcome(lib: Any, op: str, a: np.ndarray, column_major: bool) -> tuple:
    """``(outputs, gradient)`` as arrays, or the error raised, for one library."""
    leaf = lib.tensor(np.ascontiguousarray(a.T) if column_major else a, requires_grad=True)
    x = leaf.mT if column_major else leaf
    try:
        outs = OPS[op](lib, x)
    except RuntimeError:
        return "raises", None
    arrays = [o.detach().numpy() for o in outs]
    floating = [o for o in outs if o.requires_grad]
    if not floating:
        return arrays, None
    try:
        (grad,) = lib.autograd.grad(sum(o.sum() for o in floating), leaf)
    except RuntimeError:
        return arrays, "raises"
    return arrays, grad.numpy()


def assert_same_arrays(ours: Any, theirs: Any, where: str) -> None:
    if not (isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray)):
        # no gradient, or an error, in either library
        assert type(ours) is type(theirs) and (ours is None or ours == theirs), where
        return
    assert ours.dtype == theirs.dtype, where
    assert _pattern(ours) == _pattern(theirs), f"{where}: {ours} vs {theirs}"
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("op", sorted(OPS))
def test_a_nan_or_inf_spreads_as_in_pytorch(op: str, value: float) -> None:
    base = BASES.get(op, MATRIX)
    layouts = (False, True) if op in TAKE_A_LAYOUT else (False,)
    for (i, j), column_major in itertools.product(np.ndindex(*base.shape), layouts):
        a = base.copy()
        a[i, j] = value
        where = f"{op} with {value} at {(i, j)}, {'column' if column_major else 'row'}-major"
        (our_outs, our_grad), (outs, grad) = (
            outcome(gg, op, a, column_major),
            outcome(torch, op, a, column_major),
        )
        if outs == "raises" or our_outs == "raises":
            assert our_outs == outs, where
            continue
        for ours, theirs in zip(our_outs, outs, strict=True):
            assert_same_arrays(ours, theirs, where)
        assert_same_arrays(our_grad, grad, where + " (gradient)")


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_inverse_refuses_a_zero_on_the_diagonal_as_potri(upper: bool) -> None:
    """potri's trtri reports the first exact zero on the diagonal, in a batch too (also
    when a NaN is elsewhere): PyTorch's error, not infinities."""
    factor = np.stack([FACTOR, FACTOR])
    factor[1, 1, 1] = factor[1, 2, 2] = 0.0
    factor[1, 2, 0] = np.nan
    for lib in (gg, torch):
        x = lib.tensor(factor)
        with pytest.raises(
            RuntimeError,
            match=r"^cholesky_inverse: \(Batch element 1\): The "
            r"diagonal element 2 is zero",
        ):
            lib.cholesky_inverse(x.mT if upper else x, upper=upper)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", [4, 17])
def test_getrf_pivots_a_nan_as_pytorchs_mkl(n: int, dtype: type) -> None:
    """MKL's getrf skips a NaN in the pivot search of a matrix of at most 16 rows and
    columns (unless the column starts with it) and takes the first NaN in larger ones; a
    batch, a wide and a tall matrix, with zeros where ties and exact zero pivots occur."""
    rng = np.random.default_rng(n)
    a = np.round(rng.standard_normal((3, n, n + 1)) * 2).astype(dtype)
    a[0, 1, 0] = a[1, 2, 1] = a[2, 0, 2] = np.nan
    a[1, 0, 3] = np.inf
    for matrix in (a, a[..., :-2], a[..., :2, :]):
        ours = gg.linalg.lu_factor_ex(gg.tensor(matrix))
        theirs = torch.linalg.lu_factor_ex(torch.tensor(matrix))
        for x, y in zip(ours, theirs, strict=True):
            assert _pattern(x.numpy()) == _pattern(y.numpy())
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-5, equal_nan=True)


@pytest.mark.parametrize("op", ["svd", "svdvals", "pinv", "matrix_rank"])
def test_svd_of_a_matrix_holding_nan_or_inf_is_pytorchs(op: str) -> None:
    """MKL's gesdd refuses a NaN (PyTorch's error, naming the batch element); an inf gives
    NaN singular values (NumPy's gesdd never returned on one)."""
    call = {
        "svd": lambda lib, x: lib.linalg.svd(x)[1],
        "svdvals": lambda lib, x: lib.linalg.svdvals(x),
        "pinv": lambda lib, x: lib.linalg.pinv(x),
        "matrix_rank": lambda lib, x: lib.linalg.matrix_rank(x),
    }[op]
    a = np.stack([MATRIX, MATRIX])
    a[1, 0, 1] = np.nan
    for lib in (gg, torch):
        with pytest.raises(RuntimeError, match=r"\(Batch element 1\): The algorithm failed"):
            call(lib, lib.tensor(a))
    a[1, 0, 1] = np.inf
    if op == "svdvals":
        ours, theirs = call(gg, gg.tensor(a)).numpy(), call(torch, torch.tensor(a)).numpy()
        assert _pattern(ours) == _pattern(theirs)


# (shape, mode) pairs whose QR backward PyTorch takes each way: m >= n (square, tall) and
# m < n (wide); complete mode of a tall matrix is not differentiable
QR_CASES = [((3, 3), "reduced"), ((3, 3), "complete"), ((3, 2), "reduced")]
QR_CASES += [((2, 3), "reduced"), ((2, 3), "complete")]


def _qr_gradient(lib: Any, a: np.ndarray, mode: str, grads: dict, create_graph: bool) -> Any:
    leaf = lib.tensor(a, requires_grad=True)
    q, r = lib.linalg.qr(leaf, mode=mode)
    outputs = [out for name, out in (("q", q), ("r", r)) if name in grads]
    (grad,) = lib.autograd.grad(
        outputs,
        leaf,
        [lib.tensor(grads[name]) for name in ("q", "r") if name in grads],
        create_graph=create_graph,
    )
    return grad.detach().numpy()


@pytest.mark.parametrize("which", ["q", "r", "both"])
@pytest.mark.parametrize("case", QR_CASES, ids=lambda c: f"{c[0][0]}x{c[0][1]}-{c[1]}")
def test_qr_backward_spreads_a_nan_or_inf_gradient_as_pytorch(case: tuple, which: str) -> None:
    """PyTorch's linalg_qr_backward, product by product and solve by solve, leaving out the
    term of an output that got no gradient: an inf or NaN in gQ or gR reaches the entries it
    reaches there (a wide matrix's last columns stay finite under an infinite gR: seeds
    503699, 200181), with and without create_graph."""
    (m, n), mode = case
    k = m if mode == "complete" else min(m, n)
    a = MATRIX[:m, :n]
    finite = {"q": np.outer(RHS[:m, 0], RHS[:k, 1]), "r": np.outer(RHS[:k, 1], RHS[:n, 0])}
    names = ("q", "r") if which == "both" else (which,)
    values = itertools.cycle((np.nan, np.inf, -np.inf))
    for name in names:
        for index in np.ndindex(*finite[name].shape):
            grads = {other: finite[other].copy() for other in names}
            grads[name][index] = value = next(values)
            create_graph = sum(index) % 2 == 1
            where = f"{m}x{n} {mode}: {value} at {index} of g{name}, {create_graph=}"
            ours = _qr_gradient(gg, a, mode, grads, create_graph)
            theirs = _qr_gradient(torch, a, mode, grads, create_graph)
            assert_same_arrays(ours, theirs, where)


def _lu_solve_gradients(lib: Any, grad: np.ndarray, left: bool, adjoint: bool) -> list:
    lu, pivots, _ = lib.linalg.lu_factor_ex(lib.tensor(MATRIX))
    lu = lu.detach().requires_grad_()
    b = lib.tensor(RHS if left else RHS.T, requires_grad=True)
    x = lib.linalg.lu_solve(lu, pivots, b, left=left, adjoint=adjoint)
    return [g.numpy() for g in lib.autograd.grad(x, (lu, b), lib.tensor(grad))]


@pytest.mark.parametrize("adjoint", [False, True])
@pytest.mark.parametrize("left", [True, False])
def test_lu_solve_backward_spreads_a_nan_or_inf_gradient_as_pytorch(
    left: bool, adjoint: bool
) -> None:
    """PyTorch's linalg_lu_solve_LU: where left == adjoint it forms -((P^T X) gX) P in that
    order (a product of X and gX first spread an inf in gX to other entries)."""
    values = itertools.cycle((np.nan, np.inf, -np.inf))
    shape = RHS.shape if left else RHS.T.shape
    for index in np.ndindex(*shape):
        grad = np.ones(shape)
        grad[index] = value = next(values)
        ours = _lu_solve_gradients(gg, grad, left, adjoint)
        theirs = _lu_solve_gradients(torch, grad, left, adjoint)
        for name, x, y in zip(("LU", "B"), ours, theirs, strict=True):
            assert_same_arrays(x, y, f"{value} at {index}: gradient of {name}")


def _lu_gradients(lib: Any, shape: tuple, which: int, at: tuple, poison: float, unpack: bool):
    a = lib.tensor(
        np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) ** 1.5 % 7, requires_grad=True
    )
    if unpack:
        _, lower, upper = lib.lu_unpack(*lib.linalg.lu_factor(a))
    else:
        _, lower, upper = lib.linalg.lu(a)
    grads = [lib.ones_like(lower), lib.ones_like(upper)]
    grads[which][at] = poison
    (g,) = lib.autograd.grad((lower, upper), a, grads)
    return g.numpy()


@pytest.mark.parametrize("unpack", [False, True], ids=["lu", "lu_unpack"])
@pytest.mark.parametrize("shape", [(2, 4), (4, 2), (3, 3)])
@pytest.mark.parametrize("poison", [float("nan"), float("inf")])
def test_lu_gradients_keep_a_nan_or_inf_where_pytorch_does(
    shape: tuple, poison: float, unpack: bool
) -> None:
    # Seed 701826: U % U of a wide LU puts NaN in U's structurally zero part; PyTorch's
    # backward drops it (triu, then a concatenation), glassgrad's embedding by a product with
    # an identity spread it over every entry (NaN * 0).
    for which in (0, 1):
        rows, cols = (shape[0], min(shape)) if which == 0 else (min(shape), shape[1])
        for at in np.ndindex(rows, cols):
            ours = _lu_gradients(gg, shape, which, at, poison, unpack)
            theirs = _lu_gradients(torch, shape, which, at, poison, unpack)
            np.testing.assert_array_equal(
                np.isnan(ours), np.isnan(theirs), err_msg=str((which, at))
            )
            finite = np.isfinite(theirs)
            np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-9, atol=1e-9)
            np.testing.assert_array_equal(
                ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)]
            )


@pytest.mark.parametrize("create_graph", [False, True])
def test_householder_product_columns_past_the_reflectors_get_no_nan(create_graph: bool) -> None:
    """A NaN incoming gradient reaches the reflectors' columns only, as in PyTorch (fuzz seed
    855501: the gradient was placed with a product by eye(k, n), 0 * NaN elsewhere)."""
    a = np.random.default_rng(0).standard_normal((4, 3))
    incoming = np.ones((4, 3))
    incoming[0, 2] = np.nan
    results = []
    for lib in (gg, torch):
        x = lib.tensor(a, requires_grad=True)
        tau = lib.tensor([1.2, 0.7], dtype=lib.float64, requires_grad=True)
        q = lib.linalg.householder_product(x, tau)
        grads = lib.autograd.grad(q, (x, tau), lib.tensor(incoming), create_graph=create_graph)
        results.append([g.detach().numpy() for g in grads])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
