"""Argument checks of the linear-algebra family against PyTorch: integer, float16 and mixed
dtypes reach the error PyTorch raises (its type), or the result PyTorch gives (its dtype).

float16 is the class no LAPACK kernel takes: PyTorch refuses it per function with the
kernel's NotImplementedError or its own "Low precision dtypes" RuntimeError; NumPy's
``TypeError: array type float16 is unsupported in linalg`` must not leak through.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .test_linalg import _BUILTIN_ERRORS, assert_same_error


def A(m: Any, dtype: Any = None) -> Any:
    """A well-conditioned 3x3 matrix (float64 unless ``dtype``; integer dtypes truncate)."""
    return (m.eye(3, dtype=m.float64) * 3 + 0.1).to(m.float64 if dtype is None else dtype)


def H(m: Any) -> Any:
    return A(m, m.float16)


def HB(m: Any) -> Any:
    return m.ones(3, 1, dtype=m.float16)


CASES: dict[str, Callable[[Any], Any]] = {
    "householder_product mixed": lambda m: m.linalg.householder_product(A(m), m.ones(2)),
    "householder_product": lambda m: m.linalg.householder_product(
        A(m, m.int64), m.ones(2, dtype=m.int64)
    ),
    "geqrf": lambda m: m.geqrf(A(m, m.int64)),
    "solve mixed": lambda m: m.linalg.solve(A(m), m.ones(3)),
    "solve_triangular mixed": lambda m: m.linalg.solve_triangular(A(m), m.ones(3, 1), upper=True),
    "triangular_solve mixed": lambda m: m.triangular_solve(m.ones(3, 1), A(m)),
    "cholesky_solve mixed": lambda m: m.cholesky_solve(m.ones(3, 1), A(m)),
    "lu_solve mixed": lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(A(m)), m.ones(3, 1)),
    "lstsq mixed": lambda m: m.linalg.lstsq(A(m), m.ones(3, 1)),
    "cholesky": lambda m: m.linalg.cholesky(A(m, m.int64)),
    "inv": lambda m: m.linalg.inv(A(m, m.int64)),
    "det": lambda m: m.linalg.det(A(m, m.int64)),
    "eigvalsh": lambda m: m.linalg.eigvalsh(A(m, m.int64)),
    "qr": lambda m: m.linalg.qr(A(m, m.int64)),
    "svdvals": lambda m: m.linalg.svdvals(A(m, m.int64)),
    "pinv": lambda m: m.linalg.pinv(A(m, m.int64)),
    "matrix_exp": lambda m: m.linalg.matrix_exp(A(m, m.int64)),
    "matrix_power": lambda m: m.linalg.matrix_power(A(m, m.int64), 2),
    "lu_factor": lambda m: m.linalg.lu_factor(A(m, m.int64)),
    "ldl_factor": lambda m: m.linalg.ldl_factor(A(m, m.int64)),
    "ldl_solve mixed": lambda m: m.linalg.ldl_solve(*m.linalg.ldl_factor(A(m)), m.ones(3, 1)),
    "cholesky_inverse": lambda m: m.cholesky_inverse(A(m, m.int64)),
    "ormqr": lambda m: m.ormqr(A(m, m.int64), m.ones(3, dtype=m.int64), A(m, m.int64)),
    "tensorsolve mixed": lambda m: m.linalg.tensorsolve(A(m), m.ones(3)),
    "matrix_rank": lambda m: m.linalg.matrix_rank(A(m, m.int64)),
    "cond": lambda m: m.linalg.cond(A(m, m.int64)),
    "slogdet": lambda m: m.linalg.slogdet(A(m, m.int64)),
    "eig": lambda m: m.linalg.eig(A(m, m.int64)),
    "vector_norm": lambda m: m.linalg.vector_norm(A(m, m.int64)),
    "matrix_norm": lambda m: m.linalg.matrix_norm(A(m, m.int64)),
    "cross mixed": lambda m: m.linalg.cross(m.ones(3), m.ones(3, dtype=m.float64)),
    "multi_dot mixed": lambda m: m.linalg.multi_dot([A(m), m.ones(3, 3)]),
    "vecdot mixed": lambda m: m.linalg.vecdot(m.ones(3), m.ones(3, dtype=m.float64)),
    "matmul mixed": lambda m: m.matmul(A(m), m.ones(3, 3)),
    "mm": lambda m: m.mm(A(m, m.int64), A(m, m.int64)),
    "addmm mixed": lambda m: m.addmm(m.ones(3, 3), A(m), m.ones(3, 3)),
    "baddbmm mixed": lambda m: m.baddbmm(m.ones(1, 3, 3), A(m).unsqueeze(0), m.ones(1, 3, 3)),
    "tensordot mixed": lambda m: m.tensordot(A(m), m.ones(3, 3)),
    "kron mixed": lambda m: m.kron(A(m), m.ones(3, 3)),
    "cdist mixed": lambda m: m.cdist(A(m), m.ones(3, 3)),
    "cdist": lambda m: m.cdist(A(m, m.int64), A(m, m.int64)),
    "trace": lambda m: m.trace(A(m, m.int64)),
    "outer mixed": lambda m: m.outer(m.ones(3), m.ones(3, dtype=m.float64)),
    "dot mixed": lambda m: m.dot(m.ones(3), m.ones(3, dtype=m.float64)),
    "inner mixed": lambda m: m.inner(m.ones(3), m.ones(3, dtype=m.float64)),
    "mv mixed": lambda m: m.mv(A(m), m.ones(3)),
    "chain_matmul mixed": lambda m: m.chain_matmul(A(m), m.ones(3, 3)),
    "solve_ex mixed": lambda m: m.linalg.solve_ex(A(m), m.ones(3)),
    "lu_solve": lambda m: m.linalg.lu_solve(
        A(m, m.int64), m.zeros(3, dtype=m.int32), A(m, m.int64)
    ),
    "householder tau": lambda m: m.linalg.householder_product(A(m), m.ones(2, dtype=m.int64)),
    "vander": lambda m: m.linalg.vander(m.ones(3, dtype=m.int64)),
    "diagonal ok": lambda m: m.linalg.diagonal(A(m)),
    "eigvals": lambda m: m.linalg.eigvals(A(m, m.int64)),
    "svd": lambda m: m.linalg.svd(A(m, m.int64)),
    "tensorinv": lambda m: m.linalg.tensorinv(A(m, m.int64), ind=1),
    "logdet": lambda m: m.logdet(A(m, m.int64)),
    "pinverse": lambda m: m.pinverse(A(m, m.int64)),
    "householder_product float16": lambda m: m.linalg.householder_product(
        A(m, m.float16), m.ones(2, dtype=m.float16)
    ),
    "geqrf float16": lambda m: m.geqrf(A(m, m.float16)),
    "cholesky float16": lambda m: m.linalg.cholesky(A(m, m.float16)),
    "inv float16": lambda m: m.linalg.inv(A(m, m.float16)),
    "det float16": lambda m: m.linalg.det(A(m, m.float16)),
    "eigvalsh float16": lambda m: m.linalg.eigvalsh(A(m, m.float16)),
    "qr float16": lambda m: m.linalg.qr(A(m, m.float16)),
    "svdvals float16": lambda m: m.linalg.svdvals(A(m, m.float16)),
    "pinv float16": lambda m: m.linalg.pinv(A(m, m.float16)),
    "matrix_exp float16": lambda m: m.linalg.matrix_exp(A(m, m.float16)),
    "matrix_power float16": lambda m: m.linalg.matrix_power(A(m, m.float16), 2),
    "lu_factor float16": lambda m: m.linalg.lu_factor(A(m, m.float16)),
    "ldl_factor float16": lambda m: m.linalg.ldl_factor(A(m, m.float16)),
    "cholesky_inverse float16": lambda m: m.cholesky_inverse(A(m, m.float16)),
    "ormqr float16": lambda m: m.ormqr(
        A(m, m.float16), m.ones(3, dtype=m.float16), A(m, m.float16)
    ),
    "matrix_rank float16": lambda m: m.linalg.matrix_rank(A(m, m.float16)),
    "cond float16": lambda m: m.linalg.cond(A(m, m.float16)),
    "slogdet float16": lambda m: m.linalg.slogdet(A(m, m.float16)),
    "eig float16": lambda m: m.linalg.eig(A(m, m.float16)),
    "vector_norm float16": lambda m: m.linalg.vector_norm(A(m, m.float16)),
    "matrix_norm float16": lambda m: m.linalg.matrix_norm(A(m, m.float16)),
    "mm float16": lambda m: m.mm(A(m, m.float16), A(m, m.float16)),
    "cdist float16": lambda m: m.cdist(A(m, m.float16), A(m, m.float16)),
    "trace float16": lambda m: m.trace(A(m, m.float16)),
    "lu_solve float16": lambda m: m.linalg.lu_solve(
        A(m, m.float16), m.zeros(3, dtype=m.int32), A(m, m.float16)
    ),
    "householder tau float16": lambda m: m.linalg.householder_product(
        A(m), m.ones(2, dtype=m.float16)
    ),
    "vander float16": lambda m: m.linalg.vander(m.ones(3, dtype=m.float16)),
    "eigvals float16": lambda m: m.linalg.eigvals(A(m, m.float16)),
    "svd float16": lambda m: m.linalg.svd(A(m, m.float16)),
    "tensorinv float16": lambda m: m.linalg.tensorinv(A(m, m.float16), ind=1),
    "logdet float16": lambda m: m.logdet(A(m, m.float16)),
    "pinverse float16": lambda m: m.pinverse(A(m, m.float16)),
    "solve float16": lambda m: m.linalg.solve(H(m), HB(m)),
    "solve_ex float16": lambda m: m.linalg.solve_ex(H(m), HB(m)),
    "inv_ex float16": lambda m: m.linalg.inv_ex(H(m)),
    "cholesky_ex float16": lambda m: m.linalg.cholesky_ex(H(m)),
    "lu_factor_ex float16": lambda m: m.linalg.lu_factor_ex(H(m)),
    "lu float16": lambda m: m.linalg.lu(H(m)),
    "eigh float16": lambda m: m.linalg.eigh(H(m)),
    "matrix_power -1 float16": lambda m: m.linalg.matrix_power(H(m), -1),
    "solve_triangular float16": lambda m: m.linalg.solve_triangular(H(m), HB(m), upper=True),
    "triangular_solve float16": lambda m: m.triangular_solve(HB(m), H(m)),
    "cholesky_solve float16": lambda m: m.cholesky_solve(HB(m), H(m)),
    "lstsq float16": lambda m: m.linalg.lstsq(H(m), HB(m)),
    "ldl_solve float16": lambda m: m.linalg.ldl_solve(H(m), m.arange(1, 4, dtype=m.int32), HB(m)),
    "tensorsolve float16": lambda m: m.linalg.tensorsolve(H(m), m.ones(3, dtype=m.float16)),
    "multi_dot float16": lambda m: m.linalg.multi_dot([H(m), H(m)]),
    "matmul float16": lambda m: m.matmul(H(m), H(m)),
    "matrix_norm fro float16": lambda m: m.linalg.matrix_norm(H(m)),
    "matrix_norm nuc float16": lambda m: m.linalg.matrix_norm(H(m), "nuc"),
    "matrix_norm 2 float16": lambda m: m.linalg.matrix_norm(H(m), 2),
    "norm float16": lambda m: m.linalg.norm(H(m)),
    "cond fro float16": lambda m: m.linalg.cond(H(m), "fro"),
    "cross float16": lambda m: m.linalg.cross(
        m.ones(3, dtype=m.float16), m.ones(3, dtype=m.float16)
    ),
    "vecdot float16": lambda m: m.linalg.vecdot(
        m.ones(3, dtype=m.float16), m.ones(3, dtype=m.float16)
    ),
    "cholesky upper float16": lambda m: m.cholesky(H(m), True),
    "pinv hermitian float16": lambda m: m.linalg.pinv(H(m), hermitian=True),
    "diag_embed float16": lambda m: m.diag_embed(H(m)),
    "pdist float16": lambda m: m.nn.functional.pdist(H(m)),
    "svd top float16": lambda m: m.svd(H(m)),
    "lu_unpack float16": lambda m: m.lu_unpack(H(m), m.arange(1, 4, dtype=m.int32)),
    "det top float16": lambda m: m.det(H(m)),
    "inverse float16": lambda m: m.inverse(H(m)),
    "qr top float16": lambda m: m.qr(H(m)),
    "orgqr float16": lambda m: m.orgqr(H(m), m.ones(2, dtype=m.float16)),
}


def _outcome(program: Callable[[Any], Any], lib: Any) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = program(lib)
        except Exception as error:
            base = next(t for t in _BUILTIN_ERRORS if isinstance(error, t))
            return f"raises {base.__name__}"
    first = result[0] if isinstance(result, tuple) else result
    return f"gives {str(first.dtype).split('.')[-1]}"


@pytest.mark.parametrize("name", list(CASES))
def test_outcome_matches_pytorch(name: str) -> None:
    program = CASES[name]
    assert _outcome(program, gg) == _outcome(program, torch)


ERRORS = {
    "ormqr other dtype": (
        lambda m: m.ormqr(m.ones(4, 2, dtype=m.float64), m.ones(2, dtype=m.float64), m.ones(4, 2)),
        "Expected input and other to have the same dtype",
    ),
    "ormqr tau dtype": (
        lambda m: m.ormqr(m.ones(4, 2, dtype=m.float64), m.ones(2), m.ones(4, 2, dtype=m.float64)),
        "Expected input and tau to have the same dtype",
    ),
    "ormqr tau size": (
        lambda m: m.ormqr(m.ones(4, 2), m.ones(3), m.ones(4, 2)),
        "tau.shape[-1] must be equal to min(other.shape[-2], input.shape[-1])",
    ),
    "ormqr tau rank": (
        lambda m: m.ormqr(m.ones(4, 2), m.ones(1, 2), m.ones(4, 2)),
        "Expected tau to have one dimension less than input",
    ),
    "ormqr 0-d tau": (
        lambda m: m.ormqr(m.ones(4, 2), m.ones(()), m.ones(4, 2)),
        "Dimension specified as -1 but tensor has no dimensions",
    ),
    "ormqr other rank": (
        lambda m: m.ormqr(m.ones(4, 2), m.ones(2), m.ones(1, 4, 2)),
        "Expected other to have the same number of dimensions as input",
    ),
    "ormqr tau batch": (
        lambda m: m.ormqr(m.ones(2, 4, 2), m.ones(3, 2), m.ones(2, 4, 2)),
        "Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]",
    ),
    "ormqr other batch": (
        lambda m: m.ormqr(m.ones(2, 4, 2), m.ones(2, 2), m.ones(3, 4, 2)),
        "Expected batch dimensions of other to be equal to input.shape[:-2], but got [3]",
    ),
    "ormqr from the right": (
        lambda m: m.ormqr(m.ones(4, 2), m.ones(2), m.ones(3, 3), left=False),
        "other.shape[-1] must be equal to input.shape[-2]",
    ),
    "ormqr integer": (
        lambda m: m.ormqr(*(m.ones(s, dtype=m.int64) for s in ((4, 2), (2,), (4, 2)))),
        "not implemented for 'Long'",
    ),
    "cdist integer": (
        lambda m: m.cdist(m.ones(2, 2), m.ones(2, 2, dtype=m.int64)),
        "cdist only supports floating-point dtypes, X2 got: Long",
    ),
    "cdist mixed": (
        lambda m: m.cdist(m.ones(2, 2), m.ones(2, 2, dtype=m.float64)),
        "expected scalar type Float but found Double",
    ),
    "lu_solve pivot 0": (
        lambda m: m.linalg.lu_solve(m.eye(3), m.zeros(3, dtype=m.int32), m.ones(3, 1)),
        "Pivots given to lu_solve must all be greater or equal to 1",
    ),
    "lu_solve pivot too large": (
        lambda m: m.linalg.lu_solve(m.eye(3), m.full((3,), 4, dtype=m.int32), m.ones(3, 1)),
        "Pivots given to lu_solve must all be smaller or equal to LU.size(-2)",
    ),
    "inv float16": (lambda m: m.linalg.inv(H(m)), "Low precision dtypes not supported. Got Half"),
    "cholesky float16": (lambda m: m.linalg.cholesky(H(m)), "not implemented for 'Half'"),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_error_messages_match_pytorch(name: str) -> None:
    program, words = ERRORS[name]
    assert_same_error(program, words)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_is_pytorchs_fused_kernel(dtype: str) -> None:
    """Fuzz seed 720031: PyTorch's cross kernel is compiled with fused multiply-add, each
    component fma(a, b, -(c * d)): cross(v, v) is the products' rounding error (-1.1e-9 for
    float32 [-0.383946, 0.06176, 1.33409]), not 0. Values and gradients bit for bit."""
    rng = np.random.default_rng(0)
    v = np.array([[-0.383946, 0.06176, 1.33409]])
    a = np.concatenate([v, rng.standard_normal((6, 3))])
    b = np.concatenate([v, rng.standard_normal((6, 3))])
    a[1, 0], b[2, 1] = np.inf, np.nan
    gradient = rng.standard_normal((7, 3))
    results = []
    for lib in (torch, gg):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.tensor(b, dtype=getattr(lib, dtype), requires_grad=True)
        out = lib.linalg.cross(x, y)
        out.backward(lib.tensor(gradient, dtype=out.dtype))
        results.append([t.detach().numpy() for t in (out, x.grad, y.grad)])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_array_equal(ours, theirs)
    assert results[1][0][0].any()  # cross(v, v) != 0
