"""Views and the history of tensors changed in place, as PyTorch models them.

A view (the result of ``view``, ``x[i]``, ``transpose`` ...) shares its base's storage and
its base's version counter, a one-element list bumped by every in-place op on any tensor
of that storage. The view remembers its root base (``_base``, never a view itself), the view
ops that lead from the base to it (``_view_steps``, replayable on arrays and on Tensors)
and the version at which its ``grad_fn`` was set (``_attr_version``).

An in-place op on a tensor rebases its history:

- on a tensor that is not a view, its ``grad_fn`` becomes the op's node;
- on a view, its base's ``grad_fn`` becomes a ``CopySlices`` node (the base's gradient
  passes outside the view and goes through the op's backward inside it), and the view's
  ``grad_fn`` is derived again from the base.

Any other view of that base notices on its next use that the counter moved past its
``_attr_version``, and derives its ``grad_fn`` from the base's current history: one
``AsStridedBackward0`` node (``refresh_view``). ``retain_grad`` follows the tensor to its
new ``grad_fn``; hooks registered before stay with the node they were registered on.

Views made in no-grad or inference mode, or as one of several outputs (``unbind``,
``split``), may not be changed in place while grad mode records; ``check_inplace`` and
``refresh_view`` raise PyTorch's errors for them.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from . import graph
from .grad_mode import INFERENCE_VERSION
from .grad_mode import state as grad_state
from .graph import Node, accumulator_of, saved_tensors_freed_error
from .inplace_record import note_write
from .mutation import before_write, write_hooks
from .storage import as_strided_backward, check_geometry, geometry_of, storage_size, strided

__all__ = [
    "OVERLAP_WRITE_ERROR",
    "AsStridedBackward0",
    "CopySlices",
    "CreationMeta",
    "apply_inplace_view",
    "internal_overlap",
    "own_temporary_view",
    "check_inplace",
    "edge_of",
    "rebase_history",
    "refresh_view",
    "replay_view_array",
    "replay_view_tensor",
    "sync_requires_grad",
    "view_steps",
    "wrap_view",
]


class CreationMeta:
    """How a view was made: the in-place ops it allows (PyTorch's ``CreationMeta``)."""

    DEFAULT = 0
    NO_GRAD_MODE = 1
    INFERENCE_MODE = 2
    MULTI_OUTPUT_NODE = 3
    IN_CUSTOM_FUNCTION = 4


def _creation_meta(multi_output: bool) -> int:
    if grad_state.inference:
        return CreationMeta.INFERENCE_MODE
    if not grad_state.enabled:
        return CreationMeta.NO_GRAD_MODE
    return CreationMeta.MULTI_OUTPUT_NODE if multi_output else CreationMeta.DEFAULT


def _propagate(previous: int, new: int) -> int:
    """The creation meta of a view of a view: the stricter of the two, inference first."""
    if new == CreationMeta.DEFAULT or previous == CreationMeta.INFERENCE_MODE:
        return previous
    return new


def edge_of(t: Any) -> tuple[Any, ...]:
    """The ``(Node, input_nr)`` through which gradient reaches tensor ``t``."""
    if t._version_counter is not None and t._base is not None:
        refresh_view(t)
    fn = t._node
    if fn is not None:
        return (fn, t._output_nr)
    return (accumulator_of(t), 0)


# --- making views --------------------------------------------------------------------------
def wrap_view(
    cls: type, out: Any, inputs: tuple[Any, ...], params: dict[Any, Any], node: Node | None
) -> Any:
    """The Tensor(s) of view op ``cls``'s result ``out``, recorded at ``node`` (or not)."""
    if type(out) is not tuple:  # every view op but split/unbind/chunk
        return _view_result(cls, out, inputs, params, node, None)
    return tuple(_view_result(cls, o, inputs, params, node, i) for i, o in enumerate(out))


def _view_result(
    cls: type, o: Any, inputs: tuple, params: dict, node: Node | None, index: int | None
) -> Any:
    """The tensor of one output ``o`` (output ``index`` of several, or None) of a view op."""
    Tensor = graph.Tensor
    t = Tensor._from_array(o) if node is None else Tensor._result(o, node, index or 0)
    src = inputs[0]
    data = src._data
    base = o.base if type(o) is np.ndarray else None
    # NumPy points every view at the array owning the memory: the cheap test first. An empty
    # result shares no memory but is a view all the same (as in PyTorch).
    if (
        (base is not None and (base is data or base is data.base))
        or np.may_share_memory(o, data)
        or (o.size == 0 and type(o) is np.ndarray)
    ):
        counter = t._version_counter = src._vc  # created on first use, then shared
        if counter is INFERENCE_VERSION:
            return t  # a view of an inference tensor is one, not tracked as a view (PyTorch)
        root = src._base
        if root is None:
            t._base = src
            t._view_steps = ((cls, inputs[1:], params, index),)
            if src._geometry_changes:
                t._base_geometry = len(src._geometry_changes)
            meta = _creation_meta(index is not None)
        else:
            t._base = root
            t._view_steps = view_steps(src) + ((cls, inputs[1:], params, index),)
            if src._base_geometry:
                t._base_geometry = src._base_geometry
            meta = _propagate(src._creation_meta, _creation_meta(index is not None))
        t._attr_version = counter[0]
        if meta:
            t._creation_meta = meta
        if node is None:
            sync_requires_grad(t)
    return t


def sync_requires_grad(t: Any) -> None:
    """A view ``t`` without history requires grad exactly while its root base does (PyTorch's
    ``requires_grad_ || grad_fn_ || base_.requires_grad()``), with no AccumulateGrad of its
    own: gradient reaching it goes nowhere. Kept in ``_requires_grad`` (marked
    ``_requires_grad_from_base``) for the fast paths, and synced here whenever the view is
    used, as its base may have started or stopped requiring grad since (``requires_grad_``,
    ``detach_``)."""
    if t._node is not None:
        return
    wanted = t._base._requires_grad
    if wanted == t._requires_grad:
        return
    if wanted:
        t._requires_grad = t._requires_grad_from_base = True
    elif t._requires_grad_from_base:  # a flag of its own (requires_grad_ on it) stays
        t._requires_grad = t._requires_grad_from_base = False


def view_steps(t: Any) -> tuple[Any, ...]:
    """View ``t``'s ops from its base as the base is laid out now: if the base changed its
    own geometry in place since (``b.t_()``), the steps back to the geometry ``t`` was made
    from come first (and ``t`` keeps the result)."""
    changes = t._base._geometry_changes
    if len(changes) != t._base_geometry:
        t._view_steps = tuple(reversed(changes[t._base_geometry :])) + t._view_steps
        t._base_geometry = len(changes)
    return t._view_steps


def replay_view_array(steps: tuple[Any, ...], base: np.ndarray) -> np.ndarray:
    """Apply a view chain to an array (the same views the tensor was made with)."""
    Tensor = graph.Tensor
    a = base
    for cls, extra, params, index in steps:
        node = cls.__new__(cls)
        a = node.forward(a, *[x._data if isinstance(x, Tensor) else x for x in extra], **params)
        if index is not None:
            a = a[index]
    return a


def replay_view_tensor(steps: tuple[Any, ...], base: Any) -> Any:
    """Apply a view chain to a Tensor, recording the view ops."""
    t = base
    for cls, extra, params, index in steps:
        t = cls.apply(t, *extra, **params)
        if index is not None:
            t = t[index]
    return t


def own_temporary_view(t: Any) -> Any:
    """``t``, a view of a temporary a composite op made and dropped, as a tensor of its own.

    PyTorch's composites reshape their temporaries with in-place view ops (``transpose_``,
    ``squeeze_``), so their results are not views; glassgrad's views of a temporary would be,
    and ``detach_()``, in-place rules and ``._base`` would differ. The temporary is never seen
    again, so nothing else shares ``t``'s memory; its history is kept, and so is the version
    counter it shares with the temporary (a node may have saved the temporary: writing into
    ``t`` must still be caught). Only for composites: never for a view of an argument.
    """
    if t._base is None:
        return t
    t._base = None
    t._view_steps = None
    t._attr_version = None
    t._creation_meta = 0
    t._base_geometry = 0
    if t._requires_grad_from_base:
        t._requires_grad = t._requires_grad_from_base = False
    return t


# --- keeping a view's history current ------------------------------------------------------
def refresh_view(t: Any, strict: bool = False) -> None:
    """Derive view ``t``'s ``grad_fn`` from its base again if the shared version counter
    moved since it was set: the base (or another view of it) was changed in place.

    As PyTorch's ``VariableHooks::grad_fn``: the new node is one ``AsStridedBackward0``
    from the base's current history; a view made in no-grad mode, inference mode or as one
    of several outputs raises instead, when grad mode is on or ``strict`` (the ``grad_fn``
    attribute): in no-grad and inference mode PyTorch's ops do not ask for it. A view
    without history of a base that requires no gradient stays as it is.
    """
    if t._node is None:
        sync_requires_grad(t)
    version = t._version_counter[0]
    if version == t._attr_version:
        return
    base = t._base
    old = t._node
    if old is None and not base._requires_grad:
        return
    if t._creation_meta:
        if not (strict or grad_state.enabled):
            return  # asked again (and refused) once grad mode is back
        raise view_rebase_error(t, indirect=True)
    fn = _replayed_grad_fn(base, t) or AsStridedBackward0(base, t)
    _move_retained_grad(t, old, fn)
    t._node = fn
    if t._output_nr:
        t._output_nr = 0
    t._requires_grad = True
    t._attr_version = version


def _replayed_grad_fn(base: Any, t: Any) -> Node | None:
    """For a view one of whose ops is no strided view of the same elements
    (``view_as_real``: ``replays_in_graph``), the node made by replaying its view ops on the
    base's current history, as PyTorch replays a view's ``view_fn``; None for the others."""
    steps = view_steps(t)
    if not any(getattr(cls, "replays_in_graph", False) for cls, *_ in steps):
        return None
    enabled = grad_state.enabled
    grad_state.enabled = True
    try:
        return replay_view_tensor(steps, base)._node
    finally:
        grad_state.enabled = enabled


def _move_retained_grad(t: Any, old: Node | None, new: Node) -> None:
    """``retain_grad`` follows ``t`` from its previous ``grad_fn`` to ``new``."""
    if not t._retains_grad or old is None or not old._retain_grad:
        return
    ref = old._retain_grad.pop(t._output_nr, None)
    if ref is None:
        return
    if new._retain_grad is None:
        new._retain_grad = {}
    new._retain_grad[0] = ref
    new._hooked = True


def view_rebase_error(t: Any, indirect: bool) -> RuntimeError:
    """PyTorch's error for changing in place a view its creation forbids to change."""
    meta = t._creation_meta
    fn = t._node
    modified = "its base or another view of its base has been" if indirect else "is being"
    # PyTorch names the forward op: "Output 0 of Unbind", not UnbindBackward0.
    op = re.sub(r"Backward\d*$", "", fn.name()) if fn is not None else ""
    if meta in (CreationMeta.INFERENCE_MODE, CreationMeta.NO_GRAD_MODE) or fn is None:
        prefix = (
            f"Output {t._output_nr} of {op} is a view of a view which was created in"
            if fn is not None
            else "A view was created in"
        )
        if meta == CreationMeta.INFERENCE_MODE:
            message = f"{prefix} inference mode and {modified} modified inplace in normal mode."
        else:
            message = (
                f"{prefix} no_grad mode and {modified} modified inplace with grad mode enabled."
            )
    else:
        message = f"Output {t._output_nr} of {op} is a view and {modified} modified inplace."
    if meta == CreationMeta.MULTI_OUTPUT_NODE:
        message += (
            " This view is the output of a function that returns multiple views. Such functions "
            "do not allow the output views to be modified inplace. You should replace the "
            "inplace operation by an out-of-place one."
        )
    elif meta in (CreationMeta.NO_GRAD_MODE, CreationMeta.INFERENCE_MODE):
        block = "no_grad" if meta == CreationMeta.NO_GRAD_MODE else "inference_mode"
        message += (
            " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
            "clarify your code by moving both the view and the inplace either both inside the "
            f"{block} block (if you don't want the inplace to be tracked) or both outside (if "
            "you want the inplace to be tracked)."
        )
    elif meta == CreationMeta.IN_CUSTOM_FUNCTION:
        message += (
            " This view was created inside a custom Function (or because an input was returned "
            "as-is) and the autograd logic to handle view+inplace would override the custom "
            "backward associated with the custom Function, leading to incorrect gradients. This "
            "behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function."
        )
    return RuntimeError(message)


def check_inplace(target: Any) -> None:
    """Raise PyTorch's error if ``target`` may not be changed in place by a recorded op.

    As PyTorch's ``check_inplace``, it reads the flags as they are set, not as a stale view
    would derive them again (``grad_fn`` is read raw, as C++'s ``is_leaf``): a view whose
    history was never derived since its base gained one counts as a leaf that requires grad,
    and a view keeps the history it had when its base was detached in place.
    """
    base = target._base
    requires_grad = target._requires_grad or target._node is not None
    if base is not None:
        if target._creation_meta:
            raise view_rebase_error(target, indirect=False)
        requires_grad = requires_grad or base._requires_grad
        if requires_grad and base._node is None:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place "
                "operation."
            )
    if requires_grad and target._node is None:
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )


