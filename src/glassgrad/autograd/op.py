"""The shape every differentiable op takes: a Node subclass with a forward on arrays and one
backward formula that runs on NumPy arrays, or on Tensors when a graph of the backward is built.

An op declares what its backward needs, Chainer-style::

    class MulBackward0(Op):
        saved_inputs = (0, 1)             # keep both inputs for backward,
        saved_for = ((1,), (0,))          # each while the other's gradient is needed

        def forward(self, a, b):          # NumPy arrays in, array out
            return a * b

        def backward(self, F, grad):      # F: array or Tensor namespace, same formula
            a, b = self.saved
            return grad * b, grad * a     # broadcasting is undone by the machinery

``apply`` does the rest: decides whether to record, builds the edges, keeps the saved tensors
with their versions, undoes broadcasting and casts each gradient to its input's dtype.
This module knows no specific op.
"""

from __future__ import annotations

import numbers
import re
import warnings
import weakref
from typing import Any

import numpy as np

from .._dtype import check_result_cast, result_numpy_dtype, scalar_type_name, type_string
from .._strides import like_operands
from . import graph
from .grad_mode import INFERENCE_VERSION
from .grad_mode import state as grad_state
from .graph import (
    ACCUMULATE_PRIORITY,
    ANY_GRAD_DTYPE,
    AccumulateGrad,
    Node,
    SavedTensor,
    _Packed,
    accumulator_of,
    pack_saved,
    saved_tensors_freed_error,
)
from .inplace_record import describe_last_write, note_write
from .kernel_order import reads_written_memory, shares_memory_within, write_in_kernel_order
from .mutation import before_write, write_hooks
from .views import (
    OVERLAP_WRITE_ERROR,
    check_inplace,
    internal_overlap,
    rebase_history,
    refresh_view,
    wrap_view,
)

__all__ = ["Op", "apply_inplace", "fit_gradients", "keep_versions", "special_inputs"]

_seq = graph.sequence_counter
_saved_hooks = graph.saved_hooks_stack  # non-empty inside saved_tensors_hooks
# Edge tuples of common lengths, shared (ops with 64 or more inputs build their own).
_ZEROS = tuple((0,) * n for n in range(64))
_FIRST = tuple(tuple(range(n)) for n in range(64))  # saved_inputs naming every input
anomaly: graph._AnomalyState = graph.anomaly
_SAVED_NAMES = {0: "self", 1: "other"}
_new = object.__new__
_NUMBERS = frozenset((bool, int, float, complex))  # saved as they are, never packed or versioned
_OPERAND_TYPES = _NUMBERS | {np.ndarray}  # and graph.Tensor: an in-place op's operands

# Nodes share equal metadata tuples: a graph of a million ops then holds a handful of them,
# not a million (memory, and objects for Python's cyclic GC to walk).
_meta_cache: dict = {}
_META_CACHE_LIMIT = 4096


class _UniformMeta(tuple):
    """Metadata whose tensor inputs all have the (last) output's shape and dtype; ``Op._run``
    reads it for one-output nodes only. An input that is not a tensor (a Python number, its
    metadata ``None, None``) has no edge: its gradient is never fitted nor used."""

    __slots__ = ()


def _shared_meta(meta: tuple) -> tuple:
    shared = _meta_cache.get(meta)
    if shared is None:
        if len(_meta_cache) >= _META_CACHE_LIMIT:
            _meta_cache.clear()
        shape, dtype = meta[-2], meta[-1]
        uniform = all(
            (meta[i] == shape and meta[i + 1] == dtype) or (meta[i] is None and meta[i + 1] is None)
            for i in range(0, len(meta), 2)
        )
        shared = _meta_cache[meta] = _UniformMeta(meta) if uniform else meta
    return shared


def _one_output_meta(meta: tuple) -> tuple:
    """``_shared_meta`` for a recorded op with one output, which must be differentiable.

    Called only when the cache misses; metadata naming an integer or bool output is never
    cached, so the check costs the hot path nothing.
    """
    _check_differentiable_dtype(meta[-1])
    return _shared_meta(meta)


def _check_differentiable_dtype(dtype: np.dtype) -> None:
    """PyTorch's ``set_history`` check: a recorded op's output must be floating or complex
    (an integer tensor requires grad only after an in-place write of a value that does)."""
    if dtype.kind not in "fc":
        raise RuntimeError(f"Autograd not support dtype: {scalar_type_name(dtype)}")


class _SpecialInputs:
    """Live count of the tensors an op must look for among its inputs: legacy
    ``volatile=True`` tensors and inference tensors that require grad. Zero (the usual case)
    keeps the check off the hot path."""

    alive: int = 0

    def release(self) -> None:
        """One of them died (a ``weakref.finalize`` callback)."""
        self.alive -= 1


special_inputs: _SpecialInputs = _SpecialInputs()

SAVED_INFERENCE_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of "
    "`torch.inference_mode()`."
)


def _modified_error(
    t: Any, expected: int, output_of: Node | None, output_nr: int = 0
) -> RuntimeError:
    """PyTorch's SavedVariable error. ``output_nr``: which output of ``output_of`` a saved
    output was (an input saved as it was names output 0, as PyTorch's, which records the
    number only for outputs)."""
    shape = list(t._data.shape) if t is not None else []
    type_name = type_string(t._data.dtype) if t is not None else "tensor"
    # PyTorch 2.13 names the node without its "Backward<N>" suffix ("Exp", "MyFn").
    node_name = re.sub(r"Backward\d*$", "", output_of.name()) if output_of is not None else ""
    where = f", which is output {output_nr} of {node_name}," if output_of is not None else ""
    culprit = describe_last_write(t._version_counter) if t is not None else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{type_name} {shape}]{where} is at version {t._version}; expected version "
        f"{expected} instead.{_modified_hint()}{culprit}"
    )


def _modified_hint() -> str:
    """PyTorch's hint after the error, which depends on anomaly mode."""
    if graph.anomaly.enabled:
        return (
            " Hint: the backtrace further above shows the operation that failed to compute its "
            "gradient. The variable in question was changed in there or anywhere later. Good luck!"
        )
    return (
        " Hint: enable anomaly detection to find the operation that failed to compute its "
        "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
    )


_ONE_TUPLE_VARIANTS: dict = {}


def _one_tuple_variant(cls: type) -> type:
    """``cls`` for a node whose forward returned a tuple of one (unbind over a dimension of
    size 1, a split into one piece): the engine hands a node with one output its gradient
    bare, so this variant's backward wraps it back into the tuple ``cls.backward`` expects."""
    variant = _ONE_TUPLE_VARIANTS.get(cls)
    if variant is None:

        def backward(self: Op, F: Any, grad: Any) -> Any:
            return cls.backward(self, F, (grad,))

        namespace = {"__slots__": (), "backward": backward, "__qualname__": cls.__qualname__}
        variant = _ONE_TUPLE_VARIANTS[cls] = type(cls.__name__, (cls,), namespace)
        variant.__module__ = cls.__module__
    return variant


