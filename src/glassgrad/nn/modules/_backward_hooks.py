"""Module backward hooks: see a module's input and output gradients, as PyTorch does.

The module's tensor inputs and its tensor outputs each pass through one identity node
(``BackwardHookFunctionBackward``). In backward, the node on the outputs sees the gradient
with respect to the module's outputs (``grad_output``: the pre-hooks run there and may
replace it); the node on the inputs then sees the gradient with respect to the inputs
(``grad_input``: the hooks run there with both and may replace ``grad_input``).
"""

from __future__ import annotations

import warnings
from typing import Any

from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled

__all__ = ["BackwardHook"]


class BackwardHookFunction(Function):
    """The identity, recorded as one node over several tensors."""

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> tuple:
        ctx.mark_non_differentiable(*[t for t in tensors if not t.requires_grad])
        return tensors

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return grads


def _pack_with_none(indices: list, values: Any, size: int) -> tuple:
    packed: list = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """One module call's hook state: set up on the inputs before ``forward`` and on the
    outputs after it."""

    def __init__(self, module: Any, user_hooks: list, user_pre_hooks: list) -> None:
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

    def setup_input_hook(self, args: tuple) -> tuple:
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