def rebase_history(target: Any, fn: Node) -> None:
    """Make ``fn`` (an in-place op recorded with ``target``'s old history as its first input)
    the new history of ``target``: directly, or through ``CopySlices`` on a view's base."""
    base = target._base
    if base is None:
        old = target._node
        _move_retained_grad(target, old, fn)
        target._node = fn
        if target._output_nr:
            target._output_nr = 0
        target._requires_grad = True
        return
    copy = CopySlices(base, target, fn)
    _move_retained_grad(base, base._node, copy)
    base._node = copy
    if base._output_nr:
        base._output_nr = 0
    base._requires_grad = True
    refresh_view(target)  # the version moved: the view's grad_fn now comes from CopySlices


# --- the nodes ----------------------------------------------------------------------------
def in_layout(values: np.ndarray, strides: tuple[int, ...]) -> np.ndarray:
    """A copy of ``values`` whose memory order of axes is that of an array with ``strides``
    (PyTorch's ``new_empty_strided(base sizes, base strides)`` and ``copy_``): a view step that
    reads the storage (``as_strided``) then finds in it the elements it finds in the base."""
    order = sorted(range(values.ndim), key=lambda k: -abs(strides[k]))
    out = np.empty([values.shape[k] for k in order], values.dtype).transpose(np.argsort(order))
    out[...] = values
    return out


