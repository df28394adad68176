"""Decompositions and triangular solvers: what the registry's parity tests can't say.

PyTorch's errors for bad input, ``out=`` (written, resized with PyTorch's warning, refused
under autograd), gradients of eigh on symmetric inputs by finite differences (the registry's
finite-difference check moves both triangles while eigh reads one), reconstructions, and the
behaviour at singular triangular systems.
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


def _square(lib: Any) -> Any:
    return lib.tensor([[2.0, 1.0, 0.5], [0.3, 3.0, 1.0], [0.1, 0.2, 4.0]], dtype=lib.float64)


ERROR_CASES = {
    "svd integer": (
        lambda lib: lib.linalg.svd(lib.ones(2, 2, dtype=lib.int64)),
        ["linalg.svd: Expected a floating point or complex tensor as input. Got Long"],
    ),
    "svd 1-d": (
        lambda lib: lib.linalg.svd(f64(lib, 3)),
        ["linalg.svd: The input tensor A must have at least 2 dimensions."],
    ),
    "svd driver": (
        lambda lib: lib.linalg.svd(f64(lib, 3, 3), driver="gesvd"),
        ["keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."],
    ),
    "svdvals 1-d": (
        lambda lib: lib.linalg.svdvals(f64(lib, 3)),
        ["linalg.svd: The input tensor A must have at least 2 dimensions."],
    ),
    "torch.svd 1-d": (
        lambda lib: lib.svd(f64(lib, 3)),
        ["linalg.svd: input should have at least 2 dimensions, but has 1 dimensions instead"],
    ),
    "qr mode": (
        lambda lib: lib.linalg.qr(f64(lib, 3, 3), mode="full"),
        [
            "qr received unrecognized mode 'full' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        ],
    ),
    "qr integer": (
        lambda lib: lib.linalg.qr(lib.ones(2, 2, dtype=lib.int64)),
        ["linalg.qr: Expected a floating point or complex tensor as input. Got Long"],
    ),
    "qr backward of mode r": (
        lambda lib: lib.linalg.qr(f64(lib, 3, 3).requires_grad_(), mode="r")[1].sum().backward(),
        ["The derivative of linalg.qr depends on Q, which is not computed when mode='r'"],
    ),
    "qr backward complete tall": (
        lambda lib: (
            lib.linalg.qr(lib.eye(3, 2, dtype=lib.float64).requires_grad_(), "complete")[0]
            .sum()
            .backward()
        ),
        ["The QR decomposition is not differentiable when mode='complete' and nrows > ncols."],
    ),
    "eigh non-square": (
        lambda lib: lib.linalg.eigh(f64(lib, 2, 3, 4)),
        ["linalg.eigh: A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "eigh UPLO": (
        lambda lib: lib.linalg.eigh(f64(lib, 3, 3), UPLO="X"),
        ["Expected UPLO argument to be 'L' or 'U', but got X"],
    ),
    "eigvalsh integer": (
        lambda lib: lib.linalg.eigvalsh(lib.ones(2, 2, dtype=lib.int64)),
        ["\"linalg_eigh_cpu\" not implemented for 'Long'"],
    ),
    "solve_triangular integer": (
        lambda lib: lib.linalg.solve_triangular(
            lib.ones(2, 2, dtype=lib.int64), lib.ones(2, 2, dtype=lib.int64), upper=True
        ),
        ["\"triangular_solve_cpu\" not implemented for 'Long'"],
    ),
    "triangular_solve dtypes": (
        lambda lib: lib.triangular_solve(lib.ones(3, 2), f64(lib, 3, 3)),
        [
            "Expected b and A to have the same dtype, but found b of type Float and A of type "
            "Double instead."
        ],
    ),
    "solve_triangular shapes": (
        lambda lib: lib.linalg.solve_triangular(f64(lib, 3, 3), f64(lib, 4, 2), upper=True),
        ["linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B"],
    ),
    "solve_triangular left=False shapes": (
        lambda lib: lib.linalg.solve_triangular(
            f64(lib, 3, 3), f64(lib, 3, 2), upper=True, left=False
        ),
        ["Incompatible shapes of A and B for the equation XA = B"],
    ),
    "solve_triangular non-square": (
        lambda lib: lib.linalg.solve_triangular(f64(lib, 3, 4), f64(lib, 3, 2), upper=True),
        ["A must be batches of square matrices, but they are 3 by 4 matrices"],
    ),
    "solve_triangular vector B": (
        lambda lib: lib.linalg.solve_triangular(f64(lib, 3, 3), f64(lib, 3), upper=True),
        ["linalg.solve_triangular: The input tensor B must have at least 2 dimensions."],
    ),
    "solve_triangular upper is required": (
        lambda lib: lib.linalg.solve_triangular(f64(lib, 3, 3), f64(lib, 3, 2)),
        ["upper"],
    ),
    "triangular_solve 1-d b": (
        lambda lib: lib.triangular_solve(f64(lib, 3), f64(lib, 3, 3)),
        ["torch.triangular_solve: Expected b to have at least 2 dimensions, but it has 1"],
    ),
    "triangular_solve sizes": (
        lambda lib: lib.triangular_solve(f64(lib, 2, 2), f64(lib, 3, 3)),
        ["Incompatible matrix sizes for triangular_solve: each A matrix is 3 by 3 but each b"],
    ),
    "out requires grad": (
        lambda lib: lib.linalg.svdvals(
            f64(lib, 3, 3).requires_grad_(), out=lib.empty(0, dtype=lib.float64)
        ),
        [
            "_linalg_svd(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        ],
    ),
    "out of another dtype": (
        lambda lib: lib.linalg.eigvalsh(f64(lib, 3, 3), out=lib.empty(3)),
        ["Expected out tensor to have dtype double, but got float instead"],
    ),
    "out not a tensor": (
        lambda lib: lib.linalg.svdvals(f64(lib, 3, 3), out=[1]),
        ["linalg_svdvals(): argument 'out' must be Tensor, not list"],
    ),
    "out not a tuple": (
        lambda lib: lib.svd(f64(lib, 3, 3), out=lib.empty(0)),
        ["svd(): argument 'out' must be tuple of Tensors, not Tensor"],
    ),
    "out tuple length": (
        lambda lib: lib.linalg.qr(f64(lib, 3, 3), out=(lib.empty(0),)),
        ["expected tuple of 2 elements but got 1"],
    ),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_pytorch(name: str) -> None:
    program, words = ERROR_CASES[name]
    assert_same_error(program, *words)


OUT_CASES = {
    "linalg.svd": lambda lib, a, out: lib.linalg.svd(a, False, out=out),
    "svd": lambda lib, a, out: lib.svd(a, out=out),
    "linalg.qr": lambda lib, a, out: lib.linalg.qr(a, out=out),
    "qr": lambda lib, a, out: lib.qr(a, False, out=out),
    "eigh": lambda lib, a, out: lib.linalg.eigh(a + a.mT, out=out),
    "triangular_solve": lambda lib, a, out: lib.triangular_solve(a, a, out=out),
}


@pytest.mark.parametrize("name", list(OUT_CASES))
def test_out_writes_into_the_given_tensors(name: str) -> None:
    results = []
    for lib in (gg, torch):
        a = _square(lib)
        reference = OUT_CASES[name](lib, a, None)
        outs = tuple(lib.empty(0, dtype=lib.float64) for _ in reference)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            returned = OUT_CASES[name](lib, a, outs)
        assert type(returned).__name__.removesuffix("_out") == type(reference).__name__
        assert all(r is o for r, o in zip(returned, outs))
        results.append(outs)
    for ours, theirs in zip(*results):
        assert_same(ours, theirs)


def test_out_of_another_shape_is_resized_with_pytorchs_warning() -> None:
    messages = []
    for lib in (gg, torch):
        out = lib.zeros(2, dtype=lib.float64)
        view_before = out
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.linalg.solve_triangular(_square(lib), _square(lib), upper=True, out=out)
        assert out is view_before and tuple(out.shape) == (3, 3)
        messages.append([str(w.message) for w in caught])
    assert len(messages[0]) == len(messages[1]) == 1
    assert messages[1][0].startswith(messages[0][0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an out of the right shape is written silently
        out = gg.zeros(3, dtype=gg.float64)
        gg.linalg.svdvals(_square(gg), out=out)
    assert out._version == 1


def test_out_is_allowed_without_grad_mode() -> None:
    a = _square(gg).requires_grad_()
    out = gg.empty(0, dtype=gg.float64)
    with gg.no_grad():
        gg.linalg.eigvalsh(a, out=out)
    assert not out.requires_grad
    np.testing.assert_allclose(out.numpy(), np.linalg.eigvalsh(a.detach().numpy()))


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_gradients_of_symmetric_inputs_by_finite_differences(uplo: str) -> None:
    """Through A + A^T every entry counts once per triangle, so finite differences apply."""
    rng = np.random.default_rng(0)
    a = gg.tensor(rng.standard_normal((2, 4, 4)), requires_grad=True)

    def values_and_abs_vectors(x: Any) -> tuple:
        values, vectors = gg.linalg.eigh(x + x.mT, UPLO=uplo)
        return values, vectors.abs()

    assert gg.autograd.gradcheck(values_and_abs_vectors, (a,))
    assert gg.autograd.gradgradcheck(values_and_abs_vectors, (a,))
    assert gg.autograd.gradcheck(lambda x: gg.linalg.eigvalsh(x + x.mT, uplo), (a,))


def test_eigh_reads_only_the_named_triangle() -> None:
    rng = np.random.default_rng(1)
    m = rng.standard_normal((3, 3))
    for uplo, triangle in (("L", np.tril), ("U", np.triu)):
        full = triangle(m) + triangle(m, -1 if uplo == "L" else 1).T
        ours = gg.linalg.eigvalsh(gg.tensor(m), UPLO=uplo).numpy()
        np.testing.assert_allclose(ours, np.linalg.eigvalsh(full), atol=1e-12)


def test_decompositions_reconstruct_their_input() -> None:
    rng = np.random.default_rng(2)
    a = gg.tensor(rng.standard_normal((2, 5, 3)))
    u, s, vh = gg.linalg.svd(a)
    np.testing.assert_allclose((u[..., :3] * s.unsqueeze(-2) @ vh).numpy(), a.numpy(), atol=1e-12)
    u, s, v = gg.svd(a, some=False)
    assert tuple(u.shape) == (2, 5, 5) and tuple(v.shape) == (2, 3, 3)
    q, r = gg.linalg.qr(a, "complete")
    np.testing.assert_allclose((q @ r).numpy(), a.numpy(), atol=1e-12)
    np.testing.assert_allclose(r.numpy(), np.triu(r.numpy()))


def test_svd_without_uv_returns_zero_filled_factors_as_pytorch() -> None:
    for lib in (gg, torch):
        a = lib.ones(4, 2, dtype=lib.float64, requires_grad=True)
        u, s, v = lib.svd(a, compute_uv=False)
        assert tuple(u.shape) == (4, 4) and tuple(v.shape) == (2, 2)
        assert not u.requires_grad and not v.requires_grad and s.requires_grad
        assert not u.detach().numpy().any()


def test_triangular_solve_with_a_zero_on_the_diagonal_gives_inf_not_an_error() -> None:
    rows = [[1.0, 2.0], [0.0, 0.0]]
    results = [
        lib.linalg.solve_triangular(
            lib.tensor(rows, dtype=lib.float64), lib.ones(2, 1, dtype=lib.float64), upper=True
        )
        for lib in (gg, torch)
    ]
    for ours, theirs in zip(results[0].numpy().ravel(), results[1].numpy().ravel()):
        assert (np.isinf(ours) and np.isinf(theirs)) or (np.isnan(ours) and np.isnan(theirs))


def test_empty_matrices_match_pytorch() -> None:
    for shape in ((0, 3), (3, 0), (2, 0, 0)):
        for name in ("svd", "qr"):
            ours = getattr(gg.linalg, name)(gg.zeros(*shape, dtype=gg.float64))
            theirs = getattr(torch.linalg, name)(torch.zeros(*shape, dtype=torch.float64))
            assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs], (shape, name)


LU_ERRORS = {
    "lu_factor singular": (
        lambda lib: lib.linalg.lu_factor(lib.tensor([[1.0, 2.0], [2.0, 4.0]])),
        [
            "torch.linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a "
            "division by zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        ],
    ),
    "lu_factor singular batch": (
        lambda lib: lib.linalg.lu_factor(lib.stack([lib.eye(2), lib.zeros(2, 2)])),
        ["torch.linalg.lu_factor: (Batch element 1): U[1,1] is zero"],
    ),
    "lu_factor_ex check_errors": (
        lambda lib: lib.linalg.lu_factor_ex(lib.zeros(2, 2), check_errors=True),
        ["torch.linalg.lu_factor_ex: U[1,1] is zero"],
    ),
    "lu_factor without pivoting": (
        lambda lib: lib.linalg.lu_factor(lib.eye(2), pivot=False),
        ["linalg.lu_factor: LU without pivoting is not implemented on the CPU"],
    ),
    "lu without pivoting": (
        lambda lib: lib.linalg.lu(lib.eye(2), pivot=False),
        ["linalg.lu_factor: LU without pivoting is not implemented on the CPU"],
    ),
    "lu_factor integer": (
        lambda lib: lib.linalg.lu_factor(lib.eye(2, dtype=lib.int64)),
        ["\"lu_cpu\" not implemented for 'Long'"],
    ),
    "lu_factor 1-d": (
        lambda lib: lib.linalg.lu_factor(lib.ones(2)),
        ["torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [2] instead"],
    ),
    "lu 1-d": (
        lambda lib: lib.linalg.lu(lib.ones(2)),
        ["linalg.lu: Expected tensor with 2 or more dimensions. Got size: [2] instead"],
    ),
    "lu_solve shapes": (
        lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)), lib.ones(2, 1)),
        ["linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 2x1)"],
    ),
    "lu_solve non-square": (
        lambda lib: lib.linalg.lu_solve(
            lib.ones(3, 2), lib.ones(2, dtype=lib.int32), lib.ones(3, 1)
        ),
        ["torch.linalg.lu_solve: A must be batches of square matrices, but they are 3 by 2"],
    ),
    "lu_solve pivots dtype": (
        lambda lib: lib.linalg.lu_solve(lib.eye(3), lib.ones(3, dtype=lib.int64), lib.ones(3, 1)),
        ["linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32"],
    ),
    "lu_solve vector B": (
        lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)), lib.ones(3)),
        ["linalg.lu_solve: The input tensor B must have at least 2 dimensions."],
    ),
    "lu_solve dtypes": (
        lambda lib: lib.linalg.lu_solve(*lib.linalg.lu_factor(lib.eye(3)), f64(lib, 3, 1)),
        [
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            "Float and B of type Double instead"
        ],
    ),
    "lu_unpack pivots dtype": (
        lambda lib: lib.lu_unpack(lib.eye(3), lib.ones(3, dtype=lib.int64)),
        ["torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32"],
    ),
    "lu_unpack pivots": (
        # (pivots of the wrong length read past their end in PyTorch: not a stable error)
        lambda lib: lib.lu_unpack(lib.eye(3), lib.tensor([4, 1, 1], dtype=lib.int32)),
        ["pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive."],
    ),
}


@pytest.mark.parametrize("name", list(LU_ERRORS))
def test_lu_errors_match_pytorch(name: str) -> None:
    program, words = LU_ERRORS[name]
    assert_same_error(program, *words)


@pytest.mark.parametrize(
    "pivots",
    [[1, 2, 3], [4, 1, 1], [1, 2], [1.0, 2.0, 3.0]],
    ids=["int64", "out of range", "short", "float"],
)
@pytest.mark.parametrize("unpack_data", [True, False])
def test_lu_unpack_without_pivots_does_not_check_them(pivots: list, unpack_data: bool) -> None:
    """PyTorch checks the pivots (dtype, range) only when it unpacks them into P."""
    a = np.array([[2.0, 1.0, 0.5], [0.5, 3.0, 1.0], [0.25, 0.5, 4.0]])
    ours = gg.lu_unpack(gg.tensor(a), gg.tensor(pivots), unpack_data, False)
    theirs = torch.lu_unpack(torch.tensor(a), torch.tensor(pivots), unpack_data, False)
    for x, y in zip(ours, theirs):
        assert_same(x, y)


def test_lu_unpack_checks_the_data_rank_before_the_pivots() -> None:
    assert_same_error(
        lambda lib: lib.lu_unpack(lib.ones(3), lib.tensor([1, 2, 3])),
        "torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: [3] instead",
    )


@pytest.mark.parametrize("shape", [(4, 4), (2, 5, 5), (5, 3), (3, 5)])
def test_lu_factors_match_lapack_and_reconstruct(shape: tuple) -> None:
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shape)
    ours = gg.linalg.lu_factor_ex(gg.tensor(a))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
    for x, y in zip(ours, theirs):
        assert_same(x, y)
    p, lower, upper = gg.linalg.lu(gg.tensor(a))
    np.testing.assert_allclose((p @ lower @ upper).numpy(), a, atol=1e-12)


def test_lu_of_a_singular_matrix_reports_the_first_zero_pivot() -> None:
    a = np.array([[[0.0, 1.0], [0.0, 2.0]], [[1.0, 2.0], [3.0, 4.0]], [[0.0, 0.0], [0.0, 0.0]]])
    ours = gg.linalg.lu_factor_ex(gg.tensor(a))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(a))
    for x, y in zip(ours, theirs):
        assert_same(x, y)


def test_deprecated_lu_functions_warn_as_pytorch() -> None:
    a = _square(gg)
    for call in (
        lambda: gg.lu(a),
        lambda: gg.lu_solve(a, *gg.linalg.lu_factor(a)),
        lambda: gg.qr(a),
        lambda: gg.triangular_solve(a, a),
    ):
        with pytest.warns(UserWarning, match="is deprecated in favor of torch.linalg"):
            call()


@pytest.mark.parametrize(
    "module",
    [
        "decompositions",
        "solvers",
        "lu",
        "lu_solve",
        "cholesky",
        "inverses",
        "pseudoinverse",
        "matrix_functions",
        "products",
        "householder",
    ],
)
def test_docstring_examples_run(module: str) -> None:
    import doctest
    import importlib

    mod = importlib.import_module(f"glassgrad.ops.{module}")
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the deprecated names' warnings
        result = doctest.testmod(mod, extraglobs={"glassgrad": gg}, optionflags=flags)
    assert result.attempted >= 3 and result.failed == 0


def test_lus_permutation_made_to_require_grad_is_reached_by_the_double_backward() -> None:
    """Fuzz seed 300381: PyTorch saves linalg.lu's P (not differentiable, a leaf) as the
    tensor itself; ``P.requires_grad_()`` afterwards makes the backward's graph reach it."""
    results = []
    for lib in (torch, gg):
        a = _square(lib).requires_grad_()
        p, lower, upper = lib.linalg.lu(a)
        p.requires_grad_()
        loss = (p * 1.5).sum() + (lower * 2 + upper * 3).sum()
        (grad,) = lib.autograd.grad(loss, a, create_graph=True)
        second = lib.autograd.grad((grad * grad).sum(), [a, p], allow_unused=True)
        results.append([None if g is None else g.detach().numpy() for g in second])
    assert results[1][1] is not None
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("outputs", [(0,), (2,), (0, 1), (1, 2), (0, 1, 2)])
@pytest.mark.parametrize("matrix", ["zeros", "identity", "wide identity", "tall rank 1"])
def test_svd_backward_at_repeated_singular_values_as_pytorch(matrix: str, outputs: tuple) -> None:
    """PyTorch's svd_backward divides by E = S_k^2 - S_j^2 wherever gU or gVh is defined, even
    when it is zero: 0 / 0 is NaN at repeated singular values (glassgrad skipped a zero
    gradient), and an undefined gradient's term is left out, in PyTorch's order."""
    a = {
        "zeros": np.zeros((3, 3)),
        "identity": 2 * np.eye(3),
        "wide identity": np.eye(2, 3),
        "tall rank 1": np.outer([1.0, 2.0, 0.0], [1.0, 1.0]),
    }[matrix]
    grads = []
    for lib in (gg, torch):
        x = lib.tensor(a, requires_grad=True)
        factors = lib.linalg.svd(x, full_matrices=False)
        chosen = [factors[i] for i in outputs]
        (grad,) = lib.autograd.grad(chosen, x, [lib.zeros_like(f) for f in chosen])
        grads.append(grad.numpy())
    np.testing.assert_array_equal(*grads)