class Op(Node):
    """Base class of every differentiable op (see the module docstring)."""

    # What backward needs: the saved tensors (None once released) and their versions.
    __slots__ = ("_saved", "_saved_versions", "_saved_out", "saved")
    # The saved arrays (or tensors, under create_graph) while backward runs, else None.
    saved: Any
    saved_inputs: tuple[int, ...] = ()
    # For each entry of saved_inputs, the inputs whose gradients read it (empty: every entry is
    # always kept). An entry no input needing a gradient reads is not saved, as in PyTorch:
    # for x * w with only w requiring grad, w may then change in place before the backward.
    saved_for: tuple[tuple[int, ...], ...] = ()
    saves_output: bool = False
    saved_outputs: tuple[int, ...] = ()  # for ops with several outputs: the indices of those saved
    is_view: bool = False
    # Output indices with no gradient (e.g. the indices of max(dim)).
    nondiff_outputs: tuple[int, ...] = ()
    # The gradient is, in PyTorch, an op of its own taking the saved tensors as inputs
    # (threshold_backward, max_pool2d_with_indices_backward ...): under create_graph it then
    # depends on them even where its value does not (see _depend_on_saved).
    grad_reads_saved: bool = False
    # Several outputs: backward gets None (PyTorch's undefined gradient) for an output that
    # received none, instead of zeros, and skips that output's term as PyTorch's formula
    # does; otherwise a gradient through the other outputs alone would depend on what the
    # skipped term reads (its flags under create_graph, or a zero where PyTorch has none).
    takes_undefined_grads: bool = False
    # Tensor arguments the backward reads as arrays without saving them as inputs (indices,
    # weights that take no gradient), with the version each had: see keep_versions.
    _constants: tuple = ()
    # Whether differentiating through the saved tensors that node takes gives zeros
    # (threshold_backward) or nothing (convolution_backward).
    double_backward_zeros: bool = True
    # copy_: a source that is the written tensor itself, once broadcast, is not an overlap.
    copies_source: bool = False
    # PyTorch's NotImplemented node: an edge per input that requires grad, none for the
    # others (``drop_edges_without_grad``, after recording out of place and in place, where
    # a target without history then has no edge of its own).
    edges_of_grad_inputs_only: bool = False
    # In place, the result has the operands' common dtype, so that PyTorch refuses one the
    # target cannot hold before the kernel refuses the dtype (False: comparisons, whose
    # result is bool whatever they compare).
    promotes_result: bool = True
    # PyTorch's assert_no_overlap (index_put_, index_add_, scatter_): a source in the written
    # memory is refused even when it is the target itself, not only when it overlaps in part.
    refuses_full_overlap: bool = False
    # False where PyTorch reads the source before writing and so accepts one in the written
    # memory (fill_ with a 0-d tensor: its kernel clones a value that aliases self).
    checks_source_overlap: bool = True
    # zero_ and fill_ with a number write one value: PyTorch lets them write into memory
    # that several elements share (an expand).
    allows_internal_overlap: bool = False
    # The dtype kinds for which the op is the identity and PyTorch's kernel returns before
    # writing (conj_physical_ of a real tensor, nan_to_num_ of an integer one): no overlap
    # check, nothing written; the version and the history change as for any in-place op.
    identity_for_kinds: str = ""
    # Which of ``forward``'s errors PyTorch raises after the target's memory-overlap check
    # (its TensorIterator's build): "dispatch", the dtype dispatch's NotImplementedError
    # ('"kernel" not implemented for 'Long''); "none" where the op dispatches before building
    # one (normal_, uniform_); "not-implemented", every NotImplementedError (clamp_min_ with a
    # tensor bound refuses complex in its TensorIterator's type check); "all", every error
    # of the forward (index_put_ validates its indices after the overlap checks).
    errors_after_overlap: str = "dispatch"
    # ``check_after_overlap(data)``: a kernel check PyTorch makes after the overlap checks,
    # other than a dtype dispatch (exponential_'s "continuous distribution" dtype check).
    check_after_overlap: Any = None
    # Written into a tensor whose elements share memory (an expand), PyTorch only warns with
    # this message (index_put_, masked_fill_), and ``write_overlapping`` writes the elements.
    overlap_warning: str = ""
    # A TensorIterator elementwise kernel in PyTorch: written in place into a tensor whose
    # elements share memory (overlapping unfold windows), it computes element after element
    # (autograd/kernel_order.py).
    pointwise: bool = False
    # Such a kernel's vector width in bits, for its order of reads and writes: 256 for the
    # kernels PyTorch registers for AVX2 only (most), 512 for those it registers for AVX512
    # too (used where the CPU has it), 0 for kernels without a vectorized loop; and the
    # dtype kinds for which the kernel has none (bool arithmetic).
    vector_bits: int = 256
    unvectorized_kinds: str = "b"
    # ``write_overlapping(data, *arrays, **params)``, for ops that write into memory several
    # elements share: only the elements PyTorch's kernel writes (masked_fill_'s masked ones,
    # tril_'s zeros), so that which write lands where is PyTorch's.
    write_overlapping: Any = None
    # ``check_out(out, values, *args, **kwargs)``, for kernels (not pointwise) whose out= is
    # checked against the inputs and computed over shared memory as PyTorch's (the scans):
    # the values to write into ``out`` (ops/_out.py's ``with_out``).
    check_out: Any = None
    # False for ops without a derivative (logical, bitwise): in place, they change the values
    # and the version but leave the tensor's history as it is, as in PyTorch.
    differentiable: bool = True
    # In place, refuse leaves that require grad and forbidden views (False: logical ops,
    # which PyTorch keeps outside autograd altogether).
    checks_inplace: bool = True
    # Recorded even when every input is an inference tensor (outside inference mode): PyTorch
    # makes clone and dtype copies by copying into a new ordinary tensor, which records.
    records_inference_inputs: bool = False
    # The backward is pointwise arithmetic: when every input has the output's shape and dtype,
    # so has every gradient it returns, and fitting them (fit_gradients) can be skipped.
    elementwise_grads: bool = False
    # The op is complex-analytic and its backward formula is written as for real values
    # (J^T grad): with a complex result, PyTorch's convention (conjugate Wirtinger) wants
    # J^H grad, computed as conj(backward(conj(grad))) by _run_general.
    holomorphic: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # PyTorch's ``grad_fn._saved_<name>`` (the tensor) and ``_raw_saved_<name>`` (a
        # SavedTensor) as properties of the class: a __getattr__ would do, but it sends every
        # attribute read of every node through a slower lookup (+9% instructions on a chain).
        for name in _saved_names(cls):
            for prefix in ("_saved_", "_raw_saved_"):
                if not hasattr(cls, prefix + name):
                    setattr(cls, prefix + name, _saved_property(name, prefix == "_raw_saved_"))

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """For each input, whether a gradient is wanted (it has an edge in the graph)."""
        nodes = self._next_nodes
        if len(nodes) == 2:  # binary ops ask on every backward
            return (nodes[0] is not None, nodes[1] is not None)
        if len(nodes) == 3:  # addmm (every Linear layer) and the like
            return (nodes[0] is not None, nodes[1] is not None, nodes[2] is not None)
        return tuple([fn is not None for fn in nodes])

    @property
    def _released(self) -> bool:
        return self._saved is None

    def forward(self, *arrays: Any, **params: Any) -> Any:
        raise NotImplementedError

    def backward(self, F: Any, grad: Any) -> Any:
        raise NotImplementedError

    # --- recording ---------------------------------------------------------------------
    @classmethod
    def apply(cls, *inputs: Any, **params: Any) -> Any:
        """Run the op on ``inputs`` (Tensors or constants) and record it if needed."""
        if len(inputs) != 2 or cls.is_view:
            return cls._apply_general(inputs, params)
        # Two inputs, the shape of every binary op and the hottest path in small-tensor code:
        # recorded here with no lists, no loops, no further calls. Every line counts.
        Tensor = graph.Tensor
        a, b = inputs
        tensor_a = isinstance(a, Tensor)
        tensor_b = isinstance(b, Tensor)
        da = a._data if tensor_a else a
        db = b._data if tensor_b else b
        # A view whose base changed in place since its grad_fn was set derives it again first
        # (views.refresh_view); the test costs one slot read for any other tensor.
        if tensor_a and a._version_counter is not None and a._base is not None:
            refresh_view(a)
        if tensor_b and b._version_counter is not None and b._base is not None:
            refresh_view(b)
        ra = tensor_a and a._requires_grad
        rb = tensor_b and b._requires_grad
        node = _new(cls)
        out = node.forward(da, db, **params) if params else node.forward(da, db)
        if (
            cls.pointwise
            and type(out) is np.ndarray
            and out.ndim > 1
            and not (
                (type(da) is not np.ndarray or da.flags.c_contiguous)
                and (type(db) is not np.ndarray or db.flags.c_contiguous)
            )
        ):  # operands in conflicting layouts: TensorIterator's, not the ufunc's (row-major)
            out = like_operands(out, (da, db))
        if not (ra or rb) or not grad_state.enabled or type(out) is tuple or special_inputs.alive:
            # Not recorded, several outputs or special inputs alive: the general path.
            return cls._finish(node, inputs, [da, db], out, ra or rb, params)
        if type(out) is not np.ndarray:
            out = np.asarray(out)  # 0-d NumPy math gives scalars
        node._seq = next(_seq)
        fa = fb = None
        nr_a = nr_b = 0
        if ra:
            fa = a._node
            if fa is None:
                fa = accumulator_of(a)
            nr_a = a._output_nr
        if rb:
            fb = b._node
            if fb is None:
                fb = accumulator_of(b)
            nr_b = b._output_nr
        node._next_nodes = (fa, fb)
        node._next_nrs = (nr_a, nr_b) if nr_a or nr_b else _ZEROS[2]
        if tensor_a and tensor_b:
            meta = (da.shape, da.dtype, db.shape, db.dtype, out.shape, out.dtype)
        else:
            meta = (
                da.shape if tensor_a else None,
                da.dtype if tensor_a else None,
                db.shape if tensor_b else None,
                db.dtype if tensor_b else None,
                out.shape,
                out.dtype,
            )
        node._meta = _meta_cache.get(meta) or _one_output_meta(meta)
        node._n_out = 1
        saved_inputs = cls.saved_inputs
        if not saved_inputs:
            node._saved = node._saved_versions = ()
        else:
            saved = (
                inputs if saved_inputs == _FIRST[2] else tuple([inputs[k] for k in saved_inputs])
            )
            if (fa is None or fb is None) and cls.saved_for:
                # One operand has no edge (a Python number, a constant tensor, a no-grad view
                # whose gradient goes nowhere): keep only what the other's gradient reads
                # (which ones is cached per op and case), as PyTorch's should_compute_output.
                if len(saved) == 2:
                    ka, kb = fa is not None, fb is not None
                    keep = _KEEP_TWO.get((cls, ka, kb)) or _keep_two(cls, ka, kb)
                    saved = (saved[0] if keep[0] else None, saved[1] if keep[1] else None)
                else:
                    saved = _read_by_needed(cls.saved_for, saved, (fa, fb))
            node._saved = saved
            # Inputs never modified in place have no version counter yet: nothing to keep.
            va = a._version_counter if tensor_a else None
            vb = b._version_counter if tensor_b else None
            node._saved_versions = () if va is None and vb is None else _saved_versions(saved)
        node._saved_out = None
        if anomaly.enabled:
            node._record_creation()
        result = _new(Tensor)  # Tensor._result(out, node, 0), inlined
        result._data = out
        result._requires_grad = True
        result._grad = None
        result._node = node
        result._version_counter = None
        if cls.saves_output:
            node._saved_out = (out, result._vc, 0)
        if _saved_hooks:
            node._pack_saved()
        return result

    @classmethod
    def _apply_general(cls, inputs: tuple, params: dict) -> Any:
        # Any number of inputs: one pass over them (one input, the most common, unrolled).
        Tensor = graph.Tensor
        node = _new(cls)
        if len(inputs) == 1:
            x = inputs[0]
            if isinstance(x, Tensor):
                data = x._data
                if x._version_counter is not None and x._base is not None:
                    refresh_view(x)
                record = x._requires_grad
            else:
                data = x
                record = False
            out = node.forward(data, **params)
            if (
                not record
                or not grad_state.enabled
                or type(out) is not np.ndarray
                or special_inputs.alive
            ):
                return cls._finish(node, inputs, [data], out, record, params)
            # One input, one array out, recorded (unary ops, reductions, views): _finish and
            # _record inline, as apply does for two inputs. Metadata is cached only for
            # differentiable outputs, so a cache hit needs no dtype check.
            node._seq = next(_seq)
            fn = x._node
            if fn is None:
                fn = accumulator_of(x)
            node._next_nodes = (fn,)
            nr = x._output_nr
            node._next_nrs = (nr,) if nr else _ZEROS[1]
            meta = (data.shape, data.dtype, out.shape, out.dtype)
            node._meta = _meta_cache.get(meta) or _one_output_meta(meta)
            node._n_out = 1
            if cls.saved_inputs:
                node._saved = inputs
                node._saved_versions = () if x._version_counter is None else _saved_versions(inputs)
            else:
                node._saved = node._saved_versions = ()
            node._saved_out = None
            if anomaly.enabled:
                node._record_creation()
            if cls.is_view:
                return wrap_view(cls, out, inputs, params, node)
            result = _new(Tensor)  # Tensor._result(out, node, 0), inlined
            result._data = out
            result._requires_grad = True
            result._grad = None
            result._node = node
            result._version_counter = None
            if cls.saves_output:
                node._saved_out = (out, result._vc, 0)
            if _saved_hooks:
                node._pack_saved()
            return result
        arrays = []
        record = False
        for x in inputs:
            if isinstance(x, Tensor):
                arrays.append(x._data)
                if x._version_counter is not None and x._base is not None:
                    refresh_view(x)
                if x._requires_grad:
                    record = True
            else:
                arrays.append(x)
        out = node.forward(*arrays, **params)
        if cls.pointwise and type(out) is np.ndarray and out.ndim > 1:
            out = like_operands(out, arrays)  # TensorIterator's layout, as in apply
        return cls._finish(node, inputs, arrays, out, record, params)

    @classmethod
    def _finish(
        cls, node: Op, inputs: tuple, arrays: list, out: Any, record: bool, params: dict
    ) -> Any:
        """Wrap the forward's result ``out`` in Tensors, recording ``node`` if needed."""
        Tensor = graph.Tensor
        if special_inputs.alive:
            if _any_volatile(inputs):
                return _wrap_volatile(out)
            if record and not cls.records_inference_inputs and _all_inference(inputs):
                record = False
        if not record or not grad_state.enabled:
            if cls.is_view:
                return wrap_view(cls, out, inputs, params, None)
            if type(out) is tuple:
                return tuple(Tensor._from_array(o) for o in out)
            return Tensor._from_array(out)
        # PyTorch's set_history check, before any recording work (inline for one output).
        if type(out) is tuple:
            nondiff = cls.nondiff_outputs
            for i, o in enumerate(out):
                if i not in nondiff:
                    _check_differentiable_dtype(o.dtype)
        elif out.dtype.kind not in "fc":
            _check_differentiable_dtype(out.dtype)
        node._record(inputs, arrays, out)
        if cls.is_view:
            return wrap_view(cls, out, inputs, params, node)
        if type(out) is tuple:
            results = tuple(
                Tensor._from_array(o) if i in nondiff else Tensor._result(o, node, i)
                for i, o in enumerate(out)
            )
            if cls.saved_outputs:
                node._saved_out = [
                    (results[k]._data, results[k]._vc, 0, k) for k in cls.saved_outputs
                ]
                if nondiff:
                    node._keep_nondiff_outputs(results)
            if _saved_hooks:
                node._pack_saved()
            return results
        result = Tensor._result(out, node, 0)
        if cls.saves_output:
            node._saved_out = (result._data, result._vc, 0)
        if _saved_hooks:
            node._pack_saved()
        return result

    @classmethod
    def call(cls, *inputs: Any, **params: Any) -> Any:
        """Run this op from inside a backward formula: recorded when an input is a Tensor
        (``create_graph``), else just its forward on the arrays. This is how a formula uses
        a partner op and stays differentiable."""
        Tensor = graph.Tensor
        for x in inputs:
            if isinstance(x, Tensor):
                return cls.apply(*inputs, **params)
        return cls.__new__(cls).forward(*inputs, **params)

    def _record(self, inputs: tuple, arrays: list, out: Any) -> None:
        # Plain loops: this runs once per recorded op and generator expressions cost more.
        Tensor = graph.Tensor
        self._seq = next(_seq)
        if len(inputs) == 1 and type(out) is not tuple:
            # One input, one output (unary ops, reductions, views), unrolled. The input is a
            # Tensor that requires grad: nothing is recorded otherwise.
            x = inputs[0]
            fn = x._node
            if fn is None:
                fn = accumulator_of(x)
            self._next_nodes = (fn,)
            nr = x._output_nr
            self._next_nrs = (nr,) if nr else _ZEROS[1]
            d = arrays[0]
            meta = (d.shape, d.dtype, out.shape, out.dtype)
            self._meta = _meta_cache.get(meta) or _shared_meta(meta)
            self._n_out = 1
            if self.saved_inputs:
                self._saved = inputs
                self._saved_versions = () if x._version_counter is None else _saved_versions(inputs)
            else:
                self._saved = self._saved_versions = ()
            self._saved_out = None
            if anomaly.enabled:
                self._record_creation()
            return
        nodes = []
        nrs = None
        meta = []
        i = 0
        for x in inputs:
            if isinstance(x, Tensor):
                d = arrays[i]
                meta.append(d.shape)
                meta.append(d.dtype)
                if x._requires_grad:
                    fn = x._node
                    if fn is None:
                        fn = accumulator_of(x)
                    elif x._output_nr:
                        if nrs is None:
                            nrs = [0] * len(inputs)
                        nrs[i] = x._output_nr
                    nodes.append(fn)
                else:
                    nodes.append(None)
            else:
                meta.append(None)
                meta.append(None)
                nodes.append(None)
            i += 1
        self._next_nodes = tuple(nodes)
        self._next_nrs = (_ZEROS[i] if i < 64 else (0,) * i) if nrs is None else tuple(nrs)
        if type(out) is tuple:
            for o in out:
                meta.append(o.shape)
                meta.append(o.dtype)
            self._n_out = len(out)
            if len(out) == 1:
                self.__class__ = _one_tuple_variant(type(self))
        else:
            meta.append(out.shape)
            meta.append(out.dtype)
            self._n_out = 1
        self._meta = _shared_meta(tuple(meta))
        saved_inputs = self.saved_inputs
        if saved_inputs:
            saved = (
                inputs
                if saved_inputs == (_FIRST[i] if i < 64 else tuple(range(i)))
                else tuple([inputs[k] for k in saved_inputs])
            )
            if self.saved_for and None in nodes:
                saved = _read_by_needed(self.saved_for, saved, nodes)
            self._saved = saved
            self._saved_versions = _saved_versions(saved)
        else:
            self._saved = self._saved_versions = ()
        self._saved_out = None
        if anomaly.enabled:
            self._record_creation()

    # --- backward ----------------------------------------------------------------------
    def _unpack(self, as_tensors: bool) -> tuple:
        Tensor = graph.Tensor
        values = []
        versions = self._saved_versions
        k = 0
        for x in self._saved:
            if isinstance(x, Tensor):
                counter = x._version_counter
                if x._detached_at is not None and x._node is None and x._detached_at > self._seq:
                    raise RuntimeError(
                        "Trying to use a saved tensor that has been detached in-place, i.e. with "
                        ".detach_().This is not supported, please use out-of-place `.detach()` "
                        "instead"
                    )
                if counter is not None and counter[0] != (versions[k] if versions else 0):
                    raise _modified_error(x, versions[k] if versions else 0, x.grad_fn)
                values.append(x if as_tensors else x._data)
            elif type(x) is _Packed:  # saved under saved_tensors_hooks: its unpack hook
                t = x.unpack()
                values.append(t if as_tensors else t._data)
            else:
                values.append(x)
            k += 1
        if self._saved_out is not None:
            for data, counter, version, nr in self._saved_output_entries():
                if type(data) is _Packed:
                    t = data.unpack()
                    values.append(t if as_tensors else t._data)
                    continue
                if counter[0] != version:
                    holder = Tensor._from_array(data)
                    holder._vc = counter
                    raise _modified_error(holder, version, self, nr)
                values.append(self._saved_output_tensor(data, nr) if as_tensors else data)
        return tuple(values)

    def _keep_nondiff_outputs(self, results: tuple) -> None:
        """Keep the saved float outputs that are not differentiable (linalg.lu's P) as the
        tensors themselves: PyTorch saves such a leaf as it is (no reference cycle), so one
        made to require grad afterwards (``P.requires_grad_()``) is reached by a graph of the
        backward, as it is in PyTorch."""
        kept = {
            nr: results[nr]
            for nr in type(self).saved_outputs
            if nr in type(self).nondiff_outputs and results[nr]._data.dtype.kind in "fc"
        }
        if kept:
            self.__dict__["_nondiff_saved"] = kept

    def _saved_output_tensor(self, data: np.ndarray, nr: int) -> Any:
        """Saved output ``nr`` as a Tensor: with this node as its history where the output is
        differentiable; indices (max's, sort's) are saved outside the graph, as PyTorch's
        integer outputs, so a graph of the backward never reaches this node through them; a
        float output that is not differentiable is the output itself."""
        if nr in type(self).nondiff_outputs or data.dtype.kind not in "fc":
            kept = self.__dict__.get("_nondiff_saved")
            t = kept.get(nr) if kept is not None else None
            return t if t is not None and t._data is data else graph.Tensor._from_array(data)
        view_grad_fn = self.__dict__.get("_view_grad_fn")  # see apply_inplace
        if view_grad_fn is not None and view_grad_fn() is not None:
            return graph.Tensor._result(data, view_grad_fn(), nr)
        return graph.Tensor._result(data, self, nr)

    def _saved_slot(self, name: str) -> tuple | None:
        for k, i in enumerate(type(self).saved_inputs):
            if _SAVED_NAMES.get(i, f"input{i}") == name:
                return ("in", k)
        if type(self).saves_output and name == "result":
            return ("out", 0)
        for k, nr in enumerate(type(self).saved_outputs):
            if name == f"result{nr}":
                return ("out", k)
        return None

    def _saved_accessors(self, slot: tuple) -> tuple:
        kind, k = slot

        def get() -> Any:
            if self._saved is None:
                raise KeyError(slot)
            if kind == "in":
                return self._saved[k]
            data, counter, _, nr = self._saved_output_entries()[k]
            if type(data) is _Packed:
                return data
            t = self._saved_output_tensor(data, nr)
            t._version_counter = counter
            return t

        def set_(packed: Any) -> None:
            if kind == "in":
                saved = list(self._saved)
                saved[k] = packed
                self._saved = tuple(saved)
                return
            entries = self._saved_output_entries()
            _, counter, version, nr = entries[k]
            entries[k] = (packed, counter, version, nr)
            self._saved_out = entries if type(self._saved_out) is list else entries[0][:3]

        return get, set_

    def _pack_saved(self) -> None:
        """Inside saved_tensors_hooks: what this node saved goes through the pack hook."""
        Tensor = graph.Tensor
        if self._saved:
            self._saved = tuple(pack_saved(x) if isinstance(x, Tensor) else x for x in self._saved)
        out = self._saved_out
        if out is None:
            return
        packed = []
        for data, counter, version, nr in self._saved_output_entries():
            t = self._saved_output_tensor(data, nr)
            t._version_counter = counter
            packed.append((pack_saved(t, self, nr), counter, version, nr))
        self._saved_out = packed if type(out) is list else packed[0][:3]

    def _saved_output_entries(self) -> list:
        """``(data, version counter, version, output_nr)`` of each saved output."""
        saved = self._saved_out
        if type(saved) is list:  # several outputs saved (saved_outputs)
            return saved
        return [(*saved, 0)]

    def _stale_saved(self) -> list[tuple[int, Any, int, int]]:
        """``(input index or -1 for the result, tensor or None, saved version, current
        version)`` for every saved tensor modified in place since it was saved."""
        Tensor = graph.Tensor
        stale = []
        versions = self._saved_versions
        for i, (slot, x) in enumerate(zip(type(self).saved_inputs, self._saved or ())):
            expected = versions[i] if versions else 0
            if isinstance(x, Tensor) and x._version != expected:
                stale.append((slot, x, expected, x._version))
        if self._saved_out is not None:
            for data, counter, version, _ in self._saved_output_entries():
                if counter[0] != version:
                    holder = None
                    if type(data) is not _Packed:  # the result, sharing its version counter
                        holder = Tensor._from_array(data)
                        holder._vc = counter
                    stale.append((-1, holder, version, counter[0]))
        return stale

    def _run(self, grads: list, create_graph: bool) -> tuple:
        if self._constants:
            _check_constants(self._constants)
        saved = self._saved
        if (
            create_graph
            or saved is None
            or len(grads) != 1
            or (self.holomorphic and self._meta[-1].kind == "c")
        ):
            return self._run_general(grads, create_graph)
        # The hot path: arrays and one output. Kept lean.
        if not saved and self._saved_out is None:
            result = self.backward(graph.array_namespace, grads[0])
        else:
            self.saved = self._two_saved_arrays() if len(saved) == 2 else self._unpack(False)
            result = self.backward(graph.array_namespace, grads[0])
            self.saved = None
        if type(result) is not tuple:
            result = (result,)
        elif (
            self.elementwise_grads
            and type(self._meta) is _UniformMeta
            and len(result) == len(self._next_nodes)
        ):
            return result  # pointwise formula, inputs shaped like the output: nothing to fit
        return fit_gradients(self, result, graph.array_namespace, False)

    def _two_saved_arrays(self) -> tuple:
        """The arrays of two saved inputs (binary ops, matrix products), checked inline as
        ``_unpack`` would check them: each unchanged since it was saved."""
        a, b = self._saved
        Tensor = graph.Tensor
        if self._saved_out is not None:
            return self._unpack(False)
        if isinstance(a, Tensor) and isinstance(b, Tensor):
            ca = a._version_counter
            cb = b._version_counter
            if ca is None and cb is None:  # never modified in place: no counter yet
                da, db = a._data, b._data
                if da.ndim and db.ndim:
                    return (da, db)
                # 0-d operands as NumPy scalars: the gradient of 0-d math is a scalar, and
                # NumPy multiplies two scalars ~8x faster than a scalar and a 0-d array.
                return (da if da.ndim else da[()], db if db.ndim else db[()])
            # A Linear layer's weight after optimizer steps carries a version.
            versions = self._saved_versions or _ZEROS[2]
            if (
                (ca is None or ca[0] == versions[0])
                and (cb is None or cb[0] == versions[1])
                and a._detached_at is None
                and b._detached_at is None
            ):
                return (a._data, b._data)
        elif (
            a is None or type(a) in _NUMBERS or isinstance(a, Tensor) and a._version_counter is None
        ) and (
            b is None or type(b) in _NUMBERS or isinstance(b, Tensor) and b._version_counter is None
        ):
            # One operand left out (no needed gradient reads it, see saved_for) or a Python
            # number, the other never modified: a Linear layer's input with its weight left
            # out, ``x * 1.0001``.
            return (
                a._data if isinstance(a, Tensor) else a,
                b._data if isinstance(b, Tensor) else b,
            )
        return self._unpack(False)  # constants, or raises: modified since saved

    def _run_general(self, grads: list, create_graph: bool) -> tuple:
        """``_run`` for the rest: a graph of the backward, several outputs, or saved tensors
        already released (an error)."""
        saved = self._saved
        if saved is None:
            raise saved_tensors_freed_error()
        F = graph.tensor_namespace if create_graph else graph.array_namespace
        if saved or self._saved_out is not None:
            self.saved = self._unpack(create_graph)
        if len(grads) == 1:
            grad = grads[0]
        else:
            grad = tuple(grads if self.takes_undefined_grads else self._materialize(grads, F))
        conjugate = self.holomorphic and self._meta[-1].kind == "c"
        if conjugate:
            grad = (
                F.conj(grad)
                if len(grads) == 1
                else tuple(None if g is None else F.conj(g) for g in grad)
            )
        # Nodes the formula records are numbered from here on (see _depend_on_saved).
        first_new = next(_seq) if create_graph and self.grad_reads_saved else 0
        result = self.backward(F, grad)
        self.saved = None
        if type(result) is not tuple:
            result = (result,)
        if conjugate:
            result = tuple(None if g is None else F.conj(g) for g in result)
        fitted = fit_gradients(self, result, F, create_graph)
        if create_graph and self.grad_reads_saved:
            return self._depend_on_saved(fitted, first_new)
        return fitted

    def _depend_on_saved(self, grads: Any, first_new: int) -> Any:
        """Under ``create_graph``, a gradient computed from saved tensors depends on them in
        the graph even where its formula reads them through a mask or an index only (relu,
        max_pool ...): PyTorch's backward nodes take those tensors as inputs, so the gradient
        requires grad and differentiating it gives zeros, not an error (nor None). That holds
        too when the gradient requires grad through something else (an incoming gradient
        that requires grad, a weight read by value): it is tied to the saved tensors that
        the nodes its formula recorded (numbered from ``first_new``) do not reach."""
        if not self._saved_out and not any(isinstance(x, graph.Tensor) for x in self._saved or ()):
            return grads
        fitted = list(grads)
        for i, g in enumerate(grads):
            if g is None or self._next_nodes[i] is None:
                continue
            reads = [x for x in self._inputs_read_by(i) if x._requires_grad]
            if reads and g._requires_grad:
                reads = _not_reached(g, reads, first_new)
            if reads:
                fitted[i] = SavedDependencyBackward0.apply(
                    g, *reads, zeros=self.double_backward_zeros
                )
        return fitted

    def _inputs_read_by(self, i: int) -> list:
        """The saved tensors (and the output) the gradient of input ``i`` reads."""
        saved_for = type(self).saved_for
        read = []
        for k, x in enumerate(self._saved or ()):
            if isinstance(x, graph.Tensor) and (not saved_for or i in saved_for[k]):
                read.append(x)
        if self._saved_out is not None:
            for data, _, _, nr in self._saved_output_entries():
                read.append(self._saved_output_tensor(data, nr))
        return read

    def _release(self) -> None:
        if self._saved or self._saved_out is not None:
            self._saved = None
            self._saved_versions = ()
            self._saved_out = None
            if type(self).nondiff_outputs:  # reading __dict__ would make one for every node
                self.__dict__.pop("_nondiff_saved", None)

    def _saved_info(self) -> dict:
        info = {}
        for name in _public_slots(type(self)):
            value = getattr(self, name, None)
            if value is not None:
                info[name] = value
        if self._saved is not None:
            # PyTorch's names: the first input is "self", the second "other".
            for i, x in zip(type(self).saved_inputs, self._saved):
                if x is not None:  # None: not saved, no gradient reads it
                    info[_SAVED_NAMES.get(i, f"input{i}")] = x
            if self._saved_out is not None:
                for data, _, _, nr in self._saved_output_entries():
                    info[f"result{nr}" if type(self._saved_out) is list else "result"] = (
                        data if type(data) is _Packed else graph.Tensor._from_array(data)
                    )
        return info


