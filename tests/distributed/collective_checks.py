"""Checks of ``glassgrad.distributed``'s collectives, run on every rank by ``_runner`` under
``mpiexec -n N``. Each rank contributes values derived from its rank; every result is
compared with what NumPy computes from all ranks' contributions.

Values are small integers, so float sums and products are exact and compared exactly.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributed as dist

CHECKS: dict[str, Callable[[], None]] = {}

DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64}
LAYOUTS = ("contiguous", "noncontiguous", "0d")


def check(name: str) -> Callable:
    def register(fn: Callable[[], None]) -> Callable[[], None]:
        assert name not in CHECKS, name
        CHECKS[name] = fn
        return fn

    return register


def contribution(rank: int, layout: str, dtype: type, salt: int = 0) -> np.ndarray:
    """Rank ``rank``'s values: (3, 4) small integers, or a 0-d one."""
    rng = np.random.default_rng(100 * salt + rank)
    shape = () if layout == "0d" else (3, 4)
    return rng.integers(-3, 4, shape).astype(dtype)


def as_tensor(values: np.ndarray, layout: str) -> gg.Tensor:
    """A tensor holding ``values``; for "noncontiguous", a transposed view of another array."""
    if layout == "noncontiguous":
        t = gg.tensor(np.ascontiguousarray(values.T)).t()
        assert not t.is_contiguous()
        return t
    return gg.tensor(values)


def all_contributions(layout: str, dtype: type, salt: int = 0) -> np.ndarray:
    n = dist.get_world_size()
    return np.stack([contribution(r, layout, dtype, salt) for r in range(n)])


def equal(t: gg.Tensor, expected: np.ndarray) -> None:
    got = t.numpy()
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


def raises(exc: type, match: str, fn: Callable[[], object]) -> None:
    with pytest.raises(exc, match=match):
        fn()


REDUCTIONS = {
    "SUM": lambda a: a.sum(axis=0),
    "PRODUCT": lambda a: a.prod(axis=0),
    "MIN": lambda a: a.min(axis=0),
    "MAX": lambda a: a.max(axis=0),
    "AVG": lambda a: a.mean(axis=0),
    "BAND": lambda a: np.bitwise_and.reduce(a, axis=0),
    "BOR": lambda a: np.bitwise_or.reduce(a, axis=0),
    "BXOR": lambda a: np.bitwise_xor.reduce(a, axis=0),
}


