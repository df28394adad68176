"""torch.lobpcg against PyTorch: the same starting block gives the same steps (iteration
counts, eigenpairs), PyTorch's own tests of the dense CPU method ported (test_linalg's
_test_lobpcg_method with its tracker checks; test_autograd's test_lobpcg is in
tests/autograd/test_pytorch_autograd.py), the gradient and second derivative of the custom
backward against PyTorch's, and the errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

RNG = np.random.default_rng(1616)


def _pd(m: int, *batch: int) -> np.ndarray:
    """PyTorch's random_symmetric_pd_matrix: ``R R^T + 1e-5 I`` for Gaussian R."""
    r = RNG.standard_normal((*batch, m, m))
    return r @ r.swapaxes(-1, -2) + 1e-5 * np.eye(m)


def _qform(B: gg.Tensor | None, S: gg.Tensor) -> gg.Tensor:
    return S.mT @ (S if B is None else B @ S)


def _signs_fixed(U: np.ndarray) -> np.ndarray:
    """Each column with its largest entry (in magnitude) positive."""
    idx = np.abs(U).argmax(-2)[..., None, :]
    return U * np.sign(np.take_along_axis(U, idx, -2))


@pytest.mark.parametrize("method", ["basic", "ortho"])
def test_pytorch_test_lobpcg_method_dense(method: str) -> None:
    # PyTorch's test_linalg _test_lobpcg_method, its dense part, with its tracker.
    def tracker(worker: Any) -> None:
        k, nc = worker.iparams["k"], worker.ivars["converged_count"]
        rerr = worker.tvars["rerr"]
        assert float(rerr.min()) >= 0.0
        if k <= nc:
            assert float(rerr[:k].max()) <= worker.fparams["tol"]
            X, E = worker.X, worker.E
            eye = np.eye(k)
            np.testing.assert_allclose(_qform(worker.B, X[:, :k]).numpy(), eye, atol=1e-7)
            quotient = (_qform(worker.A, X[:, :k]) / E[:k]).numpy()
            np.testing.assert_allclose(quotient, eye, atol=0.2, rtol=0)

    def lobpcg(*args: Any, **kwargs: Any) -> tuple:
        return gg.lobpcg(*args, tracker=tracker, niter=1000, method=method, tol=1e-8, **kwargs)

    prec = 5e-4
    # PyTorch's regression test for negative residuals (its issue 101075), float32.
    A = gg.tensor([[-0.56142016, 0.29639858, -0.16059532], [0.29639858, -0.69093563, 0.26248195],
                   [-0.16059532, 0.26248195, -0.40236716]])  # fmt: skip
    B = gg.tensor([[1.89193057, -0.08174309, -0.3557846], [-0.08174309, 1.64589643, -0.46436347],
                   [-0.3557846, -0.46436347, 1.67404367]])  # fmt: skip
    X = gg.tensor([[0.61591334, 0.63823109, 0.46185694]]).T
    E, V = lobpcg(A=A, B=B, X=X, k=1)
    np.testing.assert_allclose((A @ V).numpy(), (B @ V @ E.diag_embed()).numpy(), atol=prec)

    for batches in [(), (2,)]:
        for m, n, k in [(9, 3, 1), (9, 3, 2), (9, 2, 2), (30, 6, 2)]:
            if method == "basic" and (m, n, k) == (9, 2, 2):
                continue  # PyTorch's skip: basic calls Cholesky on a singular matrix
            A, B = gg.tensor(_pd(m, *batches)), gg.tensor(_pd(m, *batches))
            e = np.linalg.eigvalsh(A.numpy())
            E, V = lobpcg(A, k=k, n=n, largest=False)
            assert (tuple(E.shape), tuple(V.shape)) == ((*batches, k), (*batches, m, k))
            np.testing.assert_allclose((A @ V).numpy(), (V @ E.diag_embed()).numpy(), atol=prec)
            np.testing.assert_allclose(E.numpy(), e[..., :k], rtol=1e-6, atol=1e-6)
            E, V = lobpcg(A, k=k, n=n, largest=True)
            np.testing.assert_allclose(E.numpy(), e[..., ::-1][..., :k], atol=prec)
            np.testing.assert_allclose((A @ V).numpy(), (V @ E.diag_embed()).numpy(), atol=prec)
            E, V = lobpcg(A, B=B, k=k, n=n, largest=False)
            np.testing.assert_allclose((A @ V).numpy(), (B @ V @ E.diag_embed()).numpy(), atol=prec)
            E, V = lobpcg(A, B=B, k=k, n=n, largest=True)
            top = float(E.max())
            np.testing.assert_allclose(
                (A @ V).numpy() / top, (B @ V @ (E / top).diag_embed()).numpy(), atol=prec
            )


