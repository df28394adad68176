"""Which results are views, which share memory with an input, and that every result can be
written to, against PyTorch: a ratchet over every registry row's samples.

Both facts are semantics, not layout. A result that shares an input's memory without being
its view makes an in-place write on the result change the input behind autograd's back (a
silently wrong value and gradient); a result that is a view where PyTorch's is a new tensor
(or the reverse) changes what ``detach_()``, in-place ops on it and ``._base`` do. For each
sample (float64) and output, the pair (is a view, shares memory with a tensor argument) must
be PyTorch's. The ops in ``KNOWN`` still differ, each for the reason given; the list may
only shrink: the test fails when an op not listed differs and when a listed op agrees.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY

from .test_registry import (
    _arguments,
    _assert_ratchet,
    _call,
    _output_differences,
    _outputs,
    _samples,
    _tensor_arguments,
)

_CONJ = (
    "PyTorch's conjugate is a lazy view (the conj bit); glassgrad computes it, so a complex "
    "conj()/adjoint() is a new tensor (docs/views_and_inplace.md)"
)

KNOWN: dict[str, str] = {
    "conj": _CONJ,
    "adjoint": _CONJ,
    # ifft of a real input ends in PyTorch's lazy conj of a forward transform.
    "fft.ifft": _CONJ,
    "fft.ihfft": _CONJ,
    "_rnn_layer": (
        "a private row (the RNN modules' fused layer) whose PyTorch counterpart returns the "
        "final states as views; the modules' own results (nn.LSTM/GRU/RNN) agree with PyTorch's"
    ),
}


def _aliasing(lib: Any, output: Any, inputs: list) -> tuple[bool, bool, bool]:
    """(is a view, shares memory with one of ``inputs``, can be written to) of ``output``:
    PyTorch's tensors can always be written to; a read-only NumPy array under a glassgrad
    result (a ``broadcast_to`` view) would refuse an in-place op PyTorch runs."""
    writable = lib is torch or output._data.flags.writeable
    if output.numel() == 0:
        return output._is_view(), False, writable
    if lib is torch:
        pointer = output.untyped_storage().data_ptr()
        shared = any(x.numel() and x.untyped_storage().data_ptr() == pointer for x in inputs)
    else:
        shared = any(x.numel() and np.shares_memory(output._data, x._data) for x in inputs)
    return output._is_view(), shared, writable


def _run(info: Any, sample: Any, lib: Any) -> list[tuple[bool, bool, bool]]:
    args, kwargs, _ = _arguments(sample, lib)
    inputs = _tensor_arguments(args, kwargs)
    outputs = _outputs(_call(info, lib, args, kwargs))  # no gauge: it makes new tensors
    return [_aliasing(lib, o, inputs) for o in outputs]


def _differ(ours: tuple, theirs: tuple) -> str | None:
    return None if ours == theirs else f"(view, shares, writable) {ours} != torch {theirs}"


def _differences(key: str) -> list[str]:
    info = REGISTRY[key]
    return _output_differences(info, _samples(info), _run, _differ)


def test_known_ops_are_registry_ops() -> None:
    assert sorted(set(KNOWN) - set(REGISTRY)) == []


@pytest.mark.parametrize("key", sorted(k for k, info in REGISTRY.items() if info.samples))
def test_result_aliasing_matches_torch(key: str) -> None:
    _assert_ratchet(key, _differences(key), KNOWN, "views, memory sharing or writability")


@pytest.mark.parametrize("part", ["real", "imag"])
def test_writing_into_real_or_imag_changes_the_complex_tensor(part: str) -> None:
    def run(lib: Any) -> tuple:
        z = lib.tensor([[1 + 2j, 3 - 1j]], dtype=lib.complex128, requires_grad=True)
        w = z * 1
        getattr(w, part).mul_(3)
        (w.abs() ** 2).sum().backward()
        return w.detach().numpy(), z.grad.numpy(), type(w.grad_fn).__name__

    ours, theirs = run(gg), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1], theirs[1])
    assert ours[2] == theirs[2] == "CopySlices"
