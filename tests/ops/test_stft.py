"""stft and istft: what the registry's parity samples don't say. Values over a grid of
n_fft / hop / window / centring / pad mode / normalisation / sidedness for 1-D and batched
signals, the round trip istft(stft(x)), gradchecks of the composites, PyTorch's warnings and
its errors (type and message). PyTorch is the oracle throughout.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

RNG = np.random.default_rng(16)
SIGNAL = RNG.standard_normal(23)
BATCH = RNG.standard_normal((2, 19))


def _window(lib: Any, kind: str, size: int) -> Any:
    if kind == "none":
        return None
    if kind == "hann":
        return lib.hann_window(size, dtype=lib.float64)
    return lib.tensor(np.linspace(0.3, 1.2, size))


GRID = [
    (n_fft, hop, win, kind, center, pad_mode, normalized, onesided)
    for (n_fft, hop, win), kind, (center, pad_mode), normalized, onesided in itertools.product(
        [(8, None, None), (6, 2, 4), (5, 3, 5)],
        ["hann", "ramp", "none"],
        [(True, "reflect"), (True, "constant"), (True, "replicate"), (False, "reflect")],
        [False, True],
        [None, False],
    )
]


@pytest.mark.parametrize("signal", [SIGNAL, BATCH], ids=["1d", "batched"])
def test_stft_values_match_pytorch(signal: np.ndarray) -> None:
    warnings.simplefilter("ignore", UserWarning)  # the missing-window warning
    for n_fft, hop, win, kind, center, pad_mode, normalized, onesided in GRID:
        results = []
        for lib in (gg, torch):
            results.append(
                lib.stft(
                    lib.tensor(signal),
                    n_fft,
                    hop,
                    win,
                    _window(lib, kind, win or n_fft),
                    center,
                    pad_mode,
                    normalized,
                    onesided,
                    return_complex=True,
                ).numpy()
            )
        np.testing.assert_allclose(*results, atol=1e-12, err_msg=str((n_fft, hop, win, kind)))


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("onesided", [True, False])
def test_istft_inverts_stft_and_matches_pytorch(center: bool, onesided: bool) -> None:
    warnings.simplefilter("ignore", UserWarning)  # istft pads the uncovered tail (center=False)
    # A window shorter than n_fft leaves the uncentred signal's ends uncovered: PyTorch's
    # envelope error (tested below), so that case is centred only.
    cases = [(8, 2, 8, SIGNAL), (7, 3, 7, BATCH)] + [(6, 2, 5, BATCH)] * center
    for n_fft, hop, win, signal in cases:
        outputs = []
        for lib in (gg, torch):
            window = lib.hann_window(win, dtype=lib.float64) + 0.1
            spec = lib.stft(
                lib.tensor(signal), n_fft, hop, win, window, center, onesided=onesided,
                return_complex=True,
            )  # fmt: skip
            length = signal.shape[-1]
            back = lib.istft(
                spec, n_fft, hop, win, window, center, onesided=onesided, length=length
            )
            outputs.append(back.numpy())
        np.testing.assert_allclose(outputs[0], outputs[1], atol=1e-12)
        # Without centring, stft drops the tail that fits no frame; istft pads it with zeros.
        kept = outputs[0][..., : (signal.shape[-1] - n_fft) // hop * hop + n_fft]
        np.testing.assert_allclose(kept, signal[..., : kept.shape[-1]], atol=1e-12)


def test_composites_pass_gradcheck_and_gradgradcheck() -> None:
    x = gg.tensor(RNG.standard_normal((2, 9)), requires_grad=True)
    w = gg.tensor(RNG.random(4) + 0.5, requires_grad=True)

    def round_trip(x: gg.Tensor, w: gg.Tensor) -> gg.Tensor:
        spec = gg.stft(x, 6, 2, 4, w, pad_mode="reflect", normalized=True, return_complex=True)
        return gg.istft(spec * spec.abs(), 6, 2, 4, w, normalized=True, length=9)

    assert gg.autograd.gradcheck(round_trip, (x, w))
    assert gg.autograd.gradgradcheck(round_trip, (x, w))


def test_tensor_methods_and_grad_fn() -> None:
    x = gg.tensor(SIGNAL, requires_grad=True)
    w = gg.hann_window(8, dtype=gg.float64)
    spec = x.stft(8, window=w, return_complex=True)
    np.testing.assert_allclose(
        spec.detach().numpy(), gg.stft(x, 8, window=w, return_complex=True).detach().numpy()
    )
    back = spec.istft(8, window=w, length=23)
    np.testing.assert_allclose(back.detach().numpy(), SIGNAL, atol=1e-12)
    assert back.grad_fn is not None


def _outcome(call: Any, lib: Any) -> tuple:
    """(error type, message) of ``call(lib)``, or the result's shape and dtype name."""
    try:
        result = call(lib)
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error).__name__, str(error).split(" (Triggered internally")[0]
    return "ok", tuple(result.shape), str(result.dtype).split(".")[-1]


