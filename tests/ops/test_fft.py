"""glassgrad.fft: what the registry's parity tests can't say. The namespace against
torch.fft, grad_fn names, real losses of complex intermediates to the second order (the
convention PyTorch's complex autograd defines), complex gradcheck, sample frequencies and
shifts, integer inputs, and PyTorch's errors. PyTorch is the oracle throughout.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
import glassgrad.fft as gfft

RNG = np.random.default_rng(0)
SIGNAL = RNG.standard_normal((3, 6))
SPECTRUM = RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4))


def test_every_torch_fft_function_is_present() -> None:
    assert sorted(set(torch.fft.__all__) - set(gfft.__all__) - {"Tensor"}) == []
    assert all(callable(getattr(gfft, n)) for n in gfft.__all__)


def _both(program: Any, *arrays: np.ndarray) -> list:
    """Run ``program(lib, *leaves)`` in both libraries: (output, leaves) each."""
    results = []
    for lib in (gg, torch):
        leaves = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
        results.append((program(lib, *leaves), leaves))
    return results


# Real losses of complex intermediates: PyTorch's gradients (conjugate Wirtinger), first and
# second order, through every transform and the complex ops on its results.
LOSSES = [
    lambda L, x, z: L.fft.rfft(x).abs().sum(),
    lambda L, x, z: (L.fft.fft(x, norm="ortho").abs() ** 2).sum(),
    lambda L, x, z: (L.fft.fft(z) * L.fft.fft(z).conj()).real.sum(),
    lambda L, x, z: L.fft.ifft(z, n=7).imag.pow(2).sum(),
    lambda L, x, z: L.angle(L.fft.fft2(x) + 0.1j).sin().sum(),
    lambda L, x, z: (L.fft.irfft(z, n=5) * x[:, :5]).sum(),
    lambda L, x, z: L.fft.hfft(z * x[:, :4], norm="forward").pow(2).sum(),
    lambda L, x, z: (L.fft.ihfft(x).abs() * L.fft.rfftn(x, dim=(0, 1)).abs()).sum(),
    lambda L, x, z: (L.fft.fftn(z) / (L.fft.fftn(x[:, :4]) + 3.0)).abs().sum(),
    lambda L, x, z: L.fft.irfftn(L.fft.rfftn(x) * z[:, :1], s=(3, 6)).pow(2).sum(),
    lambda L, x, z: L.fft.fftshift(L.fft.fft(x), dim=1).real.sum() * 2.5,
    lambda L, x, z: (L.sgn(L.fft.fft(z)) * z).real.sum(),
    lambda L, x, z: L.complex(x, x * 2).abs().sum(),
]


@pytest.mark.parametrize("loss", LOSSES)
def test_real_losses_of_complex_intermediates(loss: Any) -> None:
    (ours, our_leaves), (theirs, their_leaves) = _both(loss, SIGNAL, SPECTRUM)
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-12)
    our_grads = gg.autograd.grad(ours, our_leaves, create_graph=True, allow_unused=True)
    their_grads = torch.autograd.grad(theirs, their_leaves, create_graph=True, allow_unused=True)
    for a, b in zip(our_grads, their_grads):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.dtype == gg.complex128 if b.dtype == torch.complex128 else gg.float64
            np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    # Second order: the gradient of a real function of the first gradients (none where the
    # loss is linear: then neither library's first gradients require grad).
    differentiable = [g is not None and g.requires_grad for g in their_grads]
    assert [g is not None and g.requires_grad for g in our_grads] == differentiable
    if not any(differentiable):
        return
    ours2 = sum(((g * g.conj()).real * 0.5 + g.real).sum() for g in our_grads if g is not None)
    theirs2 = sum(((g * g.conj()).real * 0.5 + g.real).sum() for g in their_grads if g is not None)
    second = gg.autograd.grad(ours2, our_leaves, allow_unused=True)
    second_ref = torch.autograd.grad(theirs2, their_leaves, allow_unused=True)
    for a, b in zip(second, second_ref):
        if b is None:
            assert a is None or not np.any(a.numpy())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda L, x, z: L.fft.fft(x),
        lambda L, x, z: L.fft.fft(z),
        lambda L, x, z: L.fft.ifft(x),
        lambda L, x, z: L.fft.rfft(x),
        lambda L, x, z: L.fft.irfft(z),
        lambda L, x, z: L.fft.hfft(z),
        lambda L, x, z: L.fft.ihfft(x),
        lambda L, x, z: L.fft.fft2(x),
        lambda L, x, z: L.fft.rfft2(x),
        lambda L, x, z: L.fft.irfftn(z),
        lambda L, x, z: L.fft.ihfftn(x),
        lambda L, x, z: L.fft.hfftn(z),
        lambda L, x, z: L.fft.fftshift(x),
        lambda L, x, z: L.fft.fft(x, n=9),
        lambda L, x, z: L.fft.fft(x, n=2),
        lambda L, x, z: L.fft.fft(x, n=9).grad_fn.next_functions[0][0],
        lambda L, x, z: L.fft.fft(x, n=2).grad_fn.next_functions[0][0],
        lambda L, x, z: L.fft.fftn(x).grad_fn.next_functions[0][0],
        lambda L, x, z: z.conj(),
        lambda L, x, z: z.abs(),
        lambda L, x, z: z.angle(),
        lambda L, x, z: z * z,
        lambda L, x, z: z / 2,
    ],
)
def test_grad_fn_names(call: Any) -> None:
    names = []
    for lib in (gg, torch):
        x = lib.tensor(SIGNAL, requires_grad=True)
        z = lib.tensor(SPECTRUM, requires_grad=True)
        out = call(lib, x, z)
        names.append(type(out if not hasattr(out, "grad_fn") else out.grad_fn).__name__)
    assert names[0] == names[1]


@pytest.mark.parametrize(
    "fn, arg",
    [
        (lambda L, v: L.fft.fft(v, norm="ortho"), "z"),
        (lambda L, v: L.fft.ifftn(v, s=(4, 5)), "z"),
        (lambda L, v: L.fft.irfft(v, n=7), "z"),
        (lambda L, v: L.fft.hfft2(v, s=(2, 5), norm="forward"), "z"),
        (lambda L, v: L.fft.rfft2(v), "x"),
        (lambda L, v: L.fft.ihfft(v, n=5, dim=0), "x"),
    ],
)
def test_complex_gradcheck_and_gradgradcheck(fn: Any, arg: str) -> None:
    """Finite differences over the real and imaginary parts (no PyTorch involved)."""
    values = SPECTRUM[:2, :3] if arg == "z" else SIGNAL[:2, :4]
    v = gg.tensor(values.copy(), requires_grad=True)
    assert gg.autograd.gradcheck(lambda t: fn(gg, t), (v,))
    assert gg.autograd.gradgradcheck(lambda t: fn(gg, t).abs(), (v,))


def test_gradcheck_detects_a_wrong_complex_gradient() -> None:
    class WrongConj(gg.autograd.Function):
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            return z.conj()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad  # should be grad.conj()

    z = gg.tensor(SPECTRUM[:1, :2].copy(), requires_grad=True)
    assert not gg.autograd.gradcheck(WrongConj.apply, (z,), raise_exception=False)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.fft.fftfreq(5),
        lambda L: L.fft.fftfreq(6, 0.1),
        lambda L: L.fft.fftfreq(1, d=2.0, dtype=L.float64),
        lambda L: L.fft.fftfreq(0),
        lambda L: L.fft.rfftfreq(7, 0.5),
        lambda L: L.fft.fftfreq(4, requires_grad=True),
        lambda L: L.fft.fftshift(L.fft.fftfreq(7)),
        lambda L: L.fft.ifftshift(L.fft.fftshift(L.fft.fftfreq(7))),
        lambda L: L.fft.fftshift(L.arange(12).reshape(3, 4), dim=0),
        lambda L: L.fft.ifftshift(L.arange(12).reshape(3, 4), dim=(-1,)),
        lambda L: L.fft.fft(L.arange(5)),
        lambda L: L.fft.rfft(L.tensor([True, False, True])),
        lambda L: L.fft.irfft(L.arange(4)),
        lambda L: L.fft.fft(L.ones(4, dtype=L.float64) * 1j, dim=0),
        lambda L: L.fft.fftn(L.ones(3, 2), dim=()),
    ],
)
def test_values_dtypes_and_flags(call: Any) -> None:
    ours, theirs = call(gg), call(torch)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert ours.requires_grad == theirs.requires_grad
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-6)


def _error(lib: Any, call: Any) -> tuple:
    with pytest.raises(Exception) as info:
        call(lib)
    return type(info.value).__name__, str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.fft.fft(L.ones(4), norm="bad"),
        lambda L: L.fft.fft(L.ones(4), n=0),
        lambda L: L.fft.fft(L.ones(4), n=2.5),
        lambda L: L.fft.fft(L.tensor(1.0)),
        lambda L: L.fft.fft(L.ones(4), dim=1),
        lambda L: L.fft.fft(L.ones(4, dtype=L.float16)),
        lambda L: L.fft.rfft(L.ones(4) * 1j),
        lambda L: L.fft.ihfft(L.ones(4) * 1j),
        lambda L: L.fft.rfftn(L.ones(4) * 1j),
        lambda L: L.fft.irfft(L.ones(1) * 1j),
        lambda L: L.fft.fftn(L.ones(4), s=(2, 2)),
        lambda L: L.fft.fftn(L.ones(2, 2), dim=(0, 0)),
        lambda L: L.fft.fftn(L.ones(2, 2), s=(2, 2), dim=(0,)),
        lambda L: L.fft.rfftn(L.ones(4), dim=()),
        lambda L: L.fft.irfftn(L.ones(4) * 1j, dim=()),
        lambda L: L.fft.fft2(L.ones(4)),
        lambda L: L.fft.fftfreq(5, dtype=L.int64),
        lambda L: L.fft.rfftfreq(8, dtype=L.complex128),
        lambda L: L.fft.fftfreq(-1),
        lambda L: L.fft.fftshift(L.ones(2, 3), dim=2),
        lambda L: L.imag(L.ones(2)),
        lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.float64)),
    ],
)
def test_errors_match_pytorch(call: Any) -> None:
    ours, theirs = _error(gg, call), _error(torch, call)
    assert ours[0] == theirs[0], (ours, theirs)
    assert theirs[1] in ours[1], (ours, theirs)  # ours may name the op first


def test_float32_transforms_stay_single_precision() -> None:
    x = gg.tensor(SIGNAL, dtype=gg.float32, requires_grad=True)
    spectrum = gfft.rfft(x)
    assert spectrum.dtype == gg.complex64
    back = gfft.irfft(spectrum, n=6)
    assert back.dtype == gg.float32
    back.sum().backward()
    assert x.grad.dtype == gg.float32
    np.testing.assert_allclose(back.detach().numpy(), SIGNAL, rtol=1e-5, atol=1e-6)


def _words(text: str) -> str:
    """A repr without the library's name and line breaks ("glassgrad." is longer than
    "torch.", so a suffix may move to the next line in one of them only)."""
    return " ".join(text.replace("glassgrad.", "").replace("torch.", "").split())


def test_printing_matches_pytorch() -> None:
    for values in (SPECTRUM, SPECTRUM.astype(np.complex64), SPECTRUM[0] * 1e5, np.array(2 - 1j)):
        assert _words(repr(gg.tensor(values))) == _words(repr(torch.tensor(values)))
    assert repr(gg.tensor(SPECTRUM[0])).replace("glassgrad", "torch") == repr(
        torch.tensor(SPECTRUM[0])
    )
    out = gfft.fft(gg.tensor(SIGNAL[0], requires_grad=True))
    theirs = torch.fft.fft(torch.tensor(SIGNAL[0], requires_grad=True))
    assert _words(repr(out)).split("grad_fn")[0] == _words(repr(theirs)).split("grad_fn")[0]


@pytest.mark.parametrize(
    "call",
    [
        lambda L, o: L.fft.fft(L.tensor(SIGNAL), out=o),
        lambda L, o: L.fft.rfft2(L.tensor(SIGNAL), out=o),
        lambda L, o: L.fft.ifftn(L.tensor(SPECTRUM), s=(2, 5), out=o),
        lambda L, o: L.fft.fftfreq(5, out=o),
    ],
)
def test_out(call: Any) -> None:
    results = []
    for lib in (gg, torch):
        real = "fftfreq" in str(call.__code__.co_names)
        out = lib.empty(0, dtype=lib.float64 if real else lib.complex128)
        returned = call(lib, out)
        results.append(returned.numpy())
        if returned.dtype == out.dtype:
            assert returned is out
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, atol=1e-15)


def test_transforms_are_numpys_fftn_rfftn_irfftn_bit_for_bit() -> None:
    """The 1-D gufunc calls that build the n-dimensional transforms give NumPy's fftn, rfftn and
    irfftn exactly: shapes, dims, the three scalings, both directions, float32 and float64
    (the complete transform of a real input is rfftn's, mirrored, as PyTorch's)."""
    from glassgrad.ops import fft as transforms

    norms = {
        True: {0: "backward", 1: "ortho", 2: "forward"},
        False: {0: "forward", 1: "ortho", 2: "backward"},
    }
    rng = np.random.default_rng(0)
    for trial in range(120):
        nd = 1 + trial % 3
        real = (np.float32, np.float64)[trial % 2]
        complex_ = np.complex64 if real == np.float32 else np.complex128
        x = rng.standard_normal(tuple(rng.integers(1, 7, nd))).astype(real)
        if trial % 5 == 0:
            x = x.T  # other strides
        dim = tuple(sorted(rng.choice(nd, rng.integers(1, nd + 1), replace=False).tolist()))
        mode, forward = trial % 3, bool(trial % 4 < 2)
        z = (x + 1j * rng.standard_normal(x.shape)).astype(complex_)
        expected = (np.fft.fftn if forward else np.fft.ifftn)(
            z, axes=dim, norm=norms[forward][mode]
        )
        ours = transforms._c2c(z, dim, mode, forward)
        np.testing.assert_array_equal(ours, expected.astype(complex_))
        expected = np.fft.rfftn(x, axes=dim, norm=norms[True][mode]).astype(complex_)
        np.testing.assert_array_equal(transforms._r2c(x, dim, mode, True), expected)
        full = transforms._r2c(x, dim, mode, False)  # the one-sided one, then its mirror
        kept = np.arange(expected.shape[dim[-1]])
        np.testing.assert_array_equal(np.take(full, kept, axis=dim[-1]), expected)
        exact = np.fft.fftn(x, axes=dim, norm=norms[True][mode]).astype(complex_)
        np.testing.assert_allclose(full, exact, rtol=1e-5, atol=1e-5)
        half = np.fft.rfftn(x, axes=dim).astype(complex_)
        last = int(rng.integers(1, 9))
        sizes = [half.shape[d] for d in dim[:-1]] + [last]
        expected = np.fft.irfftn(half, s=sizes, axes=dim, norm=norms[False][mode]).astype(real)
        np.testing.assert_array_equal(transforms._c2r(half, dim, mode, last), expected)


@pytest.mark.parametrize("name", ["fft", "ifft"])
def test_complete_transforms_of_real_inputs_are_conjugate_symmetric_as_pytorchs(name) -> None:
    """PyTorch's fft and ifft of a real input compute it one-sided and fill the rest by
    conjugate symmetry (its fft2/fftn promote to complex), so entry k and entry -k are exact
    conjugates, signs of zero included (a pow at the branch cut reads them: fuzz seed
    803717); NumPy's complete fft of a real input is not, in them. Rows of two values make
    exact zeros."""
    rng = np.random.default_rng(5)
    for n in range(1, 9):
        values = rng.choice([-0.5, 0.25, 1.5], size=(3, n))
        for lib in (gg, torch):
            out = getattr(lib.fft, name)(lib.tensor(values)).resolve_conj().numpy()
            mirrored = np.conj(np.roll(np.flip(out, 1), 1, 1))
            for part in ("real", "imag"):
                ours = getattr(out, part)[:, n // 2 + 1 :]
                theirs = getattr(mirrored, part)[:, n // 2 + 1 :]
                assert np.signbit(ours).tolist() == np.signbit(theirs).tolist(), (lib, n)
                np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", ["irfft", "hfft", "irfft2", "hfft2", "irfftn", "hfftn"])
@pytest.mark.parametrize("shape", [(3, 5), (2, 4)])
def test_inverse_real_transforms_keep_a_nan_gradient_where_pytorch_does(
    name: str, shape: tuple
) -> None:
    # Fuzz seed 703873: the one-sided r2c of a NaN gradient has exactly real bins 0 and n/2
    # (NaN + 0j); multiplying every bin by its weight of 1 or 2 made those imaginary parts
    # NaN too. PyTorch multiplies the doubled bins only.
    rng = np.random.default_rng(1)
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    size = getattr(torch.fft, name)(torch.tensor(z)).shape
    for where in range(int(np.prod(size))):
        grad = rng.standard_normal(size)
        grad.reshape(-1)[where] = np.nan
        results = []
        for lib in (gg, torch):
            x = lib.tensor(z, requires_grad=True)
            (g,) = lib.autograd.grad(getattr(lib.fft, name)(x), x, lib.tensor(grad))
            results.append(g.resolve_conj().numpy() if lib is torch else g.numpy())
        ours, theirs = results
        for part in (np.real, np.imag):
            np.testing.assert_array_equal(np.isnan(part(ours)), np.isnan(part(theirs)))
        finite = np.isfinite(theirs)
        np.testing.assert_allclose(ours[finite], theirs[finite], rtol=1e-12, atol=1e-12)
