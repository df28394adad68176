"""Checks of ``DistributedDataParallel``, run on every rank by ``_runner`` under ``mpiexec``.

Exactness: each rank trains its DDP replica on its share of every batch while also training,
alone, a reference copy on the whole batch (one process, no communication); after 20 steps
both must hold the same parameters (float64: 1e-10 relative, float32: 1e-5).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

import glassgrad as gg
import glassgrad.distributed as dist
import glassgrad.nn as nn
import glassgrad.nn.functional as F
from glassgrad.nn.parallel import DistributedDataParallel as DDP
from glassgrad.viz import make_dot, record_forward

CHECKS: dict[str, Callable[[], None]] = {}
STEPS = 20
BATCH = 12  # divisible by 2 and 3 ranks


def check(name: str) -> Callable:
    def register(fn: Callable[[], None]) -> Callable[[], None]:
        CHECKS[name] = fn
        return fn

    return register


class WithUnused(nn.Module):
    """A model with a layer its forward never calls."""

    def __init__(self, body: nn.Module) -> None:
        super().__init__()
        self.body = body
        self.unused = nn.Linear(16, 2)

    def forward(self, x: gg.Tensor) -> gg.Tensor:
        return self.body(x)


def mlp(dtype: gg.dtype, seed: int, extra: bool = False, batchnorm: bool = False) -> nn.Module:
    gg.manual_seed(seed)
    layers = [nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3)]
    if batchnorm:
        layers.insert(1, nn.BatchNorm1d(16))
    model = nn.Sequential(*layers)
    return (WithUnused(model) if extra else model).to(dtype)


def batches(dtype: gg.dtype, steps: int = STEPS, size: int = BATCH) -> list[tuple]:
    rng = np.random.default_rng(7)
    return [
        (gg.tensor(rng.standard_normal((size, 6))).to(dtype), gg.tensor(rng.integers(0, 3, size)))
        for _ in range(steps)
    ]


def shard(t: gg.Tensor) -> gg.Tensor:
    r, n = dist.get_rank(), dist.get_world_size()
    per = t.shape[0] // n
    return t[r * per : (r + 1) * per]


def optimizer(kind: str, params) -> gg.optim.Optimizer:
    if kind == "sgd":
        return gg.optim.SGD(params, lr=0.1, momentum=0.9)
    return gg.optim.Adam(params, lr=0.01)


def assert_close(got: gg.Tensor, want: gg.Tensor, rtol: float, what: str) -> None:
    a, b = got.detach().numpy(), want.detach().numpy()
    scale = max(np.abs(b).max(), 1e-30)
    err = np.abs(a - b).max() / scale
    assert err <= rtol, f"{what}: relative difference {err:.3g} > {rtol}"


def assert_same_params(ddp: DDP, reference: nn.Module, rtol: float) -> None:
    ref = dict(reference.named_parameters())
    for name, p in ddp.module.named_parameters():
        assert_close(p, ref[name], rtol, name)


def train_pair(dtype, kind, rtol, seed_offset=1, **ddp_kwargs) -> DDP:
    # Each rank starts from other weights: DDP must copy rank 0's (seed 0) to everyone.
    ddp = DDP(mlp(dtype, seed=dist.get_rank() * seed_offset), **ddp_kwargs)
    reference = mlp(dtype, seed=0)
    opt, ref_opt = optimizer(kind, ddp.parameters()), optimizer(kind, reference.parameters())
    for x, y in batches(dtype):
        opt.zero_grad()
        F.cross_entropy(ddp(shard(x)), shard(y)).backward()
        opt.step()
        ref_opt.zero_grad()
        F.cross_entropy(reference(x), y).backward()
        ref_opt.step()
    assert_same_params(ddp, reference, rtol)
    return ddp


def _exactness(dtype_name: str, kind: str, buckets: str) -> Callable[[], None]:
    def run() -> None:
        dtype = getattr(gg, dtype_name)
        rtol = 1e-10 if dtype_name == "float64" else 1e-5
        n_params = 6
        one_weight = 16 * 16 * dtype.itemsize
        cap_mb = {
            "smaller_than_a_parameter": 1e-6,
            "several": one_weight / 2 / 2**20,
            "one": None,
        }[buckets]
        ddp = train_pair(dtype, kind, rtol, bucket_cap_mb=cap_mb)
        count = len(ddp.reducer.buckets)
        if buckets == "smaller_than_a_parameter":
            assert count == n_params
        elif buckets == "several":
            assert 1 < count < n_params, count
        else:
            assert count == 1

    return run


for _dtype in ("float64", "float32"):
    for _kind in ("sgd", "adam"):
        for _buckets in ("smaller_than_a_parameter", "several", "one"):
            check(f"exact_{_dtype}_{_kind}_{_buckets}_buckets")(_exactness(_dtype, _kind, _buckets))


@check("exact_with_gradient_as_bucket_view")
def _() -> None:
    ddp = train_pair(gg.float64, "sgd", 1e-10, bucket_cap_mb=1e-3, gradient_as_bucket_view=True)
    p = next(ddp.parameters())
    assert any(np.shares_memory(p.grad.numpy(), b.flat) for b in ddp.reducer.buckets)


@check("exact_with_no_sync_accumulation")
def _() -> None:
    for kind in ("sgd", "adam"):
        ddp = DDP(mlp(gg.float64, seed=dist.get_rank()), bucket_cap_mb=1e-3)
        reference = mlp(gg.float64, seed=0)
        opt, ref_opt = optimizer(kind, ddp.parameters()), optimizer(kind, reference.parameters())
        data = batches(gg.float64, steps=2 * STEPS)
        for step in range(STEPS):
            (x1, y1), (x2, y2) = data[2 * step], data[2 * step + 1]
            opt.zero_grad()
            with ddp.no_sync():
                F.cross_entropy(ddp(shard(x1)), shard(y1)).backward()
            F.cross_entropy(ddp(shard(x2)), shard(y2)).backward()
            opt.step()
            ref_opt.zero_grad()
            F.cross_entropy(reference(x1), y1).backward()
            F.cross_entropy(reference(x2), y2).backward()
            ref_opt.step()
        assert_same_params(ddp, reference, 1e-10)


@check("no_sync_leaves_gradients_local")
def _() -> None:
    ddp = DDP(mlp(gg.float64, seed=0))
    x, _ = batches(gg.float64, steps=1)[0]
    with ddp.no_sync():
        ddp(shard(x)).sum().backward()
    local = [p.grad.numpy().copy() for p in ddp.parameters()]
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, local[0])
    assert not np.allclose(everyone[0], everyone[1])  # different shards, not averaged


@check("exact_with_an_unused_parameter_and_find_unused_parameters")
def _() -> None:
    for kind in ("sgd", "adam"):
        ddp = DDP(mlp(gg.float64, seed=dist.get_rank(), extra=True), find_unused_parameters=True)
        reference = mlp(gg.float64, seed=0, extra=True)
        opt, ref_opt = optimizer(kind, ddp.parameters()), optimizer(kind, reference.parameters())
        for x, y in batches(gg.float64):
            opt.zero_grad()
            F.cross_entropy(ddp(shard(x)), shard(y)).backward()
            opt.step()
            ref_opt.zero_grad()
            F.cross_entropy(reference(x), y).backward()
            ref_opt.step()
        assert_same_params(ddp, reference, 1e-10)
        assert ddp.module.unused.weight.grad is None  # unused everywhere: untouched


@check("a_parameter_used_on_some_ranks_only_is_averaged")
def _() -> None:
    r, n = dist.get_rank(), dist.get_world_size()

    class Branchy(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = nn.Linear(3, 1).double()
            self.b = nn.Linear(3, 1).double()

        def forward(self, x: gg.Tensor) -> gg.Tensor:
            return self.a(x) + (self.b(x) if r == 0 else 0)

    gg.manual_seed(0)
    ddp = DDP(Branchy(), find_unused_parameters=True)
    x = gg.ones(2, 3, dtype=gg.float64) * (r + 1)
    ddp(x).sum().backward()
    # b's gradient is rank 0's alone, divided by the group size; a's the average
    np.testing.assert_allclose(ddp.module.b.weight.grad.numpy(), np.full((1, 3), 2.0 / n))
    expected_a = sum(2.0 * (k + 1) for k in range(n)) / n
    np.testing.assert_allclose(ddp.module.a.weight.grad.numpy(), np.full((1, 3), expected_a))


@check("an_unused_parameter_without_find_unused_parameters_raises_at_the_next_forward")
def _() -> None:
    ddp = DDP(mlp(gg.float64, seed=0, extra=True))
    x, _ = batches(gg.float64, steps=1)[0]
    ddp(shard(x)).sum().backward()  # unused.weight/bias never get a gradient
    with pytest.raises(
        RuntimeError, match="Expected to have finished reduction in the prior iteration"
    ) as info:
        ddp(shard(x))
    assert "Parameters which did not receive grad: unused.weight, unused.bias" in str(info.value)
    assert "Parameter indices which did not receive grad for rank" in str(info.value)


@check("a_second_backward_through_one_forward_is_local_as_pytorch")
def _() -> None:
    ddp = DDP(mlp(gg.float64, seed=0))
    x, _ = batches(gg.float64, steps=1)[0]
    loss = ddp(shard(x)).sum()
    loss.backward(retain_graph=True)
    averaged = next(ddp.parameters()).grad.numpy().copy()
    loss.backward()  # the hooks are no longer armed: this rank's gradient is added locally
    (local,) = gg.autograd.grad(ddp.module(shard(x)).sum(), [next(ddp.parameters())])
    np.testing.assert_allclose(next(ddp.parameters()).grad.numpy(), averaged + local.numpy())


@check("a_parameter_used_outside_forward_with_find_unused_parameters_raises")
def _() -> None:
    ddp = DDP(mlp(gg.float64, seed=0, extra=True), find_unused_parameters=True)
    x, _ = batches(gg.float64, steps=1)[0]
    loss = ddp(shard(x)).sum() + ddp.module.unused.weight.sum()  # counted unused, then used
    with pytest.raises(
        RuntimeError, match="Expected to mark a variable ready only once.*'unused.weight'"
    ):
        loss.backward()


@check("batchnorm_buffers_broadcast_from_rank_0")
def _() -> None:
    n = dist.get_world_size()
    ddp = DDP(mlp(gg.float64, seed=dist.get_rank(), batchnorm=True))
    reference = mlp(gg.float64, seed=0, batchnorm=True)
    opt = optimizer("sgd", ddp.parameters())
    ref_opt = optimizer("sgd", reference.parameters())
    per = BATCH // n
    for x, y in batches(gg.float64):
        opt.zero_grad()
        F.cross_entropy(ddp(shard(x)), shard(y)).backward()
        opt.step()
        # The reference: each rank's share through BatchNorm with that share's statistics;
        # the running statistics advance by rank 0's share only (broadcast at each forward).
        ref_opt.zero_grad()
        saved = {k: v.clone() for k, v in reference.named_buffers()}
        for k in reversed(range(n)):
            if k == 0:
                for name, buf in reference.named_buffers():
                    buf.copy_(saved[name])
            xs, ys = x[k * per : (k + 1) * per], y[k * per : (k + 1) * per]
            (F.cross_entropy(reference(xs), ys) / n).backward()
        ref_opt.step()
    assert_same_params(ddp, reference, 1e-10)
    ddp.eval()
    with gg.no_grad():
        ddp(shard(batches(gg.float64, steps=1)[0][0]))  # syncs buffers, eval: no update
    ref_buffers = dict(reference.named_buffers())
    for name, buf in ddp.module.named_buffers():
        assert_close(buf.double(), ref_buffers[name].double(), 1e-10, name)


@check("parameters_and_buffers_broadcast_at_construction")
def _() -> None:
    model = mlp(gg.float64, seed=dist.get_rank(), batchnorm=True)
    model[1].running_mean.fill_(float(dist.get_rank()))
    ddp = DDP(model, broadcast_buffers=False)
    reference = mlp(gg.float64, seed=0, batchnorm=True)
    assert_same_params(ddp, reference, 0.0)
    assert np.all(ddp.module[1].running_mean.numpy() == 0.0)


@check("in_place_error_names_the_broadcast_and_the_gradient_all_reduce")
def _() -> None:
    model = nn.Linear(3, 2)
    with gg.no_grad():
        model.weight.fill_(float(dist.get_rank()))
    y = (model.weight * model.weight).sum()  # Mul saves the weight
    ddp = DDP(model)  # every rank but 0 gets rank 0's weight, in place
    if dist.get_rank() != 0:
        with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
            y.backward()
        assert "made by DistributedDataParallel's broadcast of rank 0's parameters" in str(
            info.value
        )
    ddp(gg.ones(1, 3)).sum().backward()
    g = model.weight.grad
    y = model.weight * g  # Mul saves the .grad for the weight's gradient
    ddp(gg.ones(1, 3)).sum().backward()  # the all-reduced gradient is written into g
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    assert "made by DistributedDataParallel's gradient all-reduce into .grad" in str(info.value)


@check("different_models_raise_on_every_rank")
def _() -> None:
    r = dist.get_rank()
    model = nn.Sequential(nn.Linear(4, 3), nn.Linear(3 if r == 0 else 5, 2))
    with pytest.raises(
        RuntimeError,
        match=r"rank 1's parameter '1.weight' has shape \[2, 5\] float32, but rank 0's '1.weight' has \[2, 3\] float32",
    ):
        DDP(model)
    model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(2 if r == 0 else 3)])
    with pytest.raises(
        RuntimeError,
        match=r"DDP expects same model across all ranks, but rank 0 has 4 params, while rank 1 has inconsistent 6 params \(first unmatched: '2.weight'\)",
    ):
        DDP(model)


@check("arguments_as_pytorch")
def _() -> None:
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DDP(nn.ReLU())
    with pytest.raises(ValueError, match="device_ids=.0. is not supported"):
        DDP(nn.Linear(2, 2), device_ids=[0])
    with pytest.raises(ValueError, match="static_graph=True is not supported"):
        DDP(nn.Linear(2, 2), static_graph=True)
    with pytest.raises(TypeError, match="module must be an nn.Module"):
        DDP(lambda x: x)
    ddp = DDP(nn.Linear(2, 2))
    assert ddp.bucket_bytes_cap == 25 * 2**20
    assert isinstance(ddp.module, nn.Linear)


@check("state_dict_keys_as_pytorch")
def _() -> None:
    ddp = DDP(mlp(gg.float32, seed=0, batchnorm=True))
    keys = list(ddp.state_dict())
    assert keys[:2] == ["module.0.weight", "module.0.bias"]
    assert "module.1.running_mean" in keys and "module.1.num_batches_tracked" in keys
    assert [k.removeprefix("module.") for k in keys] == list(ddp.module.state_dict())
    fresh = mlp(gg.float32, seed=5, batchnorm=True)
    fresh.load_state_dict(ddp.module.state_dict())
    assert_same_params(ddp, fresh, 0.0)


@check("first_bucket_reduces_before_backward_reaches_the_first_layer")
def _() -> None:
    gg.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(32, 32) for _ in range(4)]).double()
    ddp = DDP(model, bucket_cap_mb=1e-6)  # one bucket per parameter
    events: list = []
    launch = ddp.reducer.launch

    def recording_launch(b: int) -> None:
        events.append(("all-reduce started", b))
        launch(b)

    ddp.reducer.launch = recording_launch
    model[0].weight.register_hook(lambda g: events.append(("gradient of", "0.weight")))
    ddp(gg.ones(4, 32, dtype=gg.float64)).sum().backward()
    first = events.index(("all-reduce started", 0))
    reached = events.index(("gradient of", "0.weight"))
    assert first < reached, events
    started = [b for kind, b in events if kind == "all-reduce started"]
    assert started == list(range(8)), started  # in bucket order: last layer first
    assert ddp.reducer.buckets[0].members == [7]  # the last parameter: 3.bias
    assert all(b.request.Test() for b in ddp.reducer.buckets)  # all done when backward returns


@check("graph_viewers_show_the_ddp_module")
def _() -> None:
    ddp = DDP(mlp(gg.float32, seed=0))
    x, _ = batches(gg.float32, steps=1)[0]
    with record_forward(ddp) as log:
        loss = ddp(shard(x)).sum()
    names = [call.module_name for call in log.calls]
    assert names[-2:] == ["module", ""] and "module.0" in names
    assert log.module_types[""] == "DistributedDataParallel"
    source = make_dot(loss, params=dict(ddp.named_parameters())).source
    assert "module.0.weight" in source and "AddmmBackward0" in source
    loss.backward()


@check("training_under_no_grad_or_eval_does_not_arm_the_hooks")
def _() -> None:
    ddp = DDP(mlp(gg.float64, seed=0))
    x, _ = batches(gg.float64, steps=1)[0]
    with gg.no_grad():
        ddp(shard(x))
    out = ddp.module(shard(x)).sum()  # bypassing DDP: local gradients only
    out.backward()
    everyone = [None] * dist.get_world_size()
    dist.all_gather_object(everyone, next(ddp.parameters()).grad.numpy())
    assert not np.allclose(everyone[0], everyone[1])


@check("distributed_sampler_takes_the_group_by_default")
def _() -> None:
    from glassgrad.utils.data import DistributedSampler

    r, n = dist.get_rank(), dist.get_world_size()
    sampler = DistributedSampler(range(10), seed=1)
    assert (sampler.rank, sampler.num_replicas) == (r, n)
    shares = [None] * n
    dist.all_gather_object(shares, list(sampler))
    merged = [i for share in shares for i in share]
    assert set(merged) == set(range(10)) and len(merged) == n * -(-10 // n)
