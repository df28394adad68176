"""Custom differentiable operations, with PyTorch's ``autograd.Function`` API.

Example::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_output):
            (result,) = ctx.saved_tensors
            return grad_output * result

    y = Exp.apply(x)        # y.grad_fn is an ExpBackward node
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from . import graph
from .grad_mode import INFERENCE_VERSION, no_grad
from .grad_mode import state as grad_state
from .graph import Node, SavedTensor, pack_saved, saved_tensors_freed_error
from .inplace_record import note_write
from .op import SAVED_INFERENCE_ERROR, _modified_error, fit_gradients
from .views import CreationMeta, check_inplace, edge_of, rebase_history

__all__ = ["Function", "FunctionCtx", "InplaceFunction", "once_differentiable"]


class FunctionCtx:
    """What ``forward`` and ``backward`` of a custom Function share (PyTorch's ``ctx``)."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (inputs or outputs, or None) for ``backward``."""
        for t in tensors:
            if t is not None and not isinstance(t, graph.Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        self._to_save_forward = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare inputs that ``forward`` modified in place (they must be returned)."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Declare outputs that have no gradient (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = value


class BackwardCFunction(FunctionCtx, Node):
    """The Node of one custom Function call; it is also the ``ctx`` given to the user."""

    _forward_cls: type
    materialize_grads = True
    _runs_undefined = True
    _to_save: tuple = ()
    _dirty: tuple = ()
    _non_differentiable: tuple = ()
    _materialize_non_diff_grads = True
    _saved_cleared = False
    _materialized: tuple = ()  # per output: whether a missing gradient becomes zeros
    # Which arguments of forward are tensors: the edges (next_functions) are theirs only, as
    # in PyTorch; backward still returns one gradient per argument.
    _tensor_positions: tuple = ()

    def __init__(self) -> None:
        Node.__init__(self)
        self._saved: list | None = None
        self.needs_input_grad: tuple[bool, ...] = ()

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors given to ``save_for_backward`` (checked for in-place changes)."""
        if self._saved is None:
            raise saved_tensors_freed_error()
        if self._saved_cleared:
            raise RuntimeError(
                "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True "
                "is set on the autograd.Function. Either access saved_tensors only once, or set "
                "clear_saved_tensors_on_access=False."
            )
        Tensor = graph.Tensor
        values = []
        for item in self._saved:
            if item is None:
                values.append(None)
                continue
            kind, ref, version = item
            if kind == "packed":  # saved under saved_tensors_hooks
                values.append(ref.unpack())
            elif kind == "output":
                data, counter, nr = ref
                if counter[0] != version:
                    holder = Tensor._from_array(data)
                    holder._vc = counter
                    raise _modified_error(holder, version, self, nr)
                t = Tensor._result(data, self, nr)
                t._vc = counter
                values.append(t)
            else:
                if ref._vc[0] != version:
                    raise _modified_error(ref, version, ref.grad_fn)
                values.append(ref)
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved = []  # the caller's references are then the only ones
            self._saved_cleared = True
        return tuple(values)

    @property
    def _raw_saved_tensors(self) -> tuple:
        """Each saved tensor as a ``SavedTensor`` (to register pack/unpack hooks on)."""
        if self._saved is None:
            raise saved_tensors_freed_error()
        return tuple(
            SavedTensor(self._saved_getter(i), self._saved_setter(i), self)
            for i in range(len(self._saved))
        )

    def _saved_getter(self, i: int) -> Callable:
        def get() -> Any:
            if self._saved is None:
                raise KeyError(i)
            entry = self._saved[i]
            if entry is None:
                return None
            return entry[1] if entry[0] == "packed" else _entry_tensor(self, entry)

        return get

    def _saved_setter(self, i: int) -> Callable:
        def set_(packed: Any) -> None:
            self._saved[i] = ("packed", packed, None)

        return set_

    @property
    def saved_variables(self) -> tuple[Any, ...]:
        """Deprecated name of ``saved_tensors``."""
        warnings.warn(
            "'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2
        )
        return self.saved_tensors

    def _run(self, grads: list, create_graph: bool) -> tuple:
        if self._saved is None:
            raise saved_tensors_freed_error()
        Tensor = graph.Tensor
        if self.materialize_grads:
            # Zeros for the tensor outputs that got no gradient; non-tensor outputs (and, if
            # so set, non-differentiable ones) give None, as in PyTorch.
            zeros = self._materialize(grads, np)
            grads = [z if m else g for g, z, m in zip(grads, zeros, self._materialized)]
        grad_tensors = [
            None if g is None else g if isinstance(g, Tensor) else Tensor._from_array(g)
            for g in grads
        ]
        if self._forward_cls.boxed_grads_call:
            result = self._backward_fn()(self, list(grad_tensors))
        else:
            result = self._backward_fn()(self, *grad_tensors)
        if not isinstance(result, tuple):
            result = (result,)
        expected = len(self.needs_input_grad)  # one per forward argument
        if len(result) > expected and all(r is None for r in result[expected:]):
            result = result[:expected]
        if len(result) != expected:
            raise RuntimeError(
                f"function {self.name()} returned an incorrect number of gradients (expected "
                f"{expected}, got {len(result)})"
            )
        positions = self._tensor_positions
        for i, r in enumerate(result):
            if r is not None and not isinstance(r, Tensor):
                raise TypeError(
                    f"function {self.name()} returned a gradient of type {type(r).__name__} at "
                    f"index {i}; expected a Tensor or None"
                )
            if r is not None and i not in positions:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable"
                )
        if len(positions) != expected:
            result = tuple(result[i] for i in positions)
        F = graph.tensor_namespace if create_graph else graph.array_namespace
        return fit_gradients(self, result, F, create_graph)

    def _backward_fn(self) -> Callable:
        """The user's ``backward`` or its alias ``vjp`` (defining both is an error)."""
        cls = self._forward_cls
        backward, vjp = cls.backward, cls.vjp
        if backward is not Function.backward and vjp is not Function.vjp:
            raise RuntimeError(
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. "
                "You should only implement one of them."
            )
        return vjp if vjp is not Function.vjp else backward

    def _release(self) -> None:
        if self._saved:  # a Function that saved nothing may run backward again
            self._saved = None

    def _saved_info(self) -> dict:
        # What the glass-box tools show; a tensor packed by saved-tensor hooks stays packed
        # (unpacking would run the unpack hook, e.g. a checkpoint's recomputation).
        if self._saved is None:
            return {}
        if any(item is not None and item[0] == "packed" for item in self._saved):
            return {f"saved_tensor{i}": self._saved_getter(i)() for i in range(len(self._saved))}
        return (
            {f"saved_tensor{i}": t for i, t in enumerate(self.saved_tensors)}
            if (self._saved is not None)
            else {}
        )


class _FunctionMeta(type):
    """Gives each Function subclass its own Node class, named ``<Name>Backward``."""

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        backward_cls = type(
            name + "Backward",
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": cls.__module__},
        )
        cls._backward_cls = backward_cls
        super().__init__(name, bases, attrs)


_NODE_ATTRIBUTES = frozenset(
    {
        "_register_hook_dict",
        "register_hook",
        "register_prehook",
        "next_functions",
        "name",
        "_sequence_nr",
        "_set_sequence_nr",
        "_input_metadata",
    }
)


class Function(metaclass=_FunctionMeta):
    """Base class for differentiable operations with a hand-written backward.

    Subclasses define static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
    (one gradient per ``forward`` argument, None for non-tensors) and are called through
    ``apply``. See the module docstring for an example.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all "
            "static, so you should invoke them on the class itself. Instantiating an autograd "
            "function will raise an error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __getattr__(self, name: str) -> Any:
        # What a graph node has and a Function instance lacks: PyTorch's error for this legacy
        # access pattern, rather than an AttributeError.
        if name == "metadata":
            raise RuntimeError(
                "You attempted to access the anomaly metadata of a custom autograd function but "
                "the underlying PyNode has already been deallocated. Access the metadata of "
                "the grad_fn of the Function's output instead."
            )
        if name in _NODE_ATTRIBUTES:
            raise RuntimeError(
                f"Attribute '{name}' is invalid for this instance of _C._FunctionBase. Accessing "
                "this attribute directly on an instance of autograd.Function is a legacy access "
                "pattern that is no longer supported. For examples on how to use new-style "
                "autograd functions, see "
                "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function"
            )
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)"
        )

    # Free what save_for_backward kept at the first ctx.saved_tensors (a second access raises).
    clear_saved_tensors_on_access = False
    # backward receives the output gradients as one list, which it may empty as it goes.
    boxed_grads_call = False

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def vjp(ctx: Any, *grad_outputs: Any) -> Any:
        """Another name for ``backward``: define one of the two."""
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        raise NotImplementedError

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` and, if any input requires grad, record a ``<Name>Backward`` node."""
        Tensor = graph.Tensor
        node = cls._backward_cls()
        uses_setup = cls.setup_context is not Function.setup_context
        if uses_setup:
            # setup_context sees every input of forward, its defaults included (PyTorch).
            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        node.needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        record = grad_state.enabled and any(node.needs_input_grad)
        if record:  # the inputs' history before forward may change any of them in place
            node._tensor_positions = tuple(i for i, a in enumerate(args) if isinstance(a, Tensor))
            node.next_functions = tuple(
                edge_of(a) if a._requires_grad else (None, 0) for a in args if isinstance(a, Tensor)
            )
        with no_grad():
            if uses_setup:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        is_tuple = isinstance(outputs, tuple)
        outs = outputs if is_tuple else (outputs,)
        for t in node._dirty:
            if isinstance(t, Tensor):
                t._vc[0] += 1  # as PyTorch's mark_dirty: the version moves once more
                note_write(t._vc, f"{cls.__qualname__}.forward (mark_dirty)")
        if not record:
            _mark_views_of_function(outs, {id(a) for a in args if isinstance(a, Tensor)})
            return outputs
        node._input_meta = tuple(
            (a._data.shape, a._data.dtype) for a in args if isinstance(a, Tensor)
        )
        dirty = {id(t) for t in node._dirty}
        non_diff = {id(t) for t in node._non_differentiable}
        inputs = {id(a) for a in args if isinstance(a, Tensor)}
        n_tensors = sum(isinstance(o, Tensor) for o in outs)
        _check_dirty(node._dirty, inputs, outs)
        wrapped = []
        for nr, out in enumerate(outs):
            if not isinstance(out, Tensor):
                wrapped.append(out)
                continue
            if id(out) in dirty and id(out) in inputs:
                # An input changed in place: the node becomes its history (through
                # CopySlices on the base for a view), as an in-place op would.
                check_inplace(out)
                if out._base is not None and n_tensors > 1:
                    raise RuntimeError(_DIRTY_VIEW_MULTIPLE_OUTPUTS)
                if id(out) not in non_diff:
                    if out._base is not None:
                        rebase_history(out, node)
                    else:
                        out._node = node
                        out._requires_grad = True
                        if nr:
                            out._output_nr = nr
                wrapped.append(out)
                continue
            if id(out) in inputs:
                # An input returned as it is comes back as a view of itself, as PyTorch's
                # view_as(self): in-place changes of it are then refused like any view's.
                with no_grad():
                    target = out.view_as(out)
            else:
                target = out
            if id(out) in non_diff:
                wrapped.append(target)
                continue
            target._node = node
            target._requires_grad = True
            if nr:
                target._output_nr = nr
            if target._base is not None:
                # A view made inside the Function (or the input as-is): in-place changes
                # would bypass the custom backward, so PyTorch forbids them (as for the views
                # of a multi-output op when the Function returns several).
                target._creation_meta = _function_view_meta(outs, non_diff)
                target._requires_grad_from_base = False
                target._attr_version = target._vc[0]
            wrapped.append(target)
        node._output_meta = tuple(
            (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32)
            for o in outs
        )
        node._dirty = node._non_differentiable = ()  # ctx keeps no reference to outputs
        node._materialized = tuple(
            isinstance(o, Tensor) and (node._materialize_non_diff_grads or id(o) not in non_diff)
            for o in outs
        )
        try:
            node._saved = _freeze_saved(node._to_save, outs, wrapped, node)
        finally:  # (a pack hook may raise) the ctx must not keep the tensors themselves
            node._to_save = ()
        if graph.anomaly.enabled:
            node._record_creation()
        return tuple(wrapped) if is_tuple else wrapped[0]


class InplaceFunction(Function):
    """A Function that may work in place on its input (PyTorch's base class; ``inplace`` is
    for the subclass to read)."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


_DIRTY_VIEW_MULTIPLE_OUTPUTS = (
    "If your Function modifies inplace an input that is a view of another Tensor, your Function "
    "cannot return more than one Tensor. This is not supported by the current autograd engine. "
    "You should either make sure the input is not a view (using .clone() for example) or make "
    "your Function only return one Tensor (potentially splitting it into two Functions: one "
    "doing the inplace that returns a single Tensor and a second one that does the other "
    "operations). You can ask on the forum https://discuss.pytorch.org/ if you need help to do "
    "this change."
)


def _mark_views_of_function(outs: tuple, inputs: set) -> None:
    """Outputs of an unrecorded call that are views made inside forward may not be changed in
    place later either (PyTorch marks them the same way)."""
    for o in outs:
        if isinstance(o, graph.Tensor) and o._base is not None and id(o) not in inputs:
            o._creation_meta = _function_view_meta(outs, set())


def _function_view_meta(outs: tuple, non_diff: set) -> int:
    differentiable = sum(isinstance(o, graph.Tensor) and id(o) not in non_diff for o in outs)
    return CreationMeta.MULTI_OUTPUT_NODE if differentiable > 1 else CreationMeta.IN_CUSTOM_FUNCTION


def _check_dirty(dirty: tuple, inputs: set, outs: tuple) -> None:
    """PyTorch's checks of ``ctx.mark_dirty``: inputs only (a view that is not one is an
    error, another tensor a warning), and every dirty tensor returned (inputs or not)."""
    returned = {id(o) for o in outs}
    for t in dirty:
        if id(t) in inputs or id(t) not in returned:  # (not returned: the error below)
            continue
        if t._base is not None:
            raise RuntimeError(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
                "that have been mutated should be passed to ctx.mark_dirty()."
            )
        warnings.warn(
            "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors "
            "that have been mutated should be passed to ctx.mark_dirty().",
            UserWarning,
            stacklevel=4,
        )
    if any(id(t) not in returned for t in dirty):
        raise RuntimeError(
            "Some elements marked as dirty during the forward method were not returned as "
            "output. The inputs that are modified inplace must all be outputs of the Function."
        )


def _freeze_saved(tensors: tuple, outs: tuple, wrapped: list, node: Node) -> list:
    """Saved tensors with their versions; outputs are kept by data to avoid a cycle. Inside
    saved_tensors_hooks each goes through the pack hook instead."""
    frozen = []
    for t in tensors:
        if t is None:
            frozen.append(None)
            continue
        for nr, (raw, final) in enumerate(zip(outs, wrapped)):
            if t is raw or t is final:
                entry = ("output", (final._data, final._vc, nr), final._vc[0])
                break
        else:
            if t._version_counter is INFERENCE_VERSION:
                raise RuntimeError(SAVED_INFERENCE_ERROR)
            entry = ("input", t, t._vc[0])
        if graph.saved_hooks_stack:
            tensor = _entry_tensor(node, entry)
            if entry[0] == "output":
                entry = ("packed", pack_saved(tensor, node, nr), None)
            else:
                entry = ("packed", pack_saved(tensor), None)
        frozen.append(entry)
    return frozen


def _entry_tensor(node: Node, entry: tuple) -> Any:
    """The tensor a ``_freeze_saved`` entry stands for (an output comes back as one)."""
    kind, ref, _ = entry
    if kind == "input":
        return ref
    if kind == "packed":
        return ref
    data, counter, nr = ref
    t = graph.Tensor._result(data, node, nr)
    t._vc = counter
    return t


class _DelayedErrorNode(Node):
    """Stands where a once-differentiable backward was differentiated; raises if run."""

    cpp_node = True
    __slots__ = ("_message",)

    def __init__(self, message: str, inputs: tuple) -> None:
        Node.__init__(self)
        self.next_functions = tuple(
            edge_of(t) if t is not None and t._requires_grad else (None, 0) for t in inputs
        )
        self._input_meta = tuple(
            None if t is None else (t._data.shape, t._data.dtype) for t in inputs
        )
        self._message = message

    def _run(self, grads: list, create_graph: bool) -> tuple:
        raise RuntimeError(self._message)


_DelayedErrorNode.__name__ = "Error"  # PyTorch's name for the node DelayedError records


def delayed_error(message: str, t: Any) -> Any:
    """``t`` as the output of an ``Error`` node: differentiating through it raises
    RuntimeError(``message``) (PyTorch's DelayedError, which a backward formula puts on a
    gradient it computed but cannot differentiate). Without a graph, ``t`` itself."""
    if not (grad_state.enabled and t._requires_grad):
        return t
    node = _DelayedErrorNode(message, (t,))
    node._output_meta = ((t._data.shape, t._data.dtype),)
    return graph.Tensor._result(t._data, node, 0)


def once_differentiable(fn: Callable) -> Callable:
    """Decorate a ``backward`` that is not itself differentiable: it runs without recording,
    and differentiating its result raises an error (instead of a silently wrong gradient).

    As in PyTorch, each result becomes an output of an ``Error`` node whose inputs are
    detached copies of the results made to require grad.

    Example::

        >>> class Square(glassgrad.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     @once_differentiable
        ...     def backward(ctx, g):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * g
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        Tensor = graph.Tensor
        with no_grad():
            outputs = fn(ctx, *args)
        if not grad_state.enabled:
            return outputs
        if not any(isinstance(a, Tensor) and a._requires_grad for a in args):
            return outputs
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        leaves = tuple(
            Tensor._from_array(o._data).requires_grad_(True) if isinstance(o, Tensor) else None
            for o in outs
        )
        node = _DelayedErrorNode(
            "trying to differentiate twice a function that was marked with @once_differentiable",
            leaves,
        )
        marked = [
            Tensor._result(o._data, node, nr) if isinstance(o, Tensor) else o
            for nr, o in enumerate(outs)
        ]
        node._output_meta = tuple(
            (o._data.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32)
            for o in marked
        )
        return tuple(marked) if isinstance(outputs, tuple) else marked[0]

    return wrapper