def _not_reached(g: Any, tensors: list, first_new: int) -> list:
    """Those of ``tensors`` (requiring grad) with an edge that no node from ``first_new`` on
    in ``g``'s graph leads to: only the nodes a backward formula just recorded are walked."""
    edges = {}
    for x in tensors:
        fn = x._node
        if fn is None:
            fn = accumulator_of(x)
        if fn is not None:  # no edge (a view requiring grad through its base): nothing to tie
            edges[(id(fn), x._output_nr)] = x
    stack, seen = [g._node], set()
    while stack and edges:
        node = stack.pop()
        if node is None or id(node) in seen or not first_new <= node._seq < ACCUMULATE_PRIORITY:
            continue
        seen.add(id(node))
        for fn, nr in zip(node._next_nodes, node._next_nrs):
            edges.pop((id(fn), nr), None)
            stack.append(fn)
    return list(edges.values())


def _saved_names(cls: type) -> list:
    """PyTorch's names of what ``cls`` saves: "self", "other", "input<i>", "result<i>"."""
    names = [_SAVED_NAMES.get(i, f"input{i}") for i in cls.saved_inputs]
    if cls.saves_output:
        names.append("result")
    names.extend(f"result{nr}" for nr in cls.saved_outputs)
    return names


_SAVED_PROPERTIES: dict = {}


