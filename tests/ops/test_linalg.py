"""Linear algebra: what the registry's parity tests can't say.

Errors (type and PyTorch's message words: singular matrices, not positive-definite, non-square,
bad einsum equations, ...), the determinant's gradient at singular matrices (the cofactor
matrix), norms at zero and at ties, Cholesky's gradient on symmetric perturbations, in-place
addmm_/baddbmm_, result types, and einsum against NumPy over random equations. PyTorch runs
the same program; results are compared element by element.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glassgrad as gg
from glassgrad.ops._linalg_common import LinAlgError

from ._parity import same

LIBS = (gg, torch)
_BUILTIN_ERRORS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)


def numpy_of(t: Any) -> np.ndarray:
    return t.detach().numpy()


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    a, b = numpy_of(ours), numpy_of(theirs)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)


def compare(program: Callable[[Any, list], Any], *arrays: np.ndarray, second: bool = False):
    """Values, gradients (and with ``second``, second derivatives) agree with PyTorch."""
    results = []
    for lib in LIBS:
        leaves = [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]
        out = program(lib, leaves)
        c = lib.tensor(np.random.default_rng(7).standard_normal(tuple(out.shape)))
        grads = lib.autograd.grad((out * c).sum(), leaves, create_graph=second)
        row = [out, *grads]
        if second:
            w = [
                lib.tensor(np.random.default_rng(8).standard_normal(tuple(g.shape))) for g in grads
            ]
            total = sum((g * v).sum() for g, v in zip(grads, w))
            if total.requires_grad:
                second_grads = lib.autograd.grad(total, leaves, allow_unused=True)
            else:  # a linear op: the first derivative is constant
                second_grads = [None] * len(leaves)
            row += [lib.zeros_like(x) if g is None else g for g, x in zip(second_grads, leaves)]
        results.append(row)
    for a, b in zip(*results):
        assert_same(a, b, rtol=1e-8, atol=1e-10)


def assert_same_error(program: Callable[[Any], Any], *words: str) -> None:
    """Both libraries raise the same kind of error, and both messages contain ``words``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            program(torch)
    with pytest.raises(Exception) as ours:
        program(gg)
    base = next(t for t in _BUILTIN_ERRORS if isinstance(theirs.value, t))
    assert isinstance(ours.value, base), (ours.value, theirs.value)
    if isinstance(theirs.value, torch.linalg.LinAlgError):
        assert isinstance(ours.value, LinAlgError)
    for word in words:
        assert word in str(theirs.value), f"torch says: {theirs.value}"
        assert word in str(ours.value), f"glassgrad says: {ours.value}"


def singular(lib: Any) -> Any:
    return lib.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=lib.float64)


def singular_batch(lib: Any) -> Any:
    return lib.stack([lib.eye(2, dtype=lib.float64), singular(lib)])


def f64(lib: Any, *shape: int) -> Any:
    return lib.ones(*shape, dtype=lib.float64)


