"""The short-time Fourier transform and its inverse (``torch.stft``, ``torch.istft``), composed
as PyTorch composes them from differentiable ops: padding, framing (``unfold``), a window
product, the one-dimensional transforms of ``fft_functions.py`` and, for the inverse, an
overlap-add divided by the window envelope. Their gradients (first and second) are those
ops' backward formulas.

Example::

    >>> x = glassgrad.arange(16.0, requires_grad=True)
    >>> spec = glassgrad.stft(x, 8, window=glassgrad.hann_window(8), return_complex=True)
    >>> glassgrad.istft(spec, 8, window=glassgrad.hann_window(8), length=16).sum().backward()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dtype import type_string
from .._tensor import Tensor
from .._warn_once import warn_once
from ..autograd.views import own_temporary_view
from ._common import check_tensor
from ._registry import Sample, register
from ._samples import complex_randn, randn
from .complex_views import view_as_real
from .fft_functions import fft, ifft, irfft, rfft
from .indexing import index_zeros_add
from .padding import pad


def _flag(value: Any) -> str:
    """An (optional) bool or int as ATen prints it: ``None``, ``0``, ``1``, ``7``."""
    return "None" if value is None else str(int(value))


def _window_string(window: Tensor | None) -> str:
    if window is None:
        return "None"
    return f"{type_string(window._data.dtype)}{{{list(window._data.shape)}}}"


def _centered_window(
    window: Tensor | None, win_length: int, n_fft: int, dtype: np.dtype
) -> Tensor | None:
    """The window zero-padded on both sides to ``n_fft`` (ones where none is given), as
    PyTorch centres a window shorter than the transform; ``None`` for an absent full one."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is None:
        ones = np.zeros(n_fft, dtype=dtype)
        ones[left : left + win_length] = 1
        return Tensor._from_array(ones)
    return pad(window, (left, n_fft - win_length - left))