def _saved_property(name: str, raw: bool) -> property:
    """The ``_saved_<name>`` (or ``_raw_saved_<name>``) property, shared by every op class."""
    prop = _SAVED_PROPERTIES.get((name, raw))
    if prop is None:

        def get(self: Op) -> Any:
            slot = self._saved_slot(name)
            if slot is None:  # a subclass that saves less than the class it inherits from
                prefix = "_raw_saved_" if raw else "_saved_"
                raise AttributeError(
                    f"'{type(self).__name__}' object has no attribute '{prefix}{name}'"
                )
            handle = SavedTensor(*self._saved_accessors(slot), self)
            if raw:
                return handle
            entry = handle._entry()
            return entry.unpack() if type(entry) is _Packed else entry

        prop = _SAVED_PROPERTIES[(name, raw)] = property(get)
    return prop


_KEEP_TWO: dict = {}


def _keep_two(cls: type, ra: bool, rb: bool) -> tuple:
    """For an op that saves two entries, whether each is kept when only the inputs marked
    True need a gradient: ``_read_by_needed`` for a two-input op, cached in ``_KEEP_TWO``."""
    nodes = (True if ra else None, True if rb else None)
    keep = tuple(x is not None for x in _read_by_needed(cls.saved_for, (1, 1), nodes))
    _KEEP_TWO[(cls, ra, rb)] = keep
    return keep


