"""Matrix functions and vector products: errors, deprecations, and what PyTorch gets wrong.

PyTorch's backward of ``linalg.cond`` for norms other than 2 and of ``torch.vander`` fails
(an output changed in place inside PyTorch); glassgrad's gradients there are checked by
finite differences instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import assert_same, assert_same_error, compare

ERRORS = {
    "cross length": (
        lambda lib: lib.linalg.cross(lib.ones(2), lib.ones(2)),
        ["linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"],
    ),
    "cross ranks": (
        lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(2, 3)),
        ["linalg.cross: inputs must have the same number of dimensions."],
    ),
    "cross dtypes": (
        lambda lib: lib.linalg.cross(lib.ones(3), lib.ones(3, dtype=lib.float64)),
        ["expected scalar type Float but found Double"],
    ),
    "torch.cross without a dim of 3": (
        lambda lib: lib.cross(lib.ones(2, 4), lib.ones(2, 4)),
        ["no dimension of size 3 in input"],
    ),
    "vander N": (lambda lib: lib.linalg.vander(lib.ones(3), N=1), ["N must be greater than 1."]),
    "torch.vander 2-d": (
        lambda lib: lib.vander(lib.ones(2, 2)),
        ["x must be a one-dimensional tensor."],
    ),
    "trace 3-d": (
        lambda lib: lib.trace(lib.ones(2, 2, 2)),
        ["trace: expected a matrix, but got tensor with dim 3"],
    ),
    "inner sizes": (
        lambda lib: lib.inner(lib.ones(2, 3), lib.ones(4)),
        ["inner() the last dimension must match on both input tensors but got shapes [2, 3]"],
    ),
    "multi_dot one tensor": (
        lambda lib: lib.linalg.multi_dot([lib.ones(2, 2)]),
        ["multi_dot(): expected at least 2 tensors but got 1"],
    ),
    "multi_dot first 3-d": (
        lambda lib: lib.linalg.multi_dot([lib.ones(2, 2, 2), lib.ones(2, 2)]),
        ["multi_dot(): the first tensor must be 1D or 2D but got 3D"],
    ),
    "multi_dot middle 3-d": (
        lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, 2), lib.ones(2, 2)]),
        ["multi_dot(): tensor 1 must be 2D but got 3D"],
    ),
    "multi_dot shapes": (
        lambda lib: lib.linalg.multi_dot([lib.ones(2, 3), lib.ones(2, 2)]),
        ["multi_dot(): tensors 0 and 1 with shapes [2, 3] and [2, 2] cannot be multiplied"],
    ),
    "multi_dot dtypes": (
        lambda lib: lib.linalg.multi_dot([lib.ones(2, 2), lib.ones(2, 2, dtype=lib.float64)]),
        ["all tensors must have be the same dtype but tensor 0 is float and tensor 1 double"],
    ),
    "matrix_power non-square": (
        lambda lib: lib.linalg.matrix_power(lib.ones(2, 3), 2),
        ["linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3"],
    ),
    "matrix_power float n": (
        lambda lib: lib.linalg.matrix_power(lib.ones(2, 2), 1.5),
        ["linalg_matrix_power(): argument 'n' (position 2) must be int, not float"],
    ),
    "matrix_exp non-square": (
        lambda lib: lib.linalg.matrix_exp(lib.ones(2, 3)),
        ["linalg.matrix_exp: A must be batches of square matrices, but they are 2 by 3"],
    ),
    "cond 1-d": (
        lambda lib: lib.linalg.cond(lib.ones(3)),
        ["linalg.cond: The input tensor must have at least 2 dimensions."],
    ),
    "cond non-square": (
        lambda lib: lib.linalg.cond(lib.ones(2, 3), 1),
        ["linalg.cond(ord=1): A must be batches of square matrices, but they are 2 by 3"],
    ),
    "cond norm": (
        lambda lib: lib.linalg.cond(lib.eye(2), 3),
        ["linalg.cond got an invalid norm type: 3"],
    ),
    "vecdot dtypes": (
        lambda lib: lib.linalg.vecdot(lib.ones(3), lib.ones(3, dtype=lib.float64)),
        ["linalg.vecdot: Expected x and y to have the same dtype, but found x of type Float"],
    ),
    "chain_matmul 1-d": (
        lambda lib: lib.chain_matmul(lib.ones(2)),
        ["Tensor dimension is 1, expected 2 instead."],
    ),
    "vdot 2-d": (
        lambda lib: lib.vdot(lib.ones(2, 2), lib.ones(2)),
        ["1D tensors expected, but got 2D and 1D tensors"],
    ),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERRORS[name]
    assert_same_error(program, *words)


def test_cond_of_singular_matrices_matches_pytorch() -> None:
    # "nuc" from the singular values (0 * inf = NaN), not through an inverse of inf and NaN
    # whose SVD fails (fuzz seed 810463)
    for p in (None, 1, "fro", math.inf, "nuc"):
        ours = gg.linalg.cond(gg.zeros(2, 2), p)
        theirs = torch.linalg.cond(torch.zeros(2, 2), p)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_cond_nuc_values_and_gradients_match_pytorch() -> None:
    a = np.random.default_rng(6).standard_normal((2, 3, 3))
    compare(lambda lib, x: lib.linalg.cond(x[0], "nuc"), a, second=True)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (0, 3), (3, 0)])
@pytest.mark.parametrize("p", [None, 2, -2, 1, math.inf, "fro", "nuc", "bad"])
def test_cond_of_empty_matrices_matches_pytorch(shape: tuple, p: Any) -> None:
    """0 for each matrix, outside the graph; a string norm checks squareness first."""

    def program(lib):
        try:
            c = lib.linalg.cond(lib.zeros(shape, dtype=lib.float64, requires_grad=True), p)
        except RuntimeError as error:
            return str(error).split(" matrices")[0]
        return c.numpy().tolist(), c.shape, c.requires_grad

    assert program(gg) == program(torch)


@pytest.mark.parametrize("p", ["fro", "nuc", 1, -1, math.inf, -math.inf])
def test_cond_gradients_by_finite_differences(p: Any) -> None:
    a = gg.tensor(np.random.default_rng(5).standard_normal((3, 3)) + 3 * np.eye(3))
    a.requires_grad_()
    assert gg.autograd.gradcheck(lambda x: gg.linalg.cond(x, p), (a,))


def test_torch_vander_gradient_by_finite_differences() -> None:
    x = gg.tensor([0.5, -1.5, 2.0], dtype=gg.float64, requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: gg.vander(t), (x,))
    assert gg.autograd.gradgradcheck(lambda t: gg.vander(t, 4, True), (x,))


def test_matrix_exp_matches_its_series_and_pytorch() -> None:
    rng = np.random.default_rng(6)
    for scale in (1e-3, 1.0, 20.0):
        a = scale * rng.standard_normal((2, 4, 4))
        ours, theirs = gg.linalg.matrix_exp(gg.tensor(a)), torch.linalg.matrix_exp(torch.tensor(a))
        assert_same(ours, theirs, rtol=1e-9, atol=1e-12)
    small = 0.1 * rng.standard_normal((3, 3))
    series = sum(np.linalg.matrix_power(small, k) / math.factorial(k) for k in range(20))
    np.testing.assert_allclose(gg.linalg.matrix_exp(gg.tensor(small)).numpy(), series, atol=1e-14)


def test_deprecations_warn_as_pytorch() -> None:
    with pytest.warns(UserWarning, match="torch.chain_matmul is deprecated"):
        gg.chain_matmul(gg.eye(2), gg.eye(2))
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg"):
        gg.cross(gg.ones(3), gg.ones(3))


def _graph(fn: Any) -> Any:
    """A node's name() and, nested, its inputs' graphs."""
    if fn is None:
        return None
    return (fn.name(), [_graph(f) for f, _ in fn.next_functions])


def test_multi_dot_chooses_the_cheap_order_like_pytorch() -> None:
    # (A B) C costs 10*2*10 + 10*10*3 = 500, A (B C) 2*10*3 + 10*2*3 = 120: A (B C) it is,
    # then PyTorch views the product as the output shape.
    def graph(lib: Any) -> Any:
        tensors = [lib.ones(*s, requires_grad=True) for s in [(10, 2), (2, 10), (10, 3)]]
        return _graph(lib.linalg.multi_dot(tensors).grad_fn)

    ours = graph(gg)
    assert ours == graph(torch)
    assert ours[0] == "ViewBackward0"
    assert ours[1][0][1][0][0] == "torch::autograd::AccumulateGrad"  # A, then (B C)


LDL_AND_HOUSEHOLDER_ERRORS = {
    "ldl non-square": (
        lambda lib: lib.linalg.ldl_factor(lib.ones(2, 3)),
        ["torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 2 by 3"],
    ),
    "ldl integer": (
        lambda lib: lib.linalg.ldl_factor(lib.ones(2, 2, dtype=lib.int64)),
        ["torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input."],
    ),
    "ldl 1-d": (
        lambda lib: lib.linalg.ldl_factor(lib.ones(2)),
        ["torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions."],
    ),
    "ldl_solve sizes": (
        lambda lib: lib.linalg.ldl_solve(lib.eye(2), lib.ones(2, dtype=lib.int32), lib.ones(3, 1)),
        ["Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 2 by 2 but each"],
    ),
    "ldl_solve dtypes": (
        lambda lib: lib.linalg.ldl_solve(
            lib.eye(2), lib.ones(2, dtype=lib.int32), lib.ones(2, 1, dtype=lib.float64)
        ),
        ["Expected b and A to have the same dtype, but found b of type Double and A of type Float"],
    ),
    "householder_product wide": (
        lambda lib: lib.linalg.householder_product(lib.ones(2, 3), lib.ones(2)),
        ["input.shape[-2] must be greater than or equal to input.shape[-1]"],
    ),
    "householder_product tau": (
        lambda lib: lib.linalg.householder_product(lib.ones(3, 2), lib.ones(3)),
        ["input.shape[-1] must be greater than or equal to tau.shape[-1]"],
    ),
}


@pytest.mark.parametrize("name", list(LDL_AND_HOUSEHOLDER_ERRORS))
def test_ldl_and_householder_errors_match_pytorch(name: str) -> None:
    program, words = LDL_AND_HOUSEHOLDER_ERRORS[name]
    assert_same_error(program, *words)


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_ldl_factor_matches_lapack_pivots_and_solves(n: int) -> None:
    """Bunch-Kaufman pivoting, 2x2 blocks included (zeros on the diagonal force them)."""
    rng = np.random.default_rng(n)
    for trial in range(6):
        m = rng.standard_normal((n, n))
        a = m + m.T
        if trial % 2:
            a[np.arange(2), np.arange(2)] = 0.0
        ours = gg.linalg.ldl_factor(gg.tensor(a))
        theirs = torch.linalg.ldl_factor(torch.tensor(a))
        for x, y in zip(ours, theirs):
            assert_same(x, y)
        b = rng.standard_normal((n, 2))
        x = gg.linalg.ldl_solve(ours.LD, ours.pivots, gg.tensor(b)).numpy()
        np.testing.assert_allclose(a @ x, b, atol=1e-10)


@pytest.mark.parametrize("kind", ["symmetric", "hermitian", "symmetric as hermitian"])
def test_complex_ldl_matches_lapack_pivots_and_solves(kind: str) -> None:
    """Complex LDL: A = L D L^T (zsytrf) or, with hermitian=True, A = L D L^H (zhetrf, D real
    on its 1x1 blocks), LAPACK's pivots (|Re| + |Im| sizes), then the matching solve."""
    rng = np.random.default_rng(len(kind))
    hermitian = kind != "symmetric"
    for n in (1, 3, 6):
        for trial in range(4):
            m = rng.standard_normal((2, n, n)) + 1j * rng.standard_normal((2, n, n))
            a = m + (np.swapaxes(m, -1, -2) if kind.startswith("symmetric") else m.conj().mT)
            if trial % 2:
                a[..., np.arange(min(n, 2)), np.arange(min(n, 2))] = 0.0
            ours = gg.linalg.ldl_factor_ex(gg.tensor(a), hermitian=hermitian)
            theirs = torch.linalg.ldl_factor_ex(torch.tensor(a), hermitian=hermitian)
            np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
            np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
            np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), rtol=1e-10, atol=1e-12)
            if theirs.info.any():
                continue
            b = rng.standard_normal((n, 2)) + 1j * rng.standard_normal((n, 2))
            x = gg.linalg.ldl_solve(ours.LD, ours.pivots, gg.tensor(b), hermitian=hermitian)
            y = torch.linalg.ldl_solve(
                theirs.LD, theirs.pivots, torch.tensor(b), hermitian=hermitian
            )
            np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("pivots", [[0, 2], [1, 3], [-3, -3]])
