"""The recorded graph: a Node per op result, AccumulateGrad per leaf, and their hooks.

A Node is one op's backward function. ``next_functions`` holds one ``(Node | None, input_nr)``
edge per input; the engine sends each Node the gradients of its outputs and gets back the
gradients of its inputs. The Node keeps what its backward needs (saved tensors) until it runs.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import numpy as np

from .._add_kernel import as_add_kernel, scaled
from .._dtype import check_result_cast, from_numpy_dtype
from .._layout import contiguous_format
from .._strides import grad_layout, restrided
from .grad_mode import state as grad_state
from .inplace_record import note_write
from .mutation import (
    _AllowMutationOnSavedContext,
    before_write,
    mutation_allowed,
    write_hooks,
)

__all__ = [
    "Node",
    "AccumulateGrad",
    "GradientEdge",
    "RemovableHandle",
    "SavedTensor",
    "accumulator_of",
    "allow_mutation_on_saved_tensors",
    "disable_saved_tensors_hooks",
    "get_gradient_edge",
    "increment_version",
    "register_multi_grad_hook",
    "save_on_cpu",
    "saved_tensors_freed_error",
    "saved_tensors_hooks",
]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Creation order: the engine runs the most recently created ready Node first.
sequence_counter: itertools.count[int] = itertools.count()
ACCUMULATE_PRIORITY = 1 << 62

# The namespaces that backward formulas are written against: NumPy arrays when no graph is
# being built, differentiable Tensor ops under create_graph. Filled in by glassgrad.ops.
array_namespace: Any = None
tensor_namespace: Any = None
# The Tensor class (set by glassgrad._tensor; the graph wraps arrays for hooks).
Tensor: Any = None


class _AnomalyState:
    enabled = False
    check_nan = True
    current_node = None  # the node the engine is running (anomaly mode only)


anomaly: _AnomalyState = _AnomalyState()


class RemovableHandle:
    """Returned by ``register_hook``; ``remove()`` takes the hook out again."""

    __slots__ = ("_hooks", "id")
    _next_id = itertools.count()
    id: int

    def __init__(self, hooks: dict[Any, Any]) -> None:
        self._hooks = hooks  # the dict only, never the node or tensor that owns it
        self.id = next(RemovableHandle._next_id)

    def remove(self) -> None:
        self._hooks.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def add_hook(hooks: dict[Any, Any], fn: Callable[..., Any]) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = fn
    return handle


def increment_version(tensor: Any) -> None:
    """Mark ``tensor`` (or each tensor of an iterable) as modified in place, as an in-place
    op would: saved copies of it then fail the version check in backward. Inference tensors,
    which track no version, are left as they are.

    Example::

        >>> x = glassgrad.ones(2)
        >>> glassgrad.autograd.graph.increment_version(x); x._version
        1
    """
    for t in (tensor,) if isinstance(tensor, Tensor) else tensor:
        if not t.is_inference():
            t._vc[0] += 1
            note_write(t._vc, "increment_version")


def saved_tensors_freed_error() -> RuntimeError:
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
        "backward through the graph a second time or if you need to access saved tensors after "
        "calling backward."
    )


class Node:
    """One op's backward function in the graph (PyTorch's ``torch.autograd.graph.Node``).

    Example::

        >>> x = glassgrad.tensor([2.0], requires_grad=True)
        >>> y = (x * 3).exp()
        >>> y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()
        ('ExpBackward0', 'MulBackward0')
    """

    # Edges and metadata are stored flat (few objects per node keep Python's cyclic GC cheap on
    # large graphs): ``_meta`` holds (shape, dtype) of each input, then of each output.
    # Hooks and metadata are rare and live in the instance __dict__ once set.
    __slots__ = ("_next_nodes", "_next_nrs", "_seq", "_meta", "_n_out", "__dict__", "__weakref__")
    # Any of the hooks below, retain_grad or _zero_grads is set: the engine's one check that
    # sends a node through its general path (every other flag is read there only).
    _hooked = False
    _pre_hooks = None
    _post_hooks = None
    _tensor_hooks = None
    _retain_grad = None
    _metadata = None
    # Runs even when none of its outputs got a gradient (custom Functions, as in PyTorch).
    _runs_undefined = False
    # Its gradients are zeros that PyTorch gives as an efficient zero tensor (ZeroGradient);
    # set by _mark_zero_grads.
    _zero_grads = False
    # {output_nr: (shape, dtype)} recorded for an output whose tensor's .data was since
    # replaced by one of another shape or dtype (see data_replaced): the engine checks the
    # gradients sent here against it, as PyTorch's validate_outputs checks every gradient
    # against the input metadata its receiving node recorded.
    _pinned_meta = None

    def __init__(self) -> None:
        self._next_nodes: tuple = ()
        self._next_nrs: tuple = ()
        self._seq = next(sequence_counter)
        self._meta: tuple = ()
        self._n_out = 0

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """One ``(Node or None, input_nr)`` edge per input of the op."""
        return tuple(zip(self._next_nodes, self._next_nrs))

    @next_functions.setter
    def next_functions(self, edges: tuple[tuple[Node | None, int], ...]) -> None:
        self._next_nodes = tuple(e[0] for e in edges)
        self._next_nrs = tuple(e[1] for e in edges)

    @property
    def _input_meta(self) -> tuple:
        """``(shape, numpy dtype)`` of each input, None for non-tensor inputs."""
        return _pairs(self._meta[: len(self._meta) - 2 * self._n_out])

    @_input_meta.setter
    def _input_meta(self, meta: tuple) -> None:
        self._meta = _flat(meta) + self._meta[len(self._meta) - 2 * self._n_out :]

    @property
    def _output_meta(self) -> tuple:
        """``(shape, numpy dtype)`` of each output."""
        return _pairs(self._meta[len(self._meta) - 2 * self._n_out :])

    @_output_meta.setter
    def _output_meta(self, meta: tuple) -> None:
        self._meta = self._meta[: len(self._meta) - 2 * self._n_out] + _flat(meta)
        self._n_out = len(meta)

    def _mark_zero_grads(self) -> None:
        """This node's gradients are zeros, sent on as ZeroGradients (see there); the engine
        reads the flag on its general path only, where ``_hooked`` sends the node (a class
        attribute read on every node costs ~1% of a small backward)."""
        self._zero_grads = True
        self._hooked = True

    # --- introspection ---------------------------------------------------------------------
    # A node PyTorch writes by hand in C++ (AccumulateGrad, CopySlices, CopyBackwards,
    # NotImplemented, Error) rather than generating it from derivatives.yaml: its name() is
    # its demangled C++ type, ``torch::autograd::CopySlices``; type(node).__name__ (what the
    # viz tools show) stays the short name, as in PyTorch.
    cpp_node: bool = False

    def name(self) -> str:
        """The name PyTorch gives this backward function, e.g. ``'MulBackward0'``, or
        ``'torch::autograd::CopySlices'`` for a node PyTorch writes in C++."""
        if self.cpp_node:
            return f"torch::autograd::{type(self).__name__}"
        return type(self).__name__

    @property
    def metadata(self) -> dict[Any, Any]:
        """A dict for user data; under anomaly mode it holds ``traceback_`` (creation stack)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    @property
    def previous_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """Pre-0.4 name of ``next_functions`` (deprecated)."""
        import warnings

        warnings.warn(
            "Node.previous_functions is deprecated; use next_functions",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.next_functions

    def _saved_info(self) -> dict:
        """Saved tensors and op attributes by name (for visualisation)."""
        return {}

    def _sequence_nr(self) -> int:
        return self._seq

    def _set_sequence_nr(self, sequence_nr: int) -> None:
        """Change this node's priority: of the nodes ready in backward, the one with the
        highest sequence number runs first (PyTorch's ``Node._set_sequence_nr``)."""
        self._seq = sequence_nr

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # --- hooks -----------------------------------------------------------------------------
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node runs; it may return new
        ``grad_inputs``.

        Example::

            >>> y = glassgrad.ones(2, requires_grad=True) * 2
            >>> h = y.grad_fn.register_hook(lambda gi, go: print(gi[0].shape))
        """
        if self._post_hooks is None:
            self._post_hooks = {}
        self._hooked = True
        return add_hook(self._post_hooks, fn)

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """Call ``fn(grad_outputs)`` before this node runs; it may return new ``grad_outputs``.

        Example::

            >>> y = glassgrad.ones(2, requires_grad=True) * 2
            >>> h = y.grad_fn.register_prehook(lambda go: print(go[0].shape))
        """
        if self._pre_hooks is None:
            self._pre_hooks = {}
        self._hooked = True
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        self._hooked = True
        return add_hook(self._tensor_hooks.setdefault(output_nr, {}), fn)

    def _record_creation(self) -> None:
        """Under anomaly mode, remember the user's stack that created this node."""
        import traceback  # only in anomaly mode: keeps `import glassgrad` light

        frames = [f for f in traceback.extract_stack() if _PACKAGE_DIR not in f.filename]
        self.metadata["traceback_"] = traceback.format_list(frames)
        if anomaly.current_node is not None:  # made by a backward: remember which node ran it
            self.metadata["parent_"] = anomaly.current_node

    def __call__(self, *grads: Any) -> Any:
        """Apply this backward function to the gradients of its outputs (PyTorch's
        ``node(*grad_outputs)``): the gradients of its inputs, recorded if grad mode is on.

        Example::

            >>> x = glassgrad.ones(1, requires_grad=True)
            >>> (x ** 2).grad_fn(glassgrad.ones(1))
            tensor([2.], grad_fn=<MulBackward0>)
        """
        if len(grads) != self._n_out:
            raise TypeError(f"expected {self._n_out} arguments, got {len(grads)} instead")
        record = grad_state.enabled
        values = [g if g is None or record else g._data for g in grads]
        results = [wrap_array(g) for g in self._run(values, record)]
        return results[0] if len(results) == 1 else tuple(results)

    # --- what the engine calls -------------------------------------------------------------
    def _run(self, grads: list, create_graph: bool) -> tuple:
        """Gradients for each edge of ``next_functions`` from the gradients of the outputs."""
        raise NotImplementedError(f"{self.name()} has no backward")

    def _release(self) -> None:
        """Drop saved state once the node ran (unless retain_graph)."""

    def _materialize(self, grads: list, xp: Any) -> list:
        """Zeros for outputs that received no gradient (a multi-output op used partly)."""
        meta = self._meta
        first = len(meta) - 2 * self._n_out
        return [
            g if g is not None else xp.zeros(meta[first + 2 * i], dtype=meta[first + 2 * i + 1])
            for i, g in enumerate(grads)
        ]


class ZeroGradient:
    """A gradient known to be zero: PyTorch's efficient zero tensor
    (``at::_efficientzerotensor``, the gradient of ``sgn`` of a real tensor). PyTorch's
    multiplication keeps it zero whatever the other factor, inf and NaN included, and its
    addition drops it, so a backward formula fed only such zeros gives such zeros (no
    ``0 * inf`` NaN), and one added to a gradient leaves that gradient as it is. Only the
    engine sees it: nodes, hooks and leaves get ``value``, the zeros themselves."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


def _pairs(flat: tuple) -> tuple:
    return tuple(
        None if flat[i] is None else (flat[i], flat[i + 1]) for i in range(0, len(flat), 2)
    )


def _flat(pairs: tuple) -> tuple:
    flat: list = []
    for pair in pairs:
        flat.extend((None, None) if pair is None else pair)
    return tuple(flat)


def wrap_array(value: Any) -> Any:
    """An ndarray gradient as a Tensor for user hooks (a Tensor stays as it is)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._from_array(value)
    return value


def unwrap_tensor(value: Any, create_graph: bool) -> Any:
    """A hook's Tensor result back in the engine's representation."""
    if value is None or create_graph:
        return value
    return value._data if isinstance(value, Tensor) else value


# A leaf's grad_dtype set to None: its gradients keep the dtype they come with.
ANY_GRAD_DTYPE = np.dtype("V1")


class AccumulateGrad(Node):
    """The sink for a leaf tensor's gradient: adds it into ``variable.grad``.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> (x * 2).grad_fn.next_functions[0][0].variable is x
        True
    """

    variable: Any

    cpp_node = True
    __slots__ = ("variable",)

    def __init__(self, variable: Any) -> None:
        # Made once per leaf and graph (every training step): the slots are set directly.
        self._next_nodes = self._next_nrs = ()
        self._seq = ACCUMULATE_PRIORITY
        self.variable = variable
        data = variable._data
        self._meta = (data.shape, data.dtype)
        self._n_out = 1

    def _run(self, grads: list, create_graph: bool) -> tuple:
        # The leaf's tensor hooks ran before (the engine's tensor pre-hooks): a leaf with
        # hooks has ``_hooked`` set on its AccumulateGrad, which sends it through them.
        var = self.variable
        if grads[0] is None:
            return ()
        if var.grad_fn is not None:
            # Detached in place, then given a history by an in-place op: PyTorch's error.
            raise RuntimeError("leaf variable has been moved into the graph interior")
        if not var._requires_grad:
            # A leaf detached in place (detach_) after the graph was recorded gets nothing;
            # its post-accumulate hooks still run, as PyTorch's engine calls them.
            self._post_accumulate(var)
        else:
            owned = not create_graph and _held_by_list_only(grads)
            self._accumulate(grads[0], create_graph, owned)
        return ()

    def _cast_to_grad_dtype(self, grad: Any) -> Any:
        """The gradient reaching the leaf, cast to the leaf's ``grad_dtype`` when one is set
        (PyTorch casts it as it leaves the node that made it, before the leaf's hooks)."""
        wanted = self.variable._grad_dtype
        if grad is None or wanted is None or wanted is ANY_GRAD_DTYPE:
            return grad
        if isinstance(grad, Tensor):
            return grad if grad._data.dtype == wanted else grad.to(from_numpy_dtype(wanted))
        return grad if grad.dtype == wanted else np.asarray(grad).astype(wanted)

    def _hooked_grad(self, grad: Any, create_graph: bool) -> Any:
        """The gradient after the leaf's tensor hooks (each may replace it)."""
        var = self.variable
        for hook in tuple(var._hooks.values()):
            result = hook(wrap_array(grad))
            if result is not None:
                grad = unwrap_tensor(result, create_graph)
            result = None  # a Tensor left here would keep the gradient referenced
        return grad

    def _accumulate(self, grad: Any, create_graph: bool, owned: bool = False) -> None:
        var = self.variable
        with _accumulate_lock:  # backward from several threads into one leaf adds them all
            accumulate(var, grad, create_graph, owned, replaced=self._pinned_meta is not None)
        self._post_accumulate(var)

    @staticmethod
    def _post_accumulate(var: Any) -> None:
        if var._post_accumulate_hooks:
            for hook in tuple(var._post_accumulate_hooks.values()):
                if hook(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")


_accumulate_lock = threading.Lock()


def data_replaced(t: Any, old: Any) -> None:
    """``t.data = ...`` (or an in-place view op in no-grad mode, ``t.squeeze_()``) gave
    ``t`` an array of another shape or dtype than ``old``.

    As PyTorch's ``set_data``: the node that produced ``t`` (a non-leaf's ``grad_fn``, a
    leaf's live AccumulateGrad) keeps the metadata it recorded, so a gradient of the new shape
    reaching it raises "returned an invalid gradient" and one of the new dtype is cast back;
    a leaf whose dtype changed gets a fresh AccumulateGrad for the ops recorded from now on.
    """
    node = t._node
    nr = t._output_nr
    if node is None:
        ref = t._grad_acc
        node = ref() if ref is not None else None
        if node is None:
            return
        if old.dtype != t._data.dtype:
            t._grad_acc = None
    if node._pinned_meta is None:
        node._pinned_meta = {}
        pinned_nodes.alive += 1
        weakref.finalize(node, pinned_nodes.release)
    node._pinned_meta.setdefault(nr, (old.shape, old.dtype))


class _PinnedNodes:
    """Live count of nodes with ``_pinned_meta``: zero (the usual case) keeps the engine's
    check of each gradient against them off its loop."""

    alive: int = 0

    def release(self) -> None:
        self.alive -= 1


pinned_nodes: _PinnedNodes = _PinnedNodes()


def accumulator_of(t: Any) -> AccumulateGrad | None:
    """The AccumulateGrad node of leaf ``t`` (one per leaf while the graph holds it); None
    for a view made in no-grad mode of a tensor that requires grad: it requires grad too,
    but its gradient goes nowhere, as in PyTorch."""
    if t._requires_grad_from_base or not t._requires_grad:
        return None  # no AccumulateGrad: it requires grad only through its base (a view)
    ref = t._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        if t._hooks or t._grad_dtype is not None:
            acc._hooked = True  # hooks to run, or a grad_dtype to cast to, first
        t._grad_acc = weakref.ref(acc)
    return acc


def _references_to_first(items: list) -> int:
    first = items[0]
    return sys.getrefcount(first)


def _references_to_base(view: np.ndarray) -> int:
    base = view.base
    return sys.getrefcount(base)


# What the two counts read for an array held by a list alone, and for the base of a view held
# by that view alone, measured once on fresh arrays: the interpreter's own references (the
# local, the call's argument) then need no assumption that a Python version could break.
_SOLE_IN_LIST = _references_to_first([np.empty(1)])
_SOLE_BASE = _references_to_base(np.empty(2)[:1])


def _held_by_list_only(grads: list) -> bool:
    """Whether the array ``grads[0]`` is referenced by that list alone (and, for a view,
    its base by that view alone) and is laid out as a gradient of its own: C-contiguous,
    writeable and all of its memory. Such a gradient can become ``.grad`` without a copy, as
    PyTorch's AccumulateGrad steals a gradient that nothing else holds."""
    if type(grads[0]) is not np.ndarray or _references_to_first(grads) != _SOLE_IN_LIST:
        return False
    grad = grads[0]  # taken after the count (so are its flags, which refer to it)
    if not (grad.flags.c_contiguous and grad.flags.writeable):
        return False
    if grad.base is None:
        return True
    # A weight's gradient through TBackward0 is a transposed view of a fresh product.
    return (
        type(grad.base) is np.ndarray
        and grad.base.nbytes == grad.nbytes
        and _references_to_base(grad) == _SOLE_BASE
    )


def _has_layout(grad: np.ndarray, layout: tuple | None) -> bool:
    """Whether ``grad`` has the byte strides ``layout`` (None: row-major)."""
    if layout is None:
        return grad.flags.c_contiguous
    return all(s == t for s, t, n in zip(grad.strides, layout, grad.shape) if n > 1)


def _empty_grad(shape: tuple, dtype: np.dtype, layout: tuple | None) -> np.ndarray:
    """An empty gradient with the byte strides ``layout`` (None: row-major)."""
    if layout is None:
        return np.empty(shape, dtype)
    return restrided(np.empty(shape, dtype), layout)


def accumulate(
    var: Any,
    grad: Any,
    create_graph: bool,
    owned: bool = False,
    retained: bool = False,
    replaced: bool = False,
) -> None:
    """``var.grad += grad``, in place when no graph is being built, as PyTorch does.

    ``owned``: nothing else refers to the array ``grad`` (see ``_held_by_list_only``), so a
    first gradient of the variable's dtype becomes ``.grad`` as it is. ``retained``: ``var``
    is a non-leaf that retains its gradient (``retain_grad``). ``replaced``: the leaf's
    ``.data`` was replaced since this gradient's graph was recorded; the gradient has the
    old dtype, and becomes ``.grad`` as it is if it may, as in PyTorch."""
    current = var._grad
    # The dtype of .grad: the leaf's own, unless its grad_dtype was set (the gradient then
    # arrives cast to it, or, set to None, keeps its own dtype).
    dtype = var._data.dtype if var._grad_dtype is None else _array_dtype(grad)
    if create_graph:
        grad_tensor = grad if isinstance(grad, Tensor) else Tensor._from_array(grad)
        if current is not None:
            var._grad = current + grad_tensor
        elif retained:
            # PyTorch's retain_grad hook clones, row-major.
            var._grad = grad_tensor.clone(memory_format=contiguous_format)
        else:
            # As PyTorch's AccumulateGrad under create_graph: a copy into a fresh tensor laid
            # out like the leaf (its grad_fn is CopyBackwards when the gradient has a graph).
            data = var._data
            var._grad = Tensor._from_array(_empty_grad(data.shape, dtype, grad_layout(data)))
            var._grad.copy_(grad_tensor)
        return
    if isinstance(grad, Tensor):
        grad = grad._data
    if current is None:
        data = var._data
        if (
            grad.shape != data.shape
            and not retained
            and not (owned and _obeys_layout_contract(grad, data))
        ):
            # The leaf's .data was replaced by one of another shape after the graph was
            # recorded: PyTorch copies the gradient into a tensor of the leaf's shape.
            grad = np.broadcast_to(grad, _into_shape(data.shape, grad.shape))
        # PyTorch's gradient layout contract: a leaf's first .grad has the leaf's strides
        # when the leaf is dense (row-major otherwise, and for retained grads, which may
        # belong to an older shape: a t_() since, say).
        layout = None
        if not (retained or data.flags.c_contiguous) and grad.shape == data.shape:
            layout = grad_layout(data)
        if owned and (grad.dtype == dtype or replaced) and _has_layout(grad, layout):
            var._grad = Tensor._from_array(grad)
        else:
            # Backward formulas may hand the same array to several inputs: own a copy.
            copy = _empty_grad(grad.shape, dtype, layout)
            np.copyto(copy, grad, casting="unsafe")
            var._grad = Tensor._from_array(copy)
    elif current._node is None and not current._requires_grad:
        data = current._data
        if not retained:  # PyTorch adds in place: .grad keeps its shape and dtype
            if data.shape != grad.shape:
                _into_shape(data.shape, grad.shape)
            check_result_cast(grad.dtype, data.dtype)
        if data.shape == grad.shape and data.flags.writeable:
            if write_hooks:
                before_write(current)
            np.add(data, scaled(grad, 1, data.dtype), out=data, casting="unsafe")
            current._vc[0] += 1
            note_write(current._vc, "AccumulateGrad (adding a gradient into .grad in place)")
        else:
            var._grad = Tensor._from_array(as_add_kernel(data + grad, data, grad))
    else:
        var._grad = current + Tensor._from_array(grad)


def _obeys_layout_contract(grad: np.ndarray, data: np.ndarray) -> bool:
    """PyTorch's ``obeys_layout_contract`` of a gradient for a leaf holding ``data`` (of
    another shape: its strides are read by the gradient's dimensions): the strides of a dense
    leaf where the gradient's dimensions are not 1, else any dense layout."""
    if not (data.flags.c_contiguous or grad_layout(data) is not None):
        return grad.flags.c_contiguous or grad_layout(grad) is not None
    if grad.ndim > data.ndim:
        return False
    for size, stride, wanted in zip(grad.shape, grad.strides, data.strides):
        if size != 1:
            if stride // grad.itemsize != wanted // data.itemsize:
                return False
        elif stride == 0:  # a broadcast dimension of size 1: a view, not a gradient of its own
            return False
    return True


def _into_shape(shape: tuple, grad_shape: tuple) -> tuple:
    """``shape`` if a gradient of ``grad_shape`` can be copied or added into a tensor of that
    shape; else PyTorch's error."""
    for i in range(1, min(len(shape), len(grad_shape)) + 1):
        a, b = shape[-i], grad_shape[-i]
        if a != b and a != 1 and b != 1:
            raise RuntimeError(
                f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                f"non-singleton dimension {max(len(shape), len(grad_shape)) - i}"
            )
    wide = np.broadcast_shapes(shape, grad_shape)
    if wide != shape:
        raise RuntimeError(
            f"output with shape {list(shape)} doesn't match the broadcast shape {list(wide)}"
        )
    return shape


def _array_dtype(grad: Any) -> np.dtype:
    return grad._data.dtype if isinstance(grad, Tensor) else np.asarray(grad).dtype


# --- saved-tensor hooks ---------------------------------------------------------------------
# The (pack, unpack) pairs entered with saved_tensors_hooks, innermost last. Ops read this list
# at every recording: it is mutated in place, never rebound.
saved_hooks_stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


class _SavedHooksState:
    disabled_message: str | None = None  # set by disable_saved_tensors_hooks


saved_hooks_state: _SavedHooksState = _SavedHooksState()


class saved_tensors_hooks:
    """Context manager: while active, every tensor an op saves for backward is passed to
    ``pack_hook`` and what it returns is kept instead; backward calls ``unpack_hook`` on it
    to get the tensor back (PyTorch's ``torch.autograd.graph.saved_tensors_hooks``).

    Example::

        >>> def pack(t):
        ...     return t.numpy().copy()          # e.g. to disk, or compressed
        >>> def unpack(a):
        ...     return glassgrad.from_numpy(a)
        >>> x = glassgrad.ones(3, requires_grad=True)
        >>> with glassgrad.autograd.graph.saved_tensors_hooks(pack, unpack):
        ...     y = (x * x).sum()
        >>> y.backward(); x.grad
        tensor([2., 2., 2.])
    """

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        if saved_hooks_state.disabled_message is not None:
            raise RuntimeError(saved_hooks_state.disabled_message)
        saved_hooks_stack.append((self.pack_hook, self.unpack_hook))

    def __exit__(self, *exc: object) -> None:
        if saved_hooks_stack:
            saved_hooks_stack.pop()


def allow_mutation_on_saved_tensors() -> contextlib.AbstractContextManager[
    _AllowMutationOnSavedContext
]:
    """Inside, a tensor saved for backward may be changed in place: it is cloned before the
    change and backward uses the clone (PyTorch's
    ``torch.autograd.graph.allow_mutation_on_saved_tensors``; see ``autograd.mutation``). Run
    forward and backward in the same context; contexts cannot be nested.

    Example::

        >>> with glassgrad.autograd.graph.allow_mutation_on_saved_tensors():
        ...     a = glassgrad.ones(2, 3, requires_grad=True)
        ...     b = a.clone()
        ...     out = (b**2).sum()
        ...     b.sin_()
        ...     out.backward()
        >>> a.grad
        tensor([[2., 2., 2.],
                [2., 2., 2.]])
    """
    return mutation_allowed(saved_tensors_hooks)


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU (and come back to their device in backward).
    glassgrad computes on the CPU, so they stay where they are; with ``pin_memory`` (nothing
    to pin without a GPU) they are copied, as PyTorch does when no GPU is present.

    Example::

        >>> with glassgrad.autograd.graph.save_on_cpu():
        ...     y = (glassgrad.ones(2, requires_grad=True) * 2).sum()
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(tensor: Any) -> tuple:
            if pin_memory:  # no GPU, nothing to pin: a copy, as PyTorch without one
                return (tensor.device, tensor.detach().clone())
            # detached: the node's output keeps no reference to the node through its hooks
            return (tensor.device, tensor.detach().cpu())

        def unpack(packed: tuple) -> Any:
            device, tensor = packed
            return tensor.to(device)

        super().__init__(pack, unpack)


@contextlib.contextmanager
def disable_saved_tensors_hooks(error_message: str) -> Iterator[None]:
    """Inside, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``;
    entering it while saved-tensor hooks are active raises the same error (as PyTorch).

    Example::

        >>> with glassgrad.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        ...     pass
    """
    previous = saved_hooks_state.disabled_message
    saved_hooks_state.disabled_message = error_message
    try:
        if saved_hooks_stack:
            raise RuntimeError(error_message)
        yield
    finally:
        saved_hooks_state.disabled_message = previous


class _Packed:
    """What a node keeps for one tensor saved under hooks: the pack hook's result, the unpack
    hook, and the tensor's place in the graph (its node and output number, or its
    AccumulateGrad), so the unpacked tensor is attached where the original was (PyTorch's
    SavedVariable with hooks: no version check, the hooks own the value)."""

    __slots__ = ("packed", "unpack_hook", "grad_fn", "output_nr", "accumulator", "released")

    def __init__(self, tensor: Any, pack_hook: Callable, unpack_hook: Callable, grad_fn: Any,
                 output_nr: int, hook_arg: Any = None, owner: Any = None) -> None:  # fmt: skip
        # The pack hook runs in no-grad mode, as PyTorch's; it gets ``hook_arg`` (a detached
        # alias from register_hooks) or the tensor itself.
        version = tensor._version
        enabled = grad_state.enabled
        grad_state.enabled = False
        try:
            self.packed = pack_hook(tensor if hook_arg is None else hook_arg)
        finally:
            grad_state.enabled = enabled
        if tensor._version != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform in-place "
                "operations on the input to a pack hook."
            )
        self.unpack_hook = unpack_hook
        # A node's own output refers to the node weakly (the node owns this entry: a strong
        # reference would be a cycle that keeps its saved values alive until gc runs).
        self.grad_fn = weakref.ref(grad_fn) if grad_fn is not None and grad_fn is owner else grad_fn
        self.output_nr = output_nr
        self.accumulator = accumulator_of(tensor) if grad_fn is None else None
        self.released = False

    def __repr__(self) -> str:
        # How the glass-box tools show a saved value they must not unpack.
        description = getattr(type(self.packed), "_saved_description", None)
        if description is None:
            description = f"packed by saved_tensors_hooks as {type(self.packed).__name__}"
        return f"<{description}>"

    def unpack(self) -> Any:
        if self.released:
            raise saved_tensors_freed_error()
        value = self.unpack_hook(self.packed)
        if not isinstance(value, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(value).__name__}"
            )
        grad_fn = self.grad_fn
        if type(grad_fn) is weakref.ref:
            grad_fn = grad_fn()
        if grad_fn is not None:
            return Tensor._result(value._data, grad_fn, self.output_nr)
        if self.accumulator is None and not value.requires_grad:
            return value  # nothing to attach: the hook's tensor itself, as PyTorch returns it
        t = Tensor._from_array(value._data)
        if self.accumulator is not None:
            t._requires_grad = True
            t._grad_acc = weakref.ref(self.accumulator)
        return t


