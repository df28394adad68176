"""The autograd structure of every registry row matches PyTorch's, beyond values.

- What an op saves for backward decides which in-place changes make the backward raise
  "modified by an inplace operation": each input and each output, changed in place after
  the op, must raise exactly where PyTorch raises.
- Under ``create_graph=True``, whether a first derivative is itself differentiable (requires
  grad) follows PyTorch's double-backward graph, even where the second derivative is zero.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import NoGrad, Sample

from .test_registry import (
    CASES,
    _arguments,
    _differentiable,
    _gauged_outputs,
    _run,
    _tensor_arguments,
)

# Rows whose graph differs from PyTorch's by design (README, "Differences from PyTorch"): one
# fused node per RNN layer and direction saves what the fused layer needs, not what PyTorch's
# step-by-step graph saves. Their values and gradients are compared in test_registry.py.
FUSED = {"_rnn_layer"}
STRUCTURE_CASES = [case for case in CASES if case.values[0] not in FUSED]


def _differentiated(key: str, sample: Any, lib: Any) -> tuple:
    info = REGISTRY[key]
    outputs, leaves = _run(info, sample, lib)
    return _differentiable(outputs, lib), leaves


def _integer_outputs(key: str, sample: Any, lib: Any) -> tuple:
    """The differentiable outputs, the integer ones (indices), the leaves and the tensor
    arguments that are no leaves (constants: indices, weights that take no gradient)."""
    args, kwargs, leaves = _arguments(sample, lib)
    outputs = _gauged_outputs(REGISTRY[key], lib, args, kwargs)
    integers = [o for o in outputs if not (o.dtype.is_floating_point or o.dtype.is_complex)]
    constants = [
        v for v in _tensor_arguments(args, kwargs) if not any(v is leaf for leaf in leaves)
    ]
    return _differentiable(outputs, lib), integers, leaves, constants


def _cotangents(lib: Any, outputs: list) -> list:
    rng = np.random.default_rng(0)
    return [lib.tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outputs]


def _gradable(key: str, sample: Any) -> bool:
    return REGISTRY[key].differentiable and sample.grad


@pytest.mark.parametrize("key, index, sample", STRUCTURE_CASES)
def test_first_derivatives_are_differentiable_where_pytorchs_are(
    key: str, index: int, sample: Any
) -> None:
    if not _gradable(key, sample):
        return
    flags, reached = [], []
    for lib in (gg, torch):
        outputs, leaves = _differentiated(key, sample, lib)
        if not outputs or not leaves:
            return
        grads = lib.autograd.grad(
            outputs, leaves, _cotangents(lib, outputs), create_graph=True, allow_unused=True
        )
        flags.append([g is not None and g.requires_grad for g in grads])
        differentiable = [g for g in grads if g is not None and g.requires_grad]
        if differentiable and REGISTRY[key].second_order and sample.gradgrad:
            # Which leaves the second derivative reaches (None where the graph has no path).
            second = lib.autograd.grad(
                differentiable, leaves, _cotangents(lib, differentiable), allow_unused=True
            )
            reached.append([s is not None for s in second])
    assert flags[0] == flags[1], (
        f"{key}: first derivatives require grad {flags[0]}, torch {flags[1]}"
    )
    assert reached[:1] == reached[1:], f"{key}: second derivatives reach {reached}"


def _raises_after_inplace(key: str, sample: Any, lib: Any, which: str, k: int) -> Any:
    """Run the op, change its ``k``-th leaf (``which="input"``), differentiable output
    (``"output"``), integer output (``"index"``: PyTorch saves some) or tensor argument that
    takes no gradient (``"constant"``: a weight, an index) in place, then differentiate: the
    error's kind, or None and the gradients. Float values are scaled by 1.5 (integers kept):
    where neither library raises, the gradients must still agree, so a backward that reads
    a changed value PyTorch did not keep (a silently wrong gradient) shows."""
    outputs, integers, leaves, constants = _integer_outputs(key, sample, lib)
    targets = {"input": leaves, "output": outputs, "index": integers, "constant": constants}[which]
    if k >= len(targets) or not outputs or not leaves:
        return "absent", None
    target = targets[k]
    try:
        with lib.no_grad():
            if target.dtype.is_floating_point or target.dtype.is_complex:
                target.mul_(1.5)
            else:
                target.add_(0)
    except RuntimeError as exc:  # an expanded output: several elements share memory
        return "cannot write: " + str(exc).split(":")[0], None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grads = lib.autograd.grad(outputs, leaves, _cotangents(lib, outputs), allow_unused=True)
    except RuntimeError as exc:
        return ("modified" if "modified by an inplace operation" in str(exc) else str(exc)), None
    return None, [None if g is None else g.detach().resolve_conj().numpy() for g in grads]


@pytest.mark.parametrize("key, index, sample", STRUCTURE_CASES)
def test_saved_tensors_are_pytorchs(key: str, index: int, sample: Any) -> None:
    """Changing an input or an output in place breaks the backward exactly where it breaks
    PyTorch's: the op saves what PyTorch saves."""
    if not _gradable(key, sample):
        return
    for which in ("input", "output", "index", "constant"):
        for k in range(4):
            ours, our_grads = _raises_after_inplace(key, sample, gg, which, k)
            theirs, their_grads = _raises_after_inplace(key, sample, torch, which, k)
            assert ours == theirs, (
                f"{key}: {which} {k} changed in place: {ours!r}, torch {theirs!r}"
            )
            for a, b in zip(our_grads or (), their_grads or ()):
                if a is not None and b is not None:
                    np.testing.assert_allclose(
                        a, b, rtol=1e-6, atol=1e-9, err_msg=f"{key}: {which} {k} changed"
                    )
            if theirs == "absent":
                break