def _read_by_needed(saved_for: tuple, saved: tuple, nodes: Any) -> tuple:
    """``saved`` with None for each entry that no input with an edge (``nodes``) reads."""
    kept = []
    for x, readers in zip(saved, saved_for):
        for i in readers:
            if nodes[i] is not None:
                kept.append(x)
                break
        else:
            kept.append(None)
    return tuple(kept)


def keep_versions(result: Any, *constants: Any) -> Any:
    """``result`` of an op whose backward reads the tensors ``constants`` (an index, a weight
    that takes no gradient: passed to the op as arrays, not as inputs): its node remembers
    their versions, and its backward raises PyTorch's "modified by an inplace operation"
    error if one was changed in place since, as PyTorch's saved tensors do. Without this a
    changed index or weight would silently change the gradient."""
    first = result[0] if type(result) is tuple else result
    if not isinstance(first, graph.Tensor):
        return result
    # An in-place op on a view records its node inside the base's CopySlices.
    node = first._node if first._base is None else getattr(first._base._node, "fn", None)
    if not isinstance(node, Op):
        return result  # not recorded
    kept = tuple((t, t._vc, t._vc[0]) for t in constants if isinstance(t, graph.Tensor))
    if kept:
        node._constants = node._constants + kept
    return result


def _check_constants(constants: tuple) -> None:
    for t, counter, version in constants:
        if counter[0] != version:
            raise _modified_error(t, version, t.grad_fn)