def _all_reduce_check(op: str, dtype_name: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        dtype = DTYPES[dtype_name]
        t = as_tensor(contribution(dist.get_rank(), layout, dtype), layout)
        version = t._version
        assert dist.all_reduce(t, op=getattr(dist.ReduceOp, op)) is None
        expected = REDUCTIONS[op](all_contributions(layout, dtype)).astype(dtype)
        equal(t, expected)
        assert t._version == version + 1  # written in place, counted as PyTorch's

    return run


for _op in REDUCTIONS:
    for _dtype in DTYPES:
        if (_op == "AVG") == (_dtype == "int64") or (_op.startswith("B") and _dtype != "int64"):
            continue
        for _layout in LAYOUTS:
            check(f"all_reduce_{_op}_{_dtype}_{_layout}")(_all_reduce_check(_op, _dtype, _layout))


@check("all_reduce_bool_and_float16")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    flags = gg.tensor([r == 0, True, False])
    dist.all_reduce(flags, op=dist.ReduceOp.SUM)  # "any", as PyTorch's sum of bools
    equal(flags, np.array([True, True, False]))
    flags = gg.tensor([r == 0, True, False])
    dist.all_reduce(flags, op=dist.ReduceOp.MIN)  # "all"
    equal(flags, np.array([False, True, False]))
    half = gg.tensor([1.5, -2.0], dtype=gg.float16) * (r + 1)
    dist.all_reduce(half)
    equal(half, (np.array([1.5, -2.0]) * sum(range(1, n + 1))).astype(np.float16))


@check("in_place_error_names_the_collective")
def _() -> None:
    # A collective writes its tensor in place; the backward that finds a saved copy stale
    # names the call, as it names in-place ops.
    w = gg.ones(3, requires_grad=True)
    c = gg.full((3,), 2.0)
    y = w * c  # Mul saves c for w's gradient
    dist.all_reduce(c)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    assert "The last in-place change to it was made by distributed.all_reduce, at " in str(
        info.value
    )
    assert str(info.value).endswith("dist.all_reduce(c).")


@check("all_reduce_async_returns_work")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    t = gg.full((1000,), float(r))
    work = dist.all_reduce(t, async_op=True)
    assert isinstance(work, dist.Work)
    assert work.wait() is True
    assert work.is_completed() and work.is_success()
    assert work.result()[0] is t
    equal(t, np.full(1000, float(sum(range(n))), dtype=np.float32))
    # is_completed never blocks; polled, it turns True, and the result is then in place
    t2 = as_tensor(contribution(r, "noncontiguous", np.float64), "noncontiguous")
    work = dist.all_reduce(t2, op=dist.ReduceOp.MAX, async_op=True)
    while not work.is_completed():
        pass
    equal(t2, all_contributions("noncontiguous", np.float64).max(axis=0))


@check("all_reduce_avg_of_integers_raises_on_every_rank")
def _() -> None:
    t = gg.ones(3, dtype=gg.int64)
    raises(ValueError, "AVG needs a floating-point", lambda: dist.all_reduce(t, dist.ReduceOp.AVG))
    raises(
        ValueError,
        "BAND.*needs an integer",
        lambda: dist.all_reduce(gg.ones(2), dist.ReduceOp.BAND),
    )
    equal(t, np.ones(3, dtype=np.int64))  # untouched


@check("all_reduce_mismatched_shapes_raise_on_every_rank")
def _() -> None:
    r = dist.get_rank()
    t = gg.ones(2 + (r == 1))
    raises(
        RuntimeError,
        r"all_reduce: the ranks passed different arguments \(rank 0: float32\[2\] SUM; rank 1: float32\[3\]",
        lambda: dist.all_reduce(t),
    )
    equal(t, np.ones(2 + (r == 1), dtype=np.float32))  # no partial sum


@check("all_reduce_mismatched_dtypes_raise_on_every_rank")
def _() -> None:
    r = dist.get_rank()
    t = gg.ones(2, dtype=gg.float64 if r == 1 else gg.float32)
    raises(
        RuntimeError,
        r"rank 0: float32\[2\] SUM; rank 1: float64\[2\] SUM",
        lambda: dist.all_reduce(t),
    )


@check("all_reduce_mismatched_ops_raise_on_every_rank")
def _() -> None:
    op = dist.ReduceOp.MAX if dist.get_rank() == 0 else dist.ReduceOp.SUM
    raises(
        RuntimeError,
        "rank 0: float32.2. MAX; rank 1: float32.2. SUM",
        lambda: dist.all_reduce(gg.ones(2), op),
    )


@check("a_bad_argument_on_one_rank_raises_on_every_rank")
def _() -> None:
    r = dist.get_rank()
    arg = [1.0, 2.0] if r == 1 else gg.ones(2)
    if r == 1:
        raises(
            TypeError, "Expected parameter `tensor` of type Tensor", lambda: dist.all_reduce(arg)
        )
    else:
        raises(
            RuntimeError,
            "all_reduce: rank 1 failed: TypeError: Invalid function argument",
            lambda: dist.all_reduce(arg),
        )


@check("all_reduce_read_only_tensor_raises")
def _() -> None:
    values = np.ones(3, dtype=np.float32)
    values.flags.writeable = False
    t = gg.from_numpy(values)
    raises(RuntimeError, "all_reduce: tensor is read-only", lambda: dist.all_reduce(t))


def _broadcast_check(dtype_name: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        dtype = DTYPES[dtype_name]
        for src in range(n):
            t = as_tensor(contribution(r, layout, dtype, salt=src), layout)
            dist.broadcast(t, src=src)
            equal(t, contribution(src, layout, dtype, salt=src))

    return run


for _dtype in DTYPES:
    for _layout in LAYOUTS:
        check(f"broadcast_{_dtype}_{_layout}")(_broadcast_check(_dtype, _layout))


@check("broadcast_needs_a_source")
def _() -> None:
    raises(ValueError, "Must specify global_rank or group_rank", lambda: dist.broadcast(gg.ones(2)))
    raises(ValueError, "Can't specify both", lambda: dist.broadcast(gg.ones(2), src=0, group_src=0))
    n = dist.get_world_size()
    raises(
        ValueError,
        f"Global rank {n} is not part of group",
        lambda: dist.broadcast(gg.ones(2), src=n),
    )


@check("broadcast_mismatched_roots_raise")
def _() -> None:
    raises(
        RuntimeError,
        "different arguments.*root 0.*root 1",
        lambda: dist.broadcast(gg.ones(2), src=min(dist.get_rank(), 1)),
    )


def _reduce_check(op: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        dst = n - 1
        mine = contribution(r, layout, np.float64)
        t = as_tensor(mine, layout)
        dist.reduce(t, dst=dst, op=getattr(dist.ReduceOp, op))
        if r == dst:
            equal(t, REDUCTIONS[op](all_contributions(layout, np.float64)))
        else:
            equal(t, mine)  # only the destination receives the result

    return run


for _op in ("SUM", "MAX", "AVG"):
    for _layout in LAYOUTS:
        check(f"reduce_{_op}_{_layout}")(_reduce_check(_op, _layout))


def _all_gather_check(dtype_name: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        dtype = DTYPES[dtype_name]
        outs = [as_tensor(np.zeros_like(contribution(0, layout, dtype)), layout) for _ in range(n)]
        dist.all_gather(outs, as_tensor(contribution(r, layout, dtype), layout))
        for i, out in enumerate(outs):
            equal(out, contribution(i, layout, dtype))

    return run


for _dtype in DTYPES:
    for _layout in LAYOUTS:
        check(f"all_gather_{_dtype}_{_layout}")(_all_gather_check(_dtype, _layout))


@check("all_gather_into_tensor")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    out = gg.zeros(n * 3, 4, dtype=gg.int64)
    dist.all_gather_into_tensor(
        out, as_tensor(contribution(r, "noncontiguous", np.int64), "noncontiguous")
    )
    equal(out, np.concatenate(list(all_contributions("contiguous", np.int64))))
    stacked = gg.zeros(4, n * 3, dtype=gg.int64).t()  # a non-contiguous output
    dist.all_gather_into_tensor(stacked, gg.tensor(contribution(r, "contiguous", np.int64)))
    equal(stacked, np.concatenate(list(all_contributions("contiguous", np.int64))))
    raises(
        ValueError,
        "output_tensor is int64.* but must hold",
        lambda: dist.all_gather_into_tensor(
            gg.zeros(1, dtype=gg.int64), gg.ones(2, dtype=gg.int64)
        ),
    )


@check("all_gather_wrong_list_raises")
def _() -> None:
    n = dist.get_world_size()
    raises(
        ValueError,
        f"tensor_list has {n + 1} tensors but the group has {n} ranks",
        lambda: dist.all_gather([gg.zeros(2) for _ in range(n + 1)], gg.ones(2)),
    )
    raises(
        ValueError,
        r"tensor_list\[0\] is float64\[2\], but the tensor is float32\[2\]",
        lambda: dist.all_gather([gg.zeros(2, dtype=gg.float64) for _ in range(n)], gg.ones(2)),
    )


def _reduce_scatter_check(op: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        ins = [as_tensor(contribution(r, layout, np.float64, salt=i), layout) for i in range(n)]
        out = as_tensor(np.zeros_like(contribution(0, layout, np.float64)), layout)
        dist.reduce_scatter(out, ins, op=getattr(dist.ReduceOp, op))
        equal(out, REDUCTIONS[op](all_contributions(layout, np.float64, salt=r)))

    return run


for _op in ("SUM", "MIN", "AVG"):
    for _layout in LAYOUTS:
        check(f"reduce_scatter_{_op}_{_layout}")(_reduce_scatter_check(_op, _layout))


@check("reduce_scatter_tensor")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    full = np.stack([contribution(r, "contiguous", np.int64, salt=i) for i in range(n)])
    out = gg.zeros(4, 3, dtype=gg.int64).t()
    dist.reduce_scatter_tensor(out, gg.tensor(full).reshape(n * 3, 4))
    equal(out, all_contributions("contiguous", np.int64, salt=r).sum(axis=0))


def _gather_check(dtype_name: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        dtype = DTYPES[dtype_name]
        dst = n - 1
        outs = None
        if r == dst:
            outs = [
                as_tensor(np.zeros_like(contribution(0, layout, dtype)), layout) for _ in range(n)
            ]
        dist.gather(as_tensor(contribution(r, layout, dtype), layout), outs, dst=dst)
        if r == dst:
            for i, out in enumerate(outs):
                equal(out, contribution(i, layout, dtype))

    return run


def _scatter_check(dtype_name: str, layout: str) -> Callable[[], None]:
    def run() -> None:
        r, n = dist.get_rank(), dist.get_world_size()
        dtype = DTYPES[dtype_name]
        ins = None
        if r == 0:
            ins = [as_tensor(contribution(i, layout, dtype, salt=7), layout) for i in range(n)]
        out = as_tensor(np.zeros_like(contribution(0, layout, dtype)), layout)
        dist.scatter(out, ins)  # src defaults to rank 0
        equal(out, contribution(r, layout, dtype, salt=7))

    return run


for _dtype in DTYPES:
    for _layout in LAYOUTS:
        check(f"gather_{_dtype}_{_layout}")(_gather_check(_dtype, _layout))
        check(f"scatter_{_dtype}_{_layout}")(_scatter_check(_dtype, _layout))


@check("gather_and_scatter_list_arguments_as_pytorch")
def _() -> None:
    r = dist.get_rank()
    if r == 0:
        raises(
            ValueError,
            "``gather_list`` must be specified on destination rank",
            lambda: dist.gather(gg.ones(2), None, dst=0),
        )
        raises(
            ValueError,
            "``scatter_list`` must be specified on source rank",
            lambda: dist.scatter(gg.ones(2), None, src=0),
        )
    else:
        raises(
            RuntimeError,
            "gather: rank 0 failed: ValueError",
            lambda: dist.gather(gg.ones(2), None, dst=0),
        )
        raises(
            RuntimeError,
            "scatter: rank 0 failed: ValueError",
            lambda: dist.scatter(gg.ones(2), None, src=0),
        )
    extra = [gg.zeros(2)] if r == 1 else None
    if r == 1:
        raises(
            ValueError,
            "``gather_list`` must NOT be specified on non-destination ranks",
            lambda: dist.gather(gg.ones(2), extra, dst=0) if r else None,
        )
    else:
        raises(
            RuntimeError,
            "rank 1 failed",
            lambda: dist.gather(
                gg.ones(2),
                [gg.zeros(2) for _ in range(dist.get_world_size())] if r == 0 else None,
                dst=0,
            ),
        )


@check("send_recv_ring")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    out = as_tensor(np.zeros((3, 4)), "noncontiguous")
    if r % 2 == 0:  # even ranks send first, so the blocking calls pair up
        dist.send(
            as_tensor(contribution(r, "noncontiguous", np.float64), "noncontiguous"),
            dst=(r + 1) % n,
        )
        sender = dist.recv(out, src=(r - 1) % n)
    else:
        sender = dist.recv(out, src=(r - 1) % n)
        dist.send(
            as_tensor(contribution(r, "noncontiguous", np.float64), "noncontiguous"),
            dst=(r + 1) % n,
        )
    assert sender == (r - 1) % n
    equal(out, contribution((r - 1) % n, "noncontiguous", np.float64))


@check("isend_irecv_and_recv_from_any_rank")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    if r == 0:
        got = {}
        for _ in range(n - 1):
            t = gg.zeros((), dtype=gg.int64)
            sender = dist.recv(t, tag=5)  # any source
            got[sender] = t.item()
        assert got == {i: 10 * i for i in range(1, n)}
    else:
        work = dist.isend(gg.tensor(10 * r), dst=0, tag=5)
        assert work.wait()
    t = gg.zeros(2)
    if r == 1:
        work = dist.irecv(t, src=0)
        work.wait()
        equal(t, np.array([4.0, 5.0], dtype=np.float32))
    elif r == 0:
        dist.isend(gg.tensor([4.0, 5.0]), dst=1).wait()


@check("recv_of_another_size_raises")
def _() -> None:
    r = dist.get_rank()
    if r == 0:
        dist.send(gg.ones(3), dst=1)
    elif r == 1:
        raises(
            RuntimeError,
            r"recv: rank 0 sent 12 bytes, but the tensor \(float32\[2\]\) holds 8",
            lambda: dist.recv(gg.zeros(2), src=0),
        )
    if r == 0:
        raises(
            ValueError,
            "Invalid destination rank: destination rank should not be the same",
            lambda: dist.send(gg.ones(1), dst=0),
        )


@check("barrier")
def _() -> None:
    assert dist.barrier() is None
    assert dist.barrier(async_op=True).wait()


@check("object_collectives")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    out = [None] * n
    dist.all_gather_object(out, {"rank": r, "name": f"r{r}"})
    assert out == [{"rank": i, "name": f"r{i}"} for i in range(n)]
    objs = [{"lr": 0.1}, (1, 2)] if r == n - 1 else [None, None]
    dist.broadcast_object_list(objs, src=n - 1)
    assert objs == [{"lr": 0.1}, (1, 2)]
    gathered = [None] * n if r == 0 else None
    dist.gather_object(r * 10, gathered)
    if r == 0:
        assert gathered == [10 * i for i in range(n)]
    received = [None]
    dist.scatter_object_list(received, [f"item{i}" for i in range(n)] if r == 0 else None)
    assert received == [f"item{r}"]
    raises(ValueError, f"object_list must be a list of {n}", lambda: dist.all_gather_object([], 1))


@check("new_group_of_some_ranks")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    members = [0, n - 1]
    pg = dist.new_group(members)
    if r in members:
        assert dist.get_rank(pg) == members.index(r)
        assert dist.get_world_size(pg) == 2
        assert dist.get_process_group_ranks(pg) == members
        t = gg.tensor(float(r + 1))
        dist.all_reduce(t, group=pg)
        equal(t, np.array(float(n + 1), dtype=np.float32))
        b = gg.tensor(float(r))
        dist.broadcast(b, src=n - 1, group=pg)  # src is a global rank
        equal(b, np.array(float(n - 1), dtype=np.float32))
        b = gg.tensor(float(r))
        dist.broadcast(b, group_src=0, group=pg)
        equal(b, np.array(0.0, dtype=np.float32))
    else:
        assert pg == dist.GroupMember.NON_GROUP_MEMBER
        assert dist.get_rank(pg) == -1 and dist.get_world_size(pg) == -1
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert dist.all_reduce(gg.ones(1), group=pg) is None
        assert "which does not belong to the given group" in str(caught[0].message)
    dist.barrier()
    if r in members:
        dist.destroy_process_group(pg)
    raises(ValueError, "duplicate entries", lambda: dist.new_group([0, 0]))
    raises(ValueError, f"Rank {n} is out of range", lambda: dist.new_group([n]))


@check("init_twice_and_reinit")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    raises(
        ValueError,
        "trying to initialize the default process group twice!",
        lambda: dist.init_process_group("mpi"),
    )
    assert dist.get_backend() == "mpi" and dist.is_initialized()
    dist.destroy_process_group()
    assert not dist.is_initialized() and dist.group.WORLD is None
    raises(
        ValueError,
        "Default process group has not been initialized",
        lambda: dist.all_reduce(gg.ones(1)),
    )
    raises(
        ValueError,
        "world_size=99 but MPI gives this process",
        lambda: dist.init_process_group("mpi", world_size=99),
    )
    os.environ["RANK"] = str(dist.GroupMember.NON_GROUP_MEMBER)  # as a wrong launcher would
    try:
        raises(
            ValueError,
            "the environment says RANK=-100, but MPI gives this process",
            lambda: dist.init_process_group("mpi"),
        )
    finally:
        del os.environ["RANK"]
    os.environ["RANK"], os.environ["WORLD_SIZE"] = str(r), str(n)  # agreeing: accepted
    try:
        dist.init_process_group("mpi", rank=-1)
    finally:
        del os.environ["RANK"], os.environ["WORLD_SIZE"]
    assert dist.group.WORLD is dist.GroupMember.WORLD is not None
    assert (dist.get_rank(), dist.get_world_size()) == (r, n)