def _spectrum(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    q = np.linalg.qr(rng.standard_normal((len(values), len(values))))[0]
    return (q * values) @ q.T


@pytest.mark.parametrize(
    ("m", "k", "n", "largest", "method", "generalized"),
    [
        (40, 3, 3, True, "ortho", False),
        (40, 2, 4, False, "ortho", True),
        (30, 2, 2, True, "basic", False),
        (30, 1, 3, False, "basic", True),
    ],
)
def test_same_steps_as_pytorch_from_the_same_start(
    m: int, k: int, n: int, largest: bool, method: str, generalized: bool
) -> None:
    # PyTorch's test_lobpcg_scipy compares iteration counts with SciPy's; here the two
    # implementations of the same algorithm from the same block take the same steps.
    # Spectra that converge in a few dozen steps: spread out at the top (largest), evenly
    # spaced (smallest); B near the identity.
    rng = np.random.default_rng(m * k * n)
    A = _spectrum(np.logspace(0, 2, m) if largest else np.arange(1.0, m + 1), rng)
    B = _spectrum(1 + rng.random(m), rng) if generalized else None
    X = rng.standard_normal((m, n))
    results = []
    for lib in (gg, torch):
        steps: list = []
        E, V = lib.lobpcg(
            lib.tensor(A), k=k, B=None if B is None else lib.tensor(B), X=lib.tensor(X),
            largest=largest, method=method, tol=1e-9,
            tracker=lambda w, steps=steps: steps.append(w.ivars["converged_count"]),
        )  # fmt: skip
        results.append((steps, E.numpy(), _signs_fixed(V.numpy())))
    (our_steps, ours, our_v), (their_steps, theirs, their_v) = results
    assert our_steps == their_steps
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)
    np.testing.assert_allclose(our_v, their_v, atol=1e-6)


def test_preconditioner_ortho_parameters_and_force_stop() -> None:
    A, X = _pd(30), RNG.standard_normal((30, 2))
    iK = np.diag(1.0 / np.diag(A))
    kwargs = {"ortho_iparams": {"ortho_i_max": 2}, "ortho_bparams": {"ortho_use_drop": True}}
    results = []
    for lib in (gg, torch):
        E, V = lib.lobpcg(lib.tensor(A), X=lib.tensor(X), iK=lib.tensor(iK), **kwargs)
        results.append((E.numpy(), _signs_fixed(V.numpy())))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-8)
    np.testing.assert_allclose(results[0][1], results[1][1], atol=1e-6)

    def stop(worker: Any) -> None:
        worker.bvars["force_stop"] = worker.ivars["istep"] == 2

    for lib in (gg, torch):
        steps: list = []
        E, _ = lib.lobpcg(
            lib.tensor(A), X=lib.tensor(X), tracker=lambda w, s=steps: (s.append(1), stop(w))
        )
        results.append((len(steps), E.numpy()))
    assert results[2][0] == results[3][0] == 2
    np.testing.assert_allclose(results[2][1], results[3][1], rtol=1e-10)


def _sign_free(lib: Any, k: int, largest: bool) -> Any:
    # As test_autograd's test_lobpcg: a deterministic start and each eigenvector's sign fixed;
    # a tolerance near rounding, so that both libraries' results are exact to it whatever
    # their number of steps (at the default, 1.5e-8, a step more or less shows in the
    # gradients at 1e-7).
    def func(A: Any) -> tuple:
        X = lib.eye(A.size(-2), k, dtype=A.dtype)
        if A.dim() > 2:
            X = X.expand((*A.shape[:-1], k))
        D, U = lib.lobpcg(A=A, k=k, X=X, largest=largest, tol=1e-13)
        _, idx = U.abs().max(-2, keepdim=True)
        return D, U * U.gather(-2, idx).sign()

    return func


