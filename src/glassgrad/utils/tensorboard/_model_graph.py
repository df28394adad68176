"""``add_graph``: the forward graph of a model, one node per recorded op, grouped by module.

glassgrad has no tracer; what a forward pass did is its autograd graph. So the model runs once
in eval mode with gradients enabled, its floating inputs replaced by detached copies that
require grad and its floating parameters made to require grad for the call (restored after),
so that every differentiable op records a node; :func:`~glassgrad.viz.record_forward` says
which module created each. Nothing runs backward, and the graph is dropped once written.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Iterator
from typing import Any

from ... import viz
from ...autograd.grad_mode import enable_grad
from ...viz._graph import OP, build_graph, upstream_first
from ._graph_def import ScopedNames, forward_op_name, graph_profile, module_scopes, node_def

__all__ = ["model_graph"]


def model_graph(model: Any, input_to_model: Any, verbose: bool, strict: bool) -> tuple[Any, Any]:
    """The ``(GraphDef, RunMetadata)`` of one forward pass of ``model`` on ``input_to_model``."""
    if not callable(model) or not hasattr(model, "named_modules"):
        raise TypeError(f"add_graph: expected an nn.Module, got {type(model).__name__}")
    args = _as_args(input_to_model)
    copies = tuple(_traceable(value) for value in args)
    with _eval_mode(model), _params_require_grad(model), enable_grad():
        with viz.record_forward(model) as log:
            try:
                output = model(*copies)
            except Exception as error:
                where = log.describe(log.running[-1] if log.running else "")
                raise RuntimeError(
                    f"add_graph: the forward of {where} raised {type(error).__name__}: {error}"
                ) from error
    outputs = _output_tensors(output, strict)
    nodes = _GraphWriter(log).nodes(_input_names(model, len(args)), copies, outputs)
    if verbose:
        for node in nodes:
            print(f"{node.name} = {node.op}({', '.join(node.input)})")
    return graph_profile(nodes)


def _as_args(input_to_model: Any) -> tuple:
    if input_to_model is None:
        return ()
    if isinstance(input_to_model, list | tuple):
        return tuple(input_to_model)
    return (input_to_model,)


def _traceable(value: Any) -> Any:
    # A floating input that requires grad makes every op on it record a node.
    if hasattr(value, "is_floating_point") and value.is_floating_point():
        return value.detach().requires_grad_(True)
    return value


@contextlib.contextmanager
def _eval_mode(model: Any) -> Iterator[None]:
    was_training = model.training
    model.train(False)
    try:
        yield
    finally:
        model.train(was_training)


@contextlib.contextmanager
def _params_require_grad(model: Any) -> Iterator[None]:
    frozen = [p for p in model.parameters() if not p.requires_grad and p.is_floating_point()]
    for param in frozen:
        param.requires_grad_(True)
    try:
        yield
    finally:
        for param in frozen:
            param.requires_grad_(False)


def _output_tensors(output: Any, strict: bool) -> list[Any]:
    tensors, stack = [], [output]
    while stack:
        value = stack.pop()
        if isinstance(value, tuple):
            stack.extend(reversed(value))
        elif isinstance(value, list | dict):
            if strict:
                raise RuntimeError(
                    f"add_graph: the model returned a {type(value).__name__}, which a strict "
                    "trace refuses (PyTorch's rule); pass use_strict_trace=False to accept it"
                )
            stack.extend(reversed(list(value.values() if isinstance(value, dict) else value)))
        elif hasattr(value, "grad_fn"):
            tensors.append(value)
    if not tensors:
        raise ValueError(f"add_graph: the model returned no tensor (got {type(output).__name__})")
    return tensors


def _input_names(model: Any, count: int) -> list[str]:
    # The forward's own argument names, as PyTorch's trace names its inputs.
    try:
        parameters = list(inspect.signature(model.forward).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    names = [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [names[k] if k < len(names) else f"input.{k}" for k in range(count)]


class _GraphWriter:
    """Turns the recorded graph into ``NodeDef`` protos named by module scope."""

    def __init__(self, log: Any) -> None:
        self.log = log
        self.scopes = module_scopes(log.module_types)
        self.root = self.scopes[""]
        self.names = ScopedNames()

    def scope_of(self, module_path: str | None) -> str:
        return self.scopes.get(module_path or "", self.root)

    def nodes(self, input_names: list[str], inputs: tuple, outputs: list[Any]) -> list[Any]:
        log = self.log
        graph = build_graph(outputs, read_details=False, func_name="add_graph")
        defs = []
        name_of_tensor: dict[int, str] = {}
        for arg_name, value in zip(input_names, inputs, strict=True):
            name = self.names.make("input", arg_name)
            if hasattr(value, "shape"):
                name_of_tensor[id(value)] = name
                defs.append(node_def(name, "IO Node", (), [tuple(value.shape)], [_dtype(value)]))
        name_of_node: dict[int, str] = {}
        # Producers before consumers, so the file reads in the order the forward ran.
        ops = [graph.nodes[key] for key in upstream_first(graph) if graph.nodes[key].kind == OP]
        # Leaves first (inputs, parameters, tensors made inside), then ops.
        for node in ops:
            variable = getattr(node.obj, "variable", None)
            if variable is None:
                continue
            name = name_of_tensor.get(id(variable))
            if name is None:
                if id(variable) in log.param_names:
                    owner = log.owner_of_param[id(variable)]
                    short = log.param_names[id(variable)].rpartition(".")[2]
                    name = self.names.make(self.scope_of(owner), short)
                    op = "Parameter"
                else:
                    name = self.names.make(self.scope_of(log.module_of(node.obj)), "Tensor")
                    op = "Tensor"
                name_of_tensor[id(variable)] = name
                defs.append(node_def(name, op, (), [tuple(variable.shape)], [_dtype(variable)]))
            name_of_node[id(node.obj)] = name
        for node in ops:
            if id(node.obj) in name_of_node:
                continue
            label = forward_op_name(node.label)
            name_of_node[id(node.obj)] = self.names.make(
                self.scope_of(log.module_of(node.obj)), label
            )
        for node in ops:
            if getattr(node.obj, "variable", None) is not None:
                continue
            inputs_of = [
                _output_ref(name_of_node[id(child)], nr)
                for child, nr in node.obj.next_functions
                if child is not None
            ]
            shapes = [meta[0] if meta else None for meta in node.output_meta]
            dtypes = [meta[1] if meta else None for meta in node.output_meta]
            defs.append(
                node_def(
                    name_of_node[id(node.obj)],
                    forward_op_name(node.label),
                    inputs_of,
                    shapes,
                    dtypes,
                    grad_fn=node.label,
                )
            )
        for index, tensor in enumerate(outputs, 1):
            fn = tensor.grad_fn
            source = (
                _output_ref(name_of_node[id(fn)], tensor.output_nr)
                if fn is not None
                else name_of_tensor.get(id(tensor))
            )
            defs.append(
                node_def(
                    f"output/output.{index}",
                    "IO Node",
                    [source] if source else [],
                    [tuple(tensor.shape)],
                    [_dtype(tensor)],
                )
            )
        return defs


def _output_ref(name: str, output_nr: int) -> str:
    return f"{name}:{output_nr}" if output_nr else name


def _dtype(tensor: Any) -> str:
    return str(tensor.dtype).rpartition(".")[2]