def _row_major(strides: tuple) -> bool:
    return all(a >= b for a, b in zip(strides, strides[1:]))


class AsStridedBackward0(Node):
    """A view's history derived again from its base after an in-place change: the view's
    gradient is scattered (summed where elements repeat) into the base's shape."""

    __slots__ = ("_view_steps", "_base_strides", "_geometries")

    def __init__(self, base: Any, view: Any) -> None:
        Node.__init__(self)
        edge = edge_of(base) if base._requires_grad else (None, 0)
        self._next_nodes = (edge[0],)
        self._next_nrs = (edge[1],)
        b, v = base._data, view._data
        self._meta = (b.shape, b.dtype, v.shape, v.dtype)
        self._n_out = 1
        self._view_steps = view_steps(view)
        self._base_strides = b.strides
        # PyTorch's as_strided_backward(grad, base geometry, view geometry): the two
        # geometries in the storage, whatever the base did to its own since (as_strided_).
        view_geometry = geometry_of(v, b)
        self._geometries = None if view_geometry is None else (geometry_of(b, b), view_geometry)
        if graph.anomaly.enabled:
            self._record_creation()

    def _run(self, grads: list, create_graph: bool) -> tuple:
        if grads[0] is None:
            return (None,)
        if self._geometries is not None:
            return (as_strided_backward(grads[0], *self._geometries),)
        shape, dtype = self._meta[0], self._meta[1]
        size = int(np.prod(shape))
        # Which element of the base each element of the view is (the indices laid out in
        # memory as the base, for the steps that read its storage).
        indices = np.arange(size).reshape(shape)
        if not _row_major(self._base_strides):
            indices = in_layout(indices, self._base_strides)
        where = replay_view_array(self._view_steps, indices)
        F = graph.tensor_namespace if create_graph else graph.array_namespace
        grad = grads[0]
        if grad is None:
            return (None,)
        if size == 0:
            return (F.zeros(shape, dtype),)  # PyTorch's as_strided_backward: fresh zeros
        flat = F.index_zeros_add((size,), (where,), grad, False)
        result = F.reshape(flat, shape)
        if result.dtype != dtype:
            result = F.cast(result, dtype)
        return (result,)

    def _saved_info(self) -> dict:
        return {"size": self._meta[2], "self_geometry": self._meta[0]}


