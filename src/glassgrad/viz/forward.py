"""Record a forward pass module by module: which modules ran, in which grad mode, and which
graph nodes each one created.

The graph alone cannot tell "this layer was never called" from "this layer ran under
``no_grad``" or "its output was detached": all three leave its parameters unreachable and
nothing else. Forward hooks on every submodule (``register_forward_pre_hook`` /
``register_forward_hook``) see the difference as it happens, and also say which module each
node belongs to, so the explorer can group and search nodes by module.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..autograd.grad_mode import is_grad_enabled
from ._graph import is_tensor

__all__ = ["ForwardLog", "ModuleCall", "record_forward"]


@dataclass
class ModuleCall:
    """One call of one module during the recorded forward pass.

    ``grad_enabled`` is the grad mode the call ran in; ``outputs`` the tensors it returned
    (kept alive while the log lives, so the graph behind them can be checked); ``call_id``
    numbers the calls in the order they started, ``parent_id`` is the call that was running
    when this one started (None at the top), so the calls form a tree.
    """

    module_name: str
    type_name: str
    grad_enabled: bool
    outputs: list[Any] = field(default_factory=list)
    call_id: int = -1
    parent_id: int | None = None

    @property
    def output_nodes(self) -> list[Any]:
        return [t.grad_fn for t in self.outputs if t.grad_fn is not None]


@dataclass
class ForwardLog:
    """What :func:`record_forward` saw: module calls in completion order, the module owning each
    parameter and its name, the innermost module (and module call) that created each graph
    node, and the modules still running (``running``, outermost first: after a forward raised, where it raised)."""

    calls: list[ModuleCall] = field(default_factory=list)
    module_types: dict[str, str] = field(default_factory=dict)
    owner_of_param: dict[int, str] = field(default_factory=dict)  # id(param) -> module name
    param_names: dict[int, str] = field(default_factory=dict)  # id(param) -> "fc.weight"
    module_of_node: dict[int, str] = field(default_factory=dict)  # id(node) -> module name
    call_of_node: dict[int, int] = field(default_factory=dict)  # id(node) -> call_id
    running: list[str] = field(default_factory=list)
    running_ids: list[int] = field(default_factory=list, repr=False)
    started: int = 0  # calls started so far (the next call_id)
    keepalive: list[Any] = field(default_factory=list, repr=False)

    def calls_of(self, module_name: str) -> list[ModuleCall]:
        return [call for call in self.calls if call.module_name == module_name]

    def module_of(self, node: Any) -> str | None:
        return self.module_of_node.get(id(node))

    def describe(self, module_name: str) -> str:
        """``'encoder' (Linear)``, or ``the model (Net)`` for the root module."""
        type_name = self.module_types.get(module_name, "?")
        if module_name == "":
            return f"the model ({type_name})"
        return f"module '{module_name}' ({type_name})"


@contextmanager
def record_forward(model: Any) -> Iterator[ForwardLog]:
    """Record the forward passes of ``model`` run inside the ``with`` block.

    Parameters
    ----------
    model : nn.Module
        The model; every submodule gets a forward pre-hook and hook for the block's duration.

    Yields
    ------
    ForwardLog
        Pass it to :func:`grad_report`, :func:`explore` or :func:`diagnose_params` as
        ``forward_log=`` for exact "no gradient" reasons and nodes grouped by module.

    Examples
    --------
    >>> model = glassgrad.nn.Sequential(glassgrad.nn.Linear(3, 2), glassgrad.nn.ReLU())
    >>> with record_forward(model) as log:
    ...     loss = model(glassgrad.ones(4, 3)).sum()
    >>> [call.module_name for call in log.calls]
    ['0', '1', '']
    """
    if not hasattr(model, "named_modules") or not hasattr(model, "register_forward_hook"):
        raise TypeError(f"record_forward: expected an nn.Module, got {type(model).__name__}")
    log = ForwardLog()
    handles = []
    for name, module in model.named_modules():
        log.module_types[name] = type(module).__name__
        for param_name, param in module.named_parameters(recurse=False):
            log.owner_of_param.setdefault(id(param), name)
            log.param_names.setdefault(id(param), f"{name}.{param_name}" if name else param_name)
        watcher = _ModuleWatcher(log, name)
        handles.append(module.register_forward_pre_hook(watcher.before))
        handles.append(module.register_forward_hook(watcher.after))
    try:
        yield log
    finally:
        for handle in handles:
            handle.remove()


class _ModuleWatcher:
    """The pair of hooks for one module; a stack copes with recursion and reuse."""

    def __init__(self, log: ForwardLog, name: str) -> None:
        self.log = log
        self.name = name
        self.pending: list[tuple[bool, list[Any], int, int | None]] = []

    def before(self, module: Any, args: Any) -> None:
        log = self.log
        inputs = [value for value in _flatten(args) if is_tensor(value)]
        parent = log.running_ids[-1] if log.running_ids else None
        self.pending.append((is_grad_enabled(), inputs, log.started, parent))
        log.running.append(self.name)
        log.running_ids.append(log.started)
        log.started += 1

    def after(self, module: Any, args: Any, output: Any) -> None:
        running = self.log.running
        if self.name in running:  # inner calls that raised and were caught end here too
            cut = len(running) - 1 - running[::-1].index(self.name)
            del running[cut:]
            del self.log.running_ids[cut:]
        if self.pending:
            grad_enabled, inputs, call_id, parent = self.pending.pop()
        else:
            grad_enabled, inputs, call_id, parent = is_grad_enabled(), [], -1, None
        outputs = [value for value in _flatten(output) if is_tensor(value)]
        call = ModuleCall(self.name, type(module).__name__, grad_enabled, outputs, call_id, parent)
        self.log.calls.append(call)
        self.log.keepalive.append(inputs)
        self._claim_nodes(call, inputs)

    def _claim_nodes(self, call: ModuleCall, inputs: list[Any]) -> None:
        # The nodes this call created: reachable from its outputs without passing through the
        # graph of its inputs. Inner modules finish first and claim their nodes first.
        boundary = {id(t.grad_fn) for t in inputs if t.grad_fn is not None}
        input_leaves = {id(t) for t in inputs if t.grad_fn is None}
        owners = self.log.module_of_node
        call_owners = self.log.call_of_node
        stack = list(call.output_nodes)
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in boundary:
                continue
            if id(getattr(node, "variable", None)) in input_leaves:
                continue  # the AccumulateGrad of a leaf handed in belongs to the caller
            seen.add(id(node))
            owners.setdefault(id(node), self.name)
            call_owners.setdefault(id(node), call.call_id)
            self.log.keepalive.append(node)
            for child, _ in getattr(node, "next_functions", ()):
                if child is not None:
                    stack.append(child)


def _flatten(value: Any) -> list[Any]:
    items, stack = [], [value]
    while stack:
        current = stack.pop()
        if isinstance(current, (tuple, list)):
            stack.extend(reversed(current))
        elif isinstance(current, dict):
            stack.extend(reversed(list(current.values())))
        else:
            items.append(current)
    return items
