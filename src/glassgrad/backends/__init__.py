"""``glassgrad.backends``: PyTorch's backend switches as harmless attributes. glassgrad has
one backend (NumPy on the CPU): the flags can be read and set, and change nothing.

Example::

    >>> glassgrad.backends.mps.is_available(), glassgrad.backends.cudnn.is_available()
    (False, False)
"""

from __future__ import annotations

from . import cuda, cudnn, mkldnn, mps

__all__ = ["cuda", "cudnn", "mkldnn", "mps"]