def _saved_versions(saved: tuple) -> tuple:
    """The versions of the saved tensors, or ``()`` when all are at version 0 (the usual case:
    versions are kept only if some saved tensor was already modified in place)."""
    Tensor = graph.Tensor
    versions = None
    k = 0
    for x in saved:
        if isinstance(x, Tensor):
            counter = x._version_counter
            if counter is not None and counter[0]:
                if counter is INFERENCE_VERSION:  # reads as version 1: checked only here
                    raise RuntimeError(SAVED_INFERENCE_ERROR)
                if versions is None:
                    versions = [0] * len(saved)
                versions[k] = counter[0]
        k += 1
    return () if versions is None else tuple(versions)


_PUBLIC_SLOTS: dict = {}  # class -> its public attribute slots (read per node by the viz tools)


def _public_slots(cls: type) -> tuple:
    names = _PUBLIC_SLOTS.get(cls)
    if names is None:
        found: list = []
        for klass in cls.__mro__:
            if klass in (Op, Node, object):
                break
            found.extend(
                n for n in getattr(klass, "__slots__", ()) if not n.startswith("_") and n != "saved"
            )
        names = _PUBLIC_SLOTS[cls] = tuple(found)
    return names


def fit_gradients(node: Node, grads: Any, F: Any, create_graph: bool) -> Any:
    """Check each gradient against its input: undo broadcasting, cast to the input's dtype.

    Returns ``grads`` itself when nothing needs fitting (the common case), else a list.
    Gradients for inputs without an edge are left as they are: the engine skips them.
    """
    nodes = node._next_nodes
    if len(grads) != len(nodes):
        raise _gradient_count_error(node, grads)
    meta = node._meta
    fitted = grads
    i = 0
    for g in grads:
        # The common case first: an array of the input's shape and dtype (0-d math gives
        # NumPy scalars, which have both too).
        if (
            g is not None
            and nodes[i] is not None
            and (
                create_graph
                or (type(g) is not np.ndarray and not isinstance(g, np.generic))
                or g.shape != meta[2 * i]
                or g.dtype != meta[2 * i + 1]
            )
        ):
            if fitted is grads:
                fitted = list(grads)
            fitted[i] = fit_gradient(node, i, g, meta[2 * i], meta[2 * i + 1], F, create_graph)
        i += 1
    return fitted


def _gradient_count_error(node: Node, grads: tuple) -> RuntimeError:
    return RuntimeError(
        f"function {node.name()} returned an incorrect number of gradients "
        f"(expected {len(node._next_nodes)}, got {len(grads)})"
    )


def fit_gradient(
    node: Node, i: int, g: Any, shape: tuple, dtype: np.dtype, F: Any, create_graph: bool
) -> Any:
    """Gradient ``g`` for input ``i`` of ``node`` brought to the input's shape and dtype."""
    if create_graph:
        if not isinstance(g, graph.Tensor):
            g = graph.Tensor._from_array(np.asarray(g))
        data = g._data
    elif type(g) is np.ndarray or isinstance(g, np.generic):
        data = g
    else:
        g = data = g._data if isinstance(g, graph.Tensor) else np.asarray(g, dtype=dtype)
    if data.shape != shape:
        if not _expandable(shape, data.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(data.shape)} but expected shape compatible with {list(shape)}"
            )
        g = F.sum_to_size(g, shape)
    if data.dtype != dtype and not _any_grad_dtype(node._next_nodes[i]):
        if data.dtype.kind == "c" and dtype.kind != "c":
            g = F.real(g)  # a real input of a complex result: PyTorch's handle_r_to_c
        g = F.cast(g, dtype)
    return g


def _any_grad_dtype(target: Any) -> bool:
    """Whether ``target`` is the AccumulateGrad of a leaf whose grad_dtype is None: its
    gradient keeps the dtype the formula gives it, as in PyTorch."""
    return type(target) is AccumulateGrad and target.variable._grad_dtype is ANY_GRAD_DTYPE