ERROR_CASES = {
    "inv singular": (
        lambda lib: lib.linalg.inv(singular(lib)),
        [
            "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed "
            "because the input matrix is singular."
        ],
    ),
    "inv singular batch": (
        lambda lib: lib.linalg.inv(singular_batch(lib)),
        ["(Batch element 1): The diagonal element 2 is zero"],
    ),
    "inverse singular": (
        lambda lib: lib.inverse(lib.zeros(3, 3)),
        ["The diagonal element 1 is zero", "the input matrix is singular"],
    ),
    "inv non-square": (
        lambda lib: lib.linalg.inv(f64(lib, 2, 3, 4)),
        ["linalg.inv: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "inv 1-d": (
        lambda lib: lib.linalg.inv(f64(lib, 3)),
        ["linalg.inv: The input tensor A must have at least 2 dimensions."],
    ),
    "inv integer": (
        lambda lib: lib.linalg.inv(lib.eye(2, dtype=lib.int64)),
        ["linalg.inv: Expected a floating point or complex tensor as input. Got Long"],
    ),
    "solve singular": (
        lambda lib: lib.linalg.solve(singular(lib), f64(lib, 2)),
        ["The solver failed because the input matrix is singular."],
    ),
    "solve singular batch": (
        lambda lib: lib.linalg.solve(singular_batch(lib), f64(lib, 2, 2)),
        ["(Batch element 1): The solver failed because the input matrix is singular."],
    ),
    "solve shapes": (
        lambda lib: lib.linalg.solve(f64(lib, 3, 3), f64(lib, 2)),
        ["linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)"],
    ),
    "solve shapes left=False": (
        lambda lib: lib.linalg.solve(f64(lib, 3, 3), f64(lib, 3, 2), left=False),
        ["Incompatible shapes of A and B for the equation XA = B (3x3 and 3x2)"],
    ),
    "solve non-square": (
        lambda lib: lib.linalg.solve(f64(lib, 3, 4), f64(lib, 3, 4)),
        ["linalg.solve: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "det non-square": (
        lambda lib: lib.linalg.det(f64(lib, 2, 3, 4)),
        ["linalg.det: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "torch.det non-square": (
        lambda lib: lib.det(f64(lib, 3, 4)),
        ["A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "det 1-d": (
        lambda lib: lib.linalg.det(f64(lib, 3)),
        ["linalg.det: The input tensor A must have at least 2 dimensions."],
    ),
    "det integer": (
        lambda lib: lib.linalg.det(lib.eye(2, dtype=lib.int64)),
        ["linalg.det: Expected a floating point or complex tensor as input. Got Long"],
    ),
    "slogdet non-square": (
        lambda lib: lib.linalg.slogdet(f64(lib, 3, 4)),
        ["linalg.slogdet: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "logdet non-square": (
        lambda lib: lib.logdet(f64(lib, 3, 4)),
        ["logdet: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "cholesky not positive-definite": (
        lambda lib: lib.linalg.cholesky(-lib.eye(3, dtype=lib.float64)),
        [
            "linalg.cholesky: The factorization could not be completed because the input is not "
            "positive-definite (the leading minor of order 1 is not positive-definite)."
        ],
    ),
    "cholesky minor of order 2": (
        lambda lib: lib.linalg.cholesky(lib.diag(lib.tensor([1.0, -1.0, 1.0]))),
        ["(the leading minor of order 2 is not positive-definite)"],
    ),
    "cholesky batch": (
        lambda lib: lib.linalg.cholesky(singular_batch(lib)),
        ["(Batch element 1): The factorization could not be completed"],
    ),
    "cholesky non-square": (
        lambda lib: lib.linalg.cholesky(f64(lib, 2, 3, 4)),
        ["linalg.cholesky: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "vector_norm integer": (
        lambda lib: lib.linalg.vector_norm(lib.ones(3, dtype=lib.int64)),
        ["linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"],
    ),
    "vector_norm inf of empty": (
        lambda lib: lib.linalg.vector_norm(lib.ones(0), math.inf),
        [
            "linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
            "operation does not have an identity"
        ],
    ),
    "vector_norm -inf of empty": (
        lambda lib: lib.linalg.vector_norm(lib.ones(0), -math.inf),
        ["cannot compute the -inf norm on an empty tensor"],
    ),
    "vector_norm -inf over an empty dim": (
        lambda lib: lib.linalg.vector_norm(lib.ones(2, 0), -math.inf, 1),
        [
            "linalg.vector_norm cannot compute the -inf norm on the dimension 1",
            "this dimension is empty and the operation does not have an identity",
        ],
    ),
    "vector_norm string ord": (
        lambda lib: lib.linalg.vector_norm(lib.ones(3), "fro"),
        ["argument 'ord' (position 2) must be Number, not str"],
    ),
    "vector_norm dim": (
        lambda lib: lib.linalg.vector_norm(lib.ones(3), 2, 1),
        ["Dimension out of range (expected to be in range of [-1, 0], but got 1)"],
    ),
    "matrix_norm 1-d": (
        lambda lib: lib.linalg.matrix_norm(lib.ones(3)),
        ["linalg.matrix_norm: The input tensor A must have at least 2 dimensions."],
    ),
    "matrix_norm order": (
        lambda lib: lib.linalg.matrix_norm(lib.ones(3, 3), 3),
        ["linalg.matrix_norm: Order 3 not supported."],
    ),
    "matrix_norm same dims": (
        lambda lib: lib.linalg.matrix_norm(lib.ones(2, 3, 4), dim=(1, 1)),
        ["linalg.matrix_norm: dims must be different. Got (1, 1)"],
    ),
    "norm 3-d with ord": (
        lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), 2),
        ["linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."],
    ),
    "norm three dims": (
        lambda lib: lib.linalg.norm(lib.ones(2, 3, 4), dim=(0, 1, 2)),
        ["linalg.norm: If dim is specified, it must be of length 1 or 2. Got [0, 1, 2]"],
    ),
    "norm fro of vector": (
        lambda lib: lib.linalg.norm(lib.ones(3), "fro"),
        ["linalg.matrix_norm: The input tensor A must have at least 2 dimensions."],
    ),
    "outer of matrix": (
        lambda lib: lib.outer(lib.ones(2, 2), lib.ones(2)),
        ["outer: Expected 1-D argument self, but got 2-D"],
    ),
    "einsum operand count": (
        lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 2)),
        ["einsum(): fewer operands were provided than specified in the equation"],
    ),
    "einsum too many operands": (
        lambda lib: lib.einsum("i->i", lib.ones(2), lib.ones(2)),
        ["einsum(): more operands were provided than specified in the equation"],
    ),
    "einsum subscripts": (
        lambda lib: lib.einsum("ij,jk->ik", lib.ones(3, 3), lib.ones(2, 3, 4)),
        [
            "einsum(): the number of subscripts in the equation (2) does not match the number of "
            "dimensions (3) for operand 1 and no ellipsis was given"
        ],
    ),
    "einsum repeated sizes": (
        lambda lib: lib.einsum("ii->i", lib.ones(2, 3)),
        ["einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"],
    ),
    "einsum broadcast": (
        lambda lib: lib.einsum("i,i->i", lib.ones(2), lib.ones(3)),
        [
            "einsum(): subscript i has size 3 for operand 1 which does not broadcast with "
            "previously seen size 2"
        ],
    ),
    "einsum unknown output": (
        lambda lib: lib.einsum("ij->k", lib.ones(2, 2)),
        ["einsum(): output subscript k does not appear in the equation for any input operand"],
    ),
    "einsum repeated output": (
        lambda lib: lib.einsum("ij->ii", lib.ones(2, 2)),
        ["einsum(): output subscript i appears more than once in the output"],
    ),
    "tensordot sizes": (
        lambda lib: lib.tensordot(lib.ones(3, 3), lib.ones(2, 3, 4), dims=([0], [0])),
        [
            "contracted dimensions need to match, but first has size 3 in dim 0 and second has "
            "size 2 in dim 0"
        ],
    ),
    "tensordot negative dims": (
        lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=-1),
        ["tensordot expects dims >= 0, but got dims=-1"],
    ),
    "tensordot too many dims": (
        lambda lib: lib.tensordot(lib.ones(2, 3), lib.ones(3, 2), dims=3),
        ["tensordot expects dims < ndim_a or ndim_b, but got dims=3"],
    ),
    "addmm input shape": (
        lambda lib: lib.addmm(lib.ones(3, 3), lib.ones(3, 3), lib.ones(3, 4)),
        [
            "The expanded size of the tensor (4) must match the existing size (3) at "
            "non-singleton dimension 1.  Target sizes: [3, 4].  Tensor sizes: [3, 3]"
        ],
    ),
    "addmm dtypes": (
        lambda lib: lib.addmm(lib.zeros(2), lib.ones(2, 2), f64(lib, 2, 2)),
        ["self and mat2 must have the same dtype, but got Float and Double"],
    ),
    "addmm shapes": (
        lambda lib: lib.addmm(lib.zeros(2), lib.ones(2, 3), lib.ones(2, 2)),
        ["mat1 and mat2 shapes cannot be multiplied (2x3 and 2x2)"],
    ),
    "baddbmm batch2": (
        lambda lib: lib.baddbmm(lib.ones(2, 3, 4), lib.ones(2, 3, 4), lib.ones(2, 3, 4)),
        ["Expected size for first two dimensions of batch2 tensor to be: [2, 4] but got: [2, 3]."],
    ),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERROR_CASES[name]
    assert_same_error(program, *words)


def test_linalg_error_is_a_runtime_error_as_in_pytorch() -> None:
    assert issubclass(LinAlgError, RuntimeError)
    assert issubclass(torch.linalg.LinAlgError, RuntimeError)
    with pytest.raises(LinAlgError):
        gg.linalg.solve(gg.zeros(2, 2), gg.ones(2))


# --- determinants ----------------------------------------------------------------------------


def _cofactor(a: np.ndarray) -> np.ndarray:
    """adj(A)^T by minors: the textbook definition, independent of the library's SVD route."""
    n = len(a)
    out = np.empty_like(a)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(a, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * np.linalg.det(minor)
    return out


@pytest.mark.parametrize(
    "matrix",
    [
        np.array([[1.0, 2.0], [2.0, 4.0]]),  # rank 1 of 2
        np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),  # rank 2 of 3
        np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [3.0, 6.0, 9.0]]),  # rank 1: zero gradient
        np.zeros((3, 3)),
    ],
    ids=["rank1of2", "rank2of3", "rank1of3", "zeros"],
)
def test_det_gradient_at_singular_matrices_is_the_cofactor_matrix(matrix: np.ndarray) -> None:
    """d det(A)/dA is the cofactor matrix, also where det(A) = 0. PyTorch 2.13 returns
    zeros at exactly singular matrices of rank n-1 (its LU route breaks down there); glassgrad
    returns the cofactor matrix, which finite differences confirm. Both agree (zero) at rank
    n-2 and below."""
    x = gg.tensor(matrix, requires_grad=True)
    gg.linalg.det(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), _cofactor(matrix), atol=1e-12)
    assert gg.autograd.gradcheck(gg.linalg.det, (gg.tensor(matrix, requires_grad=True),))
    batch = gg.tensor(np.stack([matrix, matrix + np.eye(len(matrix))]), requires_grad=True)
    gg.det(batch).sum().backward()
    np.testing.assert_allclose(batch.grad.numpy()[0], _cofactor(matrix), atol=1e-12)
    np.testing.assert_allclose(
        batch.grad.numpy()[1], _cofactor(matrix + np.eye(len(matrix))), atol=1e-10
    )
    theirs = torch.tensor(matrix, requires_grad=True)
    torch.linalg.det(theirs).backward()
    if np.linalg.matrix_rank(matrix) < len(matrix) - 1:
        np.testing.assert_array_equal(theirs.grad.numpy(), 0)
        np.testing.assert_allclose(x.grad.numpy(), 0, atol=1e-12)