def pack_saved(tensor: Any, grad_fn: Any = None, output_nr: int = 0) -> Any:
    """``tensor`` as a node saves it: packed by the innermost saved-tensor hooks (``grad_fn``:
    the node, when ``tensor`` is its own output)."""
    if saved_hooks_state.disabled_message is not None:
        raise RuntimeError(saved_hooks_state.disabled_message)
    pack_hook, unpack_hook = saved_hooks_stack[-1]
    if grad_fn is None:
        grad_fn, output_nr = tensor._node, tensor._output_nr
        return _Packed(tensor, pack_hook, unpack_hook, grad_fn, output_nr)
    return _Packed(tensor, pack_hook, unpack_hook, grad_fn, output_nr, owner=grad_fn)


class SavedTensor:
    """One tensor a node keeps for backward, as ``grad_fn._raw_saved_<name>`` shows it
    (PyTorch's ``torch._C._autograd.SavedTensor``): ``register_hooks`` packs it now and
    unpacks it in backward.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> y = x * x
        >>> y.grad_fn._raw_saved_self.register_hooks(lambda t: t * 1, lambda t: t)
    """

    __slots__ = ("_get", "_set", "_owner")

    def __init__(self, get: Callable[[], Any], set_: Callable[[Any], None],
                 owner: Any = None) -> None:  # fmt: skip
        # get() returns the node's entry (a tensor, a packed tensor or None) and raises
        # KeyError once the node has released what it saved; owner: the node.
        self._get, self._set, self._owner = get, set_, owner

    def _entry(self) -> Any:
        try:
            return self._get()
        except KeyError:
            raise saved_tensors_freed_error() from None

    @property
    def data(self) -> Any:
        """The packed object when hooks are set, else the saved tensor."""
        entry = self._entry()
        return entry.packed if type(entry) is _Packed else entry

    @property
    def unpack_hook(self) -> Any:
        """The unpack hook, or None when the tensor is saved as it is."""
        entry = self._entry()
        return entry.unpack_hook if type(entry) is _Packed else None

    def register_hooks(self, *args: Any, **kwargs: Any) -> None:
        """Pack this saved tensor with ``pack_hook`` now; backward calls ``unpack_hook``."""
        if kwargs or len(args) != 2 or not all(callable(h) for h in args):
            raise TypeError(
                "register_hooks(): incompatible function arguments. The following argument "
                "types are supported: (self, pack_hook: Callable, unpack_hook: Callable) -> None"
            )
        try:
            entry = self._get()
        except KeyError:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved values after calling "
                "backward."
            ) from None
        if entry is None:
            raise RuntimeError(
                "None is forbidden: a saved tensor that is None cannot have hooks registered"
            )
        if type(entry) is _Packed:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        packed = _Packed(
            entry, args[0], args[1], entry._node, entry._output_nr, entry.detach(), self._owner
        )
        self._set(packed)