def _expandable(shape: tuple, target: tuple) -> bool:
    """True if ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    if target[len(target) - len(shape) :] == shape:  # only leading axes added (a bias)
        return True
    for s, t in zip(reversed(shape), reversed(target)):
        if s != 1 and s != t:
            return False
    return True


def _any_volatile(inputs: tuple) -> bool:
    return any(getattr(x, "_volatile", False) for x in inputs)


def _all_inference(inputs: tuple) -> bool:
    """Every input is an inference tensor: outside inference mode PyTorch records nothing
    then (its inference tensors carry no autograd dispatch key). A Python number counts as
    an ordinary tensor, as PyTorch wraps one given for a Tensor argument (``x * 2``)."""
    Tensor = graph.Tensor
    for x in inputs:
        if isinstance(x, Tensor):
            if x._version_counter is not INFERENCE_VERSION:
                return False
        elif isinstance(x, (int, float, complex)):
            return False
    return True


def _wrap_volatile(out: Any) -> Any:
    Tensor = graph.Tensor
    outs = out if type(out) is tuple else (out,)
    wrapped = []
    for o in outs:
        t = Tensor._from_array(o)
        t._volatile = True
        special_inputs.alive += 1
        weakref.finalize(t, special_inputs.release)
        wrapped.append(t)
    return tuple(wrapped) if type(out) is tuple else wrapped[0]


# --- in-place ops ------------------------------------------------------------------------
def _raised_after_overlap(cls: type, exc: Exception) -> bool:
    """Whether PyTorch raises ``exc`` (from ``cls.forward``) after its overlap check: by
    default its AT_DISPATCH refusal of a dtype only (other NotImplementedErrors, such as
    "ceil is not supported for complex inputs", come from checks before the kernel)."""
    if cls.errors_after_overlap == "all":
        return True
    if not isinstance(exc, NotImplementedError) or cls.errors_after_overlap == "none":
        return False
    return cls.errors_after_overlap == "not-implemented" or " not implemented for '" in str(exc)


def _check_overlap(cls: type, target: Any, others: tuple) -> None:
    """PyTorch's memory-overlap checks of an in-place write into ``target``."""
    data = target._data
    if cls.copies_source and _same_data(data, others[0]):
        return  # copy_ of a tensor onto the very same memory: PyTorch returns before checking
    if data.dtype.kind in cls.identity_for_kinds:
        return
    if internal_overlap(data) and not cls.allows_internal_overlap:
        if cls.overlap_warning:
            warnings.warn(cls.overlap_warning, UserWarning, stacklevel=4)
        else:
            raise RuntimeError(OVERLAP_WRITE_ERROR)
    for x in others:
        if not isinstance(x, graph.Tensor) or not cls.checks_source_overlap:
            continue
        check_source_overlap(target, x, cls.refuses_full_overlap)
    if not data.flags.writeable:
        raise RuntimeError("in-place write: this tensor's memory is read-only")


def check_source_overlap(target: Any, source: Any, refuses_full: bool = True) -> None:
    """PyTorch's assert_no_overlap: an in-place write into tensor ``target`` refuses a tensor
    ``source`` that shares memory with it in part (or wholly, with ``refuses_full``). The
    very same tensor overlaps fully even when empty: PyTorch's get_overlap_status compares
    the TensorImpls before it looks at the elements (``x[mask] = x``, ``x.index_add_(0, i,
    x)`` of an empty ``x`` raise)."""
    status = "full" if source is target else _overlap(target._data, source._data)
    if status == "partial" or (status == "full" and refuses_full):
        raise RuntimeError(
            "unsupported operation: some elements of the input tensor and the written-to "
            "tensor refer to a single memory location. Please clone() the tensor before "
            "performing the operation."
        )


def _same_data(data: np.ndarray, src: Any) -> bool:
    """``src`` is a tensor viewing exactly ``data``: same address, shape, strides, dtype."""
    if not isinstance(src, graph.Tensor):
        return False
    other = src._data
    if other is data:
        return True
    return (  # the address last: __array_interface__ builds a dict per array
        other.shape == data.shape
        and other.strides == data.strides
        and other.dtype == data.dtype
        and np.may_share_memory(other, data)
        and other.__array_interface__["data"][0] == data.__array_interface__["data"][0]
    )


def _extent(a: np.ndarray) -> tuple:
    """The lowest and one-past-the-highest byte address of ``a``'s elements."""
    start = a.__array_interface__["data"][0]
    low = sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(a.shape, a.strides) if s > 0)
    return start + low, start + high + a.itemsize