SINGULAR_UNDER_GRAPH = {
    "rank 1 of 2": [[1.0, 2.0], [2.0, 4.0]],
    "rank 2 of 3": [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 1.0, 1.0]],
    "zero row": [[2.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 3.0]],
    "batch of singular and invertible": [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 2.0], [3.0, 4.0]]],
}


@pytest.mark.parametrize("name", list(SINGULAR_UNDER_GRAPH))
def test_det_derivatives_under_create_graph_at_singular_matrices_as_pytorch(name: str) -> None:
    """Under create_graph PyTorch takes the cofactor matrix from the SVD where |det A| < 100
    eps (matrix by matrix in a batch), so first and second derivatives exist there."""
    results = []
    for lib in LIBS:
        a = lib.tensor(SINGULAR_UNDER_GRAPH[name], dtype=lib.float64, requires_grad=True)
        (first,) = lib.autograd.grad(lib.linalg.det(a).sum(), a, create_graph=True)
        weights = lib.arange(first.numel(), dtype=lib.float64).reshape(first.shape)
        (second,) = lib.autograd.grad((first * weights).sum(), a)
        results.append((first.detach().numpy(), second.numpy()))
    (first, second), (their_first, their_second) = results
    np.testing.assert_allclose(first, their_first, atol=1e-12)
    np.testing.assert_allclose(second, their_second, atol=1e-12)


