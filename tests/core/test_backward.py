"""Backward: the engine's order and accumulation, errors, memory, higher derivatives."""

from __future__ import annotations

import gc
import sys
import warnings
import weakref

import numpy as np
import pytest
import torch

import glassgrad as gg


def test_gradients_accumulate_across_backward_calls(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * x).sum().backward()
        (x * 3).sum().backward()
        return x.grad

    parity(program)


def test_reused_non_leaf_diamond_and_shared_subgraph(parity) -> None:
    def program(lib):
        a = lib.tensor([1.5, -2.0], requires_grad=True)
        b = a + a
        c = b + b  # micrograd's bug: reuse of a non-leaf
        s = a.exp()
        d = s * s.sin() + s.log()  # a diamond through s
        (c.sum() + d.sum()).backward()
        return a.grad

    parity(program)


def test_several_roots(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 2
        z = (y**2).sum()
        lib.autograd.backward([z, y], [lib.tensor(1.0), lib.tensor([1.0, 0.0, 2.0])])
        return x.grad

    parity(program)


def test_implicit_gradient_only_for_scalars() -> None:
    x = gg.ones(2, requires_grad=True)
    with pytest.raises(
        RuntimeError, match="grad can be implicitly created only for scalar outputs"
    ):
        (x * 2).backward()


def test_second_backward_through_freed_graph_raises() -> None:
    x = gg.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_second_backward() -> None:
    x = gg.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 4.0]


def test_backward_on_tensor_without_grad_raises() -> None:
    with pytest.raises(
        RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"
    ):
        gg.ones(2).sum().backward()


def test_gradient_shape_mismatch() -> None:
    x = gg.ones(3, requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match=r"Mismatch in shape: grad_output\[0\] has a shape of .*\[2\]\) and output\[0\] has a shape of .*\[3\]\)",
    ):
        (x * 2).backward(gg.ones(2))


def test_non_leaf_grad_warns_and_retain_grad_keeps_it() -> None:
    x = gg.ones(2, requires_grad=True)
    y = x * 2
    z = y * 3
    y.retain_grad()
    z.sum().backward()
    assert y.grad.tolist() == [3.0, 3.0] and y.retains_grad
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert z.grad is None


def test_deep_chain_of_a_million_nodes_is_iterative() -> None:
    x = gg.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(1_000_000):
        y = y * 1.0
    limit = sys.getrecursionlimit()
    y.backward()
    assert x.grad.item() == 1.0 and sys.getrecursionlimit() == limit


def test_saved_arrays_are_released_after_backward() -> None:
    x = gg.randn(50, requires_grad=True)
    h = x.exp()
    out = (h * h).sum()
    node = out.grad_fn.next_functions[0][0]  # MulBackward0 holds h twice
    saved = weakref.ref(h._data)
    del h
    assert saved() is not None
    out.backward()
    assert node._released and node._saved is None
    gc.collect()
    assert saved() is None


def test_graph_out_of_scope_is_freed_without_gc() -> None:
    gc.disable()
    try:
        x = gg.randn(10, requires_grad=True)
        y = (x.exp() * 2).sum()
        ref = weakref.ref(y.grad_fn)
        inner = weakref.ref(y.grad_fn.next_functions[0][0])
        del y
        assert ref() is None and inner() is None  # no reference cycles
    finally:
        gc.enable()


def test_engine_order_most_recent_first_like_pytorch() -> None:
    order = {}
    for lib in (gg, torch):
        seen = []
        x = lib.ones(2, requires_grad=True)
        a = x * 2
        b = x * 3
        c = a.exp() + b.sin()
        d = c * a
        for t, name in ((a, "a"), (b, "b"), (c, "c"), (d, "d")):
            t.register_hook(lambda g, name=name, seen=seen: seen.append(name))
        d.sum().backward()
        order[lib.__name__] = seen
    assert order["glassgrad"] == order["torch"]


