"""Tensor's Python operators against PyTorch's: an operand PyTorch's parser does not take makes
the operator return NotImplemented (so ``t == None`` is False and ``t + "a"`` raises Python's
own TypeError), and the shift operators run the integral shift kernels."""

from __future__ import annotations

import operator
from typing import Any

import pytest
import torch

import glassgrad as gg

_OPERATORS = [
    operator.add,
    operator.sub,
    operator.mul,
    operator.truediv,
    operator.floordiv,
    operator.mod,
    operator.pow,
    operator.matmul,
    operator.and_,
    operator.or_,
    operator.xor,
    operator.lshift,
    operator.rshift,
    operator.eq,
    operator.ne,
    operator.lt,
    operator.le,
    operator.gt,
    operator.ge,
]
_IN_PLACE = [operator.iadd, operator.isub, operator.imul, operator.iand, operator.ilshift]


def _outcome(fn: Any) -> tuple:
    try:
        result = fn()
    except Exception as exc:  # compared with PyTorch's: type and message
        return (type(exc).__name__, str(exc).replace("glassgrad", "torch"))
    if isinstance(result, (gg.Tensor, torch.Tensor)):
        return ("tensor", str(result.dtype).split(".")[-1], result.tolist())
    return ("value", result)


@pytest.mark.parametrize(
    "other",
    [None, "a", [1, 2], (1, 2), {1: 2}, object()],
    ids=["None", "str", "list", "tuple", "dict", "object"],
)
@pytest.mark.parametrize("op", _OPERATORS + _IN_PLACE, ids=lambda op: op.__name__)
def test_an_operand_pytorch_does_not_take_gives_pythons_answer(op: Any, other: Any) -> None:
    def run(lib: Any, reflected: bool) -> tuple:
        t = lib.tensor([1, 2])
        return _outcome(lambda: op(other, t) if reflected else op(t, other))

    for reflected in (False, True):
        assert run(gg, reflected) == run(torch, reflected)


@pytest.mark.parametrize(
    "expression",
    [
        "t.tensor([1, 2, -8]) << 2",
        "t.tensor([1, 2, -8]) >> 1",
        "3 << t.tensor([1, 2])",
        "64 >> t.tensor([1, 2])",
        "t.tensor([1, 2], dtype=t.uint8) << t.tensor([1], dtype=t.int8)",
        "t.tensor([True]) << 1",
        "t.tensor([True]) << True",
        "t.tensor([1, 2]) << 2.0",
        "2.5 >> t.tensor([1, 2])",
        "t.tensor([1.0]) << 1",
        "t.tensor([1, 2], dtype=t.int32) >> 40",
        "t.bitwise_left_shift(3, t.tensor([1, 2]))",
        "t.gcd(t.tensor([4]), 2)",
        "t.gcd(t.tensor([True]), t.tensor([True]))",
        "t.lcm(t.tensor([4, 6]), t.tensor([6.0, 9.0]))",
    ],
)
def test_shift_operators_and_integer_kernels_as_pytorch(expression: str) -> None:
    assert _outcome(lambda: eval(expression, {"t": gg})) == _outcome(
        lambda: eval(expression, {"t": torch})
    )


@pytest.mark.parametrize("name", ["__ilshift__", "__irshift__"])
def test_in_place_shifts_write_into_the_tensor(name: str) -> None:
    results = []
    for lib in (gg, torch):
        t = lib.tensor([1, 2, 3])
        same = getattr(t, name)(1) is t
        results.append((same, t.tolist(), t._version))
    assert results[0] == results[1]


@pytest.mark.parametrize(
    "name", ["__add__", "__radd__", "__sub__", "__mul__", "__rmul__", "__truediv__"]
)
def test_hot_operators_refuse_as_the_wrapped_ones(name: str) -> None:
    """The operators that return NotImplemented themselves (no wrapper frame) answer as the
    wrapper did: NotImplemented for an operand the op refuses or for any extra argument, the
    op's own error for an operand it takes, and ``(self, other)`` as their signature."""
    import inspect

    t = gg.tensor([1.0, 2.0])
    method = getattr(gg.Tensor, name)
    assert list(inspect.signature(method).parameters) == ["self", "other"]
    assert method(t, "a") is NotImplemented
    assert method(t, None) is NotImplemented
    assert method(t, t, 2) is NotImplemented
    assert method(t, t, alpha=2) is NotImplemented
    with pytest.raises(RuntimeError, match="must match the size"):
        method(t, gg.ones(3))
