"""``torch.fft``'s functions, each built from the transforms of ``fft.py`` as PyTorch builds
it, and their registry rows: real and complex inputs, signals padded and cut, every ``norm``.

Example::

    >>> x = glassgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    >>> glassgrad.fft.rfft(x).abs().sum().backward()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._factories import _finish
from .._tensor import Tensor
from ._common import check_tensor
from ._out import out_result, recorded_as_not_implemented
from ._registry import NoGrad, Sample, register
from ._samples import complex_randn, randn
from .fft import (
    FftC2CBackward0,
    FftC2RBackward0,
    FftR2CBackward0,
    c2c_1d,
    c2c_nd,
    c2r_1d,
    c2r_nd,
    r2c_1d,
    r2c_nd,
    sample_frequencies,
    shift_amounts,
)
from .shape_reorder import roll

FFT = "fft"
_Dims = Any  # an int or a sequence of ints


def fft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``, the signal
    zero-padded or cut to ``n``; ``norm`` "backward" (no scaling, the default), "ortho"
    (1/sqrt(n)) or "forward" (1/n).

    Example::

        >>> glassgrad.fft.fft(glassgrad.tensor([1.0, 0.0, 0.0, 0.0]))
        tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    if isinstance(input, Tensor) and input._data.dtype.kind == "c":
        result = c2c_1d("fft", input, n, dim, norm, forward=True)
    else:
        result = r2c_1d("fft", input, n, dim, norm, forward=True, onesided=False)
    return out_result("fft_fft", out, result, (input,))


def ifft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``fft`` (scaled by 1/n by default).

    Example::

        >>> glassgrad.fft.ifft(glassgrad.tensor([4.0, 0.0, 0.0, 0.0]))
        tensor([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
    """
    if isinstance(input, Tensor) and input._data.dtype.kind == "c":
        result = c2c_1d("ifft", input, n, dim, norm, forward=False)
    else:
        result = r2c_1d("ifft", input, n, dim, norm, forward=False, onesided=False)
        if out is not None:  # PyTorch conjugates the r2c result in place in out
            result = recorded_as_not_implemented("conj_physical", result, (input,))
    return out_result("fft_ifft", out, result, (input,))


def rfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The one-sided ``fft`` of a real signal: the ``n // 2 + 1`` non-negative frequencies.

    Example::

        >>> glassgrad.fft.rfft(glassgrad.tensor([1.0, 2.0, 3.0, 4.0]))
        tensor([10.+0.j, -2.+2.j, -2.+0.j])
    """
    result = r2c_1d("rfft", input, n, dim, norm, forward=True, onesided=True)
    return out_result("fft_rfft", out, result, (input,))


def irfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``rfft``: a real signal of length ``n`` (default ``2 * (m - 1)`` for
    ``m`` frequencies).

    Example::

        >>> glassgrad.fft.irfft(glassgrad.tensor([10.0 + 0j, -2 + 2j, -2 + 0j]))
        tensor([1., 2., 3., 4.])
    """
    result = c2r_1d("irfft", input, n, dim, norm, forward=False)
    return out_result("fft_irfft", out, result, (input,))


def hfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The ``fft`` of a Hermitian-symmetric signal given by its first half: a real spectrum.

    Example::

        >>> glassgrad.fft.hfft(glassgrad.tensor([1.0 + 0j, 0j, 0j]))
        tensor([1., 1., 1., 1.])
    """
    result = c2r_1d("hfft", input, n, dim, norm, forward=True)
    return out_result("fft_hfft", out, result, (input,))


def ihfft(
    input: Tensor,
    n: int | None = None,
    dim: int = -1,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``hfft``: the one-sided ``ifft`` of a real signal.

    Example::

        >>> glassgrad.fft.ihfft(glassgrad.tensor([1.0, 1.0, 1.0, 1.0]))
        tensor([1.-0.j, 0.-0.j, 0.-0.j])
    """
    result = r2c_1d("ihfft", input, n, dim, norm, forward=False, onesided=True)
    if out is not None:  # PyTorch conjugates the r2c result in place in out
        result = recorded_as_not_implemented("conj_physical", result, (input,))
    return out_result("fft_ihfft", out, result, (input,))


