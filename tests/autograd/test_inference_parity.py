"""Inference mode beyond PyTorch's own tests (test_pytorch_inference_mode.py): each program
runs under glassgrad and under PyTorch (the oracle) and the results are compared. Grad mode
inside inference mode, which tensors are inference tensors, their errors, autograd.Function,
nn modules built in inference mode, threads and decorated generators."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from .test_semantics_parity import outcome, same


def _grad_mode_inside_inference_mode(lib):
    x = lib.ones(2, requires_grad=True)
    states = []

    def state():
        y = x * 2
        states.append((lib.is_grad_enabled(), lib.is_inference_mode_enabled(), y.requires_grad))

    with lib.inference_mode():
        state()
        with lib.enable_grad():
            state()  # grad mode on, and still nothing records
            with lib.set_grad_enabled(False):
                state()
            state()
        with lib.inference_mode(False):
            state()  # both off: ops record again
        state()
    with lib.no_grad():
        with lib.inference_mode(False):
            state()  # PyTorch's guard turns grad mode on
        state()
    state()
    return states


def _which_tensors_are_inference_tensors(lib):
    x = lib.ones(2, 3)
    with lib.inference_mode():
        made = {
            "ones": lib.ones(2),
            "tensor": lib.tensor([1.0]),
            "zeros_like": lib.zeros_like(x),
            "from_numpy": lib.from_numpy(np.ones(2)),
            "arange": lib.arange(3),
            "op on ordinary": x * 2,
            "reduction": x.sum(),
            "view of ordinary": x.view(-1),
            "index of ordinary": x[0],
            "detach of ordinary": x.detach(),
            "data of ordinary": x.data,
            "clone of ordinary": x.clone(),
            "in place on ordinary": x.add_(1),
        }
        inference = lib.ones(2, 3)
        made["view of inference"] = inference.view(-1)
    made["view of inference outside"] = inference.t()
    made["detach of inference"] = inference.detach()
    made["data of inference"] = inference.data
    made["op on inference outside"] = inference * 2
    made["clone of inference outside"] = inference.clone()
    return {name: [t.is_inference(), t._is_view()] for name, t in made.items()}


def _errors_of_inference_tensors(lib):
    with lib.inference_mode():
        t = lib.zeros(3)
    s = lib.ones(3, requires_grad=True)

    def set_item():
        t[0] = 1.0

    return [
        outcome(lambda: t._version),
        outcome(lambda: t.add_(1)),
        outcome(set_item),
        outcome(lambda: t.zero_()),
        outcome(lambda: t.fill_(2.0)),
        outcome(lambda: t.copy_(lib.ones(3))),
        outcome(lambda: t.__iadd__(1)),
        outcome(lambda: lib.add(lib.ones(3), 1, out=t)),
        outcome(lambda: t.requires_grad_()),
        outcome(lambda: t.requires_grad_(False).requires_grad),
        outcome(lambda: t * s),
        outcome(lambda: s * t),
        outcome(lambda: (s.sin() * t).requires_grad),  # t is not saved: no error
        outcome(lambda: (s + t).requires_grad),
        outcome(lambda: lib.is_inference(1.0)),
        t.tolist(),  # the failed in-place ops wrote first, as PyTorch's
    ]


def _inplace_on_inference_tensors(lib):
    with lib.inference_mode():
        t = lib.zeros(3)
        t.add_(1)  # allowed inside: no version is tracked
        t[1] = 5.0
        with lib.inference_mode(False):
            nested = outcome(lambda: t.mul_(2))
        inside = [t.is_inference(), outcome(lambda: t._version)]
        lib.autograd.graph.increment_version(t)  # no error, nothing to count
    return [nested, inside, t.tolist()]


def _inference_leaf_that_requires_grad(lib):
    with lib.inference_mode():
        c = lib.tensor([1.0, 2.0], requires_grad=True)
    s = lib.tensor([3.0, 4.0])
    results = []
    for name, fn in [
        ("exp", lambda: c.exp()),  # every input an inference tensor: nothing records
        ("c * c", lambda: c * c),
        ("view", lambda: c.view(2)),
        ("c * 2", lambda: c * 2),  # the number becomes an ordinary tensor: records
        ("c + s", lambda: c + s),
        ("clone", lambda: c.clone()),  # a copy into an ordinary tensor: records
        ("double", lambda: c.double()),
    ]:
        out = fn()
        results.append((name, out.requires_grad, out.grad_fn is not None, out.is_inference()))
    (c.clone() * s).sum().backward()  # the way PyTorch's error message suggests
    results.append(c.grad)
    results.append(outcome(lambda: c * s))
    results.append(outcome(lambda: c.zero_()))
    return results


def _function_saving_an_inference_tensor(lib):
    class Mul(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            return g * b, g * a

    with lib.inference_mode():
        c = lib.ones(2)
        inside = Mul.apply(lib.ones(2, requires_grad=True), c)
    s = lib.ones(2, requires_grad=True)
    return [
        [inside.requires_grad, inside.is_inference()],
        outcome(lambda: Mul.apply(s, c)),
        outcome(lambda: Mul.apply(c, c).is_inference()),
    ]


def _module_built_in_inference_mode(lib):
    lib.manual_seed(0)
    with lib.inference_mode():
        layer = lib.nn.Linear(2, 2)
    weight = layer.weight
    return [
        [weight.is_inference(), weight.requires_grad, weight.is_leaf],
        outcome(lambda: layer(lib.ones(1, 2)).requires_grad),
        outcome(lambda: layer(lib.ones(1, 2, requires_grad=True))),
        outcome(lambda: lib.optim.SGD(layer.parameters(), lr=0.1).step()),
    ]


def _data_set_across_kinds(lib):
    with lib.inference_mode():
        inference = lib.zeros(2)
    ordinary = lib.ones(2)
    ordinary.data = inference
    other = lib.ones(2)
    with lib.inference_mode():
        again = lib.zeros(2)
    again.data = other
    return [ordinary.is_inference(), again.is_inference()]


def _backward_inside_inference_mode(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    with lib.inference_mode():
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        inside = [g.requires_grad, g.is_inference(), lib.is_grad_enabled()]
    return [g, inside]


def _decorated_generator(lib):
    @lib.inference_mode()
    def gen():
        for _ in range(2):
            yield lib.is_inference_mode_enabled(), lib.ones(1).is_inference()

    steps = []
    for value in gen():
        steps.append([value, lib.is_inference_mode_enabled(), lib.ones(1).is_inference()])
    return steps


def _other_threads_are_not_in_inference_mode(lib):
    entered, made = threading.Event(), threading.Event()
    seen = {}

    def worker():
        with lib.inference_mode():
            entered.set()
            made.wait(10)
            seen["worker"] = lib.ones(1).is_inference()

    thread = threading.Thread(target=worker)
    thread.start()
    entered.wait(10)
    seen["main"] = [lib.ones(1).is_inference(), (lib.ones(1) * 2).is_inference()]
    made.set()
    thread.join()
    return seen


CASES = [
    _grad_mode_inside_inference_mode,
    _which_tensors_are_inference_tensors,
    _errors_of_inference_tensors,
    _inplace_on_inference_tensors,
    _inference_leaf_that_requires_grad,
    _function_saving_an_inference_tensor,
    _module_built_in_inference_mode,
    _data_set_across_kinds,
    _backward_inside_inference_mode,
    _decorated_generator,
    _other_threads_are_not_in_inference_mode,
]


@pytest.mark.parametrize("program", CASES, ids=[case.__name__.strip("_") for case in CASES])
def test_inference_mode_matches_pytorch(program: Any) -> None:
    same(program)