def stft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    pad_mode: str = "reflect",
    normalized: bool = False,
    onesided: bool | None = None,
    return_complex: bool | None = None,
    align_to_window: bool | None = None,
) -> Tensor:
    """Short-time Fourier transform of a 1-D signal or a (B, L) batch of them:
    ``X[w, m] = sum_k window[k] input[m * hop_length + k] exp(-2 pi i w k / n_fft)``.

    ``hop_length`` defaults to ``n_fft // 4``, ``win_length`` to ``n_fft`` (a shorter
    ``window`` is zero-padded on both sides to ``n_fft``; no window is a rectangular one, with
    PyTorch's warning). ``center`` pads the signal by ``n_fft // 2`` on each side with
    ``pad_mode`` (any mode of ``nn.functional.pad``) so frame ``t`` is centred at
    ``t * hop_length``. ``normalized`` scales by ``n_fft ** -0.5``; ``onesided`` (default for
    real input and window) keeps the ``n_fft // 2 + 1`` non-negative frequencies. Real input
    requires ``return_complex``; ``False`` (deprecated, warned) returns ``view_as_real`` of
    the result. Output: (B?, N, T) complex, ``T = 1 + L // hop_length`` when centred.

    Example::

        >>> x = glassgrad.tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        >>> glassgrad.stft(x, 4, 2, window=glassgrad.ones(4), return_complex=True).shape
        glassgrad.Size([3, 4])
    """
    check_tensor(input, "stft")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        # As torch.functional.stft: pad the (1, 1, L) or (1, B, L) view, then drop the ones.
        shape = tuple(input._data.shape)
        signal_dim = len(shape)
        half = int(n_fft // 2)
        extended = (1,) * (3 - signal_dim) + shape
        input = pad(input.reshape(extended), [half, half], pad_mode)
        input = input.reshape(input._data.shape[-signal_dim:])
    return _frames_transform(
        input, n_fft, hop_length, win_length, window, normalized, onesided, return_complex,
        align_to_window,
    )  # fmt: skip


def _frames_transform(
    self: Tensor,
    n_fft: int,
    hop_length: int | None,
    win_length: int | None,
    window: Tensor | None,
    normalized: bool,
    onesided: bool | None,
    return_complex: bool | None,
    align_to_window: bool | None,
) -> Tensor:
    """ATen's ``stft`` (no centring): the checks in its order, framing, window, transform."""
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)

    def fail(message: str) -> RuntimeError:
        return RuntimeError(
            f"stft({type_string(self._data.dtype)}{list(self._data.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_string(window)}, "
            f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
            f"return_complex={_flag(return_complex)}, "
            f"align_to_window={_flag(align_to_window)}) : {message}"
        )

    if window is None:
        warn_once(
            "A window was not provided. A rectangular window will be applied,which is known "
            "to cause spectral leakage. Other windows such as torch.hann_window or "
            "torch.hamming_window are recommended to reduce spectral leakage.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=3,
        )
    else:
        check_tensor(window, "stft", "window")
    complex_window = window is not None and window._data.dtype.kind == "c"
    returns_complex = (
        (self._data.dtype.kind == "c" or complex_window)
        if return_complex is None
        else bool(return_complex)
    )
    if not returns_complex:
        if return_complex is None:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will "
                "further require that return_complex=True in a future PyTorch release."
            )
        warn_once(
            "stft with return_complex=False is deprecated. In a future pytorch release, stft "
            "will return complex tensors for all inputs, and return_complex=False will raise "
            "an error.\nNote: you can still call torch.view_as_real on the complex output to "
            "recover the old return format.",
            UserWarning,
            stacklevel=3,
        )
    if self._data.dtype.kind not in "fc":
        raise fail("expected a tensor of floating point or complex values")
    if self._data.ndim not in (1, 2):
        raise fail("expected a 1D or 2D tensor")
    signal = self if self._data.ndim == 2 else self.unsqueeze(0)
    length = signal._data.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise fail(f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise fail(f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise fail(f"expected 0 < win_length <= n_fft, but got win_length={win}")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail(
            f"expected a 1D window tensor of size equal to win_length={win}, but got window "
            f"with size {list(window._data.shape)}"
        )
    full_window = _centered_window(window, win, n_fft, self._data.dtype)
    if align_to_window:
        # The first frame's window starts at t = 0: the signal padded by the window's offset.
        count = 1 + (length - win) // hop
        offset = (n_fft - win) // 2
        signal = pad(signal, (offset, offset))
    else:
        count = 1 + (length - n_fft) // hop
    frames = _frames(signal, n_fft, hop, count)
    if full_window is not None:
        frames = frames * full_window
    complex_frames = frames._data.dtype.kind == "c"
    sided = (not complex_frames) if onesided is None else bool(onesided)
    norm = "ortho" if normalized else "backward"
    if complex_frames:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        spectrum = fft(frames, norm=norm)
    else:
        spectrum = rfft(frames, norm=norm) if sided else fft(frames, norm=norm)
    spectrum = spectrum.transpose(1, 2)
    if self._data.ndim == 1:
        spectrum = spectrum.squeeze(0)
    # PyTorch transposes its temporary in place: the spectrum is no view (of what it computed)
    return own_temporary_view(spectrum) if returns_complex else view_as_real(spectrum)


def _frames(signal: Tensor, n_fft: int, hop: int, count: int) -> Tensor:
    """(B, count, n_fft) frames every ``hop`` of (B, L) signals. With ``align_to_window`` and
    an odd ``n_fft - win_length`` ATen asks its ``as_strided`` for one frame more than fits,
    which overruns the last signal's storage: its error."""
    batch, length = signal._data.shape
    if count > (length - n_fft) // hop + 1:
        itemsize = signal._data.dtype.itemsize
        needed = (batch - 1) * length + (count - 1) * hop + n_fft
        raise RuntimeError(
            f"setStorage: sizes [{batch}, {count}, {n_fft}], strides [{length}, {hop}, 1], "
            f"storage offset 0, and itemsize {itemsize} requiring a storage size of "
            f"{needed * itemsize} are out of bounds for storage of size "
            f"{batch * length * itemsize}"
        )
    return signal.unfold(1, n_fft, hop).narrow(1, 0, count)


def istft(
    input: Tensor,
    n_fft: int,
    hop_length: int | None = None,
    win_length: int | None = None,
    window: Tensor | None = None,
    center: bool = True,
    normalized: bool = False,
    onesided: bool | None = None,
    length: int | None = None,
    return_complex: bool = False,
) -> Tensor:
    """Inverse short-time Fourier transform: each frame's inverse transform times the window,
    overlap-added, divided by the overlap-added squared window (the least-squares inverse of
    ``stft`` with the same arguments). The envelope must not vanish anywhere in the kept
    signal ("window overlap add min"). ``center`` trims ``n_fft // 2`` at both ends;
    ``length`` cuts or zero-pads the result (padding warned). ``onesided`` defaults to
    whether the frequency size differs from ``n_fft``; ``return_complex`` needs a two-sided
    input. Input: (B?, N, T) complex; output: (B?, length).

    Example::

        >>> x = glassgrad.arange(8.0)
        >>> w = glassgrad.hann_window(4)
        >>> spec = glassgrad.stft(x, 4, 1, window=w, return_complex=True)
        >>> glassgrad.istft(spec, 4, 1, window=w, length=8)
        tensor([0., 1., 2., 3., 4., 5., 6., 7.])
    """
    check_tensor(input, "istft")
    hop = n_fft >> 2 if hop_length is None else int(hop_length)
    win = n_fft if win_length is None else int(win_length)

    def fail(message: str, separator: str = " : ") -> RuntimeError:
        return RuntimeError(
            f"istft({type_string(input._data.dtype)}{list(input._data.shape)}, n_fft={n_fft}, "
            f"hop_length={hop}, win_length={win}, window={_window_string(window)}, "
            f"center={_flag(center)}, normalized={_flag(normalized)}, "
            f"onesided={_flag(onesided)}, length={_flag(length)}, "
            f"return_complex={_flag(return_complex)}){separator}{message}"
        )

    if window is None:
        warn_once(
            "A window was not provided. A rectangular window will be applied.Please provide "
            "the same window used by stft to make the inversion lossless.To suppress this "
            "warning and use a rectangular window, explicitly set "
            "`window=torch.ones(n_fft, device=<device>)`.",
            UserWarning,
            stacklevel=2,
        )
    else:
        check_tensor(window, "istft", "window")
    if input._data.dtype.kind != "c":
        raise RuntimeError(
            "istft requires a complex-valued input tensor matching the output from stft with "
            "return_complex=True."
        )
    # ATen reads the sizes of view_as_real(input): one dim more than the complex input.
    ndim = input._data.ndim + 1
    for needed in (2, 3):
        if ndim < needed:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                f"but got {-needed})"
            )
    n_frames, fft_size = input._data.shape[-1], input._data.shape[-2]
    if input._data.size == 0:
        raise fail("input tensor cannot be empty.")
    if ndim not in (3, 4):
        raise fail(f"expected a tensor with 3 or 4 dimensions, but got {ndim}")
    sided = fft_size != n_fft if onesided is None else bool(onesided)
    if sided and n_fft // 2 + 1 != fft_size:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {fft_size}"
        )
    if not sided and n_fft != fft_size:
        raise fail(
            "expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft when onesided=False, but got {fft_size}"
        )
    if not 0 < hop <= win:
        raise fail("expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise fail("expected 0 < win_length <= n_fft")
    if window is not None and (window._data.ndim != 1 or window._data.shape[0] != win):
        raise fail("Invalid window shape. window has to be 1D and length of `win_length`")
    real_dtype = input._data.real.dtype
    full_window = _centered_window(window, win, n_fft, real_dtype)
    if full_window is None:
        full_window = Tensor._from_array(np.ones(n_fft, dtype=real_dtype))
    frames = (input if input._data.ndim == 3 else input.unsqueeze(0)).transpose(1, 2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if sided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = ifft(frames, norm=norm)
    else:
        if window is not None and window._data.dtype.kind == "c":
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not sided:
            frames = frames.narrow(-1, 0, n_fft // 2 + 1)
        frames = irfft(frames, n=n_fft, norm=norm)
    signal = _overlap_add(frames * full_window, hop)
    envelope = _overlap_add((full_window * full_window).expand(1, n_frames, n_fft), hop)
    total = signal._data.shape[1]
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = total - n_fft // 2 if n_fft // 2 else 0  # ATen's slice end -(n_fft // 2)
    else:
        end = total
    stop = min(max(end, start), total)
    signal, envelope = signal[:, start:stop], envelope[:, start:stop]
    if envelope._data.size and bool(np.abs(envelope._data).min() < 1e-11):
        raise fail("window overlap add min: 1\n[ CPUBoolType{} ]", " ")
    signal = signal / envelope
    if input._data.ndim == 2:
        signal = signal.squeeze(0)
    if end > total:
        warn_once(
            "The length of signal is shorter than the length parameter. Result is being "
            "padded with zeros in the tail. Please check your center and hop_length settings.",
            UserWarning,
            stacklevel=2,
        )
        signal = pad(signal, (0, end - total))
    return signal


def _overlap_add(frames: Tensor, hop: int) -> Tensor:
    """(B, T, n) frames summed at offsets ``t * hop`` into (B, n + hop * (T - 1)) signals:
    the adjoint of ``unfold``, differentiable (its gradient reads the frames back)."""
    batch, count, size = frames._data.shape
    positions = (np.arange(count)[:, None] * hop + np.arange(size)[None, :]).reshape(-1)
    total = size + hop * (count - 1)
    values = frames.reshape(batch, count * size)
    return index_zeros_add((batch, total), (slice(None), positions), values, False)


def _stft_samples(rng: np.random.Generator) -> list[Sample]:
    """Centred and not, each pad mode, short windows, normalised, two-sided, batched and
    complex signals, complex windows, and the deprecated real output."""
    return [
        Sample((randn(rng, 16), 8), {"window": randn(rng, 8), "return_complex": True}),
        Sample(
            (randn(rng, 2, 13), 6, 2, 4),
            {"window": randn(rng, 4), "pad_mode": "constant", "return_complex": True},
        ),
        Sample(
            (randn(rng, 12), 4),
            {
                "hop_length": 3,
                "window": randn(rng, 4),
                "pad_mode": "replicate",
                "normalized": True,
                "return_complex": True,
            },
        ),
        Sample(
            (randn(rng, 2, 10), 4, 1),
            {
                "window": randn(rng, 4),
                "pad_mode": "circular",
                "onesided": False,
                "return_complex": True,
            },
        ),
        Sample(
            (randn(rng, 15), 6, 2, 3),
            {"window": randn(rng, 3), "center": False, "return_complex": True},
        ),
        Sample(
            (randn(rng, 15), 7, 3, 4),
            {
                "window": randn(rng, 4),
                "center": False,
                "align_to_window": True,
                "return_complex": True,
            },
        ),
        Sample((complex_randn(rng, 2, 11), 4, 2), {"window": randn(rng, 4), "normalized": True}),
        Sample((randn(rng, 11), 4, 2), {"window": complex_randn(rng, 4)}),
        Sample((randn(rng, 10), 4, 2), {"window": randn(rng, 4), "return_complex": False}),
    ]


def _istft_samples(rng: np.random.Generator) -> list[Sample]:
    """Spectra of the shapes stft gives, with windows whose overlap-add envelope stays away
    from zero (positive windows, hop below the window length)."""

    def window(n: int) -> np.ndarray:
        return 0.5 + rng.random(n)

    return [
        Sample((complex_randn(rng, 5, 7), 8, 2), {"window": window(8)}),
        Sample((complex_randn(rng, 2, 4, 6), 6, 2, 4), {"window": window(4), "length": 9}),
        Sample((complex_randn(rng, 3, 6), 4, 1), {"window": window(4), "normalized": True}),
        Sample((complex_randn(rng, 4, 6), 4, 2), {"window": window(4), "center": False}),
        Sample(
            (complex_randn(rng, 2, 6, 5), 6, 2),
            {"window": window(6), "onesided": False, "length": 11},
        ),
        Sample(
            (complex_randn(rng, 6, 5), 6, 2),
            {"window": window(6), "onesided": False, "return_complex": True},
        ),
        Sample((complex_randn(rng, 3, 4), 4, 2), {"window": window(4), "length": 12}),
    ]


register("stft", stft, samples=_stft_samples)
register("istft", istft, samples=_istft_samples)

__all__ = ["stft", "istft"]