OVERLAP_WRITE_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def internal_overlap(data: np.ndarray) -> bool:
    """Several elements of ``data`` share one memory location (a zero stride: an expand)."""
    strides = data.strides
    return (
        0 in strides
        and data.size > 1
        and any(st == 0 and n > 1 for n, st in zip(data.shape, strides))
    )


class CopySlices(Node):
    """Gradient of an in-place op on a view, seen from the view's base.

    The base's gradient passes through unchanged outside the view; inside it, it goes through
    the in-place op's backward (to the view's old values and to the op's other inputs).
    """

    fn: Node | None  # None once released (PyTorch drops it)

    cpp_node = True
    __slots__ = ("fn", "_view_steps", "_base_strides", "_geometries")

    def __init__(self, base: Any, view: Any, fn: Node) -> None:
        Node.__init__(self)
        base_edge = edge_of(base) if base._requires_grad else (None, 0)
        self._next_nodes = (base_edge[0], *fn._next_nodes[1:])
        self._next_nrs = (base_edge[1], *fn._next_nrs[1:])
        d = base._data
        fn_inputs = fn._meta[: len(fn._meta) - 2 * fn._n_out]
        self._meta = (d.shape, d.dtype, *fn_inputs[2:], d.shape, d.dtype)
        self._n_out = 1
        self._view_steps = steps = view_steps(view)
        self._base_strides = d.strides
        # The base's and the view's geometry in the storage, as PyTorch's CopySlices finds
        # the view in the base's gradient; a view no strided geometry describes
        # (view_as_real: replays_in_graph) is found by replaying its ops (PyTorch's view_fn).
        view_geometry = None
        if not any(getattr(cls, "replays_in_graph", False) for cls, *_ in steps):
            view_geometry = geometry_of(view._data, d)
        self._geometries = None if view_geometry is None else (geometry_of(d, d), view_geometry)
        self.fn = fn
        if graph.anomaly.enabled:
            self._record_creation()

    def _run(self, grads: list, create_graph: bool) -> tuple:
        if self.fn is None:
            raise saved_tensors_freed_error()
        grad = grads[0]
        if self._geometries is not None:
            return self._run_strided(grad, create_graph)
        # The gradient copied in the base's layout (PyTorch's new_empty_strided + copy_), so
        # that the view's steps find the view's elements in it, whatever the layout of the
        # gradient that arrives (a transposed one would make a ``view`` step fail).
        strides = self._base_strides
        if create_graph:
            result = grad.clone()
            if not (_row_major(strides) and result._data.flags.c_contiguous):
                # A fresh tensor, no view of it yet: its memory may be replaced.
                result._data = in_layout(result._data, strides)
            res = self._through_fn(replay_view_tensor(self._view_steps, result), True)
        else:
            result = in_layout(np.asarray(grad), strides)
            res = self._through_fn(replay_view_array(self._view_steps, result), False)
        # No gradient for the view's old values (a custom Function's None): PyTorch then
        # gives the base no gradient at all, not one with a zero slice.
        return (None if res[0] is None else result, *res[1:])

    def _run_strided(self, grad: Any, create_graph: bool) -> tuple:
        """PyTorch's CopySlices: ``result = grad.new_empty_strided(base geometry)``,
        ``result.copy_(grad)``, ``grad_slice = result.as_strided(view geometry)``, the
        in-place op's backward on ``grad_slice.clone()``, written back into ``grad_slice``."""
        (shape, stride, _), (size, view_stride, offset) = self._geometries
        tensor_path = create_graph and isinstance(grad, graph.Tensor)
        values = grad._data if tensor_path else np.asarray(grad)
        # The fresh storage is zeros where PyTorch's is uninitialised: elements of the view
        # outside the base then carry no gradient instead of whatever was in memory.
        storage = np.zeros(storage_size(shape, stride), values.dtype)
        check_geometry(size, view_stride, offset, storage.size, values.itemsize)
        layout = strided(storage, shape, stride, 0)
        if internal_overlap(layout):
            raise RuntimeError(OVERLAP_WRITE_ERROR)  # PyTorch's copy_ into the base's layout
        if tensor_path:
            result = graph.Tensor._from_array(layout)
            result.copy_(grad)
            res = self._through_fn(result.as_strided(size, view_stride, offset), True)
        else:
            result = layout
            result[...] = values
            res = self._through_fn(strided(storage, size, view_stride, offset), False)
        return (None if res[0] is None else result, *res[1:])

    def _through_fn(self, grad_slice: Any, create_graph: bool) -> tuple:
        """The in-place op's backward run on a copy of ``grad_slice`` (the view's part of the
        base's gradient), its first result written back into ``grad_slice``: with ``copy_``,
        which, as PyTorch's, refuses a slice several of whose elements share memory. Only
        when the base takes a gradient (PyTorch's ``task_should_compute_output(0)``): a write
        into an expanded view of a base that does not require grad differentiates fine."""
        wanted = self._next_nodes[0] is not None
        if create_graph:
            res = self.fn._run([grad_slice.clone()], True)
            if res[0] is not None and wanted:
                grad_slice.copy_(res[0])
            return res if wanted else (None, *res[1:])
        res = self.fn._run([grad_slice.copy()], False)
        if not wanted:
            return (None, *res[1:])
        if res[0] is not None:
            if internal_overlap(grad_slice):
                raise RuntimeError(OVERLAP_WRITE_ERROR)
            grad_slice[...] = res[0]
        return res

    def _release(self) -> None:
        # PyTorch's CopySlices::release_variables drops its reference to the in-place op's
        # node and leaves that node's saved values alone: a second derivative may still run
        # the node directly (its saved output's history, once the view is gone).
        self.fn = None

    def _saved_info(self) -> dict:
        return {"fn": None if self.fn is None else self.fn.name()}