def _x(lib: Any, *shape: int, dtype: str = "float64") -> Any:
    return lib.tensor(np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)).to(
        getattr(lib, dtype)
    )


def _w(lib: Any, n: int, dtype: str = "float64") -> Any:
    return lib.ones(n, dtype=getattr(lib, dtype))


STFT_CASES = {
    "no return_complex": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8)),
    "return_complex False": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8), return_complex=False),
    "3-d input": lambda L: L.stft(_x(L, 1, 2, 10), 4, window=_w(L, 4), return_complex=True),
    "integer input": lambda L: L.stft(L.arange(20), 4, window=_w(L, 4), return_complex=True),
    "n_fft too big": lambda L: L.stft(_x(L, 20), 30, center=False, window=_w(L, 30), return_complex=True),
    "n_fft 0": lambda L: L.stft(_x(L, 20), 0, center=False, window=_w(L, 1), return_complex=True),
    "hop 0": lambda L: L.stft(_x(L, 20), 8, 0, window=_w(L, 8), return_complex=True),
    "win_length above n_fft": lambda L: L.stft(_x(L, 20), 8, win_length=9, window=_w(L, 9), return_complex=True),
    "win_length 0": lambda L: L.stft(_x(L, 20), 8, win_length=0, window=_w(L, 1), return_complex=True),
    "window size": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 5), return_complex=True),
    "window 2-d": lambda L: L.stft(_x(L, 20), 8, window=L.ones(2, 4), return_complex=True),
    "window float32": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8, "float32"), return_complex=True),
    "input float32": lambda L: L.stft(_x(L, 20, dtype="float32"), 8, window=_w(L, 8), return_complex=True),
    "align_to_window centred": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8), return_complex=True, align_to_window=True),
    "align_to_window": lambda L: L.stft(_x(L, 2, 19), 8, 3, 5, _w(L, 5), False, return_complex=True, align_to_window=True),
    "align_to_window past the end": lambda L: L.stft(_x(L, 2, 20), 8, 3, 5, _w(L, 5), False, return_complex=True, align_to_window=True),
    "onesided complex input": lambda L: L.stft(_x(L, 20, dtype="complex128"), 8, window=_w(L, 8), onesided=True),
    "complex input": lambda L: L.stft(_x(L, 20, dtype="complex128"), 8, window=_w(L, 8)),
    "complex input, real output": lambda L: L.stft(_x(L, 20, dtype="complex128"), 8, window=_w(L, 8), return_complex=False),
    "complex window onesided": lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8, "complex64"), onesided=True, return_complex=True),
    "complex input n_fft 0": lambda L: L.stft(_x(L, 20, dtype="complex128"), 0, window=_w(L, 3, "complex64")),
    "empty signal": lambda L: L.stft(_x(L, 0), 8, center=False, window=_w(L, 8), return_complex=True),
    "reflect pad too wide": lambda L: L.stft(_x(L, 3), 8, window=_w(L, 8), return_complex=True),
    "constant pad of a short signal": lambda L: L.stft(_x(L, 3), 8, window=_w(L, 8), return_complex=True, pad_mode="constant"),
}  # fmt: skip