# --- the running backward -------------------------------------------------------------------
class GraphTask:
    """One run of the engine (a ``backward`` or ``autograd.grad`` call): the nodes it reaches
    and, with ``inputs``, the ones it will run."""

    deps: dict[Any, Any]
    selective: Any

    accumulate_grad: bool
    has_inputs: bool
    id: int

    __slots__ = ("id", "deps", "selective", "accumulate_grad", "has_inputs")
    _ids = itertools.count()

    def __init__(
        self, deps: dict[Any, Any], selective: Any, accumulate_grad: bool, has_inputs: bool
    ) -> None:
        self.id = next(GraphTask._ids)
        self.deps, self.selective = deps, selective
        self.accumulate_grad, self.has_inputs = accumulate_grad, has_inputs

    def will_execute(self, node: Any) -> bool:
        """Whether ``node`` runs (or, for autograd.grad's inputs, has its gradient taken)."""
        return node in self.deps and (self.selective is None or node in self.selective)


# The engine runs now, innermost (a reentrant backward) last: each a GraphTask, or the tuple of
# its arguments until a hook asks for it (most backward calls never do; making one costs ~2% of
# a small backward).
graph_tasks: list[GraphTask | tuple] = []


def current_graph_task() -> GraphTask | None:
    if not graph_tasks:
        return None
    task = graph_tasks[-1]
    if type(task) is tuple:
        task = graph_tasks[-1] = GraphTask(*task)
    return task


