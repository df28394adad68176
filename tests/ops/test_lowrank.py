"""svd_lowrank and pca_lowrank, randomized, tested by their properties (the registry samples
compare the draw-independent cases with PyTorch): reconstruction of low-rank matrices,
orthonormal factors, shapes, the generator's seed, gradients through the composite, and
PyTorch's argument errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

RNG = np.random.default_rng(16)


def _low_rank(*batch: int, m: int = 7, n: int = 5, rank: int = 2) -> np.ndarray:
    return RNG.standard_normal((*batch, m, rank)) @ RNG.standard_normal((*batch, rank, n))


@pytest.mark.parametrize("shape", [(7, 5), (4, 9), (3, 6, 4)])
def test_svd_lowrank_reconstructs_low_rank_matrices_with_orthonormal_factors(
    shape: tuple,
) -> None:
    a = _low_rank(*shape[:-2], m=shape[-2], n=shape[-1])
    u, s, v = gg.svd_lowrank(gg.tensor(a), q=4)
    m, n = shape[-2:]
    assert (tuple(u.shape), tuple(s.shape), tuple(v.shape)) == (
        (*shape[:-2], m, 4),
        (*shape[:-2], 4),
        (*shape[:-2], n, 4),
    )
    np.testing.assert_allclose((u @ gg.diag_embed(s) @ v.mT).numpy(), a, atol=1e-10)
    eye = np.broadcast_to(np.eye(4), (*shape[:-2], 4, 4))
    np.testing.assert_allclose((u.mT @ u).numpy(), eye, atol=1e-10)
    np.testing.assert_allclose((v.mT @ v).numpy(), eye, atol=1e-10)
    # The top singular values are the matrix's; the rest vanish (rank 2).
    exact = np.linalg.svd(a, compute_uv=False)[..., :2]
    np.testing.assert_allclose(s.numpy()[..., :2], exact, rtol=1e-10)
    np.testing.assert_allclose(s.numpy()[..., 2:], 0, atol=1e-10)


def test_svd_lowrank_of_a_difference_and_the_seed() -> None:
    a, m = _low_rank(rank=3), RNG.standard_normal(5)
    a_minus = a + m  # A - M is rank 3 once M (broadcast over rows) is taken off
    gg.manual_seed(5)
    first = gg.svd_lowrank(gg.tensor(a_minus), q=3, M=gg.tensor(m))
    gg.manual_seed(5)
    second = gg.svd_lowrank(gg.tensor(a_minus), q=3, M=gg.tensor(m))
    for x, y in zip(first, second):
        np.testing.assert_array_equal(x.numpy(), y.numpy())
    u, s, v = first
    np.testing.assert_allclose((u @ gg.diag(s) @ v.mT).numpy(), a, atol=1e-10)


def test_pca_lowrank_finds_the_principal_directions() -> None:
    # Points spread along two directions in 4-d, shifted: centring removes the shift.
    directions = np.linalg.qr(RNG.standard_normal((4, 2)))[0]
    points = RNG.standard_normal((50, 2)) * [3.0, 1.0] @ directions.T + 10.0
    u, s, v = gg.pca_lowrank(gg.tensor(points), q=2)
    centred = points - points.mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False)[:2])
    np.testing.assert_allclose(np.abs(v.numpy().T @ directions), np.eye(2), atol=0.3)
    np.testing.assert_allclose((u @ gg.diag(s) @ v.mT).numpy(), centred, atol=1e-10)
    assert tuple(gg.pca_lowrank(gg.tensor(points))[0].shape) == (50, 4)  # q = min(6, m, n)


def test_gradients_through_the_composites() -> None:
    a = gg.tensor(RNG.standard_normal((5, 3)), requires_grad=True)

    def values(a: gg.Tensor) -> gg.Tensor:
        gg.manual_seed(0)  # one draw for every evaluation of finite differences
        return gg.svd_lowrank(a, q=3, niter=1)[1]

    def projection(a: gg.Tensor) -> gg.Tensor:
        gg.manual_seed(0)
        u, _, v = gg.pca_lowrank(a, q=2)
        return u @ v.mT

    assert gg.autograd.gradcheck(values, (a,))
    assert gg.autograd.gradgradcheck(values, (a,))
    assert gg.autograd.gradcheck(projection, (a,))


def _outcome(call: Any, lib: Any) -> tuple:
    try:
        call(lib)
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error).__name__, str(error)
    return ("ok",)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.pca_lowrank(L.ones(4, 3), q=4),
        lambda L: L.pca_lowrank(L.ones(4, 3), q=-1),
        lambda L: L.pca_lowrank(L.ones(4, 3), niter=-1),
        lambda L: L.pca_lowrank(L.ones(4, 3), q=0),
    ],
)
def test_pca_lowrank_argument_errors_are_pytorchs(call: Any) -> None:
    assert _outcome(call, gg) == _outcome(call, torch)


def _same_draw(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """Make glassgrad's svd_lowrank draw the Gaussian matrix PyTorch draws after
    ``torch.manual_seed(seed)`` (its first and only random call), so the two algorithms run
    on the same numbers and must agree beyond the draw-independent cases."""
    import glassgrad.ops.lowrank as lowrank

    def torch_randn(*size: int, dtype: Any = None) -> gg.Tensor:
        torch.manual_seed(seed)
        return gg.tensor(torch.randn(*size, dtype=getattr(torch, str(dtype).split(".")[1])).numpy())

    monkeypatch.setattr(lowrank, "randn", torch_randn)


def _signs_fixed(u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Singular vectors with each column's largest entry of U made real positive."""
    idx = np.abs(u).argmax(-2)[..., None, :]
    phase = np.take_along_axis(u, idx, -2)
    phase = phase / np.abs(phase)
    return u / phase, v / phase


