"""``DistributedDataParallel``: one model replica per process, gradients averaged across them.

Every rank runs the same model on its own share of each batch. At construction, rank 0's
parameters and buffers are copied to every rank; in each backward pass the gradients are
averaged across ranks in buckets whose all-reduces overlap the rest of backward (see
``_reducer``), so after ``backward()`` every rank holds the same gradients, equal to those of
one process that took the whole batch, and the optimizers keep the replicas identical.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.inplace_record import note_write
from ...distributed.process_group import ProcessGroup, resolve_group
from ..modules.module import Module
from ._reducer import Reducer

__all__ = ["DistributedDataParallel"]

_MB = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25


def _refuse(name: str, value: Any, default: Any, why: str) -> None:
    if value != default:
        raise ValueError(f"DistributedDataParallel: {name}={value!r} is not supported: {why}")


class DistributedDataParallel(Module):
    """Data-parallel training of ``module`` across the processes of ``process_group``.

    Wrap the model once per process, after ``init_process_group``; call it as the model;
    call ``backward()`` on the loss as usual: when it returns, each parameter's ``.grad``
    holds the average over the ranks. Arguments keep PyTorch's names and meanings:

    - ``bucket_cap_mb`` (default 25): the size of a gradient bucket (one all-reduce each);
    - ``find_unused_parameters``: after each forward, find the parameters the output does
      not depend on and count them ready, so backward does not wait for them (their
      ``.grad`` stays as it was when no rank used them);
    - ``broadcast_buffers`` (default True): copy rank 0's buffers (BatchNorm's running
      statistics) to every rank at the start of each forward that will be followed by a
      synchronised backward;
    - ``gradient_as_bucket_view``: ``.grad`` becomes a view into the bucket (saves a copy);
    - ``init_sync`` (default True): copy rank 0's parameters and buffers at construction.

    Models whose parameters differ across ranks (names, shapes or dtypes) raise a
    RuntimeError on every rank naming the first difference. ``no_sync()`` skips the
    averaging (gradients accumulate locally) until the next backward outside it.
    ``state_dict()`` keys start with ``module.``, as PyTorch's.

    Example (``mpiexec -n 2 python train.py``)::

        >>> dist.init_process_group("mpi")
        >>> model = DistributedDataParallel(nn.Linear(4, 2))
        >>> loss = model(glassgrad.randn(8, 4)).sum()
        >>> loss.backward()          # .grad is now the average over both ranks
    """

    bucket_bytes_cap: int
    reducer: Reducer
    require_backward_grad_sync: bool
    require_forward_param_sync: bool

    def __init__(
        self,
        module: Module,
        device_ids: list[Any] | None = None,
        output_device: Any = None,
        dim: int = 0,
        broadcast_buffers: bool = True,
        init_sync: bool = True,
        process_group: ProcessGroup | None = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DistributedDataParallel: module must be an nn.Module, got {type(module).__name__}"
            )
        cpu = "glassgrad runs on the CPU, one device per process"
        _refuse("device_ids", device_ids or None, None, cpu)
        _refuse("output_device", output_device, None, cpu)
        _refuse("dim", dim, 0, "inputs are not split across devices")
        _refuse("check_reduction", check_reduction, False, "it has no effect in PyTorch either")
        _refuse("static_graph", static_graph, False, "the graph is analysed in every iteration")
        pg = resolve_group(process_group)
        if pg is None:
            raise ValueError(
                "DistributedDataParallel: this rank is not in process_group; wrap the model "
                "only on the group's members"
            )
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any "
                "parameter that requires a gradient."
            )
        if bucket_cap_mb is not None and not bucket_cap_mb > 0:
            raise ValueError(
                f"DistributedDataParallel: bucket_cap_mb must be > 0, got {bucket_cap_mb}"
            )
        self.module = module
        self.process_group = pg
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * _MB)
        _verify_same_model(pg, module)
        if init_sync:
            _broadcast_from_root(
                pg,
                [t for _, t in module.state_dict(keep_vars=True).items()],
                "DistributedDataParallel's broadcast of rank 0's parameters and buffers",
            )
        self.reducer = Reducer(
            named, pg, self.bucket_bytes_cap, find_unused_parameters, gradient_as_bucket_view
        )

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self.reducer.check_finished()
        if self.require_forward_param_sync and self.broadcast_buffers:
            buffers = list(self.module.buffers())
            if buffers:
                _broadcast_from_root(
                    self.process_group,
                    buffers,
                    "DistributedDataParallel's broadcast of rank 0's buffers before forward",
                )
        output = self.module(*inputs, **kwargs)
        if sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(
                list(_find_tensors(output)) if self.find_unused_parameters else []
            )
        else:
            self.require_forward_param_sync = False
        return output

    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward passes accumulate gradients locally without averaging; the first
        backward after it averages everything accumulated.

        Example::

            >>> with ddp.no_sync():
            ...     ddp(x1).sum().backward()    # local only
            >>> ddp(x2).sum().backward()        # averages the sum of both gradients
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _find_tensors(obj: Any) -> Iterator[Tensor]:
    """The tensors inside a forward's output (nested tuples, lists and dicts)."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _find_tensors(item)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _find_tensors(item)


def _verify_same_model(pg: ProcessGroup, module: Module) -> None:
    """Every rank's parameters have the same names, shapes and dtypes; otherwise a
    RuntimeError on every rank naming the first difference (instead of a hang later)."""
    mine = [(n, tuple(p.shape), p._data.dtype.name) for n, p in module.named_parameters()]
    everyone = pg.comm.allgather(mine)
    reference = everyone[0]
    for r, theirs in enumerate(everyone[1:], start=1):
        for ours, other in zip(reference, theirs):
            if ours != other:
                raise RuntimeError(
                    f"DistributedDataParallel: the model differs across ranks: rank "
                    f"{pg.ranks[r]}'s parameter '{other[0]}' has shape {list(other[1])} "
                    f"{other[2]}, but rank {pg.ranks[0]}'s '{ours[0]}' has {list(ours[1])} "
                    f"{ours[2]}; every rank must build the same model"
                )
        if len(theirs) != len(reference):
            longer = reference if len(reference) > len(theirs) else theirs
            raise RuntimeError(
                f"DDP expects same model across all ranks, but rank {pg.ranks[0]} has "
                f"{len(reference)} params, while rank {pg.ranks[r]} has inconsistent "
                f"{len(theirs)} params (first unmatched: '{longer[min(len(reference), len(theirs))][0]}')"
            )


def _broadcast_from_root(pg: ProcessGroup, tensors: list[Tensor], what: str) -> None:
    """Copy group rank 0's values of ``tensors`` into every rank's, one flat message per
    dtype (in place, outside autograd; ``what`` names the write in the in-place record)."""
    by_dtype: dict = {}
    for t in tensors:
        by_dtype.setdefault(t._data.dtype, []).append(t)
    root = pg.rank() == 0
    for dtype, group in by_dtype.items():
        if root:
            flat = np.concatenate([t._data.ravel() for t in group])
        else:
            flat = np.empty(sum(t._data.size for t in group), dtype=dtype)
        pg.comm.Bcast(flat, root=0)
        if not root:
            offset = 0
            for t in group:
                data = t._data
                data[...] = flat[offset : offset + data.size].reshape(data.shape)
                offset += data.size
                t._vc[0] += 1
                note_write(t._vc, what)