def test_ldl_solve_refuses_pivots_outside_the_matrix(pivots: list) -> None:
    def program(lib: Any) -> Any:
        factored = lib.linalg.ldl_factor(lib.tensor([[4.0, 2.0], [2.0, 3.0]]))
        return lib.linalg.ldl_solve(
            factored.LD, lib.tensor(pivots, dtype=lib.int32), lib.ones(2, 1)
        )

    assert_same_error(program, "Pivots given to ldl_solve must all satisfy |pivot|")


def test_singular_ldl_is_a_clear_error_and_an_info() -> None:
    # PyTorch itself fails here with an internal assert ("Unknown error code: 1").
    with pytest.raises(gg.linalg.LinAlgError, match=r"input is singular: D\[1,1\] is zero"):
        gg.linalg.ldl_factor(gg.zeros(2, 2))
    assert int(gg.linalg.ldl_factor_ex(gg.zeros(2, 2)).info) == 1


def test_geqrf_reflectors_rebuild_q_as_linalg_qr() -> None:
    a = np.random.default_rng(7).standard_normal((2, 5, 3))
    h, tau = gg.geqrf(gg.tensor(a))
    q = gg.linalg.householder_product(h, tau).numpy()
    np.testing.assert_allclose(np.abs(q), np.abs(np.linalg.qr(a)[0]), atol=1e-12)
    full = gg.ormqr(h, tau, gg.eye(5, dtype=gg.float64).expand(2, 5, 5)).numpy()
    np.testing.assert_allclose(full[..., :3], q, atol=1e-12)