@pytest.mark.parametrize(
    ("sizes", "k", "largest"), [((8, 8), 2, True), ((2, 9, 9), 3, False), ((6, 6), 1, False)]
)
def test_gradients_match_pytorch_to_second_order(sizes: tuple, k: int, largest: bool) -> None:
    rng = np.random.default_rng(k)
    q = np.linalg.qr(rng.standard_normal(sizes))[0]
    a = (q * np.linspace(1.0, 4.0, sizes[-1])) @ q.swapaxes(-1, -2)
    a = a + 0.01 * rng.standard_normal(sizes)  # not symmetric: A's gradient symmetrises it
    weights = rng.standard_normal((*sizes[:-2], k)), rng.standard_normal((*sizes[:-1], k))
    outcomes = []
    for lib in (gg, torch):
        A = lib.tensor(a, requires_grad=True)
        D, U = _sign_free(lib, k, largest)(A)
        assert type(D.grad_fn).__name__ == "LOBPCGAutogradFunctionBackward"
        loss = (D * lib.tensor(weights[0])).sum() + (U * lib.tensor(weights[1])).sum()
        (g,) = lib.autograd.grad(loss, A, create_graph=True)
        (gg_,) = lib.autograd.grad((g * g).sum(), A)
        outcomes.append((g.detach().numpy(), gg_.numpy()))
    np.testing.assert_allclose(outcomes[0][0], outcomes[1][0], atol=1e-7)
    np.testing.assert_allclose(outcomes[0][1], outcomes[1][1], atol=1e-6)


def _outcome(call: Any, lib: Any) -> tuple:
    try:
        result = call(lib)
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error).__name__, str(error).replace("torch.", "").replace("glassgrad.", "")
    return "ok", [tuple(t.shape) for t in result]


def _spd(lib: Any, *shape: int, dtype: str = "float64") -> Any:
    return lib.tensor(_pd(shape[-1], *shape[:-2])).to(getattr(lib, dtype))


def _backward_with_B(lib: Any) -> Any:
    A = _spd(lib, 9, 9).requires_grad_(True)
    D, _ = lib.lobpcg(A, k=1, B=_spd(lib, 9, 9), X=lib.ones(9, 1, dtype=lib.float64))
    return lib.autograd.grad(D.sum(), A)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.lobpcg(_spd(L, 9, 9)[:, :8], k=1),
        lambda L: L.lobpcg(_spd(L, 9, 9), B=_spd(L, 8, 8), k=1),
        lambda L: L.lobpcg(_spd(L, 9, 9), k=4),
        lambda L: L.lobpcg(_spd(L, 9, 9), n=4),
        lambda L: L.lobpcg(_spd(L, 9, 9), X=L.ones(8, 2, dtype=L.float64)),
        lambda L: L.lobpcg(_spd(L, 2, 9, 9), X=L.ones(9, 2, dtype=L.float64)),
        lambda L: L.lobpcg(_spd(L, 9, 9, dtype="complex128"), k=1),
        lambda L: L.lobpcg(_spd(L, 9, 9, dtype="int64"), k=1),
        lambda L: L.lobpcg(_spd(L, 9, 9, dtype="float16"), k=1),
        lambda L: L.lobpcg(_spd(L, 0, 9, 9), k=2),
        lambda L: L.lobpcg(_spd(L, 9, 9, dtype="float32"), k=2, n=3),
        _backward_with_B,
    ],
)
def test_errors_and_shapes_are_pytorchs(call: Any) -> None:
    ours, theirs = _outcome(call, gg), _outcome(call, torch)
    assert ours[0] == theirs[0]
    # glassgrad's messages may name the op first ("reshape: shape '[2, 9, 2]' is invalid ...")
    assert ours[1] == theirs[1] if ours[0] == "ok" else theirs[1] in ours[1]