@pytest.mark.parametrize(
    "program",
    [
        "y = x.index_select(0, i); i[0] = 1",
        "y = x.gather(0, i); i.add_(1)",
        "y = torch.nn.functional.embedding(i, x.reshape(3, 1)); i.zero_()",
        "y = torch.nn.functional.cross_entropy(x.reshape(1, 3), p, weight=w); w.mul_(10)",
    ],
)
def test_constant_changed_after_the_op_raises_as_pytorch(program: str) -> None:
    """An index or a weight changed in place between forward and backward: PyTorch's error,
    never a gradient computed from the new values (which glassgrad gave before)."""
    for lib in (gg, torch):
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        names = {
            "torch": lib,
            "x": x,
            "i": lib.tensor([0, 2]),
            "p": lib.tensor([[0.2, 0.3, 0.5]]),
            "w": lib.tensor([1.0, 2.0, 3.0]),
        }
        exec(program, names)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            names["y"].sum().backward()


def _gradient_of_one_leaf(
    key: str,
    sample: Any,
    lib: Any,
    k: int,
    changed: int | None = None,
    output: bool = False,
    create_graph: bool = False,
) -> Any:
    """The gradient of the op's differentiable outputs with respect to its ``k``-th float
    argument alone (the others take no gradient), or None if the op has fewer. ``changed``:
    a leaf (``output``: an output) changed in place after the op, before the backward.
    ``create_graph``: whether that gradient requires grad instead."""
    args, kwargs, leaves = _arguments(sample, lib)
    if k >= len(leaves) or len(leaves) < 2:
        return None
    for i, leaf in enumerate(leaves):
        leaf.requires_grad_(i == k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs = _differentiable(_gauged_outputs(REGISTRY[key], lib, args, kwargs), lib)
        if not outputs or (output and changed >= len(outputs)):
            return None
        if changed is not None:
            with lib.no_grad():
                (outputs if output else leaves)[changed].mul_(1.5)
        (grad,) = lib.autograd.grad(
            outputs, [leaves[k]], _cotangents(lib, outputs), allow_unused=True,
            create_graph=create_graph,
        )  # fmt: skip
    if create_graph:
        return None if grad is None else grad.requires_grad
    return None if grad is None else grad.detach().resolve_conj().numpy()


def _raises_after_changing_another(
    key: str, sample: Any, lib: Any, k: int, j: int, output: bool = False
) -> Any:
    """Only leaf ``k`` requires grad; leaf ``j`` (``output``: output ``j``) is changed in
    place after the op, then the op is differentiated: the error's kind, or None."""
    try:
        _gradient_of_one_leaf(key, sample, lib, k, changed=j, output=output)
    except (RuntimeError, ValueError) as exc:  # ValueError: lobpcg's backward with B
        return "modified" if "modified by an inplace operation" in str(exc) else str(exc)
    return None


@pytest.mark.parametrize("key, index, sample", STRUCTURE_CASES)
def test_saved_tensors_are_pytorchs_for_each_input_alone(key: str, index: int, sample: Any) -> None:
    """With one input alone requiring grad, PyTorch saves an input or an output only a
    gradient that is not wanted reads when one formula reads it (its codegen guards that
    tensor with ``should_compute_output``), and always when several formulas read it
    (addcdiv's tensor2): changing an input (that one too: seed 806009, ldexp's exponent
    written through a detached view) or an output in place raises exactly where PyTorch
    raises."""
    if _gradable(key, sample):
        _check_saved_for_each_input_alone(key, sample)


def _check_saved_for_each_input_alone(key: str, sample: Any) -> None:
    count = len(_arguments(sample, gg)[2])
    for k in range(count if count > 1 else 0):
        for output, what in ((False, "input"), (True, "output")):
            for j in range(count if not output else 4):
                ours = _raises_after_changing_another(key, sample, gg, k, j, output)
                theirs = _raises_after_changing_another(key, sample, torch, k, j, output)
                assert ours == theirs, (
                    f"{key}: {what} {j} changed, {k} alone requiring grad: {ours!r}, "
                    f"torch {theirs!r}"
                )


@pytest.mark.parametrize("key, index, sample", STRUCTURE_CASES)
def test_gradient_of_each_input_alone(key: str, index: int, sample: Any) -> None:
    """With only one input requiring grad, an op saves less (PyTorch saves what the needed
    gradients read): its backward must not read what it did not save."""
    if not _gradable(key, sample):
        return
    for k in range(4):
        try:
            theirs = _gradient_of_one_leaf(key, sample, torch, k)
        except RuntimeError:  # PyTorch refuses this combination: compared by the error tests
            continue
        ours = _gradient_of_one_leaf(key, sample, gg, k)
        if theirs is None:
            continue
        assert ours is not None, f"{key}: no gradient for input {k} alone, torch has one"
        np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-9, err_msg=f"{key}: {k}")