def _spec(lib: Any, n_fft: int = 8, **kwargs: Any) -> Any:
    return lib.stft(_x(lib, 20), n_fft, window=_w(lib, n_fft), return_complex=True, **kwargs)


ISTFT_CASES = {
    "length longer": lambda L: L.istft(_spec(L), 8, window=_w(L, 8), length=30),
    "envelope zero without centring": lambda L: L.istft(_spec(L), 8, window=L.hann_window(8, dtype=L.float64), center=False),
    "real input": lambda L: L.istft(L.view_as_real(_spec(L)), 8, window=_w(L, 8)),
    "1-d input": lambda L: L.istft(_spec(L)[:, 0], 8, window=_w(L, 8)),
    "0-d input": lambda L: L.istft(_spec(L)[0, 0], 8, window=_w(L, 8)),
    "4-d input": lambda L: L.istft(_spec(L).reshape(1, 1, 5, 11), 8, window=_w(L, 8)),
    "complex output onesided": lambda L: L.istft(_spec(L), 8, window=_w(L, 8), return_complex=True),
    "complex output": lambda L: L.istft(_spec(L, onesided=False), 8, window=_w(L, 8), onesided=False, return_complex=True),
    "complex window, real output": lambda L: L.istft(_spec(L, onesided=False), 8, window=_w(L, 8, "complex128"), onesided=False),
    "n_fft against onesided size": lambda L: L.istft(_spec(L), 10, window=_w(L, 10)),
    "n_fft against twosided size": lambda L: L.istft(_spec(L), 4, window=_w(L, 4), onesided=False),
    "hop 0": lambda L: L.istft(_spec(L), 8, 0, window=_w(L, 8)),
    "hop above win_length": lambda L: L.istft(_spec(L), 8, 9, window=_w(L, 8)),
    "win_length above n_fft": lambda L: L.istft(_spec(L), 8, 2, 9, _w(L, 9)),
    "win_length 0": lambda L: L.istft(_spec(L), 8, win_length=0, window=_w(L, 1)),
    "window size": lambda L: L.istft(_spec(L), 8, window=_w(L, 5)),
    "window float32": lambda L: L.istft(_spec(L), 8, window=_w(L, 8, "float32")),
    "no frames": lambda L: L.istft(_spec(L)[:, :0], 8, window=_w(L, 8)),
    "integer input": lambda L: L.istft(L.ones(5, 11, dtype=L.long), 8),
}  # fmt: skip


@pytest.mark.parametrize(
    "call", list(STFT_CASES.values()) + list(ISTFT_CASES.values()),
    ids=list(STFT_CASES) + [f"istft {k}" for k in ISTFT_CASES],
)  # fmt: skip
def test_outcomes_and_errors_match_pytorch(call: Any) -> None:
    warnings.simplefilter("ignore", UserWarning)
    ours, theirs = _outcome(call, gg), _outcome(call, torch)
    if ours[0] != "ok" and ours[1].startswith("pad: "):  # nn.functional.pad names itself
        ours = (ours[0], ours[1][len("pad: ") :])
    assert ours == theirs


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda L: L.stft(_x(L, 20), 8, return_complex=True), "A window was not provided"),
        (
            lambda L: L.stft(_x(L, 20), 8, window=_w(L, 8), return_complex=False),
            "stft with return_complex=False is deprecated",
        ),
        (lambda L: L.istft(_spec(L), 8), "A window was not provided"),
        (
            lambda L: L.istft(_spec(L), 8, window=_w(L, 8), length=30),
            "The length of signal is shorter than the length parameter",
        ),
    ],
)
def test_warnings_are_pytorchs(call: Any, message: str) -> None:
    for lib in (gg, torch):
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call(lib)
        finally:
            lib.set_warn_always(False)
        texts = [str(w.message) for w in caught if w.category is UserWarning]
        assert any(t.startswith(message) for t in texts), (lib.__name__, texts)