def _dense(a: np.ndarray) -> bool:
    """No gaps and no overlap: the elements fill ``a.nbytes`` bytes in some order."""
    expected = a.itemsize
    for stride, size in sorted((abs(st), n) for n, st in zip(a.shape, a.strides) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _overlap(out: np.ndarray, src: np.ndarray) -> str:
    """PyTorch's ``get_overlap_status`` for dense tensors: ``"full"`` (the same memory, the
    same strides), ``"partial"`` or ``"none"``; tensors with gaps count as ``"none"`` (too
    hard to tell, so PyTorch does not check them either)."""
    if not np.may_share_memory(out, src):  # memory bounds apart (or empty): no overlap
        return "none"
    if not (_dense(out) and _dense(src)):
        return "none"
    (a_begin, a_end), (b_begin, b_end) = _extent(out), _extent(src)
    if a_begin == b_begin and a_end == b_end:
        return "full" if out.strides == src.strides else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else "none"


def _write(node: Op, data: np.ndarray, out: np.ndarray, arrays: list, params: dict) -> None:
    """Write an in-place op's result into the target's memory."""
    if data.dtype.kind in node.identity_for_kinds:
        return
    if node.write_overlapping is not None and (
        internal_overlap(data) or (not data.flags.c_contiguous and shares_memory_within(data))
    ):
        node.write_overlapping(data, *arrays, **params)  # only the written elements
    elif node.pointwise and (
        (arrays and reads_written_memory(data, arrays))  # x.add_(x.diagonal())
        or (not data.flags.c_contiguous and shares_memory_within(data))  # an unfold's windows
    ):
        write_in_kernel_order(type(node), data, arrays, params)
    else:
        data[...] = out  # np.copyto(data, out, casting="unsafe") without its dispatch


def check_inplace_operands(target: Any, operands: Any, result_dtype: bool = True) -> None:
    """PyTorch's checks of an in-place op before any kernel runs: the autograd ones (a leaf,
    a forbidden view), then (``result_dtype``) TensorIterator's: ``target``'s elements must
    not share memory (an expand), and the common dtype of ``target`` and ``operands``
    (tensors, Python numbers; anything else is not an operand) must fit in ``target``."""
    Tensor = graph.Tensor
    tensors = [x for x in operands if isinstance(x, Tensor)]
    # The flags as set: check_inplace reads them so (views.check_inplace)
    if grad_state.enabled and any(x.requires_grad for x in (target, *tensors)):
        check_inplace(target)
    if not result_dtype:
        return
    if internal_overlap(target._data):
        raise RuntimeError(OVERLAP_WRITE_ERROR)
    values = [x._data if isinstance(x, Tensor) else x for x in operands if _is_operand(x)]
    check_result_cast(result_numpy_dtype((target._data, *values)), target._data.dtype)


def _is_operand(x: Any) -> bool:
    return isinstance(x, (graph.Tensor, bool, int, float, complex))


def _refuse_operand(cls: type, position: int, value: Any) -> None:
    """PyTorch's argument parser: an in-place op's operand (``others``) is a Tensor, a number
    or None (an optional one); a tuple, list or string is its TypeError, before the autograd
    checks and the kernel (NumPy would take a tuple of tensors for an array: fuzz seed
    853813, ``x.pow_(torch.meshgrid(y))``)."""
    if value is None or isinstance(value, (graph.Tensor, np.ndarray, np.generic, numbers.Number)):
        return
    words = re.sub(r"(?<!^)(?=[A-Z])", "_", re.sub(r"Backward\d*$", "", cls.__name__)).lower()
    raise TypeError(
        f"{words.strip('_')}_(): argument {position} must be a Tensor or a number, "
        f"not {type(value).__name__}"
    )


def apply_inplace(cls: type, target: Any, *others: Any, **params: Any) -> Any:
    """Run op ``cls`` with ``target`` as first input and write the result into ``target``.

    When recorded, the op's node takes ``target``'s old history as its first input and
    becomes ``target``'s new history (``views.rebase_history``: through ``CopySlices`` on
    the base when ``target`` is a view).
    """
    Tensor = graph.Tensor
    for position, value in enumerate(others, 1):
        if type(value) is not Tensor and type(value) not in _OPERAND_TYPES and value is not None:
            _refuse_operand(cls, position, value)
    # The flags as set (PyTorch's compute_requires_grad): a stale view's history is derived
    # again only after check_inplace, which reads it raw. ``requires_grad`` is read as its
    # property does: a view first syncs its flag with its base.
    requires_grad = False
    if grad_state.enabled:
        requires_grad = target._requires_grad if target._base is None else target.requires_grad
        if not requires_grad:
            for x in others:
                if isinstance(x, Tensor) and x.requires_grad:
                    requires_grad = True
                    break
    if requires_grad and special_inputs.alive and _all_inference((target, *others)):
        requires_grad = False  # as an out-of-place op on inference tensors (_all_inference)
    # As PyTorch's generated in-place ops, a write records on an integer or bool target too
    # (it then requires grad); copy_ is PyTorch's hand-written exception, which neither
    # records nor checks the target (``requires_grad &= isDifferentiableType(self)``).
    if requires_grad and cls.copies_source and target._data.dtype.kind not in "fc":
        requires_grad = False
    checking = requires_grad and cls.checks_inplace
    recording = requires_grad and cls.differentiable
    data = target._data
    node = cls.__new__(cls)
    arrays = [x._data if isinstance(x, Tensor) else x for x in others] if others else []
    # PyTorch's order: argument errors (its parser's TypeError), then the autograd checks,
    # then the kernel's errors. The forward writes nothing, so it may run first.
    try:
        out = node.forward(data, *arrays, **params)
    except TypeError:
        raise
    except Exception as exc:
        if checking:
            check_inplace(target)
        # An error the kernel found midway (kernel_order.stopped) follows the overlap checks
        written = getattr(exc, "written_before", None)
        if written is not None or _raised_after_overlap(cls, exc):
            _check_overlap(cls, target, others)
            if cls.promotes_result and isinstance(exc, NotImplementedError):
                # A kernel without the operands' common dtype (atan2 of complex): PyTorch's
                # TensorIterator refuses writing that dtype into the target before dispatching.
                check_inplace_operands(target, others)
        if written is not None:  # the elements its kernel wrote before it failed
            if write_hooks:
                before_write(target)
            written(data)
        raise
    if checking:
        check_inplace(target)
    if recording:  # then the inputs' histories, as PyTorch's collect_next_edges
        for x in (target, *others):
            if isinstance(x, Tensor) and x._base is not None and x._version_counter is not None:
                refresh_view(x)
    if others or cls.copies_source or 0 in data.strides or not data.flags.writeable:
        _check_overlap(cls, target, others)  # else it has nothing to check
    if cls.check_after_overlap is not None:
        cls.check_after_overlap(data)
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    if out.dtype != data.dtype:
        check_result_cast(out.dtype, data.dtype)
    if out.shape != data.shape:
        raise RuntimeError(
            f"output with shape {list(data.shape)} doesn't match the broadcast shape "
            f"{list(out.shape)}"
        )
    if write_hooks:
        before_write(target)
    if not recording:
        _write(node, data, out, arrays, params)
        counter = target._version_counter  # target._vc, inlined
        if counter is None:
            counter = target._version_counter = [0]
        counter[0] += 1
        note_write(counter, _INPLACE_WHAT.get(cls) or _inplace_what(cls))
        return target
    # The target's old value, as it stands in the graph, is the op's first input.
    before = Tensor._from_array(data)
    if target._node is not None:
        before._node = target._node
        before._output_nr = target._output_nr
        before._requires_grad = True
    node._record((before, *others), [data, *arrays], out)
    if cls.edges_of_grad_inputs_only:
        drop_edges_without_grad(node)
    if 0 in cls.saved_inputs:
        _save_original(node, before)
    _write(node, data, out, arrays, params)
    target._vc[0] += 1
    note_write(target._vc, _INPLACE_WHAT.get(cls) or _inplace_what(cls))
    if cls.saves_output:
        node._saved_out = (data, target._vc, target._vc[0])
    if _saved_hooks:
        node._pack_saved()
    rebase_history(target, node)
    if cls.saves_output and target._base is not None:
        # PyTorch's SavedVariable of an output written through a view: its history is the
        # view's new grad_fn (as_strided from CopySlices), held weakly; this node once that
        # is gone. This node itself runs only inside CopySlices, so a second derivative
        # that reached it directly would run it twice.
        node._view_grad_fn = weakref.ref(target._node)
    return target


def drop_edges_without_grad(node: Op) -> None:
    """Keep ``node``'s edges (and their metadata) to inputs that require grad only. Without
    one to the target, a write into a view keeps none of the node's other edges (PyTorch's
    CopySlices takes the node's edges from the second on: the values of ``view.heaviside_(v)``
    get no gradient, not the node's error)."""
    edges = node._next_nodes
    kept = [i for i, fn in enumerate(edges) if fn is not None]
    if len(kept) == len(edges):
        return
    meta = node._meta  # each input's shape and dtype, then each output's
    inputs = [m for i in kept for m in meta[2 * i : 2 * i + 2]]
    node._meta = _shared_meta((*inputs, *meta[2 * len(edges) :]))
    node._next_nodes = tuple(edges[i] for i in kept)
    node._next_nrs = tuple(node._next_nrs[i] for i in kept)


# What the in-place-write record names for an op class: "ExpBackward0 (in place)".
_INPLACE_WHAT: dict[type, str] = {}


def _inplace_what(cls: type) -> str:
    what = _INPLACE_WHAT[cls] = f"{cls.__name__} (in place)"
    return what


def _save_original(node: Op, before: Any) -> None:
    """An in-place op whose gradient reads its input saves a copy of it made before the
    write, as PyTorch saves ``self.clone()``: a recorded clone (CloneBackward0) when the
    input has a history, so a second derivative reaches that history through it."""
    saved = node._saved
    k = type(node).saved_inputs.index(0)
    if saved[k] is not before:  # not saved: no needed gradient reads it (saved_for)
        return
    if before._requires_grad:
        copy = graph.tensor_namespace.clone(before)
    else:
        copy = graph.Tensor._from_array(before._data.copy(order="K"))
    node._saved = (*saved[:k], copy, *saved[k + 1 :])


class SavedDependencyBackward0(Op):
    """``grad`` itself, tied in the graph to saved tensors it was computed from without a
    differentiable path (see ``Op._depend_on_saved``); their gradients are zeros (or none)."""

    zeros: bool
    __slots__ = ("zeros",)

    def forward(self, grad: Any, *saved: Any, zeros: bool) -> Any:
        self.zeros = zeros
        return grad

    def backward(self, F: Any, grad: Any) -> Any:
        meta = self._meta
        count = len(self._next_nodes) - 1
        if not self.zeros:
            return (grad, *(None,) * count)
        return (grad, *(F.zeros(meta[2 * k], meta[2 * k + 1]) for k in range(1, count + 1)))