@pytest.mark.parametrize("key, index, sample", STRUCTURE_CASES)
def test_first_derivatives_of_each_input_alone_are_differentiable_where_pytorchs_are(
    key: str, index: int, sample: Any
) -> None:
    """With one input alone requiring grad, its first derivative under ``create_graph``
    requires grad exactly where PyTorch's does: it depends only on what its own formula
    reads (embedding_bag's gradient of per_sample_weights reads the weight, not them,
    though the node keeps them: fuzz seed 830004)."""
    if _gradable(key, sample):
        _check_flags_for_each_input_alone(key, sample)


def _check_flags_for_each_input_alone(key: str, sample: Any) -> None:
    for k in range(4):
        try:
            theirs = _gradient_of_one_leaf(key, sample, torch, k, create_graph=True)
        except (RuntimeError, ValueError):  # PyTorch refuses: compared by the error tests
            continue
        ours = _gradient_of_one_leaf(key, sample, gg, k, create_graph=True)
        assert ours == theirs, (
            f"{key}: input {k} alone, gradient requires grad {ours}, torch {theirs}"
        )


def _every_float_requiring_grad(value: Any) -> Any:
    if isinstance(value, NoGrad) and np.asarray(value.array).dtype.kind in "fc":
        return value.array
    if isinstance(value, list):
        return [_every_float_requiring_grad(v) for v in value]
    return value


def _widened(sample: Any) -> Any:
    """``sample`` with its float arguments that take no gradient (NoGrad) requiring grad, or
    None if it has none: the fuzzer makes any float tensor require grad."""
    args = tuple(_every_float_requiring_grad(a) for a in sample.args)
    kwargs = {k: _every_float_requiring_grad(v) for k, v in sample.kwargs.items()}
    before = [*sample.args, *sample.kwargs.values()]
    if all(a is b for a, b in zip([*args, *kwargs.values()], before) if not isinstance(b, list)):
        if not any(isinstance(v, list) and any(isinstance(x, NoGrad) for x in v) for v in before):
            return None
    return Sample(args, kwargs, grad=sample.grad, gradgrad=sample.gradgrad, fd=sample.fd)


WIDENED_CASES = [
    pytest.param(key, index, widened, id=f"{key}-{index}")
    for key, index, sample in (case.values for case in STRUCTURE_CASES)
    if _gradable(key, sample) and (widened := _widened(sample)) is not None
]


@pytest.mark.parametrize("key, index, sample", WIDENED_CASES)
def test_each_input_alone_with_every_float_argument_requiring_grad(
    key: str, index: int, sample: Any
) -> None:
    """The two tests above with every float argument requiring grad, the samples' constant
    weights and fractions too (quantile's q had no gradient; zeta kept an x its not
    implemented derivative does not read; nll_loss of images refuses a weight that requires
    grad in nll_loss2d_forward's words)."""
    _check_saved_for_each_input_alone(key, sample)
    _check_flags_for_each_input_alone(key, sample)
