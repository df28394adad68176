"""The recording fast paths give what the general path gives, bit for bit (issue 18).

Each program runs twice: on the fast paths, and with them turned off (``special_inputs.alive``
sends every op through ``Op._finish``/``_record``; ``float_array_and_number`` returning False
sends Python-number operands through the promotion helpers; ``_two_saved_arrays`` replaced by
the general ``_unpack``). Values, gradients, the recorded graph (node types, edges, saved
entries) and views' bases must be identical.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.autograd import op as op_module
from glassgrad.ops import arithmetic, division, special_polynomials


def _general_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(op_module.special_inputs, "alive", 1)
    for module in (arithmetic, division):
        monkeypatch.setattr(module, "float_array_and_number", lambda a, b: False)
    monkeypatch.setattr(op_module.Op, "_two_saved_arrays", lambda self: self._unpack(False))


def _record(program: Callable[[Any], Any], dtype: np.dtype) -> dict[str, Any]:
    x = gg.tensor(np.array([[0.5, -1.25, 2.0], [3.0, -0.75, 0.1]], dtype), requires_grad=True)
    y = program(x)
    node = y.grad_fn
    graph = {
        "node": type(node).__name__,
        "edges": [(type(n).__name__, nr) for n, nr in node.next_functions],
        "saved": [
            None if s is None else type(s).__name__ if isinstance(s, gg.Tensor) else s
            for s in node._saved
        ],
        "view": y._base is x,
        "dtype": str(y.dtype),
    }
    y.backward(gg.ones_like(y) * 0.75)
    return {**graph, "value": y.detach().numpy().tobytes(), "grad": x.grad.numpy().tobytes()}


PROGRAMS = {
    "x * 1.0001": lambda x: x * 1.0001,
    "1.0001 * x": lambda x: 1.0001 * x,
    "x + 0.1": lambda x: x + 0.1,
    "x - 3": lambda x: x - 3,
    "x / 3": lambda x: x / 3,
    "x / 0.7": lambda x: x / 0.7,
    "add(x, 2, alpha=0.5)": lambda x: gg.add(x, 2, alpha=0.5),
    "x * x.detach()": lambda x: x * x.detach(),
    "x.relu()": lambda x: x.relu(),
    "x.exp()": lambda x: x.exp(),
    "x.sum()": lambda x: x.sum(),
    "x.mean(0, keepdim=True)": lambda x: x.mean(0, keepdim=True),
    "x.view(3, 2)": lambda x: x.view(3, 2),
    "x.t()": lambda x: x.t(),
    "x[0]": lambda x: x[0],
    "x[:, 1:]": lambda x: x[:, 1:],
    "x.sigmoid()": lambda x: x.sigmoid(),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_fast_path_is_bit_identical_to_general_path(
    name: str, dtype: np.dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast = _record(PROGRAMS[name], dtype)
    _general_paths(monkeypatch)
    general = _record(PROGRAMS[name], dtype)
    assert fast == general


def test_python_number_operand_keeps_only_what_the_gradient_reads() -> None:
    # x * 1.0001 saves the number (read by x's gradient), not x (read by the number's).
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    node = (x * 1.0001).grad_fn
    assert node._saved == (None, 1.0001)
    assert node._saved == op_module._read_by_needed(
        type(node).saved_for, (x, 1.0001), node._next_nodes
    )
    w = gg.tensor([3.0, 4.0])  # a constant tensor: the same rule
    assert (x * w).grad_fn._saved[0] is None and (w * x).grad_fn._saved[1] is None


def test_python_number_operands_match_pytorch() -> None:
    data = np.array([0.5, -1.25, 2.0, 1e-3], np.float32)
    results = []
    for lib in (gg, torch):
        x = lib.tensor(data, requires_grad=True)
        y = x
        for _ in range(50):
            y = y * 1.0001 + 0.1
        y = (y - 3) / 0.7
        y.backward(lib.ones_like(y))
        results.append((y.detach().numpy().copy(), x.grad.numpy().copy()))
    (ours, our_grad), (theirs, their_grad) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-6)
    assert ours.dtype == theirs.dtype == our_grad.dtype == np.float32


def test_saved_number_under_saved_tensor_hooks_and_version_check() -> None:
    # The saved tensor goes through the pack hook; the number is kept as it is.
    packed = []
    x = gg.tensor([1.0, 2.0], requires_grad=True)
    with gg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
        y = 2.5 / x  # reciprocal, then a product with the number
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), -2.5 / np.array([1.0, 2.0]) ** 2)
    assert packed
    z = x.detach().clone().requires_grad_()
    w = z * 1.5
    with gg.no_grad():
        z.mul_(2)  # z is not saved by z * 1.5: its gradient reads the number only
    w.sum().backward()
    np.testing.assert_array_equal(z.grad.numpy(), [1.5, 1.5])


def test_no_attribute_hooks_on_tensors_and_nodes() -> None:
    # A __getattr__, __setattr__ or __delattr__ defined in Python on Tensor or on a node class
    # sends every attribute read or write of it through a slower lookup that the interpreter
    # cannot specialize (Op.__getattr__ and Tensor.__delattr__ cost a small-tensor chain 19%
    # of its instructions): refusals and computed names are properties instead.
    from glassgrad.autograd.graph import Node
    from glassgrad.autograd.op import Op

    def subclasses(cls: type) -> list[type]:
        found = [cls]
        for sub in cls.__subclasses__():
            found.extend(subclasses(sub))
        return found

    for cls in [*subclasses(gg.Tensor), *subclasses(Node)]:
        assert cls.__setattr__ is object.__setattr__, cls
        assert cls.__delattr__ is object.__delattr__, cls
        assert not hasattr(cls, "__getattr__"), cls
    assert len(subclasses(Op)) > 300


POLYNOMIALS = sorted(special_polynomials._KERNELS)  # the twelve of torch.special
_POLYNOMIAL_POINTS = [-3.0, -1.0, -0.9999, -0.5, -0.0, 0.0, 0.3, 0.5, 0.9999, 1.0, 1.5, 1e30]
_POLYNOMIAL_POINTS += [float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_of_one_degree_is_bit_identical_to_the_general_path(name: str) -> None:
    # A Python-number degree takes the one-degree path (a float recurrence for one element);
    # the same degree as a tensor takes the general per-element path.
    # NaN's sign bit is left out: NumPy's loops for one element and for many pass a NaN
    # operand through in different orders.
    def bits(values: np.ndarray) -> bytes:
        return np.where(np.isnan(values), np.nan, values).astype(values.dtype).tobytes()

    fn = getattr(gg.special, name)
    for dtype in (gg.float32, gg.float64):
        x = gg.tensor(_POLYNOMIAL_POINTS, dtype=dtype)
        for n in (-1, 0, 1, 2, 3, 5, 7, 9, 12, 40, 4.7):
            general = fn(x, gg.tensor(n, dtype=dtype)).numpy()
            assert bits(fn(x, n).numpy()) == bits(general), (dtype, n)
            for i in range(len(_POLYNOMIAL_POINTS)):
                one = fn(x[i : i + 1], n).numpy()
                assert bits(one) == bits(general[i : i + 1]), (dtype, n, i)
