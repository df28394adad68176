"""DDP's gradient reducer: gradients averaged across ranks in buckets, while backward runs.

Parameters are packed, in reverse order (about the order backward produces their
gradients), into flat buckets of at most ``bucket_cap`` bytes of one dtype (a parameter
larger than the cap gets a bucket of its own). Each parameter's post-accumulate-grad hook
copies its gradient, divided by the group size, into its bucket; the moment a bucket's
last gradient arrives, its non-blocking all-reduce (a sum) starts, so communication runs
while backward is still computing the earlier layers. Buckets start in index order on
every rank (MPI needs collectives in the same order everywhere). When the backward pass
ends (``queue_callback``), every bucket is waited on and the averages are written back into
the parameters' ``.grad``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor
from ...autograd.engine import queue_callback
from ...autograd.graph import AccumulateGrad
from ...autograd.inplace_record import note_write
from ...distributed._mpi import mpi
from ...distributed.process_group import ProcessGroup

__all__ = ["Reducer"]


class _Bucket:
    __slots__ = ("index", "members", "flat", "views", "pending", "request")

    def __init__(self, index: int, members: list[int], params: list[Tensor]) -> None:
        self.index = index
        self.members = members  # parameter indices, in the order they were packed
        dtype = params[members[0]]._data.dtype
        self.flat = np.zeros(sum(params[i]._data.size for i in members), dtype=dtype)
        self.views = []
        offset = 0
        for i in members:
            data = params[i]._data
            self.views.append(self.flat[offset : offset + data.size].reshape(data.shape))
            offset += data.size
        self.pending = 0
        self.request: Any = None


def assign_buckets(params: list[Tensor], cap_bytes: int) -> list[list[int]]:
    """Parameter indices per bucket: reverse order, a bucket closed once it reaches
    ``cap_bytes`` or when the dtype changes (as PyTorch's ``compute_bucket_assignment``)."""
    buckets: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in reversed(range(len(params))):
        data = params[i]._data
        if current and data.dtype != params[current[0]]._data.dtype:
            buckets.append(current)
            current, size = [], 0
        current.append(i)
        size += data.nbytes
        if size >= cap_bytes:
            buckets.append(current)
            current, size = [], 0
    if current:
        buckets.append(current)
    return buckets


class Reducer:
    """The buckets and the per-iteration state of one ``DistributedDataParallel``."""

    used: np.ndarray

    buckets: list[_Bucket]
    callback_queued: bool
    expect_hooks: bool
    location: list[tuple[int, int]]
    names: list[str]
    next_launch: int
    next_poll: int
    params: list[Tensor]
    ready: bytearray

    def __init__(
        self,
        named_params: list[tuple[str, Tensor]],
        pg: ProcessGroup,
        cap_bytes: int,
        find_unused_parameters: bool,
        gradient_as_bucket_view: bool,
    ) -> None:
        self.names = [name for name, _ in named_params]
        self.params = [p for _, p in named_params]
        self.pg = pg
        self.find_unused = find_unused_parameters
        self.grad_as_view = gradient_as_bucket_view
        self.buckets = [
            _Bucket(b, members, self.params)
            for b, members in enumerate(assign_buckets(self.params, cap_bytes))
        ]
        self.location = [(0, 0)] * len(self.params)  # parameter -> (bucket, slot)
        for bucket in self.buckets:
            for slot, i in enumerate(bucket.members):
                self.location[i] = (bucket.index, slot)
        self.ready = bytearray(len(self.params))
        self.used = np.zeros(len(self.params), dtype=np.int32)  # with find_unused_parameters
        self.expect_hooks = False
        self.callback_queued = False
        self.next_launch = 0
        self.next_poll = 0
        self.unfinished: list[str] = []  # parameters without a gradient in the last backward
        for i, p in enumerate(self.params):
            p.register_post_accumulate_grad_hook(self._hook(i))

    def _hook(self, i: int) -> Any:
        def ready(param: Tensor) -> None:
            if self.expect_hooks:
                self.mark_ready(i, used=True)

        return ready

    def check_finished(self) -> None:
        """PyTorch's error when the last backward left parameters without a gradient."""
        if self.unfinished:
            names, self.unfinished = self.unfinished, []
            indices = [self.names.index(n) for n in names]
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting a "
                "new one. This error indicates that your module has parameters that were not "
                "used in producing loss. You can enable unused parameter detection by passing "
                "the keyword argument `find_unused_parameters=True` to "
                "`glassgrad.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss.\n"
                f"Parameter indices which did not receive grad for rank {self.pg.ranks[self.pg.rank()]}: "
                f"{' '.join(map(str, indices))}\nParameters which did not receive grad: "
                f"{', '.join(names)}"
            )

    def prepare_for_backward(self, outputs: list[Tensor]) -> None:
        """Arm the hooks for the next backward; with ``find_unused_parameters``, mark ready
        now the parameters that ``outputs`` do not depend on."""
        self.check_finished()
        for bucket in self.buckets:
            bucket.pending = len(bucket.members)
            bucket.request = None
        self.ready[:] = bytes(len(self.params))
        self.used[:] = 0
        self.next_launch = self.next_poll = 0
        self.callback_queued = False
        self.expect_hooks = True
        if self.find_unused:
            reached = _reachable_leaves(outputs)
            for i, p in enumerate(self.params):
                if id(p) not in reached:
                    self.mark_ready(i, used=False)

    def mark_ready(self, i: int, used: bool) -> None:
        if self.ready[i]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by the use "
                "of a module parameter outside the `forward` function (with "
                "find_unused_parameters=True it was counted unused after forward, then it "
                f"received a gradient) or by reentrant backward passes: parameter '{self.names[i]}'"
            )
        if used and not self.callback_queued:
            queue_callback(self.finalize)
            self.callback_queued = True
        self.ready[i] = 1
        self.used[i] = used
        b, slot = self.location[i]
        bucket = self.buckets[b]
        view = bucket.views[slot]
        grad = self.params[i]._grad
        if grad is None:
            view.fill(0)
        else:  # with gradient_as_bucket_view the gradient may already live in the view
            np.divide(grad._data, self.pg.size(), out=view)
        bucket.pending -= 1
        if bucket.pending == 0:
            while self.next_launch < len(self.buckets) and self.buckets[self.next_launch].pending == 0:  # fmt: skip
                self.launch(self.next_launch)
                self.next_launch += 1
        self._poll()

    def launch(self, b: int) -> None:
        """Start bucket ``b``'s all-reduce (non-blocking)."""
        bucket = self.buckets[b]
        bucket.request = self.pg.comm.Iallreduce(mpi().IN_PLACE, bucket.flat, op=mpi().SUM)

    def _poll(self) -> None:
        # MPI moves a non-blocking collective on only inside MPI calls: poke the oldest one.
        while self.next_poll < self.next_launch:
            if not self.buckets[self.next_poll].request.Test():
                return
            self.next_poll += 1

    def finalize(self) -> None:
        """End of backward: wait for every bucket and write the averages into ``.grad``."""
        self.expect_hooks = False
        requests = [b.request for b in self.buckets[: self.next_launch]]
        if self.next_launch < len(self.buckets):
            mpi().Request.Waitall(requests)  # leave nothing in flight, then report
            self.unfinished = [self.names[i] for i in range(len(self.params)) if not self.ready[i]]
            return
        used = None
        if self.find_unused:
            used = self.used.copy()
            self.pg.comm.Allreduce(mpi().IN_PLACE, used, op=mpi().MAX)
        for bucket, request in zip(self.buckets, requests):
            request.Wait()
            for slot, i in enumerate(bucket.members):
                if used is not None and not used[i]:
                    continue  # unused on every rank: its .grad stays as it was, as PyTorch's
                self._write_grad(self.params[i], bucket.views[slot])

    def _write_grad(self, param: Tensor, view: np.ndarray) -> None:
        grad = param._grad
        if self.grad_as_view:
            if grad is None or grad._data is not view:
                param._grad = Tensor._from_array(view)
        elif grad is None:
            param._grad = Tensor._from_array(view.copy())
        else:
            np.copyto(grad._data, view)
            grad._vc[0] += 1
            note_write(grad._vc, "DistributedDataParallel's gradient all-reduce into .grad")


def _reachable_leaves(outputs: list[Tensor]) -> set[int]:
    """ids of the leaves whose gradient ``outputs`` depend on (their AccumulateGrad nodes)."""
    reached: set[int] = set()
    seen: set = set()
    stack = []
    for t in outputs:
        if t.grad_fn is not None:
            stack.append(t.grad_fn)
        elif t.requires_grad:
            reached.add(id(t))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            reached.add(id(node.variable))
        stack.extend(n for n in node._next_nodes if n is not None and n not in seen)
    return reached
