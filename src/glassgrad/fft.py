"""``glassgrad.fft``: PyTorch's ``torch.fft``, discrete Fourier transforms with complex
results and PyTorch's gradients of every order (see ``ops/fft.py``).

Example::

    >>> import glassgrad
    >>> glassgrad.fft.rfft(glassgrad.tensor([1.0, 2.0, 3.0, 4.0]))
    tensor([10.+0.j, -2.+2.j, -2.+0.j])
"""

from .ops._out import with_out as _with_out
from .ops.fft_functions import (
    fft,
    fft2,
    fftfreq,
    fftn,
    fftshift,
    hfft,
    hfft2,
    hfftn,
    ifft,
    ifft2,
    ifftn,
    ifftshift,
    ihfft,
    ihfft2,
    ihfftn,
    irfft,
    irfft2,
    irfftn,
    rfft,
    rfft2,
    rfftfreq,
    rfftn,
)

__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "hfft2",
    "hfftn",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "ihfft2",
    "ihfftn",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]

# PyTorch's keyword-only out= where it has one (PyTorch's rules: see ops/_out.py).
globals().update({_name: _with_out(globals()[_name], _name, "fft") for _name in __all__})