@pytest.mark.parametrize(
    "fn",
    [
        lambda lib, x: x**3,
        lambda lib, x: lib.sin(x) * lib.exp(x),
        lambda lib, x: lib.tanh(x) / (1 + x * x),
        lambda lib, x: lib.sigmoid(x).log() * x.sqrt(),
    ],
)
def test_second_and_third_derivatives(parity, fn) -> None:
    def program(lib):
        x = lib.tensor([0.3, 1.2, 2.0], dtype=lib.float64, requires_grad=True)
        (d1,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        (d2,) = lib.autograd.grad(d1.sum(), x, create_graph=True)
        (d3,) = lib.autograd.grad(d2.sum(), x)
        return [d1, d2, d3]

    parity(program)


def test_mlp_hessian_vector_product(parity) -> None:
    rng = np.random.default_rng(0)
    w1, w2 = rng.standard_normal((4, 8)), rng.standard_normal((8, 3))
    data, v1, v2 = (
        rng.standard_normal((5, 4)),
        rng.standard_normal((4, 8)),
        rng.standard_normal((8, 3)),
    )

    def program(lib):
        a = lib.tensor(w1, requires_grad=True)
        b = lib.tensor(w2, requires_grad=True)
        x = lib.tensor(data)
        loss = ((lib.tanh(x @ a) @ b) ** 2).mean()
        ga, gb = lib.autograd.grad(loss, [a, b], create_graph=True)
        dot = (ga * lib.tensor(v1)).sum() + (gb * lib.tensor(v2)).sum()
        return list(lib.autograd.grad(dot, [a, b]))

    parity(program)


def test_backward_create_graph_gives_differentiable_grad(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (x**3).sum().backward(create_graph=True)
        g = x.grad
        assert g.requires_grad
        (h,) = lib.autograd.grad(g.sum(), x)
        return [g, h]

    parity(program)


def test_autograd_grad_options(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0], requires_grad=True)
        z = (x * 2).sum()
        gx, gy = lib.autograd.grad(z, [x, y], allow_unused=True, retain_graph=True)
        (gm,) = lib.autograd.grad(z, [y], allow_unused=True, materialize_grads=True)
        return [gx, gy is None, gm, x.grad is None]

    parity(program)


def test_autograd_grad_errors() -> None:
    x = gg.ones(2, requires_grad=True)
    y = gg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        gg.autograd.grad((x * 2).sum(), [x, y])
    with pytest.raises(RuntimeError, match="does not require grad"):
        gg.autograd.grad((x * 2).sum(), [gg.ones(2)])


def test_autograd_grad_wrt_non_leaf(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * x
        out = (h.exp()).sum()
        return list(lib.autograd.grad(out, [h, x]))

    parity(program, rtol=1e-6)


def test_backward_inputs_restricts_accumulation(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0], requires_grad=True)
        (x * y).sum().backward(inputs=[x])
        return [x.grad, y.grad is None]

    parity(program)


def test_no_grad_modes_are_thread_local() -> None:
    import threading

    seen = []
    with gg.no_grad():
        t = threading.Thread(target=lambda: seen.append(gg.is_grad_enabled()))
        t.start()
        t.join()
        assert not gg.is_grad_enabled()
    assert seen == [True]


def test_grad_mode_context_managers_and_decorators() -> None:
    x = gg.ones(2, requires_grad=True)

    @gg.no_grad()
    def doubled(t):
        return t * 2

    assert not doubled(x).requires_grad
    with gg.no_grad():
        with gg.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    with gg.set_grad_enabled(False):
        assert not gg.is_grad_enabled()
    assert gg.is_grad_enabled()
    gg.set_grad_enabled(False)
    assert not gg.is_grad_enabled()
    gg.set_grad_enabled(True)
    with gg.inference_mode():
        assert not (x * 2).requires_grad and gg.is_inference_mode_enabled()

    @gg.no_grad()
    def gen():
        yield (x * 2).requires_grad

    assert list(gen()) == [False]


def test_zero_size_and_zero_dim_backward(parity) -> None:
    def program(lib):
        e = lib.zeros(0, 3, requires_grad=True)
        s = lib.tensor(2.0, requires_grad=True)
        (e.sum() + (s * s)).backward()
        return [e.grad, s.grad]

    parity(program)


# Every op that saves two operands, run on 0-d tensors: their backward gets the operands as
# NumPy scalars (Op._two_saved_arrays), and mixed with a 1-d tensor as a scalar and an array.
ZERO_D_BINARY = {
    "mul": lambda lib, a, b: a * b,
    "div": lambda lib, a, b: a / b,
    "pow": lambda lib, a, b: a.exp() ** b,
    "atan2": lambda lib, a, b: lib.atan2(a, b),
    "maximum": lambda lib, a, b: lib.maximum(a, b),
    "minimum": lambda lib, a, b: lib.minimum(a, b),
    "remainder": lambda lib, a, b: lib.remainder(a, b),
    "kl_div": lambda lib, a, b: lib.nn.functional.kl_div(
        a, b.expand_as(a).sigmoid(), reduction="sum"
    ),
    "clamp_min": lambda lib, a, b: lib.clamp(a, min=b),
    "clamp_max": lambda lib, a, b: lib.clamp(a, max=b),
    "addcmul": lambda lib, a, b: lib.addcmul(a * 2, a, b, value=0.5),
    "addcdiv": lambda lib, a, b: lib.addcdiv(a * 2, a, b, value=0.5),
    "mse_loss": lambda lib, a, b: lib.nn.functional.mse_loss(a, b.expand_as(a)),
    "huber_loss": lambda lib, a, b: lib.nn.functional.huber_loss(a, b.expand_as(a), delta=0.5),
    "smooth_l1_loss": lambda lib, a, b: lib.nn.functional.smooth_l1_loss(a, b.expand_as(a)),
    "bce": lambda lib, a, b: lib.nn.functional.binary_cross_entropy(
        a.sigmoid(), b.expand_as(a).sigmoid()
    ),
    "bce_with_logits": lambda lib, a, b: lib.nn.functional.binary_cross_entropy_with_logits(
        a, b.expand_as(a).sigmoid()
    ),
}


@pytest.mark.parametrize("a_shape", [(), (3,)], ids=["0d", "1d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(ZERO_D_BINARY))
def test_ops_saving_two_operands_on_0d_tensors(parity, name: str, dtype: str, a_shape) -> None:
    def program(lib):
        kind = getattr(lib, dtype)
        a = lib.tensor(np.full(a_shape, 1.25), dtype=kind, requires_grad=True)
        b = lib.tensor(-0.75, dtype=kind, requires_grad=True)
        out = ZERO_D_BINARY[name](lib, a, b)
        (out * 1.5).sum().backward()
        return [out, a.grad, b.grad]

    parity(program, rtol=1e-6)


# A first gradient that nothing else holds becomes .grad without a copy (as PyTorch steals
# it); each program then changes one .grad in place: no other gradient, hook argument or
# caller's tensor may change with it.
def _shared_sum(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0], requires_grad=True)
    ((a + b) * 2.0).sum().backward()  # AddBackward0 hands one fresh array to both leaves
    a.grad.add_(10.0)
    return [a.grad, b.grad]


def _hook_keeps_gradient(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    a.register_hook(seen.append)
    (a * 3.0).sum().backward()
    a.grad.add_(10.0)
    return [a.grad, seen[0]]


def _retained_non_leaf(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone()
    y.retain_grad()
    (y * 2.0).sum().backward()  # CloneBackward0 passes y's gradient on to x
    x.grad.add_(10.0)
    return [x.grad, y.grad]


def _caller_gradient(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    gradient = lib.tensor([5.0, 6.0])
    x.clone().backward(gradient)
    x.grad.add_(10.0)
    return [x.grad, gradient]


def _slices_of_one_gradient(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0, 4.0, 5.0], requires_grad=True)
    (lib.cat([a, b]) * lib.arange(5.0)).sum().backward()  # a's and b's are views of one array
    a.grad.add_(10.0)
    b.grad.add_(20.0)
    return [a.grad, b.grad]


def _linear_then_second_backward(lib):
    layer = lib.nn.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.arange(6.0).reshape(2, 3))
        layer.bias.zero_()
    x = lib.tensor([[1.0, 2.0, 3.0]])
    layer(x).sum().backward()  # the weight's gradient: a transposed view of a fresh product
    first = layer.weight.grad.clone()
    layer(x * 2.0).sum().backward()  # accumulates into it in place
    return [first, layer.weight.grad, layer.bias.grad]


@pytest.mark.parametrize(
    "program",
    [
        _shared_sum,
        _hook_keeps_gradient,
        _retained_non_leaf,
        _caller_gradient,
        _slices_of_one_gradient,
        _linear_then_second_backward,
    ],
)
def test_gradients_taken_without_copy_alias_nothing(parity, program) -> None:
    parity(program)


def test_views_of_one_gradient_become_gradients_of_their_own() -> None:
    # Each leaf's gradient is a view of all of one array. PyTorch takes both views over, and
    # there a.grad and b.grad share memory; glassgrad copies the first (its base is still
    # held by the other view), so changing one leaves the other alone.
    a = gg.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = gg.tensor([[5.0], [6.0], [7.0], [8.0]], requires_grad=True)
    (a.view(4) + b.view(4)).backward(gg.arange(4.0) + 1.0)
    a.grad.add_(10.0)
    np.testing.assert_array_equal(a.grad.numpy(), [[11.0, 12.0], [13.0, 14.0]])
    np.testing.assert_array_equal(b.grad.numpy(), [[1.0], [2.0], [3.0], [4.0]])


def test_warnings_free_simple_backward() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = gg.ones(3, requires_grad=True)
        (x.exp() * x).sum().backward()
