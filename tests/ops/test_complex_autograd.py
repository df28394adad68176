"""Complex autograd against PyTorch (conjugate Wirtinger convention): the complex-analytic
ops (matmul and the products, exp, pow, the trigonometric family ...), vdot and vecdot,
the reductions mean, var, std, var_mean, std_mean and logsumexp, view_as_real /
view_as_complex, and linear algebra: eig / eigvals, inv, det, slogdet, logdet, solve,
solve_triangular, cholesky, cholesky_solve, cholesky_inverse, qr, lu, lu_solve, eigh, svd,
pinv, matrix_exp, matrix_power, the vector and matrix norms (first and second order),
matrix_rank; lerp, logaddexp, logcumsumexp, normalize, l1_loss, triangular_solve; Tensor.H /
mH; and what PyTorch refuses for complex (silu and soft_margin_loss autograd, interpolate)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from ._parity import same, same_error

_RNG = np.random.default_rng(16)
_A = _RNG.standard_normal((3, 3)) + 1j * _RNG.standard_normal((3, 3))
_B = _RNG.standard_normal((3, 3)) + 1j * _RNG.standard_normal((3, 3))
_R = _RNG.standard_normal((3, 3))

PROGRAMS = {
    "matmul": lambda L, a, b: a @ b,
    "mm": lambda L, a, b: L.mm(a, b),
    "bmm": lambda L, a, b: L.bmm(a[None], b[None]),
    "mv": lambda L, a, b: L.mv(a, b[0]),
    "dot": lambda L, a, b: L.dot(a[0], b[0]),
    "vdot": lambda L, a, b: L.vdot(a[0], b[0]),
    "vecdot": lambda L, a, b: L.linalg.vecdot(a, b),
    "addmm": lambda L, a, b: L.addmm(a, a, b),
    "addmv": lambda L, a, b: L.addmv(a[0], a, b[1]),
    "addr": lambda L, a, b: L.addr(a, a[0], b[1]),
    "einsum": lambda L, a, b: L.einsum("ij,jk->ik", a, b),
    "tensordot": lambda L, a, b: L.tensordot(a, b, 1),
    "kron": lambda L, a, b: L.kron(a, b),
    "inner": lambda L, a, b: L.inner(a, b),
    "cross": lambda L, a, b: L.linalg.cross(a, b),
    "exp": lambda L, a, b: L.exp(a),
    "pow 2": lambda L, a, b: a**2,
    "pow 2.5": lambda L, a, b: a**2.5,
    "pow tensor": lambda L, a, b: a**b,
    "pow of number": lambda L, a, b: 2**a,
    "log": lambda L, a, b: L.log(a),
    "sqrt": lambda L, a, b: L.sqrt(a),
    "rsqrt": lambda L, a, b: L.rsqrt(a),
    "reciprocal": lambda L, a, b: L.reciprocal(a),
    "sigmoid": lambda L, a, b: L.sigmoid(a),
    "sin cos tan": lambda L, a, b: L.sin(a) + L.cos(b) + L.tan(a),
    "hyperbolic": lambda L, a, b: L.sinh(a) + L.cosh(b) + L.tanh(a),
    "inverse trigonometric": lambda L, a, b: L.asin(a) + L.acos(b) + L.atan(a),
    "inverse hyperbolic": lambda L, a, b: L.asinh(a) + L.acosh(b) + L.atanh(a),
    "logs and exps": lambda L, a, b: L.log2(a) + L.log10(b) + L.log1p(a) + L.exp2(b) + L.expm1(a),
    "sinc": lambda L, a, b: L.sinc(a),
    "prod cumprod": lambda L, a, b: a.prod(0) + L.cumprod(b, 1).sum(0),
    "addcmul addcdiv": lambda L, a, b: L.addcmul(a, a, b) + L.addcdiv(b, a, b),
    "view_as_real": lambda L, a, b: L.view_as_real(a * b),
    "view_as_complex": lambda L, a, b: L.view_as_complex(L.view_as_real(a).exp()),
    "mean": lambda L, a, b: a.mean() + b.mean(1),
    "var": lambda L, a, b: a.var() + b.var(1, correction=0),
    "std": lambda L, a, b: a.std(0) + L.std(b, 1, keepdim=True).squeeze(1),
    "var_mean": lambda L, a, b: sum(L.var_mean(a @ b, 1)),
    "std_mean": lambda L, a, b: sum(L.std_mean(a * b, (0, 1), correction=2)),
    "logsumexp": lambda L, a, b: L.logsumexp(a, 1) + L.logsumexp(b * 300, (0, 1)),
    "inv": lambda L, a, b: L.linalg.inv(a) + L.inverse(b),
    "inv_ex": lambda L, a, b: L.linalg.inv_ex(a @ b).inverse,
    "det": lambda L, a, b: L.linalg.det(a) + L.det(a @ b),
    "slogdet": lambda L, a, b: L.linalg.slogdet(a).sign * L.linalg.slogdet(b).logabsdet,
    "slogdet logabsdet": lambda L, a, b: L.slogdet(a @ b)[1],
    "logdet": lambda L, a, b: L.logdet(a),
    "solve": lambda L, a, b: L.linalg.solve(a, b) + L.linalg.solve(b, a[0])[None],
    "solve left=False": lambda L, a, b: L.linalg.solve(a, b, left=False),
    "vector_norm": lambda L, a, b: L.linalg.vector_norm(a) + L.linalg.vector_norm(b, 1, 0),
    "vector_norm p": lambda L, a, b: L.linalg.vector_norm(a, 3, 1) + L.linalg.vector_norm(b, 1.5),
    "vector_norm inf": lambda L, a, b: L.linalg.vector_norm(a, float("inf"), 1),
    "matrix_norm": lambda L, a, b: L.linalg.matrix_norm(a) + L.linalg.matrix_norm(b, 1),
    "norm": lambda L, a, b: L.linalg.norm(a, dim=1) + L.norm(b, 3, 0) + L.dist(a, b),
    "cholesky": lambda L, a, b: (
        L.linalg.cholesky(a @ a.mH + L.eye(3)) + L.linalg.cholesky(b @ b.mH + L.eye(3), upper=True)
    ),
    "cholesky_ex": lambda L, a, b: L.linalg.cholesky_ex(a @ b @ (a @ b).mH + L.eye(3)).L,
    "qr": lambda L, a, b: L.linalg.qr(a).Q + L.linalg.qr(a @ b).R,
    "qr wide": lambda L, a, b: (lambda q, r: r.mH @ q)(*L.linalg.qr(a[:2])),
    "qr tall": lambda L, a, b: (lambda q, r: q @ r)(*L.linalg.qr(L.cat([a, b[:1]]))),
    "eigh": lambda L, a, b: (lambda w, v: v @ L.diag(w.to(v.dtype)) @ v.mH + v.abs())(
        *L.linalg.eigh(a + a.mH)
    ),
    "eigvalsh": lambda L, a, b: L.linalg.eigvalsh(a @ b + (a @ b).mH, UPLO="U"),
    "svd": lambda L, a, b: (lambda u, s, vh: u @ vh + u.abs() + s)(
        *L.linalg.svd(a, full_matrices=False)
    ),
    "svd wide, full": lambda L, a, b: (lambda u, s, vh: u @ vh[:2])(*L.linalg.svd(a[:2])),
    "svd tall": lambda L, a, b: (lambda u, s, vh: u @ vh)(
        *L.linalg.svd(L.cat([a, b[:1]]), full_matrices=False)
    ),
    "svd_top": lambda L, a, b: (lambda u, s, v: u @ v.mH)(*L.svd(a)),
    "svdvals nuc 2": lambda L, a, b: (
        L.linalg.svdvals(a @ b) + L.linalg.matrix_norm(a, "nuc") + L.linalg.matrix_norm(b, 2)
    ),
    "matrix_exp": lambda L, a, b: L.linalg.matrix_exp(a) + L.matrix_exp(b * 3),
    "matrix_power": lambda L, a, b: L.linalg.matrix_power(a, 3) + L.linalg.matrix_power(b, -2),
    "solve_triangular": lambda L, a, b: (
        L.linalg.solve_triangular(a.triu() + 3 * L.eye(3), b, upper=True)
        + L.linalg.solve_triangular(a.tril() + 3 * L.eye(3), b, upper=False, left=False)
    ),
    "pinv": lambda L, a, b: (
        L.linalg.pinv(a) + L.pinverse(b) + L.linalg.pinv(a + a.mH, hermitian=True)
    ),
    "cholesky_solve": lambda L, a, b: (
        L.cholesky_solve(b, L.linalg.cholesky(a @ a.mH + L.eye(3)))
        + L.cholesky_solve(b, L.linalg.cholesky(a @ a.mH + L.eye(3), upper=True), upper=True)
        + L.cholesky_solve(b, a.tril() + 3 * L.eye(3))
    ),
    "cholesky_inverse": lambda L, a, b: (
        L.cholesky_inverse(L.linalg.cholesky(a @ a.mH + L.eye(3)))
        + L.cholesky_inverse(L.linalg.cholesky(b @ b.mH + L.eye(3), upper=True), upper=True)
    ),
    "lu_factor": lambda L, a, b: L.linalg.lu_factor(a @ b).LU + L.linalg.lu_factor_ex(a).LU,
    "lu": lambda L, a, b: (lambda p, l, u: l + u)(*L.linalg.lu(a)),
    "lu wide": lambda L, a, b: (lambda p, l, u: l @ u[:, :2] + u[:, 1:])(*L.linalg.lu(a[:2])),
    "lu tall": lambda L, a, b: (lambda p, l, u: l[:3] + u)(*L.linalg.lu(L.cat([a, b[:1]]))),
    "lu_solve": lambda L, a, b: (
        L.linalg.lu_solve(*L.linalg.lu_factor(a), b)
        + L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True)
        + L.linalg.lu_solve(*L.linalg.lu_factor(b), a, left=False)
        + L.linalg.lu_solve(*L.linalg.lu_factor(b), a, left=False, adjoint=True)
    ),
    "householder_product": lambda L, a, b: (
        L.linalg.householder_product(a, b[0, :2]) + L.orgqr(b, a[1])
    ),
    "ormqr": lambda L, a, b: (
        L.ormqr(a, b[0], b) + L.ormqr(b, a[1], a.mT, False, True) + L.ormqr(a, b[2], b, True, True)
    ),
    "pinv wide": lambda L, a, b: L.linalg.pinv(a[:2]),
    "pinv tall": lambda L, a, b: L.linalg.pinv(L.cat([a, b[:1]])),
    "eigvals": lambda L, a, b: L.linalg.eigvals(a @ b),
    "eigvals of a real matrix": lambda L, a, b: L.linalg.eigvals(L.tensor(_R, requires_grad=True)),
    "lerp": lambda L, a, b: L.lerp(a, b, 0.3) + L.lerp(a, b, 0.2 - 0.7j),
    "lerp tensor weight": lambda L, a, b: L.lerp(a, b, a * b),
    "lerp_": lambda L, a, b: (a * 1).lerp_(b, b.T),
    "logaddexp": lambda L, a, b: L.logaddexp(a, b),
    "logcumsumexp": lambda L, a, b: L.logcumsumexp(a, 0) + L.logcumsumexp(a * b, 1),
    "normalize": lambda L, a, b: (
        L.nn.functional.normalize(a) + L.nn.functional.normalize(b, 1.0, 0)
    ),
    "l1_loss": lambda L, a, b: L.nn.functional.l1_loss(a, b, reduction="none"),
    "triangular_solve": lambda L, a, b: (
        L.triangular_solve(b, a.triu() + 4 * L.eye(3))[0]
        + L.triangular_solve(b, a.tril() + 4 * L.eye(3), upper=False, transpose=True)[0]
        + L.triangular_solve(b, a, unitriangular=True)[1]
    ),
}


def _grads(L, name):
    a = L.tensor(_A, requires_grad=True)
    b = L.tensor(_B, requires_grad=True)
    out = PROGRAMS[name](L, a, b)
    rng = np.random.default_rng(1)
    v = rng.standard_normal(tuple(out.shape)) + 1j * rng.standard_normal(tuple(out.shape))
    v = L.tensor(v if out.is_complex() else v.real, dtype=out.dtype)
    first = L.autograd.grad(out, [a, b], v, allow_unused=True, create_graph=True)
    first = [L.zeros_like(a) if g is None else g for g in first]
    total = sum((g.abs() ** 2).sum() for g in first if g.requires_grad)
    second = L.autograd.grad(total, [a, b], allow_unused=True) if total != 0 else ()
    return [out.resolve_conj(), *(g.resolve_conj() for g in first), *second]


def _close(ours, theirs):
    for x, y in zip(ours, theirs):
        if x is None or y is None:
            assert x is None and y is None
            continue
        a, b = x.detach().numpy(), y.detach().resolve_conj().numpy()
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", PROGRAMS)
def test_first_and_second_order_as_pytorch(name: str) -> None:
    import torch

    import glassgrad as gg

    _close(_grads(gg, name), _grads(torch, name))


def test_view_as_real_and_complex_share_memory() -> None:
    def program(L):
        z = L.tensor([1 + 2j, 3 - 4j])
        r = L.view_as_real(z)
        r[0, 1] = 9.0
        x = L.tensor([[1.0, 2.0, 0.0, 0.0], [3.0, 4.0, 0.0, 0.0]])
        c = L.view_as_complex(x[:, :2])
        x[1, 0] = -3.0
        w = L.tensor([[1.0, 2.0]], requires_grad=True)
        names = (L.view_as_real(L.view_as_complex(w)).grad_fn.name(), r._is_view(), c._is_view())
        return (z, r.stride(), c, c.stride(), names)

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.view_as_real(L.ones(3)),
        lambda L: L.view_as_complex(L.ones(3)),
        lambda L: L.view_as_complex(L.ones(3, 2).t()),
        lambda L: L.view_as_complex(L.ones(3, 3)[:, 1:]),
        lambda L: L.view_as_complex(L.arange(4).view(2, 2)),
    ],
)
def test_view_errors(call) -> None:
    same_error(call)


def test_eig_values_vectors_and_errors() -> None:
    def program(L):
        rotation = L.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=L.float64)
        values, vectors = L.linalg.eig(rotation)
        diagonal = L.linalg.eig(L.tensor([[2.0, 0.0], [0.0, 3.0]]))
        return (values, (vectors.abs() ** 2).sum(0), diagonal.eigenvalues, diagonal.eigenvectors)

    same(program)
    same_error(lambda L: L.linalg.eig(L.ones(2, 3)))
    same_error(lambda L: L.linalg.eigvals(L.ones(3)))
    same_error(lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)))

    def phase_dependent(L):
        values, vectors = L.linalg.eig(L.tensor([[1.0, -2.0], [3.0, 1.0]], requires_grad=True))
        vectors.real.sum().backward()

    same_error(phase_dependent)


def test_geqrf_of_a_complex_input_that_requires_grad_is_refused() -> None:
    same_error(lambda L: L.geqrf(L.tensor(_A, requires_grad=True)))

    def program(L):
        with L.no_grad():
            a, tau = L.geqrf(L.tensor(_A, requires_grad=True))
        q = L.linalg.householder_product(a, tau)
        return [x.numpy() for x in (a, tau, q, L.ormqr(a, tau, L.tensor(_B)), q.mH @ q)]

    for ours, theirs in zip(program(gg), program(torch)):  # LAPACK's last bits differ
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", ["complex128", "float64"])
def test_sgn_in_place_as_pytorch(dtype: str) -> None:
    """Tensor.sgn_: the values, SgnBackward0 as the history (CopySlices through a view), first
    and second derivatives (conjugate Wirtinger for complex input, zero for real)."""

    def program(L):
        values = np.append(_A[0] if dtype == "complex128" else _R[0], 0)
        x = L.tensor(values, requires_grad=True)
        y = x * 2
        y[1:].sgn_()
        (g_view,) = L.autograd.grad((y.abs() ** 2).sum(), x)
        z = (x * 3).sgn_()
        weights = L.tensor(np.append(_B[0], 1.0)).to(z.dtype)
        (g,) = L.autograd.grad((z * weights).real.sum(), x, create_graph=True)
        # real input: a zero gradient, outside the graph
        second = L.autograd.grad((g.abs() ** 2).sum(), x)[0] if g.requires_grad else g
        names = (type(y.grad_fn).__name__, z.grad_fn.name(), g.requires_grad)
        return names, [
            t.detach().resolve_conj().numpy(force=True) for t in (y, g_view, z, g, second)
        ]

    (our_names, ours), (their_names, theirs) = program(gg), program(torch)
    assert our_names == their_names
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_sgn_of_real_values_sends_an_efficient_zero_tensor() -> None:
    """sgn of a real tensor sends PyTorch's efficient zero tensor back: the nodes before it
    keep it zero through an infinite derivative (lgamma at +-0: 0, not 0 * inf = NaN), an
    addition drops it (abs's second derivative: inf, not NaN; fuzz seed 805719), and a
    product with a tensor that requires grad stays in the graph."""

    def program(L):
        x = L.tensor([-0.0, 0.0, 2.0], dtype=L.float64, requires_grad=True)
        (first,) = L.autograd.grad(L.sgn(L.lgamma(x)).sum(), x, create_graph=True)
        (through,) = L.autograd.grad(first.sum(), x)
        (g,) = L.autograd.grad(abs(L.lgamma(x)).sum(), x, create_graph=True)
        (second,) = L.autograd.grad(g.sum(), x)
        y = L.tensor([-1.0, 3.0], dtype=L.float64, requires_grad=True)
        L.sgn(y).sum().backward()
        # added to a gradient that does not require grad, the zero tensor's add is recorded
        # (fuzz seed 842373)
        (mixed,) = L.autograd.grad((x * 2).sum() + L.sgn(L.tanh(x)).sum(), x, create_graph=True)
        return (first.requires_grad, mixed.requires_grad), [
            t.detach().numpy(force=True) for t in (first, through, second, y.grad, mixed)
        ]

    (our_flag, ours), (their_flag, theirs) = program(gg), program(torch)
    assert our_flag == their_flag
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_sgn_in_place_of_integers_and_bools() -> None:
    same(lambda L: (L.tensor([3, -2, 0]).sgn_(), L.tensor([True, False]).sgn_()))
    same(lambda L: L.sgn(L.tensor([True, False])))


def test_view_as_real_after_its_base_changed_in_place() -> None:
    def program(L):
        x = L.tensor(_A, requires_grad=True)
        z = x * 1
        r = L.view_as_real(z)
        z.mul_(2j)
        name = r.grad_fn.name()
        (r * L.arange(18.0, dtype=L.float64).view(3, 3, 2)).sum().backward()
        return (name, r, x.grad)

    same(program)


_GRADCHECKED = (
    "mean",
    "var",
    "std",
    "var_mean",
    "std_mean",
    "logsumexp",
    "inv",
    "det",
    "slogdet",
    "logdet",
    "solve",
    "vector_norm",
    "vector_norm p",
    "matrix_norm",
    "cholesky",
    "qr",
    "eigh",
    "svd",
    "matrix_exp",
    "pinv",
    "lu",
    "lu_solve",
    "householder_product",
    "ormqr",
)


@pytest.mark.parametrize("name", _GRADCHECKED)
def test_gradcheck_on_complex_inputs(name: str) -> None:
    # Finite differences in the real and imaginary parts, independent of PyTorch.
    import glassgrad as gg

    a, b = (gg.tensor(v, requires_grad=True) for v in (_A, _B))
    program = PROGRAMS[name]
    assert gg.autograd.gradcheck(lambda a, b: program(gg, a, b), (a, b))
    assert gg.autograd.gradgradcheck(lambda a, b: program(gg, a, b), (a, b))


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.ones(4, 2, dtype=L.float64) @ L.tensor(_A[:2]),
        lambda L: L.matmul(L.tensor(_A), L.ones(3, 2, dtype=L.float32)),
        lambda L: L.mm(L.tensor(_A).to(L.complex64), L.tensor(_B)),
        lambda L: L.tensor(_A[0]) @ L.tensor(_R[0]),
        lambda L: L.mv(L.tensor(_R), L.tensor(_A[0])),
    ],
)
def test_real_and_complex_matrix_products_refuse_as_pytorch(call) -> None:
    # PyTorch does not promote in matrix products: mixed dtypes are an error.
    same_error(call)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.linalg.vector_norm(L.tensor(_A), dtype=L.float64),
        lambda L: L.linalg.vector_norm(L.tensor(_R), dtype=L.complex128),
        lambda L: L.linalg.vector_norm(L.tensor(_R), dtype=L.int64),
        lambda L: L.linalg.matrix_norm(L.tensor(_A), dtype=L.float64),
    ],
)
def test_norm_dtype_errors(call) -> None:
    same_error(call)


def test_conjugate_transposes() -> None:
    def program(L):
        z = L.tensor(_A, requires_grad=True)
        names = (
            z.mH.grad_fn.name(),
            z.H.grad_fn.name(),
            L.tensor(_R, requires_grad=True).mH.grad_fn.name(),
        )
        (z.mH * L.tensor(_B)).real.sum().backward()
        views = (z.H, z.mH, L.tensor(_R).mH, L.tensor(_A[0, 0]).H)
        return (*(v.resolve_conj() for v in views), names, z.grad)

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: (
            L.linalg.eigh(L.tensor(_A + _A.conj().T, requires_grad=True))
            .eigenvectors.real.sum()
            .backward()
        ),
        lambda L: L.linalg.svd(L.tensor(_A, requires_grad=True)).U.real.sum().backward(),
    ],
)
def test_phase_dependent_losses_are_refused(call) -> None:
    same_error(call)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gels", "gelss"])
def test_complex_lstsq_values_and_gradients(driver: str) -> None:
    """Complex least squares: solution, residuals (real, kept with B's column for a vector
    B), rank, singular values and the conjugate-Wirtinger gradients of A and B."""

    def program(L):
        A = L.tensor(np.vstack([_A, _B]), requires_grad=True)  # 6 x 3: residuals exist
        B = L.tensor(np.concatenate([_B[:, 0], _A[:, 1]]), requires_grad=True)
        out = L.linalg.lstsq(A, B, driver=driver)
        loss = (out.solution.abs() ** 2).sum() + out.residuals.sum()
        return [t.detach() for t in (*out, *L.autograd.grad(loss, (A, B)))]

    ours, theirs = program(gg), program(torch)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and str(a.dtype)[10:] == str(b.dtype)[6:], (a, b)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)


def test_matrix_rank_of_complex_matrices() -> None:
    def program(L):
        low = L.tensor(_A[:, :2] @ _B[:2])
        return (
            L.linalg.matrix_rank(low),
            L.linalg.matrix_rank(low + low.mH, hermitian=True),
            L.linalg.matrix_rank(L.tensor(_A)),
        )

    same(program)


def test_lu_pivots_as_lapack_for_complex() -> None:
    # LAPACK picks the pivot of largest |Re| + |Im|, not of largest modulus: 3+3j over 5.
    def program(L):
        lu, pivots = L.linalg.lu_factor(L.tensor([[3 + 3j, 1.0], [5.0, 2j]]))
        return lu, pivots

    same(program)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.nn.functional.silu(L.tensor([1 + 1j, 2.0], requires_grad=True)),
        lambda L: L.nn.functional.soft_margin_loss(
            L.tensor([1 + 1j, 2.0], requires_grad=True), L.tensor([1j, 1.0])
        ),
        lambda L: L.nn.functional.interpolate(L.tensor([[[1 + 1j, 2]]]), scale_factor=2),
        lambda L: L.nn.functional.interpolate(
            L.tensor([[[[1 + 1j, 2]]]]), scale_factor=2, mode="bicubic"
        ),
    ],
)
def test_complex_refused_as_pytorch(call) -> None:
    same_error(call)


def test_silu_and_soft_margin_loss_of_complex_values_without_grad() -> None:
    import torch

    import glassgrad as gg

    def values(L):
        x = L.tensor(_A)
        return [
            L.nn.functional.silu(x),
            L.nn.functional.soft_margin_loss(x, L.tensor(_B), reduction="none"),
            L.nn.functional.soft_margin_loss(x, L.tensor(_B)),
        ]

    _close(values(gg), values(torch))


def test_silu_in_place_of_complex_takes_the_conjugate_derivative() -> None:
    """PyTorch's silu_ records complex inputs with its real formula unconjugated (a PyTorch
    bug, tests/fuzz/skips.py): the oracle is PyTorch's composite x * sigmoid(x)."""
    import torch

    import glassgrad as gg

    results = []
    for lib in (gg, torch):
        a = lib.tensor(_A, requires_grad=True)
        c = a * 1
        if lib is torch:
            c = c * torch.sigmoid(c)
        else:
            gg.nn.functional.silu(c, inplace=True)
        (g,) = lib.autograd.grad((c.abs() ** 2).sum(), a, create_graph=True)
        (h,) = lib.autograd.grad((g.abs() ** 2).sum(), a)
        results.append([c, g, h])
    _close(*results)