@pytest.mark.parametrize(
    "matrix",
    [[[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [2.0, 4.0]], [[0.0, 1.0], [0.0, 1.0]]],
    ids=["zeros", "rank1", "zero column"],
)
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("op", ["slogdet", "logdet"])
def test_log_determinant_gradient_at_singular_matrices_as_pytorch(
    matrix: list, layout: str, op: str
) -> None:
    """PyTorch's slogdet_backward solves with the LU its forward made (of A^T for a contiguous
    real A) and divides by the zero pivot: infinities and NaNs where it does, no error."""
    grads = []
    for lib in LIBS:
        data = lib.tensor(matrix, dtype=lib.float64)
        a = (data if layout == "contiguous" else data.T.contiguous().T).requires_grad_()
        result = lib.logdet(a) if op == "logdet" else lib.linalg.slogdet(a).logabsdet
        result.backward()
        grads.append(a.grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_logdet_of_negative_and_zero_determinants() -> None:
    for lib in LIBS:
        assert math.isnan(lib.logdet(lib.tensor([[-1.0, 0.0], [0.0, 1.0]])).item())
        assert lib.logdet(lib.zeros(2, 2)).item() == -math.inf


def test_slogdet_result_types_and_sign_output() -> None:
    x = np.random.default_rng(0).standard_normal((2, 3, 3))
    ours, theirs = gg.linalg.slogdet(gg.tensor(x)), torch.linalg.slogdet(torch.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ == "linalg_slogdet"
    assert type(gg.slogdet(gg.tensor(x))).__name__ == type(torch.slogdet(torch.tensor(x))).__name__
    assert_same(ours.sign, theirs.sign)
    assert_same(ours.logabsdet, theirs.logabsdet)
    for lib in LIBS:
        leaf = lib.tensor(x, requires_grad=True)
        sign, _ = lib.linalg.slogdet(leaf)
        assert sign.requires_grad  # as in PyTorch; a real sign has no gradient (undefined)
        assert lib.autograd.grad(sign.sum(), leaf, retain_graph=True, allow_unused=True) == (None,)
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad(sign.sum(), leaf)


# --- norms ---------------------------------------------------------------------------------


@pytest.mark.parametrize("ord", [2, 1, 3, 1.5, 0.5, math.inf, -math.inf])
def test_vector_norm_gradient_with_a_zero_row(ord: float) -> None:
    x = np.random.default_rng(1).standard_normal((3, 4))
    x[1] = 0.0
    if ord >= 1 or math.isinf(ord):
        compare(lambda lib, t: lib.linalg.vector_norm(t[0], ord, 1), x)
    else:  # PyTorch's p < 1 gradient is nan for a zero row; glassgrad matches where finite
        x[1] = 1.0
        compare(lambda lib, t: lib.linalg.vector_norm(t[0], ord, 1), x)


def test_inf_norm_ties_share_the_gradient_like_pytorch() -> None:
    x = np.array([[3.0, -3.0, 1.0], [2.0, -2.0, 2.0]])
    compare(lambda lib, t: lib.linalg.vector_norm(t[0], math.inf, 1), x)
    compare(lambda lib, t: lib.linalg.vector_norm(t[0], -math.inf), x)


def test_vector_norm_dtype_computes_in_that_dtype() -> None:
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    compare(lambda lib, t: lib.linalg.vector_norm(t[0], 2, 0, dtype=lib.float64), x)


def test_norm_dispatch_matches_pytorch() -> None:
    x = np.random.default_rng(3).standard_normal((3, 4))
    for args in [(), (None, 0), ("fro",), ("nuc",), (2,), (-1,), (math.inf, (1, 0)), (1, -1)]:
        compare(lambda lib, t, args=args: lib.linalg.norm(t[0], *args), x)


@pytest.mark.parametrize("ord", ["nuc", 2, -2])
def test_singular_value_norms_second_derivative(ord: Any) -> None:
    x = np.random.default_rng(4).standard_normal((2, 3, 4))
    compare(lambda lib, t: lib.linalg.matrix_norm(t[0], ord), x, second=True)


# --- cholesky, solve, inv -------------------------------------------------------------------


def _spd(seed: int, n: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((n, n))
    return m @ m.T + n * np.eye(n)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_of_a_symmetrized_parameter_matches_pytorch(upper: bool) -> None:
    """Through A = X X^T + n I every perturbation is symmetric; first and second
    derivatives with respect to X agree with PyTorch."""

    def program(lib: Any, t: list) -> Any:
        a = t[0] @ t[0].mT + 4 * lib.eye(4, dtype=lib.float64)
        return lib.linalg.cholesky(a, upper=upper)

    compare(program, np.random.default_rng(5).standard_normal((2, 4, 4)), second=True)


def test_cholesky_reconstructs_its_input() -> None:
    a = _spd(6, 5)
    lower = gg.linalg.cholesky(gg.tensor(a)).numpy()
    np.testing.assert_allclose(lower @ lower.T, a, rtol=1e-12)
    assert np.all(np.triu(lower, 1) == 0)


def test_inv_solve_second_derivatives_through_a_chain() -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 2))

    def program(lib: Any, t: list) -> Any:
        x = lib.linalg.solve(t[0], t[1])
        return lib.linalg.inv(t[0]) @ x + lib.logdet(t[0] @ t[0].mT)

    compare(program, a, b, second=True)


# --- addmm_, baddbmm_, outer, einsum --------------------------------------------------------


def test_inplace_addmm_and_baddbmm_match_pytorch() -> None:
    rng = np.random.default_rng(8)

    def program(lib: Any, t: list) -> Any:
        a = t[0] * 1.0
        a.addmm_(t[1], t[2], beta=0.5, alpha=-2.0)
        b = t[3] * 1.0
        b.baddbmm_(t[4], t[5], alpha=3.0)
        return a.sum() + b.sum() * a.mean()

    arrays = (
        rng.standard_normal((2, 4)),
        rng.standard_normal((2, 3)),
        rng.standard_normal((3, 4)),
        rng.standard_normal((2, 2, 4)),
        rng.standard_normal((2, 2, 3)),
        rng.standard_normal((2, 3, 4)),
    )
    compare(program, *arrays)


def test_addmm_with_beta_zero_ignores_nan_input() -> None:
    for lib in LIBS:
        out = lib.addmm(lib.tensor(math.nan), lib.ones(2, 2), lib.ones(2, 2), beta=0)
        assert out.tolist() == [[2.0, 2.0], [2.0, 2.0]]


def test_outer_graph_is_a_mul_of_a_view_as_in_pytorch() -> None:
    names = []
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        y = lib.ones(2, requires_grad=True)
        out = lib.outer(x, y)
        first = out.grad_fn.next_functions[0][0]
        names.append((type(out.grad_fn).__name__, type(first).__name__))
    assert names[0] == names[1] == ("MulBackward0", "ViewBackward0")


def test_einsum_takes_a_list_of_operands() -> None:
    a, b = np.random.randn(2, 3), np.random.randn(3, 4)
    compare(lambda lib, t: lib.einsum("ij,jk", [t[0], t[1]]), a, b)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_einsum_matches_pytorch_on_random_equations(data: Any) -> None:
    """Random equations over letters a-d: repeated letters, summed letters, implicit and
    explicit outputs; values, gradients and second derivatives."""
    sizes = {c: data.draw(st.integers(1, 3)) for c in "abcd"}
    count = data.draw(st.integers(1, 3))
    terms = [
        "".join(data.draw(st.lists(st.sampled_from("abcd"), min_size=0, max_size=3)))
        for _ in range(count)
    ]
    used = sorted(set("".join(terms)))
    if data.draw(st.booleans()):
        output = "".join(data.draw(st.permutations(used))[: data.draw(st.integers(0, len(used)))])
        equation = ",".join(terms) + "->" + output
    else:
        equation = ",".join(terms)
    arrays = [np.array(np.random.randn(*[sizes[c] for c in t])) for t in terms]
    compare(lambda lib, t: lib.einsum(equation, *t), *arrays, second=True)


def test_docstring_examples_run() -> None:
    import doctest

    from glassgrad.ops import blas, cholesky, determinants, inverses, linear_solve, norms, products

    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    modules = (products, blas, norms, determinants, inverses, linear_solve, cholesky)
    results = [doctest.testmod(m, extraglobs={"glassgrad": gg}, optionflags=flags) for m in modules]
    assert sum(r.attempted for r in results) > 10
    assert sum(r.failed for r in results) == 0


def _p0_grads(call: Callable[[Any, Any, Any], Any]) -> Callable[[Any], Any]:
    """The gradients of a 0-"norm" (a count of nonzeros) with respect to x and y."""

    def program(lib: Any) -> Any:
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        y = lib.tensor([1.0, 3.0, 2.0], requires_grad=True)
        return lib.autograd.grad(call(lib, x, y), (x, y), allow_unused=True)

    return program


# PyTorch's norm_backward returns an undefined gradient for p = 0: no gradient (None), not
# zeros; cdist's own backward gives zeros; dist's negates the undefined one for `other`.
P0_GRADIENTS = {
    "vector_norm": lambda L, x, y: L.linalg.vector_norm(x, 0) + y.sum(),
    "vector_norm dim keepdim": lambda L, x, y: L.linalg.vector_norm(x, 0.0, 0, True).sum(),
    "vector_norm complex": lambda L, x, y: L.linalg.vector_norm(x * (1 + 1j), 0),
    "torch.norm": lambda L, x, y: L.norm(x, 0),
    "linalg.norm": lambda L, x, y: L.linalg.norm(x, 0),
    "pairwise_distance": lambda L, x, y: L.nn.functional.pairwise_distance(x, y, 0),
    "cdist": lambda L, x, y: L.cdist(x[None], y[None], 0).sum(),
    "dist, input only": lambda L, x, y: L.dist(x, y.detach(), 0),
    "both paths": lambda L, x, y: L.linalg.vector_norm(x, 0) + (x * y).sum(),
}


@pytest.mark.parametrize("name", sorted(P0_GRADIENTS))
def test_zero_norm_gradients_are_pytorchs(name: str) -> None:
    same(_p0_grads(P0_GRADIENTS[name]))


def test_zero_norm_gradient_errors_and_leaves_are_pytorchs() -> None:
    def dist_of_both(L: Any) -> Any:
        a, b = L.ones(2, requires_grad=True), L.zeros(2, requires_grad=True)
        return L.autograd.grad(L.dist(a, b, 0), (a, b))

    assert_same_error(dist_of_both, "Expected a proper Tensor but got None")
    for lib in LIBS:
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        lib.linalg.vector_norm(x, 0).backward()
        assert x.grad is None
        with pytest.raises(RuntimeError, match="at index 0 appears to not have been used"):
            lib.autograd.grad(lib.linalg.vector_norm(x, 0), x)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("where", [(1, 1), (1, 0), (0, 1), (2, 0), (0, 0)])
def test_cholesky_of_a_matrix_holding_nan_refuses_as_lapack(where: tuple, upper: bool) -> None:
    """LAPACK's potrf stops at a NaN pivot (NumPy's build computes on): linalg.cholesky
    raises PyTorch's not-positive-definite error naming the minor, cholesky_ex gives its
    info and partial factor (a NaN in the triangle not read changes nothing)."""
    a = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 2.0]])
    a[where] = np.nan

    def factor(lib: Any) -> tuple:
        result = lib.linalg.cholesky_ex(lib.tensor(a), upper=upper)
        return result.L.numpy(), int(result.info)

    def outcome(lib: Any) -> str:
        try:
            return repr(lib.linalg.cholesky(lib.tensor(a), upper=upper).tolist())
        except RuntimeError as exc:
            return str(exc)

    (ours, our_info), (theirs, their_info) = factor(gg), factor(torch)
    np.testing.assert_array_equal(ours, theirs)
    assert our_info == their_info
    assert outcome(gg) == outcome(torch)