# --- in-place view ops (t_, squeeze_, unsqueeze_, transpose_) -----------------------------
def apply_inplace_view(cls: type, target: Any, **params: Any) -> Any:
    """Change ``target``'s own geometry with view op ``cls`` (``x.t_()``), as PyTorch does;
    ``cls.inverse_step(shape)`` gives the view step back from the new geometry to ``shape``.

    The tensor keeps its storage and its version counter (bumped once); recorded, its history
    is extended by ``cls``'s node (``TBackward1`` ...), not rebased through ``CopySlices``: its
    values do not change, only how they are laid out. A view stays a view of its base, one
    step longer. Leaves that require grad and views whose creation forbids in-place changes
    raise PyTorch's errors; a retained gradient stays with the old history, as in PyTorch.
    """
    Tensor = graph.Tensor
    recording = grad_state.enabled and target.requires_grad  # the flags as set (check_inplace)
    node = cls.__new__(cls)
    data = target._data
    new = node.forward(data, **params)  # argument errors first, as PyTorch's
    step = (cls, (), params, None)
    if write_hooks:
        before_write(target)
    if recording:
        check_inplace(target)
        if target._base is not None:
            refresh_view(target)  # then its history, as PyTorch's collect_next_edges
        before = Tensor._from_array(data)
        before._node, before._output_nr = target._node, target._output_nr
        before._requires_grad = True  # check_inplace let through only tensors with history
        node._record((before,), [data], new)
        target._node = node
        target._output_nr = 0
        target._requires_grad = True
    target._data = new
    counter = target._vc
    counter[0] += 1
    note_write(counter, f"{cls.__name__} (in place)")
    if target._base is not None:
        target._view_steps = view_steps(target) + (step,)
        if recording:
            target._attr_version = counter[0]
        # Not recorded (no-grad mode), its history is stale: the next read derives it from
        # the base with the new geometry (AsStridedBackward0), as PyTorch's.
    else:  # its views were made from the old geometry: the way back to it, for them
        if not recording and new.shape != data.shape:
            # The node that made the tensor (or its leaf's accumulator) keeps the shape it
            # recorded: a gradient of the new shape reaching it is checked against that
            # (PyTorch's validate_outputs: "returned an invalid gradient").
            graph.data_replaced(target, data)
        changes = target._geometry_changes
        if type(changes) is list:  # append-only (views index into it): no copy per call
            changes.append(node.inverse_step(data.shape))
        else:
            target._geometry_changes = [node.inverse_step(data.shape)]
    return target