def test_second_derivative_of_det_at_the_zero_matrix_is_pytorchs_nan() -> None:
    """det's create_graph gradient at a singular matrix goes through the SVD (PyTorch's
    cofactor formula); at the zero matrix every singular value is 0, so the SVD's backward
    divides 0 by 0."""
    results = []
    for lib in (gg, torch):
        a = lib.zeros(3, 3, dtype=lib.float64, requires_grad=True)
        (first,) = lib.autograd.grad(lib.linalg.det(a), a, create_graph=True)
        (second,) = lib.autograd.grad((first * lib.arange(9.0).reshape(3, 3)).sum(), a)
        results.append((first.detach().numpy(), second.numpy()))
    (first, second), (their_first, their_second) = results
    np.testing.assert_array_equal(first, their_first)
    np.testing.assert_array_equal(second, their_second)


@pytest.mark.parametrize("given", ["values", "vectors", "both"])
@pytest.mark.parametrize("op", ["eigh", "eig"])
def test_eigen_backward_at_a_repeated_eigenvalue_with_zero_gradients_as_pytorch(
    op: str, given: str
) -> None:
    """As the SVD's: a defined but zero gV divides by E (NaN at a repeated eigenvalue), a
    defined gL replaces the diagonal, an undefined one leaves it."""
    a = np.diag([2.0, 2.0, 3.0])
    grads = []
    for lib in (gg, torch):
        x = lib.tensor(a, requires_grad=True)
        values, vectors = getattr(lib.linalg, op)(x)
        chosen = {"values": [values], "vectors": [vectors], "both": [values, vectors]}[given]
        (grad,) = lib.autograd.grad(chosen, x, [lib.zeros_like(f) for f in chosen])
        grads.append(grad.numpy())
    np.testing.assert_array_equal(*grads)


@pytest.mark.parametrize("op", ["eig", "eigvals"])
def test_eig_of_a_matrix_holding_nan_or_inf_raises_pytorchs_error(op: str) -> None:
    """PyTorch's check is in linalg.eig, which eigvals calls when A requires grad (without
    grad, its eigvals gives MKL's output after a DGEBAL error, or crashes: not compared)."""
    a = np.eye(3)
    a[0, 1] = np.inf
    for lib in (gg, torch):
        with pytest.raises(RuntimeError, match=r"^torch\.linalg\.eig: input tensor should not"):
            getattr(lib.linalg, op)(lib.tensor(a, requires_grad=True))
