"""``glassgrad.nn``: modules, layers, losses, ``functional``, ``init`` and ``utils``, with
PyTorch's names, parameter names, default initialisation and printed form.

Example::

    >>> import glassgrad.nn as nn
    >>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    >>> model
    Sequential(
      (0): Linear(in_features=4, out_features=8, bias=True)
      (1): ReLU()
      (2): Linear(in_features=8, out_features=2, bias=True)
    )
"""

from . import functional, init, parallel, utils
from .modules import *  # noqa: F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "DataParallel",
    "Parameter",
    "Buffer",
    "UninitializedParameter",
    "UninitializedBuffer",
    "functional",
    "init",
    "parallel",
    "utils",
    *_modules_all,
]
