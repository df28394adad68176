"""The recorded graph: grad_fn names, next_functions structure, broadcasting in backward."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.autograd.op import _UniformMeta, fit_gradients
from glassgrad.ops import REGISTRY
from glassgrad.ops._namespace import ArrayNamespace

from .conftest import structure

EXPRESSIONS = {
    "add": lambda lib, x, y: x + y,
    "add_scalar": lambda lib, x, y: x + 2,
    "radd": lambda lib, x, y: 2 + x,
    "sub_scalar": lambda lib, x, y: x - 2,
    "rsub": lambda lib, x, y: 2 - x,
    "mul_scalar": lambda lib, x, y: x * 2,
    "rdiv": lambda lib, x, y: 2 / x,
    "div": lambda lib, x, y: x / y,
    "neg": lambda lib, x, y: -x,
    "pow_scalar": lambda lib, x, y: x**2,
    "pow_tensor": lambda lib, x, y: x**y,
    "rpow": lambda lib, x, y: 2**x,
    "pow_const_tensor": lambda lib, x, y: x ** lib.tensor(2.0),
    "unary_chain": lambda lib, x, y: x.exp().log().sqrt().sin().cos().tanh().sigmoid().relu(),
    "abs": lambda lib, x, y: x.abs(),
    "clamp": lambda lib, x, y: x.clamp(min=0),
    "clamp_both": lambda lib, x, y: lib.clamp(x, -1, 1),
    "sum": lambda lib, x, y: x.sum(),
    "sum_dim": lambda lib, x, y: x.sum(1),
    "mean": lambda lib, x, y: x.mean(),
    "mean_dim": lambda lib, x, y: x.mean(1, keepdim=True),
    "max": lambda lib, x, y: x.max(),
    "max_dim": lambda lib, x, y: x.max(1)[0],
    "min": lambda lib, x, y: x.min(),
    "mm": lambda lib, x, y: x.mm(y.t()),
    "matmul": lambda lib, x, y: x @ y.t(),
    "dot": lambda lib, x, y: x[0] @ y[0],
    "mv": lambda lib, x, y: x @ y[0],
    "views": lambda lib, x, y: x.view(3, 2).t().reshape(6).unsqueeze(0).squeeze(0),
    "permute_transpose": lambda lib, x, y: x.permute(1, 0).transpose(0, 1),
    "expand": lambda lib, x, y: x[:1].expand(4, 3),
    "index": lambda lib, x, y: x[0, 1:],
    "index_none": lambda lib, x, y: x[None],
    "index_ellipsis": lambda lib, x, y: x[..., 0],
    "index_advanced": lambda lib, x, y: x[[0, 1, 1]],
    "index_mixed": lambda lib, x, y: x[0, [0, 1]],
    "clone_cast": lambda lib, x, y: x.clone().double(),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_grad_fn_names_and_structure_match_pytorch(name: str) -> None:
    results = []
    for lib in (gg, torch):
        lib.manual_seed(0)
        x = lib.rand(2, 3, dtype=lib.float64, requires_grad=True)
        y = lib.rand(2, 3, dtype=lib.float64, requires_grad=True)
        results.append(structure(EXPRESSIONS[name](lib, x, y).grad_fn))
    ours, theirs = results
    assert ours == theirs


def test_accumulate_grad_variable_and_constant_edges() -> None:
    x = gg.ones(3, requires_grad=True)
    y = x * 2
    acc, nr = y.grad_fn.next_functions[0]
    assert type(acc).__name__ == "AccumulateGrad" and acc.variable is x and nr == 0
    assert y.grad_fn.next_functions[1] == (None, 0)
    assert acc.next_functions == ()
    assert y.grad_fn.name() == "MulBackward0"
    # the same leaf reaches the graph through one AccumulateGrad
    z = x * x
    assert z.grad_fn.next_functions[0][0] is z.grad_fn.next_functions[1][0]


def test_multi_output_node_output_numbers() -> None:
    x = gg.ones(2, 3, requires_grad=True)
    a, b, c = x.unbind(1)
    assert a.grad_fn is b.grad_fn and (a._output_nr, b._output_nr, c._output_nr) == (0, 1, 2)
    (b * 2).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [0.0, 2.0, 0.0]]


@pytest.mark.parametrize(
    "shapes", [((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 3, 4), (3, 1)), ((), (2, 3)), ((5,), ())]
)
def test_broadcasting_gradients_reduce_to_input_shapes(parity, shapes) -> None:
    def program(lib):
        lib.manual_seed(1)
        a = lib.ones(shapes[0], dtype=lib.float64).requires_grad_()
        b = (lib.ones(shapes[1], dtype=lib.float64) * 3).requires_grad_()
        ((a * b + a / b - b) ** 2).sum().backward()
        return [a.grad, b.grad]

    parity(program)


def test_shape_mismatch_names_op_and_shapes() -> None:
    with pytest.raises(
        RuntimeError, match=r"add: The size of tensor a \(3\) must match .*\[2, 3\]"
    ):
        gg.ones(2, 3) + gg.ones(4, 2)
    with pytest.raises(RuntimeError, match=r"mul.*size of tensor a \(3\).*tensor b \(4\)"):
        gg.ones(3) * gg.ones(4)
    with pytest.raises(
        RuntimeError, match=r"mm: mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"
    ):
        gg.ones(2, 3).mm(gg.ones(4, 5))
    with pytest.raises(RuntimeError, match=r"matmul: .*shapes cannot be multiplied"):
        gg.ones(2, 3) @ gg.ones(4)
    with pytest.raises(
        RuntimeError, match=r"expected m1 and m2 to have the same dtype, but got: float != double"
    ):
        gg.ones(2, 3) @ gg.ones(3, 2, dtype=gg.float64)


def test_function_arguments_must_be_tensors() -> None:
    with pytest.raises(
        TypeError, match=r"exp\(\): argument 'input' \(position 1\) must be Tensor, not list"
    ):
        gg.exp([1.0, 2.0])


def test_linear_weight_gradient_is_c_contiguous_like_pytorch() -> None:
    # mat2 is the transposed weight: its gradient is computed so that weight.grad is C-ordered.
    w = gg.randn(3, 4, requires_grad=True)
    x = gg.randn(5, 4)
    (x @ w.t()).sum().backward()
    assert w.grad.is_contiguous()


ELEMENTWISE_NODES = sorted(
    {node for info in REGISTRY.values() for node in info.nodes if node.elementwise_grads},
    key=lambda node: node.__name__,
)


@pytest.mark.parametrize("node_class", ELEMENTWISE_NODES, ids=lambda node: node.__name__)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_elementwise_grads_need_no_fitting(node_class, dtype, shape) -> None:
    # The promise behind skipping fit_gradients: with every input shaped and typed like the
    # output, the pointwise backward already returns gradients of that shape and dtype.
    rng = np.random.default_rng(0)
    inputs = [
        gg.tensor(rng.uniform(0.5, 1.5, size=shape).astype(dtype), requires_grad=True)
        for _ in range(2)
    ]
    node = node_class.apply(*inputs).grad_fn
    assert type(node._meta) is _UniformMeta
    node.saved = node._unpack(False)
    raw = node.backward(ArrayNamespace, np.ones(shape, dtype))
    assert fit_gradients(node, raw, ArrayNamespace, False) is raw


def test_mixed_shapes_or_dtypes_are_still_fitted() -> None:
    x = gg.ones(2, 3, requires_grad=True)
    b = gg.ones(3, requires_grad=True)
    h = gg.ones(2, 3, dtype=gg.float64, requires_grad=True)
    assert type((x * b).grad_fn._meta) is not _UniformMeta
    assert type((x * h).grad_fn._meta) is not _UniformMeta
    ((x * b).sum() + (x * h).sum()).backward()
    assert b.grad.shape == (3,) and b.grad.tolist() == [2.0, 2.0, 2.0]
    assert x.grad.dtype == gg.float32 and h.grad.dtype == gg.float64