def fft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``fftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.fft2(glassgrad.ones(2, 2)).real
        tensor([[4., 0.],
                [0., 0.]])
    """
    result = c2c_nd("fft2", input, s, dim, norm, forward=True)
    return out_result("fft_fft2", out, result, (input,))


def ifft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``ifftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.ifft2(glassgrad.ones(2, 2)).real
        tensor([[1., 0.],
                [0., 0.]])
    """
    result = c2c_nd("ifft2", input, s, dim, norm, forward=False)
    return out_result("fft_ifft2", out, result, (input,))


def fftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional discrete Fourier transform over ``dim`` (all dims by default, the
    last ``len(s)`` when only ``s`` is given), each padded or cut to its size in ``s``.

    Example::

        >>> glassgrad.fft.fftn(glassgrad.ones(2, 2)).real
        tensor([[4., 0.],
                [0., 0.]])
    """
    result = c2c_nd("fftn", input, s, dim, norm, forward=True)
    return out_result("fft_fftn", out, result, (input,))


def ifftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``fftn``.

    Example::

        >>> glassgrad.fft.ifftn(glassgrad.ones(2, 2)).real
        tensor([[1., 0.],
                [0., 0.]])
    """
    result = c2c_nd("ifftn", input, s, dim, norm, forward=False)
    return out_result("fft_ifftn", out, result, (input,))


def rfft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``rfftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.rfft2(glassgrad.ones(2, 2)).real
        tensor([[4., 0.],
                [0., 0.]])
    """
    result = r2c_nd("rfft2", input, s, dim, norm, forward=True)
    return out_result("fft_rfft2", out, result, (input,))


def irfft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``irfftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.irfft2(glassgrad.tensor([[4.0 + 0j, 0j], [0j, 0j]]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    result = c2r_nd("irfft2", input, s, dim, norm, forward=False)
    return out_result("fft_irfft2", out, result, (input,))


def rfftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional transform of a real signal, one-sided along the last dim.

    Example::

        >>> glassgrad.fft.rfftn(glassgrad.ones(2, 2)).shape
        glassgrad.Size([2, 2])
    """
    result = r2c_nd("rfftn", input, s, dim, norm, forward=True)
    return out_result("fft_rfftn", out, result, (input,))


def irfftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``rfftn``: a real signal (the last size ``2 * (m - 1)`` by default).

    Example::

        >>> glassgrad.fft.irfftn(glassgrad.tensor([[4.0 + 0j, 0j], [0j, 0j]]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    result = c2r_nd("irfftn", input, s, dim, norm, forward=False)
    return out_result("fft_irfftn", out, result, (input,))


def hfft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``hfftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.hfft2(glassgrad.tensor([[1.0 + 0j, 0j], [0j, 0j]]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    result = c2r_nd("hfft2", input, s, dim, norm, forward=True)
    return out_result("fft_hfft2", out, result, (input,))


def ihfft2(
    input: Tensor,
    s: Any = None,
    dim: _Dims = (-2, -1),
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """``ihfftn`` over the last two dims.

    Example::

        >>> glassgrad.fft.ihfft2(glassgrad.ones(2, 2)).real
        tensor([[1., 0.],
                [0., 0.]])
    """
    result = r2c_nd("ihfft2", input, s, dim, norm, forward=False)
    return out_result("fft_ihfft2", out, result, (input,))


def hfftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The N-dimensional ``hfft``: a real spectrum from half of a Hermitian signal.

    Example::

        >>> glassgrad.fft.hfftn(glassgrad.tensor([[1.0 + 0j, 0j], [0j, 0j]]))
        tensor([[1., 1.],
                [1., 1.]])
    """
    result = c2r_nd("hfftn", input, s, dim, norm, forward=True)
    return out_result("fft_hfftn", out, result, (input,))


def ihfftn(
    input: Tensor,
    s: Any = None,
    dim: _Dims = None,
    norm: str | None = None,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The inverse of ``hfftn``.

    Example::

        >>> glassgrad.fft.ihfftn(glassgrad.ones(2, 2)).real
        tensor([[1., 0.],
                [0., 0.]])
    """
    result = r2c_nd("ihfftn", input, s, dim, norm, forward=False)
    return out_result("fft_ihfftn", out, result, (input,))


def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Tensor | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of ``fft`` for a signal of ``n`` samples ``d`` apart:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    Example::

        >>> glassgrad.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    if dtype is None and isinstance(out, Tensor):
        dtype = out.dtype  # computed in out's dtype, as PyTorch's fftfreq_out
    values = sample_frequencies("fftfreq", n, d, dtype, layout, onesided=False)
    return out_result("fft_fftfreq", out, _finish(values, requires_grad, device))


def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    out: Tensor | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``.

    Example::

        >>> glassgrad.fft.rfftfreq(4)
        tensor([0.0000, 0.2500, 0.5000])
    """
    if dtype is None and isinstance(out, Tensor):
        dtype = out.dtype  # computed in out's dtype, as PyTorch's rfftfreq_out
    values = sample_frequencies("rfftfreq", n, d, dtype, layout, onesided=True)
    return out_result("fft_rfftfreq", out, _finish(values, requires_grad, device))


def fftshift(input: Tensor, dim: _Dims = None) -> Tensor:
    """Rolls the zero frequency to the middle of ``dim`` (all dims by default).

    Example::

        >>> glassgrad.fft.fftshift(glassgrad.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    shifts, dims = shift_amounts(check_tensor(input, "fft_fftshift"), dim, inverse=False)
    return roll(input, shifts, dims)


def ifftshift(input: Tensor, dim: _Dims = None) -> Tensor:
    """The inverse of ``fftshift``.

    Example::

        >>> glassgrad.fft.ifftshift(glassgrad.tensor([-0.5, -0.25, 0.0, 0.25]))
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    shifts, dims = shift_amounts(check_tensor(input, "fft_ifftshift"), dim, inverse=True)
    return roll(input, shifts, dims)


# --- registry rows -----------------------------------------------------------------------------

_NODES = (FftC2CBackward0, FftR2CBackward0, FftC2RBackward0)
_NORMS = ("backward", "ortho", "forward")


def _one_dim_samples(rng: np.random.Generator) -> list[Sample]:
    """Real and complex signals, padded and cut, along other dims, each norm."""
    return [
        Sample((randn(rng, 3, 8),)),
        Sample((complex_randn(rng, 3, 8),)),
        Sample((randn(rng, 5, 4).T,), {"n": 7, "dim": 0, "norm": "ortho"}),
        Sample((complex_randn(rng, 4, 6),), {"n": 4, "norm": "forward"}),
        Sample((complex_randn(rng, 2, 5, 3), 9, 1, "backward")),
        Sample((randn(rng, 7),), {"norm": "forward"}),
    ]


def _hermitian_samples(rng: np.random.Generator) -> list[Sample]:
    """One-sided spectra (the inputs of irfft/hfft), output sizes even and odd."""
    return [
        Sample((complex_randn(rng, 3, 5),)),
        Sample((complex_randn(rng, 3, 5),), {"n": 9}),
        Sample((complex_randn(rng, 5, 4).T,), {"n": 6, "dim": 0, "norm": "ortho"}),
        Sample((complex_randn(rng, 2, 6),), {"n": 5, "norm": "forward"}),
        Sample((complex_randn(rng, 2, 7), 4, -1, "backward")),
        Sample((randn(rng, 3, 4),), note="a real input is made complex"),
    ]


def _real_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 8),)),
        Sample((randn(rng, 5, 4).T,), {"n": 7, "dim": 0, "norm": "ortho"}),
        Sample((randn(rng, 4, 6),), {"n": 4, "norm": "forward"}),
        Sample((randn(rng, 2, 5, 3), 9, 1, "backward")),
    ]


def _nd_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4, 5),)),
        Sample((complex_randn(rng, 3, 4, 5),), {"norm": "ortho"}),
        Sample((complex_randn(rng, 3, 4, 5),), {"s": (5, 3), "dim": (0, 2), "norm": "forward"}),
        Sample((randn(rng, 4, 3, 2).transpose(2, 0, 1),), {"s": (6, -1)}),
        Sample((complex_randn(rng, 2, 3, 4),), {"dim": (2, 0)}),
    ]


def _real_nd_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((randn(rng, 3, 4, 6),)),
        Sample((randn(rng, 3, 4, 5),), {"norm": "ortho"}),
        Sample((randn(rng, 3, 4, 5),), {"s": (5, 3), "dim": (0, 2), "norm": "forward"}),
        Sample((randn(rng, 4, 3, 2).transpose(2, 0, 1),), {"s": (6, -1)}),
        Sample((randn(rng, 2, 3, 4),), {"dim": (2, 0)}),
    ]


def _hermitian_nd_samples(rng: np.random.Generator) -> list[Sample]:
    return [
        Sample((complex_randn(rng, 3, 4, 5),)),
        Sample((complex_randn(rng, 3, 4, 5),), {"s": (3, 7), "norm": "ortho"}),
        Sample((complex_randn(rng, 3, 4, 5),), {"s": (5, 6), "dim": (2, 0), "norm": "forward"}),
        Sample((complex_randn(rng, 4, 3, 2).transpose(2, 0, 1),), {"s": (-1, -1)}),
        Sample((complex_randn(rng, 2, 3, 4),), {"dim": (0,)}),
    ]


def _two_dim(samples: Any) -> Any:
    """The n-dimensional samples without a ``dim`` (the 2-d functions' default is the last
    two) and with two sizes at most."""

    def two(rng: np.random.Generator) -> list[Sample]:
        out = []
        for sample in samples(rng):
            kwargs = {k: v for k, v in sample.kwargs.items() if k != "dim"}
            if "s" in kwargs:
                kwargs["s"] = kwargs["s"][-2:]
            out.append(Sample(sample.args, kwargs, note=sample.note))
        return out

    return two


for _fn, _samples in (
    (fft, _one_dim_samples),
    (ifft, _one_dim_samples),
    (rfft, _real_samples),
    (ihfft, _real_samples),
    (irfft, _hermitian_samples),
    (hfft, _hermitian_samples),
    (fftn, _nd_samples),
    (ifftn, _nd_samples),
    (fft2, _two_dim(_nd_samples)),
    (ifft2, _two_dim(_nd_samples)),
    (rfftn, _real_nd_samples),
    (ihfftn, _real_nd_samples),
    (rfft2, _two_dim(_real_nd_samples)),
    (ihfft2, _two_dim(_real_nd_samples)),
    (irfftn, _hermitian_nd_samples),
    (hfftn, _hermitian_nd_samples),
    (irfft2, _two_dim(_hermitian_nd_samples)),
    (hfft2, _two_dim(_hermitian_nd_samples)),
):
    register(_fn.__name__, _fn, nodes=_NODES, namespace=FFT, samples=_samples)

register(
    "fftshift",
    fftshift,
    namespace=FFT,
    samples=lambda rng: [
        Sample((randn(rng, 4, 5),)),
        Sample((complex_randn(rng, 3, 5),), {"dim": 1}),
        Sample((randn(rng, 3, 5, 2), (0, -1))),
        Sample((NoGrad(randn(rng, 3)),), grad=False),
    ],
)
register(
    "ifftshift",
    ifftshift,
    namespace=FFT,
    samples=lambda rng: [
        Sample((randn(rng, 4, 5),)),
        Sample((complex_randn(rng, 3, 5),), {"dim": 1}),
        Sample((randn(rng, 3, 5, 2), (0, -1))),
    ],
)
