"""``DataParallel`` as PyTorch's is on a machine without accelerators: the wrapped module
runs as it is (one replica, on the CPU), under a ``DataParallel.forward`` profiler range.
Code written for GPUs (``model = nn.DataParallel(model)``, checkpoints whose keys start
with ``module.``) runs unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...autograd.profiler import record_function
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wrap ``module`` for data-parallel training across accelerators; glassgrad has none,
    so, as PyTorch without them, ``device_ids``, ``output_device`` and ``dim`` are not used,
    ``device_ids`` is ``[]`` and calling the wrapper calls ``module``. Its parameters are
    ``module``'s, named ``module.<name>`` in ``state_dict()``.

    Example::

        >>> model = glassgrad.nn.DataParallel(glassgrad.nn.Linear(2, 1))
        >>> list(model.state_dict())
        ['module.weight', 'module.bias']
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        with record_function("DataParallel.forward"):
            return self.module(*inputs, **kwargs)


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: Sequence[Any] | None = None,
    output_device: Any = None,
    dim: int = 0,
    module_kwargs: Any = None,
) -> Any:
    """The functional ``DataParallel``: PyTorch's needs an accelerator and, without one, raises
    ``RuntimeError("device type could not be determined")``; so does glassgrad's.

    Example::

        >>> glassgrad.nn.parallel.data_parallel(glassgrad.nn.Identity(), glassgrad.ones(1))
        Traceback (most recent call last):
        RuntimeError: device type could not be determined
    """
    raise RuntimeError("device type could not be determined")
