"""The top-level in-place functions (``torch.exp_(x)``, ``torch.clamp_(x, 0, 1)`` ...)
against PyTorch: every one PyTorch exports at the top level, in ``nn.functional`` and in
``torch.special`` exists; each changes its input and returns it, records the history
PyTorch records (the ``grad_fn`` name and the gradient through a non-leaf), and refuses
what PyTorch refuses (a non-tensor input, ``out=``, a leaf that requires grad). The
forward values of every sample are compared by the registry tests."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops._registry import Sample
from glassgrad.ops.inplace_functions import FUNCTIONS

from ._parity import same_error
from .test_pointwise import TORCH_LACKS_INPLACE_DERIVATIVE
from .test_registry import _arguments

# Sparse-only (resize_as_sparse_) and ATen internals (embedding_renorm_) that glassgrad leaves
# out; every other name must exist.
_LEFT_OUT = {"resize_as_sparse_", "embedding_renorm_"}
# PyTorch has no derivative for these in-place forms; glassgrad's differentiate.
_LACKING = {*TORCH_LACKS_INPLACE_DERIVATIVE, "arcsinh_", "arccosh_", "arctanh_"}


@pytest.mark.parametrize(
    "namespace", ["", "nn.functional", "special", "linalg", "fft"], ids=lambda n: n or "torch"
)
def test_every_inplace_function_pytorch_exports_exists(namespace: str) -> None:
    theirs, ours = torch, gg
    for part in filter(None, namespace.split(".")):
        theirs, ours = getattr(theirs, part), getattr(ours, part)
    names = [n for n in dir(theirs) if n.endswith("_") and not n.startswith("_")]
    assert [n for n in names if not hasattr(ours, n) and n not in _LEFT_OUT] == []


def _program(lib: Any, name: str, sample: Sample) -> tuple:
    """The function on a non-leaf made from a leaf: what it returns, how it changes the
    input, its ``grad_fn`` and the gradient reaching the leaf."""
    args, kwargs, _ = _arguments(sample, lib)
    leaf = args[0].clone().requires_grad_(args[0].is_floating_point())
    x = leaf * 1 if leaf.requires_grad else leaf.clone()
    version = x._version
    try:
        result = getattr(lib, name)(x, *args[1:], **kwargs)
    except RuntimeError as e:  # resize_as_ of a tensor that requires grad
        return (str(e),)
    outcome: list[Any] = [result is x, x._version - version, x.detach().numpy().copy()]
    if x.requires_grad and x.grad_fn is not None:
        lacking = name in _LACKING  # PyTorch's node: AcoshBackward1
        outcome.append(
            x.grad_fn.name().replace("Backward1", "Backward0") if lacking else x.grad_fn.name()
        )
        weights = lib.arange(float(x.numel()), dtype=x.dtype).reshape(x.shape)
        if lib is torch and lacking:
            # PyTorch raises "the derivative for 'inplace version of acosh' is not
            # implemented"; glassgrad's Tensor.acosh_ ... differentiate (tests/ops/
            # test_pointwise.py): compare with PyTorch's out-of-place op.
            x = getattr(lib, name[:-1])(leaf * 1)
        (grad,) = lib.autograd.grad((x * weights).sum(), leaf, allow_unused=True)
        outcome.append(None if grad is None else grad.numpy())
    return tuple(outcome)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_changes_its_input_as_the_tensor_method_and_pytorch(name: str) -> None:
    info = gg.ops.REGISTRY[name]
    (sample,) = info.samples(np.random.default_rng(0))
    ours = _program(gg, name, sample)
    theirs = _program(torch, name, sample)
    assert len(ours) == len(theirs), (ours, theirs)
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=name)
        else:
            assert a == b, (name, ours, theirs)


@pytest.mark.parametrize("name", ["exp_", "logit_", "relu_", "threshold_", "index_put_"])
def test_refuses_what_pytorch_refuses(name: str) -> None:
    extra = {"logit_": (0.1,), "threshold_": (0.0, 1.0)}.get(name, ())
    same_error(lambda lib: getattr(lib, name)(3.0, *extra))
    if name in ("exp_", "logit_"):
        same_error(lambda lib: getattr(lib, name)(input=[1.0]))
        same_error(lambda lib: getattr(lib, name)(lib.ones(2), *extra, out=lib.ones(2)))
        same_error(lambda lib: getattr(lib, name)(lib.ones(2, requires_grad=True), *extra))


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "leaky_relu", "elu", "celu"])
def test_functional_inplace_errors_name_the_inplace_function(name: str) -> None:
    same_error(lambda lib: getattr(lib.nn.functional, name)(3.0, inplace=True))
    if hasattr(torch.nn.functional, name + "_"):
        same_error(lambda lib: getattr(lib.nn.functional, name + "_")(3.0))


def test_input_by_name_and_keywords() -> None:
    for lib in (gg, torch):
        x = lib.tensor([-2.0, 0.5, 3.0])
        assert lib.clamp_(input=x, min=-1.0, max=1.0) is x
        assert x.tolist() == [-1.0, 0.5, 1.0]
        assert lib.round_(lib.tensor([1.26]), decimals=1).tolist() == pytest.approx([1.3])


def test_rrelu_takes_a_generator() -> None:
    x = gg.full((5,), -1.0)
    y = x.clone()
    gg.rrelu_(x, 0.1, 0.3, True, gg.Generator().manual_seed(3))
    gg.nn.functional.rrelu_(y, 0.1, 0.3, True, generator=gg.Generator().manual_seed(3))
    assert x.tolist() == y.tolist() and all(-0.3 <= v <= -0.1 for v in x.tolist())


_INPLACE_METHODS = sorted(
    n
    for n in dir(torch.Tensor)
    if n.endswith("_") and not n.startswith("_") and hasattr(gg.Tensor, n)
)


@pytest.mark.parametrize("arguments", ["none", "int", "float", "tensor"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex64"])
def test_inplace_methods_on_an_expanded_tensor_write_or_refuse_as_pytorch(
    dtype: str, arguments: str
) -> None:
    """Every in-place method, called with no argument, a number or a tensor, on a tensor
    whose elements share memory (an expand): PyTorch refuses the write before its kernel's
    dtype dispatch, except where its kernel writes only some elements (tril_) or nothing
    (conj_physical_ of a real tensor, nan_to_num_ of an integer one)."""

    def outcome(lib: Any, name: str) -> Any:
        dt = getattr(lib, dtype)
        x = lib.tensor([[1.5, -0.5, 0.25]]).to(dt).expand(2, 3)
        args = {
            "none": (),
            "int": (2,),
            "float": (0.5,),
            "tensor": (lib.tensor([[2.0, 1.0, 3.0]]).to(dt),),
        }[arguments]
        try:
            getattr(x, name)(*args)
        except TypeError:
            return TypeError  # other arguments needed, or not for this dtype
        except Exception as exc:
            return type(exc).__name__
        return x.tolist()

    differing = {}
    for name in _INPLACE_METHODS:
        theirs = outcome(torch, name)
        if theirs is not TypeError and outcome(gg, name) != theirs:
            differing[name] = (outcome(gg, name), theirs)
    assert differing == {}


@pytest.mark.parametrize(
    "call",
    [
        lambda x, y: x.add_((y,)),
        lambda x, y: x.sub_([1.0, 2.0]),
        lambda x, y: x.mul_("a"),
        lambda x, y: x.pow_((y,)),
        lambda x, y: x.pow_("a"),
        lambda x, y: x.pow_(None),
        lambda x, y: x.addcmul_(y, (y,)),
        lambda x, y: x.atan2_((y,)),
    ],
)
def test_an_operand_that_is_no_tensor_nor_number_is_a_type_error_first(call: Any) -> None:
    """PyTorch's parser refuses it before the leaf check (fuzz seed 853813: ``pow_`` of a
    tuple of tensors, which NumPy took for an array)."""
    for lib in (gg, torch):
        x, y = lib.ones(2, requires_grad=True), lib.ones(2)
        with pytest.raises(TypeError):
            call(x, y)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x, y: lib.nn.functional.threshold(x, (y,), 1.0),
        lambda lib, x, y: lib.nn.functional.threshold_(x, 1.0, [1.0]),
        lambda lib, x, y: lib.nn.functional.leaky_relu(x, (0.1,)),
        lambda lib, x, y: x.nan_to_num_((1.0,)),
        lambda lib, x, y: lib.nan_to_num(x, posinf="a"),
        lambda lib, x, y: x.masked_fill(y > 0, (1.0,)),
        lambda lib, x, y: x.masked_fill_(y > 0, [1.0]),
        lambda lib, x, y: x.fill_([1.0]),
        lambda lib, x, y: lib.full((2,), (1.0,)),
        lambda lib, x, y: lib.clamp(x, (0.0,)),
        lambda lib, x, y: x.clamp_(max=[1.0]),
        lambda lib, x, y: x.clip_((0.0,)),
        lambda lib, x, y: x.index_fill(0, lib.tensor([0]), (1.0,)),
        lambda lib, x, y: lib.addmm(lib.ones(2, 2), lib.ones(2, 2), lib.ones(2, 2), beta=(1,)),
        lambda lib, x, y: x.addmv_(lib.ones(2, 2), y, alpha=[1.0]),
        lambda lib, x, y: lib.nn.functional.threshold(x, lib.tensor(0.5, requires_grad=True), 1),
        lambda lib, x, y: lib.full((2,), lib.tensor([1.0])),
        lambda lib, x, y: lib.where((y > 0,), x, y),
        lambda lib, x, y: lib.where([True, False], x, y),
        lambda lib, x, y: x.masked_select((y > 0,)),
        lambda lib, x, y: x.masked_scatter((y > 0,), y),
        lambda lib, x, y: lib.bucketize([1.0, 2.0], y),
        lambda lib, x, y: lib.isin([1.0, 2.0], y),
        lambda lib, x, y: lib.isin(y, [1.0]),
        lambda lib, x, y: lib.searchsorted(y, [1.0]),
    ],
)
def test_an_argument_that_is_a_sequence_is_a_type_error(call: Any) -> None:
    """NumPy would broadcast a tuple or list where PyTorch's parser wants a Number or a
    Tensor: glassgrad computed with it (found by an audit of every registry op's
    arguments)."""
    for lib in (gg, torch):
        x, y = lib.ones(2, requires_grad=True), lib.ones(2)
        with pytest.raises(TypeError):
            call(lib, x, y)


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x, t: lib.full((2,), t),
        lambda lib, x, t: lib.nn.functional.threshold(x, t, 1.0),
        lambda lib, x, t: lib.nn.functional.leaky_relu(x, t),
        lambda lib, x, t: lib.nan_to_num(x, nan=t),
        lambda lib, x, t: x.index_fill(0, lib.tensor([0]), t),
        lambda lib, x, t: lib.addmm(lib.ones(3, 3), lib.ones(3, 3), lib.ones(3, 3), beta=t),
    ],
)
def test_a_number_argument_takes_a_0d_tensor(call: Any) -> None:
    """PyTorch's parser takes a 0-d tensor that does not require grad for a Number."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor([-1.0, 0.25, 2.0])
        results.append(call(lib, x, lib.tensor(0.5)).tolist())
    assert results[0] == results[1]


def test_threshold_writes_an_expanded_tensor_as_pytorch() -> None:
    """PyTorch's threshold skips the overlap check (idempotent): threshold_ of an expanded
    tensor writes it, where relu_ or hardtanh_ refuse (fuzz seed 905762)."""
    results = []
    for lib in (gg, torch):
        x = lib.tensor([[-1.5], [0.3], [0.7]]).expand(3, 4)
        lib.threshold_(x, 0.2, -4.0)
        with pytest.raises(RuntimeError, match="more than one element"):
            lib.tensor([[-1.5], [0.3]]).expand(2, 3).relu_()
        results.append(x.tolist())
    assert results[0] == results[1]