BLAS_ERRORS = {
    "addmv sizes": (
        lambda lib: lib.addmv(lib.ones(3), lib.ones(2, 3), lib.ones(3)),
        ["size mismatch, got input (3), mat (2x3), vec (3)"],
    ),
    "addmv ranks": (
        lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3, 1), lib.ones(3)),
        ["vector + matrix @ vector expected, got 1, 3, 1"],
    ),
    "addmv dtypes": (
        lambda lib: lib.addmv(lib.ones(2), lib.ones(2, 3), lib.ones(3, dtype=lib.float64)),
        ["addmv input tensors must have the same dtype, but got Float, Float, and Double"],
    ),
    "addr 2-d vec1": (
        lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2, 1), lib.ones(3)),
        ["addr: Expected 1-D argument vec1, but got 2-D"],
    ),
    "addr input": (
        lambda lib: lib.addr(lib.ones(2, 3), lib.ones(2), lib.ones(2)),
        ["The expanded size of the tensor (2) must match the existing size (3) at non-singleton"],
    ),
    "addbmm batches": (
        lambda lib: lib.addbmm(lib.ones(2, 4), lib.ones(3, 2, 5), lib.ones(2, 5, 4)),
        ["batch1 and batch2 must have same number of batches, got 3 and 2"],
    ),
    "addbmm sizes": (
        lambda lib: lib.addbmm(lib.ones(2, 4), lib.ones(3, 2, 5), lib.ones(3, 4, 4)),
        ["Incompatible matrix sizes for bmm (2x5 and 4x4)"],
    ),
}


@pytest.mark.parametrize("name", list(BLAS_ERRORS))
def test_blas_errors_match_pytorch(name: str) -> None:
    program, words = BLAS_ERRORS[name]
    assert_same_error(program, *words)


def test_inplace_addmv_addr_addbmm_match_pytorch() -> None:
    rng = np.random.default_rng(8)
    arrays = [rng.standard_normal(s) for s in ((3,), (3, 4), (4,), (3, 4), (3,), (4,))]
    arrays += [rng.standard_normal(s) for s in ((2, 5), (3, 2, 4), (3, 4, 5))]
    results = []
    for lib in (gg, torch):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        x, mat, vec, m, v1, v2, y, b1, b2 = [t * 1.0 for t in leaves]
        x.addmv_(mat, vec, beta=0.5, alpha=2.0)
        m.addr_(v1, v2, alpha=-1.0)
        y.addbmm_(b1, b2, beta=2.0)
        total = x.sum() + (m * m).sum() + (y * y).sum()
        grads = lib.autograd.grad(total, leaves)
        results.append([x, m, y, *grads])
    for a, b in zip(*results):
        assert_same(a, b)
