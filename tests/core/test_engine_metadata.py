"""The engine checks each gradient against the metadata its receiving node recorded, as
PyTorch's ``validate_outputs``: after ``t.data = ...`` of another shape or dtype, the node that
produced ``t`` keeps the old metadata (a gradient of the new shape raises "returned an invalid
gradient", one of the new dtype is cast back), and AccumulateGrad copies a gradient into a
leaf of another shape as PyTorch's layout contract does. Also: the saved-tensor error names
which output of its node a saved output was."""

from __future__ import annotations

from typing import Any

import pytest
import torch

import glassgrad as gg


def _leaf_changed_after_use(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x * 2
    x.data = L.ones(4)
    z = x * 3
    (y.sum() + z.sum()).backward()


def _non_leaf_changed(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x.exp()
    w = y * 1
    y.data = L.ones(4)
    (y * 2).sum().backward()
    return w


def _non_leaf_to_one_element(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x.exp()
    y.data = L.ones(1)
    (y * 2).sum().backward()


def _non_leaf_under_create_graph(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x.exp()
    y.data = L.ones(4)
    L.autograd.grad((y * 2).sum(), x, create_graph=True)


def _non_leaf_dtype_changed(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x.exp()
    y.data = L.ones(3, dtype=L.float64)
    (y * 2).sum().backward()
    return x.grad


def _leaf_dtype_changed(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x * 2
    x.data = L.ones(3, dtype=L.float64)
    y.sum().backward()
    return x.grad


def _leaf_dtype_changed_grad(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x * 2
    x.data = L.ones(3, dtype=L.float64)
    return L.autograd.grad(y.sum(), x)


def _leaf_grown(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x.exp()
    x.data = L.ones(2, 3)
    y.sum().backward()
    return x.grad


def _leaf_shrunk(L: Any) -> Any:
    x = L.ones(2, 3, requires_grad=True)
    y = x.sum(0)
    x.data = L.ones(3)
    y.sum().backward()
    return x.grad


def _leaf_longer(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    y = x * 2
    x.data = L.ones(4)
    y.sum().backward()
    return x.grad


def _second_backward_broadcast(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    x.data = L.ones(2, 3)
    (x * 3).sum().backward()
    return x.grad


def _transposed_leaf(L: Any) -> Any:
    x = L.ones(2, 3, requires_grad=True)
    y = x.t().exp()
    x.data = L.ones(3, 2)
    y.sum().backward()
    return x.grad


def _leaf_made_complex(L: Any) -> Any:
    """A tensor that requires grad takes complex data (PyTorch refuses integer and bool)."""
    x = L.ones(3, requires_grad=True)
    y = x * 2
    x.data = L.ones(3, dtype=L.complex64)
    y.sum().backward()
    z = (x * 2).abs()
    z.sum().backward()
    return x.grad


def _leaf_given_integer_data(L: Any) -> Any:
    x = L.ones(3, requires_grad=True)
    x.data = L.ones(3, dtype=L.int64)


PROGRAMS = [
    _leaf_made_complex,
    _leaf_given_integer_data,
    _leaf_changed_after_use,
    _non_leaf_changed,
    _non_leaf_to_one_element,
    _non_leaf_under_create_graph,
    _non_leaf_dtype_changed,
    _leaf_dtype_changed,
    _leaf_dtype_changed_grad,
    _leaf_grown,
    _leaf_shrunk,
    _leaf_longer,
    _second_backward_broadcast,
    _transposed_leaf,
]


def _outcome(program: Any, L: Any) -> tuple:
    try:
        result = program(L)
    except RuntimeError as error:
        return "RuntimeError", str(error).split("\n")[0]
    if result is None or isinstance(result, tuple):
        return ("ok",)
    return "ok", tuple(result.shape), str(result.dtype).split(".")[-1], result.stride()


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__.strip("_"))
def test_gradients_checked_against_recorded_metadata_as_pytorch(program: Any) -> None:
    assert _outcome(program, gg) == _outcome(program, torch)


def _saved_output_modified(L: Any, which: int) -> Any:
    x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    outputs = L.linalg.svd(x)
    loss = (outputs[1] * outputs[1]).sum() + outputs[0].sum()
    with L.no_grad():
        outputs[which].add_(1)
    loss.backward()


def _saved_input_modified(L: Any) -> Any:
    x = L.tensor([1.0, 2.0, 4.0], requires_grad=True)
    v, m = L.var_mean(x)
    y = m * v
    with L.no_grad():
        m.add_(1)
    y.backward()


def _custom_function_output_modified(L: Any) -> Any:
    class Split(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            a, b = x * 2, x * 3
            ctx.save_for_backward(b)
            return a, b

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            (b,) = ctx.saved_tensors
            return ga * 2 + gb * b

    x = L.ones(2, requires_grad=True)
    a, b = Split.apply(x)
    with L.no_grad():
        b.add_(1)
    (a.sum() + b.sum()).backward()


@pytest.mark.parametrize(
    "program",
    [
        lambda L: _saved_output_modified(L, 1),
        lambda L: _saved_output_modified(L, 2),
        _saved_input_modified,
        _custom_function_output_modified,
    ],
)
def test_modified_saved_tensor_names_its_output_as_pytorch(program: Any) -> None:
    """A saved output names its own output number; an input saved as it is names output 0
    (PyTorch records the number only for outputs)."""
    messages = []
    for L in (gg, torch):
        with pytest.raises(RuntimeError) as info:
            program(L)
        messages.append(str(info.value).split(" Hint:")[0])
    assert messages[0] == messages[1]