@pytest.mark.parametrize(
    ("shape", "q", "niter", "with_m", "dtype"),
    [
        ((8, 6), 3, 0, False, np.float64),
        ((8, 6), 3, 2, False, np.float64),
        ((5, 9), 2, 1, True, np.float64),
        ((2, 7, 5), 4, 2, False, np.float64),
        ((6, 5), 3, 1, True, np.complex128),
        ((6, 4), 2, 2, False, np.float32),
    ],
)
def test_svd_lowrank_matches_pytorch_on_the_same_draw(
    monkeypatch: pytest.MonkeyPatch,
    shape: tuple,
    q: int,
    niter: int,
    with_m: bool,
    dtype: Any,
) -> None:
    # Full-rank inputs with q below the rank: the result depends on the draw.
    a = RNG.standard_normal(shape)
    m = RNG.standard_normal(shape[-1])
    if dtype is np.complex128:
        a = a + 1j * RNG.standard_normal(shape)
        m = m + 1j * RNG.standard_normal(shape[-1])
    a, m = a.astype(dtype), m.astype(dtype)
    _same_draw(monkeypatch, seed=3)
    ga = gg.tensor(a, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    gm = gg.tensor(m) if with_m else None
    tm = torch.tensor(m) if with_m else None
    gu, gs, gv = gg.svd_lowrank(ga, q=q, niter=niter, M=gm)
    torch.manual_seed(3)
    tu, ts, tv = torch.svd_lowrank(ta, q=q, niter=niter, M=tm)
    tol = 1e-4 if dtype is np.float32 else 1e-10
    np.testing.assert_allclose(gs.detach().numpy(), ts.detach().numpy(), rtol=tol, atol=tol)
    for mine, theirs in zip(
        _signs_fixed(gu.detach().numpy(), gv.detach().numpy()),
        _signs_fixed(tu.detach().resolve_conj().numpy(), tv.detach().resolve_conj().numpy()),
    ):
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)
    # A sign-invariant function of the factors: its gradient is PyTorch's.
    weights = RNG.standard_normal(shape)
    (gu @ gg.diag_embed(gs).to(gu.dtype) @ gv.mH).real.mul(gg.tensor(weights)).sum().backward()
    (tu @ torch.diag_embed(ts).to(tu.dtype) @ tv.mH).real.mul(
        torch.tensor(weights)
    ).sum().backward()
    np.testing.assert_allclose(ga.grad.numpy(), ta.grad.numpy(), rtol=tol, atol=tol)