class _MultiHandle(RemovableHandle):
    __slots__ = ("handles",)

    def __init__(self, handles: tuple) -> None:
        self.handles = handles
        self.id = next(RemovableHandle._next_id)

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()


def register_multi_grad_hook(
    tensors: Any, fn: Callable[..., Any], *, mode: str = "all"
) -> RemovableHandle:
    """Call ``fn`` once per backward for a group of tensors (PyTorch's
    ``torch.autograd.graph.register_multi_grad_hook``).

    ``mode="all"``: after the gradients of every tensor that this backward reaches were
    computed, ``fn(grads)`` with None for those it does not reach. ``mode="any"``: ``fn(grad)``
    with the first of them to be computed.

    Example::

        >>> a, b = glassgrad.ones(2, requires_grad=True), glassgrad.ones(2, requires_grad=True)
        >>> h = glassgrad.autograd.graph.register_multi_grad_hook(
        ...     (a, b), lambda grads: print([g is not None for g in grads]))
        >>> (a * 2).sum().backward()
        [True, False]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    if mode == "any":
        ran: set = set()

        def first(grad: Any) -> None:
            task = current_graph_task()
            if task.id in ran:
                return
            ran.add(task.id)
            fn(grad)

        return _MultiHandle(tuple(t.register_hook(first) for t in tensors if t.requires_grad))

    nodes = [t.grad_fn if t.grad_fn is not None else accumulator_of(t) for t in tensors]
    pending: dict = {}  # graph task id -> [gradients so far, how many are still to come]

    def inner(index: int) -> Callable:
        def hook(grad: Any) -> None:
            task = current_graph_task()
            state = pending.get(task.id)
            if state is None:
                expected = sum(1 for n in nodes if n is not None and task.will_execute(n))
                state = pending[task.id] = [[None] * len(tensors), expected]
            state[0][index] = grad
            state[1] -= 1
            if state[1] == 0:
                del pending[task.id]
                fn(state[0])

        return hook

    return _MultiHandle(tuple(t.register_hook(inner(i)) for i, t in enumerate(tensors)))


# --- gradient edges -------------------------------------------------------------------------
class GradientEdge(NamedTuple):
    """A place in the graph a gradient flows into: ``node``'s input ``output_nr`` (PyTorch's
    ``torch.autograd.graph.GradientEdge``). ``autograd.grad`` and ``backward`` take one
    wherever they take a tensor, as an input or an output, even once the tensor is gone or
    was changed in place."""

    node: Any
    output_nr: int


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The edge through which ``tensor``'s gradient flows (its grad_fn, or its AccumulateGrad
    for a leaf).

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> y = x * 2
        >>> edge = glassgrad.autograd.graph.get_gradient_edge(y)
        >>> glassgrad.autograd.grad(y.sum(), edge)
        (tensor([1., 1.]),)
    """
    if not tensor.requires_grad:
        raise RuntimeError(
            "It is not possible to get the gradient edge for a Tensor that does not require "
            "gradients"
        )
    fn = tensor.grad_fn
    if fn is None:
        return GradientEdge(accumulator_of(tensor), 0)
    return GradientEdge(fn, tensor.output_nr)
