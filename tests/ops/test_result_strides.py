"""Result memory layouts against PyTorch: a ratchet over every registry row's samples.

For each op, the forward result of every sample (float64) is compared with PyTorch's by
``stride()``, ignoring dimensions of size 1 (their stride is arbitrary). The ops listed in
``KNOWN`` still differ, each for the reason given; the list may only shrink. The test fails
when an op not listed differs (a regression, or a new op with NumPy's layout where PyTorch
chooses another) and when a listed op now agrees (remove it from the list).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY

from .test_registry import _run, _samples

_FFT = "pocketfft's results are row-major here; PyTorch's FFT kernels return their own layouts"
_KEEPS_LAYOUT = (
    "PyTorch's TensorIterator gives the result a transposed input's layout; "
    "the NumPy kernel here returns a row-major result"
)
_ROW_MAJOR = (
    "PyTorch returns a row-major result; the NumPy kernel here keeps a transposed input's layout"
)
_COMPLEX_VIEW = "PyTorch returns a view into the complex storage (strides doubled); a copy here"
_KERNEL = "PyTorch's kernel allocates its result in another layout than NumPy's"

KNOWN: dict[str, str] = {
    **{
        name: _FFT
        for name in (
            "fft.fft",
            "fft.fftn",
            "fft.hfft2",
            "fft.hfftn",
            "fft.ifft",
            "fft.ifftn",
            "fft.ihfft",
            "fft.ihfft2",
            "fft.ihfftn",
            "fft.irfft2",
            "fft.irfftn",
            "fft.rfft",
            "fft.rfftn",
        )
    },
    **{
        name: _KEEPS_LAYOUT
        for name in (
            "erfinv",
            "flip",
            "floor_divide",
            "lerp",
            "nn.functional.sigmoid",
            "remainder",
            "sigmoid",
            "sort",
            "special.ndtri",
            "special.xlog1py",
            "xlogy",
        )
    },
    **{
        name: _ROW_MAJOR
        for name in (
            "angle",
            "cummax",
            "cummin",
            "cumprod",
            "cumsum",
            "einsum",
            "index_add",
            "index_select",
            "linalg.cross",
            "log_softmax",
            "mvlgamma",
            "nn.functional.layer_norm",
            "nn.functional.log_softmax",
            "nn.functional.logsigmoid",
            "nn.functional.softmax",
            "nn.functional.softmin",
            "repeat_interleave",
            "roll",
            "scatter_add",
            "softmax",
            "special.log_softmax",
            "special.softmax",
        )
    },
    "imag": _COMPLEX_VIEW,
    "real": _COMPLEX_VIEW,
    **{
        name: _KERNEL
        for name in (
            "cross",
            "nanquantile",
            "nn.functional.batch_norm",
            "nn.functional.fold",
            "nonzero",
            "quantile",
        )
    },
}


def _strides(t: object) -> tuple:
    """The strides of the dimensions of size > 1."""
    return tuple(s for s, n in zip(t.stride(), t.shape) if n > 1)  # type: ignore[attr-defined]


def _differences(key: str) -> list[str]:
    """One line per result whose strides differ from PyTorch's, over the op's samples."""
    info = REGISTRY[key]
    found = []
    for i, sample in enumerate(_samples(info)):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ours, _ = _run(info, sample, gg)
                theirs, _ = _run(info, sample, torch)
        except Exception:  # samples that raise are compared by the error tests
            continue
        for k, (o, t) in enumerate(zip(ours, theirs)):
            if tuple(o.shape) != tuple(t.shape) or o.numel() <= 1:
                continue
            if _strides(o) != _strides(t):
                found.append(
                    f"sample {i} output {k} {tuple(o.shape)}: {o.stride()} != torch {t.stride()}"
                )
    return found


def test_known_ops_are_registry_ops() -> None:
    assert sorted(set(KNOWN) - set(REGISTRY)) == []


@pytest.mark.parametrize("key", sorted(k for k, info in REGISTRY.items() if info.samples))
def test_result_strides_match_torch(key: str) -> None:
    differences = _differences(key)
    if key in KNOWN:
        assert differences, f"{key}: result strides now agree with PyTorch; remove it from KNOWN"
    else:
        assert not differences, f"{key}: result strides differ from PyTorch's: {differences}"


def test_column_major_lapack_results_allow_torch_views() -> None:
    """The user program of the issue: an upper Cholesky factor is column-major, so its
    transpose is contiguous and ``.view(-1)`` works, as in PyTorch."""
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    ours = gg.linalg.cholesky(gg.tensor(a), upper=True).mT.view(-1)
    theirs = torch.linalg.cholesky(torch.tensor(a), upper=True).mT.view(-1)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", ["linalg.cholesky", "linalg.inv", "exp of a transpose", "add"])
def test_out_resized_from_empty_takes_the_result_layout(op: str) -> None:
    def strides(lib):
        a = lib.tensor([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], dtype=lib.float64)
        out = lib.empty(0, dtype=lib.float64)
        calls = {
            "linalg.cholesky": lambda: lib.linalg.cholesky(a, out=out),
            "linalg.inv": lambda: lib.linalg.inv(a, out=out),
            "exp of a transpose": lambda: lib.exp(a.t(), out=out),
            "add": lambda: lib.add(a, 1, out=out),
        }
        calls[op]()
        return out.stride()

    assert strides(gg) == strides(torch)
