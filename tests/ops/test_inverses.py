"""Inverses, least squares and Cholesky-based solvers: what the registry can't say.

The ``_ex`` variants' info and results at singular or indefinite matrices, lstsq's outputs per
driver, ranks and tolerances, errors, and ``out=`` on the older linalg functions.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import assert_same, assert_same_error


def f64(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


def both(program: Any) -> tuple:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return program(gg), program(torch)


def assert_same_results(ours: Any, theirs: Any) -> None:
    for a, b in zip(ours, theirs):
        a, b = a.detach().numpy(), b.detach().numpy()
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_array_equal(np.isfinite(a), np.isfinite(b))
        np.testing.assert_allclose(a[np.isfinite(a)], b[np.isfinite(b)], rtol=1e-10, atol=1e-12)


SINGULAR = [[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]], [[0.0, 0.0], [0.0, 0.0]]]


def test_inv_ex_and_solve_ex_report_singular_matrices_in_info() -> None:
    ours, theirs = both(lambda lib: lib.linalg.inv_ex(lib.tensor(SINGULAR)))
    assert_same(ours.info, theirs.info)
    np.testing.assert_allclose(ours.inverse[1].numpy(), theirs.inverse[1].numpy())
    ours, theirs = both(lambda lib: lib.linalg.solve_ex(lib.tensor(SINGULAR), lib.ones(3, 2)))
    assert_same(ours.info, theirs.info)
    np.testing.assert_allclose(ours.result[1].numpy(), theirs.result[1].numpy())


def test_cholesky_ex_gives_lapacks_partial_factor_and_info() -> None:
    matrices = [[[4.0, 2.0], [2.0, 5.0]], [[-1.0, 0.0], [0.0, -1.0]], [[1.0, 2.0], [2.0, 1.0]]]
    ours, theirs = both(lambda lib: lib.linalg.cholesky_ex(lib.tensor(matrices)))
    assert_same_results(ours, theirs)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_reads_only_its_triangle_as_pytorch(upper: bool) -> None:
    """The triangle cholesky does not read (the upper one for L, the lower one for U) may
    hold anything, also for the partial factor of cholesky_ex."""
    rng = np.random.default_rng(3)
    m = rng.standard_normal((2, 3, 3))
    spd = m @ m.transpose(0, 2, 1) + 3 * np.eye(3)
    noise = np.triu(rng.standard_normal((3, 3)), 1)
    general = spd + (noise.T if upper else noise)
    indefinite = general - 10 * np.eye(3)
    for matrices in (general, indefinite):
        ours, theirs = both(
            lambda lib, m=matrices: lib.linalg.cholesky_ex(lib.tensor(m), upper=upper)
        )
        assert_same_results(ours, theirs)
    ours, theirs = both(lambda lib: lib.linalg.cholesky(lib.tensor(general), upper=upper))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_gradients_of_symmetric_inputs_by_finite_differences(upper: bool) -> None:
    """Through A A^T + I every entry counts in both triangles, so finite differences apply."""
    a = gg.tensor(np.random.default_rng(4).standard_normal((2, 3, 3)), requires_grad=True)

    def factor(x: Any) -> Any:
        return gg.linalg.cholesky(x @ x.mT + gg.eye(3, dtype=x.dtype), upper=upper)

    assert gg.autograd.gradcheck(factor, (a,))
    assert gg.autograd.gradgradcheck(factor, (a,))


EX_ERRORS = {
    "inv_ex check_errors": (
        lambda lib: lib.linalg.inv_ex(lib.zeros(2, 2), check_errors=True),
        ["linalg.inv_ex: The diagonal element 1 is zero"],
    ),
    "solve_ex check_errors": (
        lambda lib: lib.linalg.solve_ex(lib.zeros(2, 2), lib.ones(2), check_errors=True),
        ["linalg.solve_ex: The solver failed because the input matrix is singular."],
    ),
    "cholesky_ex check_errors": (
        lambda lib: lib.linalg.cholesky_ex(-lib.eye(2), check_errors=True),
        ["linalg.cholesky_ex: The factorization could not be completed because the input is not "],
    ),
    "cholesky_solve dtypes": (
        lambda lib: lib.cholesky_solve(lib.ones(2, 1), f64(lib, 2, 2)),
        ["Expected b and A to have the same dtype, but found b of type Float and A of type Double"],
    ),
    "cholesky_solve sizes": (
        lambda lib: lib.cholesky_solve(lib.ones(3, 1), lib.eye(2)),
        ["Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix"],
    ),
    "cholesky_inverse non-square": (
        lambda lib: lib.cholesky_inverse(lib.ones(2, 3)),
        ["must be batches of square matrices, but they are 2 by 3 matrices"],
    ),
    "lstsq driver": (
        lambda lib: lib.linalg.lstsq(f64(lib, 3, 2), f64(lib, 3, 1), driver="foo"),
        ["torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)"],
    ),
    "lstsq dtypes": (
        lambda lib: lib.linalg.lstsq(f64(lib, 3, 2), lib.ones(3, 1)),
        ["torch.linalg.lstsq: Expected input and other to have the same dtype"],
    ),
    "pinv 1-d": (
        lambda lib: lib.linalg.pinv(f64(lib, 3)),
        [
            "linalg.pinv(Double{[3]}): expected a tensor with 2 or more dimensions of float, "
            "double, cfloat or cdouble types"
        ],
    ),
    "tensorinv ind": (
        lambda lib: lib.linalg.tensorinv(f64(lib, 2, 2), ind=0),
        ["Expected a strictly positive integer for 'ind', but got 0"],
    ),
    "tensorinv shape": (
        lambda lib: lib.linalg.tensorinv(f64(lib, 2, 3), ind=1),
        [
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind])"
        ],
    ),
    "matrix_norm out dtype": (
        lambda lib: lib.linalg.matrix_norm(f64(lib, 2, 2), out=lib.empty(0)),
        ["linalg.matrix_norm expected out tensor dtype Double but got: Float"],
    ),
    "inv out requires grad": (
        lambda lib: lib.linalg.inv(lib.eye(2).requires_grad_(), out=lib.empty(0)),
        ["linalg_inv_ex(): functions with out=... arguments don't support automatic"],
    ),
    "det out requires grad": (
        lambda lib: lib.linalg.det(lib.eye(2).requires_grad_(), out=lib.empty(0)),
        ["_linalg_det(): functions with out=... arguments don't support automatic"],
    ),
    "solve out dtype": (
        lambda lib: lib.linalg.solve(lib.eye(2), lib.ones(2), out=lib.empty(0, dtype=lib.int64)),
        ["Expected out tensor to have dtype float, but got long int instead"],
    ),
}


@pytest.mark.parametrize("name", list(EX_ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    program, words = EX_ERRORS[name]
    assert_same_error(program, *words)


@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 4)])
def test_lstsq_outputs_per_driver_match_pytorch(driver: Any, shape: tuple) -> None:
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape[:-1] + (2,))
    ours, theirs = both(lambda lib: lib.linalg.lstsq(lib.tensor(a), lib.tensor(b), driver=driver))
    for x, y in zip(ours, theirs):
        assert_same(x, y, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("driver", ["gels", "gelsd", "gelss", "gelsy"])
def test_lstsq_of_a_zero_matrix_as_lapack_quick_return(driver: str) -> None:
    """gels returns at once for a zero A with all of B set to 0, so its residuals are 0, not
    |B|^2 (fuzz seed 845201); the other drivers report rank 0 and no residuals."""
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 2))
    a[1] = 0.0

    def outputs(lib: Any) -> list:
        result = lib.linalg.lstsq(lib.tensor(a), lib.tensor(b), driver=driver)
        return list(result)

    for ours, theirs in zip(outputs(gg), outputs(torch)):
        assert_same(ours, theirs)


def test_lstsq_of_a_rank_deficient_matrix_is_the_minimum_norm_solution() -> None:
    a = np.array([[1.0, 1.0], [1.0, 1.0], [0.0, 0.0]])
    b = np.array([[2.0], [2.0], [1.0]])
    ours, theirs = both(lambda lib: lib.linalg.lstsq(lib.tensor(a), lib.tensor(b), driver="gelsd"))
    for x, y in zip(ours, theirs):
        assert_same(x, y, rtol=1e-8, atol=1e-10)


def test_lstsq_gradient_of_zeros_still_depends_on_a_and_b() -> None:
    # Fuzz seed 701613: `residuals[:] = v` sends zeros back; PyTorch's backward tests which
    # gradients are defined, not their values, so under create_graph the gradients of A and
    # B still require grad (zeros).
    results = []
    for lib in (gg, torch):
        rng = np.random.default_rng(5)
        a = lib.tensor(rng.standard_normal((4, 3)), requires_grad=True)
        b = lib.tensor(rng.standard_normal((4, 2)), requires_grad=True)
        out = lib.linalg.lstsq(a * 1, b * 1, driver="gelsd")
        v = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
        out.residuals[:] = v
        grads = lib.autograd.grad(out.residuals.sum(), [a, b, v], create_graph=True)
        results.append([(g.requires_grad, g.detach().numpy().copy()) for g in grads])
    for (flag, ours), (their_flag, theirs) in zip(*results):
        assert flag == their_flag
        np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_matrix_rank_and_pinv_tolerances_match_pytorch() -> None:
    a = np.diag([3.0, 1e-3, 1e-9])
    for kwargs in ({}, {"atol": 1e-2}, {"rtol": 1e-4}, {"atol": 1e-12, "rtol": 0.0}):
        ours, theirs = both(lambda lib, kw=kwargs: lib.linalg.matrix_rank(lib.tensor(a), **kw))
        assert_same(ours, theirs)
        ours, theirs = both(lambda lib, kw=kwargs: lib.linalg.pinv(lib.tensor(a), **kw))
        assert_same(ours, theirs)
    ours, theirs = both(lambda lib: lib.pinverse(lib.tensor(a), 1e-5))
    assert_same(ours, theirs)


def test_composite_out_is_recorded_by_copy_as_in_pytorch() -> None:
    results = []
    for lib in (gg, torch):
        a = lib.tensor([[3.0, 4.0], [0.0, 1.0]], dtype=lib.float64, requires_grad=True)
        out = lib.empty(0, dtype=lib.float64)
        returned = lib.linalg.matrix_norm(a, out=out)
        assert returned is out and out.requires_grad
        out.backward()
        results.append((out, a.grad))
    for x, y in zip(*results):
        assert_same(x, y)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, a, o: lib.linalg.inv(a, out=o),
        lambda lib, a, o: lib.linalg.det(a, out=o),
        lambda lib, a, o: lib.linalg.vector_norm(a, out=o),
        lambda lib, a, o: lib.linalg.norm(a, "nuc", out=o),
        lambda lib, a, o: lib.linalg.solve(a, a, out=o),
        lambda lib, a, o: lib.linalg.cholesky(a @ a.mT + lib.eye(3), out=o),
        lambda lib, a, o: lib.linalg.pinv(a, out=o),
        lambda lib, a, o: lib.cholesky_inverse(lib.linalg.cholesky(a @ a.mT + lib.eye(3)), out=o),
        lambda lib, a, o: lib.inverse(a, out=o),
    ],
)
def test_out_writes_the_result(program: Any) -> None:
    results = []
    for lib in (gg, torch):
        a = lib.tensor([[2.0, 1.0, 0.0], [0.5, 3.0, 1.0], [0.0, 0.2, 4.0]])
        out = lib.empty(0)
        assert program(lib, a, out) is out
        results.append(out)
    assert_same(*results, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_cholesky_inverse_is_exactly_hermitian(upper: bool, dtype: str) -> None:
    # potri computes one triangle and PyTorch reflects it: an entry that is exactly 0 on one
    # side (this factor's inverse is tridiagonal) is exactly 0 on the other
    factor = np.tril(np.full((3, 3), 1.54369))
    factor = factor.T if upper else factor
    ours, theirs = (
        lib.cholesky_inverse(lib.tensor(factor, dtype=getattr(lib, dtype)), upper=upper)
        for lib in (gg, torch)
    )
    result = ours.numpy()
    np.testing.assert_array_equal(result, np.conj(result.swapaxes(-1, -2)))
    np.testing.assert_array_equal(result == 0, theirs.numpy() == 0)
    assert_same(ours, theirs)
