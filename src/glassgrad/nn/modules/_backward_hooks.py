"""Module backward hooks: see a module's input and output gradients, as PyTorch does.

The module's tensor inputs and its tensor outputs each pass through one identity node
(``BackwardHookFunctionBackward``). In backward, the node on the outputs sees the gradient
with respect to the module's outputs (``grad_output``: the pre-hooks run there and may
replace it); the node on the inputs then sees the gradient with respect to the inputs
(``grad_input``: the hooks run there with both and may replace ``grad_input``).

The deprecated ``register_backward_hook`` hooks instead run on the grad_fn of the module's
first output, with that node's gradients (``attach_non_full_hooks``).
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

__all__ = ["BackwardHook", "attach_non_full_hooks"]


class BackwardHookFunction(Function):
    """The identity, recorded as one node over several tensors."""

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> tuple[Any, ...]:
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        return grads


def _pack_with_none(indices: list, values: Any, size: int) -> tuple:
    packed: list = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """One module call's hook state: set up on the inputs before ``forward`` and on the
    outputs after it."""

    def __init__(self, module: Any, user_hooks: list[Any], user_pre_hooks: list[Any]) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs: tuple | None = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_tensors_index: list | None = None
        self.output_tensors_index: list | None = None

    @staticmethod
    def _apply_on_tensors(register: Any, args: tuple) -> tuple:
        indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in indices]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        nodes = [
            t.grad_fn
            for t in wrapped
            if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"
        ]
        register(nodes[0])
        new_args = list(args)
        for index, value in zip(indices, wrapped):
            new_args[index] = value
        return tuple(new_args), indices

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        def register(node: Any) -> None:
            def hook(grad_inputs: tuple, _grad_outputs: tuple) -> tuple | None:
                if self.grad_outputs is None:
                    return None  # the outputs took no part in this backward
                result = _pack_with_none(self.input_tensors_index, grad_inputs, self.n_inputs)
                for user_hook in self.user_hooks:
                    out = user_hook(self.module, result, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(result):
                        raise RuntimeError(
                            "Backward hook returned an invalid number of grad_input, got "
                            f"{len(out)}, but expected {len(result)}"
                        )
                    result = out
                self.grad_outputs = None
                return tuple(result[i] for i in self.input_tensors_index)

            node.register_hook(hook)

        self.n_inputs = len(args)
        result, self.input_tensors_index = self._apply_on_tensors(register, args)
        return result

    def setup_output_hook(self, output: Any) -> Any:
        def register(node: Any) -> None:
            def hook(grad_inputs: tuple, _grad_outputs: tuple) -> tuple | None:
                # An identity node: its input gradients are the module's output gradients.
                self.grad_outputs = _pack_with_none(
                    self.output_tensors_index, grad_inputs, self.n_outputs
                )
                for user_pre_hook in self.user_pre_hooks:
                    replaced = user_pre_hook(self.module, self.grad_outputs)
                    if replaced is None:
                        continue
                    if len(replaced) != len(self.grad_outputs):
                        raise RuntimeError(
                            "Backward pre hook returned an invalid number of grad_output, got "
                            f"{len(replaced)}, but expected {len(self.grad_outputs)}"
                        )
                    self.grad_outputs = tuple(replaced)
                local = self.grad_outputs
                if self.input_tensors_index is None:
                    warnings.warn(
                        "Full backward hook is firing when gradients are computed with respect "
                        "to module outputs since no inputs require gradients.",
                        stacklevel=2,
                    )
                    grad_inputs_none = _pack_with_none([], [], self.n_inputs)
                    for user_hook in self.user_hooks:
                        out = user_hook(self.module, grad_inputs_none, self.grad_outputs)
                        if out is not None and not (
                            isinstance(out, tuple) and all(x is None for x in out)
                        ):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients."
                            )
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_tensors_index)

            node.register_hook(hook)

        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        self.n_outputs = len(outputs)
        result, self.output_tensors_index = self._apply_on_tensors(register, outputs)
        return result if is_tuple else result[0]


def attach_non_full_hooks(
    module: Any, hooks: list[Any], args: tuple[Any, ...], result: Any
) -> None:
    """``register_backward_hook``'s legacy hooks: each runs as a hook of the grad_fn of the
    module's first output tensor, called ``hook(module, grad_input, grad_output)`` with that
    node's gradients; PyTorch's FutureWarnings where those are not the module's."""
    var = result
    while not isinstance(var, Tensor):
        var = (
            next(v for v in var.values() if isinstance(v, Tensor))
            if isinstance(var, dict)
            else var[0]
        )
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in hooks:
        grad_fn.register_hook(functools.partial(_call_with_module, hook, module))
    _warn_non_full(args, result, grad_fn)


def _call_with_module(hook: Any, module: Any, grad_inputs: tuple, grad_outputs: tuple) -> Any:
    return hook(module, grad_inputs, grad_outputs)


def _warn_non_full(inputs: Any, result: Any, grad_fn: Any) -> None:
    """PyTorch's warnings for a legacy hook that will miss gradients."""
    how = "Please use register_full_backward_hook to get the documented behavior."
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            _future(
                "Using non-full backward hooks on a Module that does not return a single Tensor "
                "or a tuple of Tensors is deprecated and will be removed in future versions. "
                f"This hook will be missing some of the grad_output. {how}"
            )
            return
    else:
        result = (result,)
    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            _future(
                "Using non-full backward hooks on a Module that does not take as input a single "
                "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                f"versions. This hook will be missing some of the grad_input. {how}"
            )
            return
    else:
        inputs = (inputs,)
    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_grad_fn or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        _future(
            "Using a non-full backward hook when outputs are nested in python data structure is "
            "deprecated and will be removed in future versions. This hook will be missing some "
            "grad_output."
        )
    elif len(out_grad_fn) > 1:
        _future(
            "Using a non-full backward hook when outputs are generated by different autograd "
            "Nodes is deprecated and will be removed in future versions. This hook will be "
            f"missing some grad_output. {how}"
        )
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        if inputs_grad_fn != {fn for fn, _ in grad_fn.next_functions}:
            _future(
                "Using a non-full backward hook when the forward contains multiple autograd "
                "Nodes is deprecated and will be removed in future versions. This hook will be "
                f"missing some grad_input. {how}"
            )


def _future(message: str) -> None:
    # stacklevel: the user's call of the module, past this helper, attach_non_full_hooks,
    # _call_with_hooks and __call__.
    warnings.warn(message, FutureWarning, stacklevel=6)
