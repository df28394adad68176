"""Tensor: an ndarray, its place in the graph (``grad_fn``), its gradient and its hooks.

Op methods (``x.exp()``, ``x + y``, ``x[0]`` ...) are attached by ``glassgrad.ops`` from
the op registry, so adding an op never touches this file.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _dtype
from ._tensor_str import tensor_repr
from .autograd import grad_mode, graph
from .autograd.grad_mode import INFERENCE_VERSION
from .autograd.grad_mode import state as grad_state
from .autograd.graph import RemovableHandle, add_hook
from .autograd.inplace_record import note_write
from .autograd.mutation import before_write, write_hooks
from .autograd.op import special_inputs
from .autograd.views import CreationMeta, refresh_view, sync_requires_grad

__all__ = [
    "Tensor",
    "Size",
    "device",
    "check_device",
    "set_default_device",
    "get_default_device",
]


class Size(tuple):
    """A tensor's shape: a tuple that prints as ``glassgrad.Size([2, 3])``.

    Example::

        >>> glassgrad.zeros(2, 3).shape
        glassgrad.Size([2, 3])
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"glassgrad.Size({list(self)})"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


_DEVICE_TYPES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()


class device:
    """Where a tensor lives. glassgrad computes on the CPU (NumPy): any of PyTorch's device
    names can be made and compared (``device("cuda")``, as scripts build eagerly), but only
    the CPU holds tensors; moving one elsewhere raises (``check_device``).

    Example::

        >>> glassgrad.device("cuda", 0)
        device(type='cuda', index=0)
    """

    __slots__ = ("type", "index")

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:
        if isinstance(type, device):
            type, index = type.type, type.index
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {_type_name(type)}")
        name, colon, number = type.partition(":")
        if name not in _DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of device "
                f"string: {type}"
            )
        if colon:
            if not number.isdigit() or index is not None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type = name
        self.index: int | None = index

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __reduce__(self) -> Any:
        return device, (self.type, self.index)


def _type_name(value: Any) -> str:
    return type(value).__name__


def check_device(dev: Any) -> device:
    """``dev`` as a device on which glassgrad can hold tensors (the CPU), else PyTorch's error
    for an accelerator it was built without (AssertionError for CUDA, as PyTorch's)."""
    found = dev if isinstance(dev, device) else device(dev)
    if found.type == "cpu":
        return found
    if found.type == "cuda":
        raise AssertionError(
            "Torch not compiled with CUDA enabled: glassgrad computes on the CPU with NumPy "
            "and has no CUDA device (glassgrad.cuda.is_available() is False)"
        )
    raise RuntimeError(
        f"glassgrad is not linked with support for {found.type} devices: it computes on the "
        "CPU with NumPy"
    )


_CPU = device("cpu")


def set_default_device(device: Any) -> None:
    """Where factories put new tensors by default: the CPU (``None`` or ``"cpu"``); any
    other device raises at once, naming what is missing.

    Example::

        >>> glassgrad.set_default_device("cpu"); glassgrad.get_default_device()
        device(type='cpu')
    """
    if device is not None:
        check_device(device)


def get_default_device() -> device:
    """The device factories put new tensors on: always the CPU."""
    return _CPU


_NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead."
)


def _legacy_warning(old: str, new: str) -> None:
    warnings.warn(f"{old} is deprecated; use {new}", DeprecationWarning, stacklevel=3)


def _plain_tensor(data: Any) -> Tensor:
    """A leaf tensor (no grad) around ``data`` without copying."""
    t = object.__new__(Tensor)
    t._data = data if type(data) is np.ndarray else np.asarray(data)
    t._requires_grad = False
    t._grad = None
    t._node = None
    t._version_counter = None
    return t


def _tensor_marked_in_inference_mode(data: Any) -> Tensor:
    """``_plain_tensor``, an inference tensor when this thread is in inference mode."""
    t = _plain_tensor(data)
    if grad_state.inference:
        t._version_counter = INFERENCE_VERSION
    return t


def _inference_requires_grad(t: Tensor) -> None:
    """Let inference tensor ``t`` require grad (inside inference mode only, as PyTorch)."""
    if not grad_state.inference:
        raise RuntimeError(
            "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
        )
    # Ops outside inference mode whose tensors are all inference tensors record nothing, even
    # if one requires grad (PyTorch's inference tensors carry no autograd dispatch key):
    # the general path checks for that while such a tensor lives.
    special_inputs.alive += 1
    weakref.finalize(t, special_inputs.release)


def _mark_inference_tensors(on: bool) -> None:
    # Tensor creation checks the thread's inference mode only while some thread is inside
    # inference_mode(): grad-mode code pays nothing for inference tensors.
    Tensor._from_array = staticmethod(_tensor_marked_in_inference_mode if on else _plain_tensor)


grad_mode.on_inference_change.append(_mark_inference_tensors)


if TYPE_CHECKING:  # the methods the op registry attaches at import time (scripts/generate_stubs.py)
    from ._tensor_methods import _TensorMethods
else:
    _TensorMethods = object


class Tensor(_TensorMethods):
    """A multi-dimensional array that records the operations applied to it.

    Build tensors with ``glassgrad.tensor`` and the other factories. A tensor created by the
    user is a *leaf*; the result of an op on tensors that require grad has a ``grad_fn``.

    Example::

        >>> x = glassgrad.tensor([2.0, 3.0], requires_grad=True)
        >>> y = (x * x).sum()
        >>> y.backward()
        >>> x.grad
        tensor([4., 6.])
    """

    # No __setattr__ or __delattr__ here: defining either sends every attribute write of every
    # tensor through a slower path. ``_node`` is the slot behind ``grad_fn``.
    __slots__ = (
        "_data",
        "_requires_grad",
        "_grad",
        "_node",
        "_version_counter",
        "__weakref__",
        "__dict__",
    )
    # Rarely set state lives in the instance __dict__ only when used.
    _output_nr = 0
    # View state (see autograd/views.py): the root base, the view ops from it, the version
    # at which grad_fn was set and how the view was made.
    _base = None
    _view_steps = None
    _attr_version = None
    _creation_meta = 0
    # In-place view ops on a base (``b.t_()``) change the geometry its views were made from:
    # the base keeps the steps back to each earlier geometry, a view how many it has seen.
    _geometry_changes = ()
    _base_geometry = 0
    _requires_grad_from_base = False  # a view made in no-grad mode of a tensor requiring grad
    _grad_acc = None
    # A leaf's grad_dtype when set: a NumPy dtype its incoming gradients are cast to, or
    # graph.ANY_GRAD_DTYPE (grad_dtype None: any dtype, no cast). None: the tensor's dtype.
    _grad_dtype = None
    _hooks = None
    _post_accumulate_hooks = None
    _retains_grad = False
    # When detach_() cut this tensor from its grad_fn (a graph sequence number): nodes
    # created before that which saved it may no longer use it (PyTorch's SavedVariable).
    _detached_at = None
    _volatile = False
    __array_priority__ = 1000

    # --- construction ------------------------------------------------------------------
    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """Legacy constructor: ``Tensor(data)`` or ``Tensor(*sizes)`` (default dtype)."""
        if cls is Tensor:
            _legacy_warning("glassgrad.Tensor(...)", "glassgrad.tensor(data) or glassgrad.empty")
        return _legacy_new(_dtype.get_default_dtype(), args, kwargs, cls)

    # A leaf tensor (no grad) around an array, without copying: _plain_tensor, or while a
    # thread is inside inference_mode(), _tensor_marked_in_inference_mode.
    _from_array = staticmethod(_plain_tensor)

    @staticmethod
    def _result(data: Any, node: Any, output_nr: int) -> Tensor:
        """An op's result: a tensor whose gradient flows to ``node`` at ``output_nr``."""
        t = object.__new__(Tensor)
        t._data = data if type(data) is np.ndarray else np.asarray(data)
        t._requires_grad = True
        t._grad = None
        t._node = node
        t._version_counter = None
        if output_nr:
            t._output_nr = output_nr
        return t

    # --- autograd state ----------------------------------------------------------------
    @property
    def grad_fn(self) -> Any:
        """The Node that computes this tensor's gradient from its consumers' (None for leaves).

        A view whose base, or another view of the base, was changed in place since gets a
        new one derived from the base (``AsStridedBackward0``), as in PyTorch.
        """
        if self._version_counter is not None and self._base is not None:
            refresh_view(self, strict=True)
        return self._node

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (0 for leaves): as set, as PyTorch
        reads it (a stale view's ``grad_fn`` is not derived again, so this never raises)."""
        return self._output_nr

    def _is_view(self) -> bool:
        """True if this tensor is a view of another (``_base``)."""
        return self._base is not None

    @property
    def requires_grad(self) -> bool:
        """True if gradients are computed for this tensor (for a view: also when its base
        requires grad, as in PyTorch)."""
        if self._base is not None:
            sync_requires_grad(self)
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # Leaf or not by grad_fn as set (PyTorch's C++ is_leaf): a view whose base changed in
        # place since is not asked for a new history, so this never raises for one.
        if self._node is not None:
            hint = (
                ""
                if value
                else " If you want to use a computed variable in a subgraph that doesn't "
                "require differentiation use var_no_grad = var.detach()."
            )
            raise RuntimeError("you can only change requires_grad flags of leaf variables." + hint)
        if value and self._data.dtype.kind not in "fc":
            raise RuntimeError(
                "only Tensors of floating point and complex dtype can require gradients"
            )
        if value and self._version_counter is INFERENCE_VERSION and not self._requires_grad:
            _inference_requires_grad(self)
        self._requires_grad = bool(value)
        if self._requires_grad_from_base:
            self._requires_grad_from_base = False  # now a leaf of its own

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place and return the tensor.

        Example::

            >>> w = glassgrad.zeros(3).requires_grad_()
            >>> w.requires_grad
            True
        """
        if requires_grad and self._node is not None:
            return self  # a non-leaf already requires grad: nothing to change (PyTorch)
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors made by the user (and for all that don't require grad)."""
        return self.grad_fn is None

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        # PyTorch's C++ is_leaf: the grad_fn as set, not derived again for a stale view
        # (reading .grad of a view whose base changed in place never raises).
        if self._grad is None and self._node is not None and not self._retains_grad:
            warnings.warn(_NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type "
                    f"{type(value).__name__}"
                )
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: expected "
                    f"{list(self._data.shape)}, got {list(value._data.shape)}"
                )
            allowed = self._grad_dtype or self._data.dtype
            if allowed is not graph.ANY_GRAD_DTYPE and value._data.dtype != allowed:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype "
                    f"'{_dtype.c_type_name(value._data.dtype)}' to a tensor with grad_dtype "
                    f"'{_dtype.scalar_type_name(allowed)}'. The gradient must match the "
                    "tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any "
                    "dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and "
                    "its gradient may break downstream systems that assume they match."
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self) -> _dtype.dtype | None:
        """The dtype a leaf's gradient is given: by default the tensor's own; set to another
        dtype, the engine casts the gradients reaching the leaf to it (before its hooks);
        None allows any dtype (no cast). Leaves only.

        Example::

            >>> x = glassgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> x.grad_dtype = glassgrad.float64
            >>> (x * 3).sum().backward(); x.grad.dtype
            glassgrad.float64
        """
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        wanted = self._grad_dtype
        if wanted is graph.ANY_GRAD_DTYPE:
            return None
        return _dtype.from_numpy_dtype(wanted if wanted is not None else self._data.dtype)

    @grad_dtype.setter
    def grad_dtype(self, value: _dtype.dtype | None) -> None:
        if self.grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is not None and not isinstance(value, _dtype.dtype):
            raise RuntimeError(
                f"grad_dtype must be a torch.dtype or None, but got {type(value).__name__}"
            )
        wanted = None if value is None else _dtype.to_numpy_dtype(value)
        if self._grad is not None and wanted is not None and self._grad._data.dtype != wanted:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{_dtype.scalar_type_name(wanted)}' because there "
                f"is already a gradient with dtype '{_dtype.c_type_name(self._grad._data.dtype)}'"
                ". Please clear the gradient (.grad = None) before changing grad_dtype, or "
                "ensure the new grad_dtype matches the existing gradient's dtype."
            )
        self._grad_dtype = graph.ANY_GRAD_DTYPE if wanted is None else wanted
        acc = self._grad_acc() if self._grad_acc is not None else None
        if acc is not None:
            acc._hooked = True  # the engine then casts what reaches the leaf (graph.py)

    @property
    def data(self) -> Tensor:
        """The same storage as a tensor the graph does not track (and with its own version;
        that of an inference tensor is an inference tensor)."""
        t = _plain_tensor(self._data)
        if self._version_counter is INFERENCE_VERSION:
            t._version_counter = INFERENCE_VERSION
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._requires_grad and value._data.dtype.kind not in "fc":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex "
                "dtype"
            )
        old, self._data = self._data, value._data
        if old.shape != value._data.shape or old.dtype != value._data.dtype:
            graph.data_replaced(self, old)
        inference = value._version_counter is INFERENCE_VERSION
        if inference or self._version_counter is INFERENCE_VERSION:
            # Being an inference tensor comes with the data (PyTorch's set_data).
            self._version_counter = INFERENCE_VERSION if inference else None

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def _grad_fn(self) -> Any:
        """PyTorch's ``_grad_fn``: ``grad_fn`` without refreshing a view's history."""
        return self._node

    @_grad_fn.setter
    def _grad_fn(self, node: Any) -> None:
        self._node = node

    @_grad_fn.deleter
    def _grad_fn(self) -> None:
        raise RuntimeError("Deletion of _grad_fn not allowed. Detach tensor instead!")

    @property
    def _backward_hooks(self) -> dict | None:
        """PyTorch's ``_backward_hooks``: the hooks registered on this tensor (None before
        the first), by handle id."""
        if "_assigned_backward_hooks" in self.__dict__:
            return self._assigned_backward_hooks
        if self._node is None:
            return self._hooks
        hooks = self._node._tensor_hooks
        return None if hooks is None else hooks.get(self._output_nr)

    @_backward_hooks.setter
    def _backward_hooks(self, hooks: dict | None) -> None:
        if hooks is not None and not isinstance(hooks, dict):
            raise TypeError(f"_backward_hooks must be a dict or None, got {type(hooks).__name__}")
        if self._node is not None:
            # PyTorch keeps the dict of a non-leaf without running it (its registered hooks
            # stay as they are).
            self._assigned_backward_hooks = hooks
            return
        self._hooks = hooks  # a leaf's AccumulateGrad runs them, as PyTorch's
        acc = self._grad_acc() if self._grad_acc is not None else None
        if acc is not None and hooks:
            acc._hooked = True

    @_backward_hooks.deleter
    def _backward_hooks(self) -> None:
        raise RuntimeError("Deletion of _backwards_hooks not allowed!")

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf tensor on which ``retain_grad()`` was called."""
        return self._retains_grad

    @property
    def creator(self) -> Any:
        """Pre-0.4 name of ``grad_fn`` (deprecated)."""
        _legacy_warning("Tensor.creator", "Tensor.grad_fn")
        return self.grad_fn

    @property
    def volatile(self) -> bool:
        """Pre-0.4 flag (deprecated): use ``glassgrad.no_grad()``."""
        # PyTorch's warning (a UserWarning); glassgrad still honours legacy volatile tensors.
        warnings.warn(
            "volatile was removed (Variable.volatile is always False in PyTorch); use "
            "glassgrad.no_grad()",
            UserWarning,
            stacklevel=2,
        )
        return self._volatile

    @property
    def _vc(self) -> list:
        """The version counter shared with views: ``[count of in-place changes]``.

        Created on first use; a tensor without one is at version 0.
        """
        counter = self._version_counter
        if counter is None:
            counter = self._version_counter = [0]
        return counter

    @_vc.setter
    def _vc(self, counter: list) -> None:
        self._version_counter = counter

    @property
    def _version(self) -> int:
        counter = self._version_counter
        if counter is INFERENCE_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if counter is None else counter[0]

    def is_inference(self) -> bool:
        """True for an inference tensor: made inside ``inference_mode()`` (an op's result or a
        factory's), or a view of one. Views of ordinary tensors made there are not.

        Example::

            >>> with glassgrad.inference_mode():
            ...     t = glassgrad.ones(2)
            >>> t.is_inference(), glassgrad.ones(2).is_inference()
            (True, False)
        """
        return self._version_counter is INFERENCE_VERSION

    def detach(self) -> Tensor:
        """A tensor on the same storage, cut from the graph (shares the version counter).

        Example::

            >>> x = glassgrad.ones(2, requires_grad=True)
            >>> (x * 2).detach().requires_grad
            False
        """
        t = Tensor._from_array(self._data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Cut this tensor from the graph in place."""
        if self._base is not None:
            if self._creation_meta == CreationMeta.MULTI_OUTPUT_NODE:
                raise RuntimeError(
                    "This view is the output of a function that returns multiple views. "
                    "Detaching such views inplace is not allowed."
                )
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        if self._node is not None:
            self._detached_at = next(graph.sequence_counter)
            if self._version_counter is None:
                # A version counter sends saved-tensor reads the careful way (Op._unpack).
                self._version_counter = [0]
        self._node = None
        self._requires_grad = False
        if self._output_nr:
            self._output_nr = 0
        return self

    def retain_grad(self) -> None:
        """Keep the gradient of this non-leaf tensor in ``.grad`` during backward.

        Example::

            >>> x = glassgrad.ones(2, requires_grad=True)
            >>> y = x * 2; y.retain_grad(); y.sum().backward()
            >>> y.grad
            tensor([1., 1.])
        """
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._node is None or self._retains_grad:
            return  # a leaf by grad_fn as set (PyTorch's C++ is_leaf): nothing to retain
        node = self.grad_fn
        if node._retain_grad is None:
            node._retain_grad = {}
        node._retain_grad[self._output_nr] = weakref.ref(self)
        node._hooked = True
        self._retains_grad = True

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when the gradient for this tensor is computed; a returned
        tensor replaces the gradient.

        Example::

            >>> x = glassgrad.ones(2, requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 2)
            >>> (x * 3).sum().backward(); x.grad
            tensor([6., 6.])
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = {}
        acc = self._grad_acc() if self._grad_acc is not None else None
        if acc is not None:
            acc._hooked = True  # the engine then runs the hook before the node's pre-hooks
        return add_hook(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> Any:
        """Call ``hook(tensor)`` after a leaf's ``.grad`` was accumulated."""
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        if self._post_accumulate_hooks is None:
            self._post_accumulate_hooks = {}
        return add_hook(self._post_accumulate_hooks, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
        grad_variables: Tensor | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor into the ``.grad`` of the leaves.

        Example::

            >>> x = glassgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> (x ** 2).sum().backward()
            >>> x.grad
            tensor([2., 4.])
        """
        from .autograd.api import backward

        if grad_variables is not None:
            _legacy_warning("backward(grad_variables=...)", "backward(gradient=...)")
            gradient = grad_variables
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # --- shape and conversion ----------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Size | int:
        """The shape, or the size of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[wrap_dim(dim, self._data.ndim, "size")]

    @property
    def dtype(self) -> _dtype.dtype:
        """The element type (``glassgrad.float32`` ...)."""
        return _dtype.from_numpy_dtype(self._data.dtype)

    @property
    def device(self) -> device:
        return _CPU

    @property
    def layout(self) -> Any:
        """``glassgrad.strided``: every glassgrad tensor is dense."""
        from ._layout import strided

        return strided

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def is_cpu(self) -> bool:
        return True

    def get_device(self) -> int:
        """-1: the CPU (PyTorch's index of a CPU tensor's device)."""
        return -1

    @property
    def itemsize(self) -> int:
        """Bytes per element."""
        return self._data.itemsize

    @property
    def nbytes(self) -> int:
        """Bytes of all the elements."""
        return self._data.nbytes

    def resize_(self, *sizes: Any, size: Any = None, memory_format: Any = None) -> Tensor:
        """Change the shape in place, keeping the first elements in row-major order (new ones
        are zero here: PyTorch leaves them uninitialised); refused for tensors that require
        grad, as PyTorch refuses.

        Example::

            >>> glassgrad.arange(6.0).resize_(2, 2)
            tensor([[0., 1.],
                    [2., 3.]])
        """
        if size is not None:
            if sizes:
                raise TypeError("resize_() got multiple values for argument 'size'")
            sizes = (size,)
        if not sizes:  # PyTorch's argument parser, before the autograd check
            raise TypeError('resize_() missing 1 required positional arguments: "size"')
        if self._requires_grad and not grad_state.inference:  # an autograd check (see op.py)
            raise RuntimeError("cannot resize variables that require grad")
        shape = (
            tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
        )
        shape = tuple(int(s) for s in shape)
        if shape == self._data.shape:
            return self  # nothing changes, and the version stays (PyTorch)
        if write_hooks:
            before_write(self)
        count = int(np.prod(shape))
        flat = self._data.reshape(-1)
        if count <= flat.size and self._data.flags.c_contiguous:
            self._data = flat[:count].reshape(shape)
        else:
            grown = np.zeros(count, self._data.dtype)
            grown[: min(count, flat.size)] = flat[:count]
            self._data = grown.reshape(shape)
        self._vc[0] += 1
        note_write(self._vc, "resize_")
        return self

    def resize_as_(self, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
        """``resize_`` to ``the_template``'s shape."""
        return self.resize_(the_template._data.shape)

    def cuda(
        self, device: Any = None, non_blocking: bool = False, memory_format: Any = None
    ) -> Tensor:
        """Raises: glassgrad has no CUDA device (see ``glassgrad.cuda.is_available``)."""
        check_device("cuda" if device is None else device)
        return self

    def new(self, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor with this tensor's dtype: ``t.new(2, 3)`` (uninitialised),
        ``t.new([1, 2])`` (from data), ``t.new()`` (empty).

        Example::

            >>> glassgrad.zeros(1, dtype=glassgrad.float64).new([1, 2]).dtype
            glassgrad.float64
        """
        dev = kwargs.pop("device", None)
        if dev is not None:
            check_device(dev)
        return _legacy_new(self.dtype, args, kwargs)

    def __contains__(self, element: Any) -> bool:
        if isinstance(element, (Tensor, int, float, bool)) and not isinstance(element, type):
            return bool((self == element).any().item())
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        """Number of dimensions."""
        return self._data.ndim

    def ndimension(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        """Number of elements."""
        return self._data.size

    nelement = numel

    def element_size(self) -> int:
        return self._data.itemsize

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Row-major and dense (glassgrad has no other memory format: channels-last asks
        are answered for the row-major layout's strides)."""
        if memory_format is not None and getattr(memory_format, "name", "") not in (
            "contiguous_format",
            "preserve_format",
        ):
            return False
        return self._data.flags.c_contiguous

    def stride(self, dim: int | None = None) -> tuple[int, ...] | int:
        strides = tuple(s // self._data.itemsize for s in self._data.strides)
        return strides if dim is None else strides[wrap_dim(dim, self._data.ndim, "stride")]

    def data_ptr(self) -> int:
        return self._data.ctypes.data

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        return self._data.tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The NumPy array sharing this tensor's memory (refused if it requires grad).

        Example::

            >>> glassgrad.ones(2).numpy()
            array([1., 1.], dtype=float32)
        """
        if not force and grad_state.enabled and self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self._data.copy() if force else self._data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = self.numpy()
        return array if dtype is None else array.astype(dtype)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """NumPy ufuncs on tensors (``np.sin(t)``, ``np.add(t, 1)``) compute on the values and
        return tensors, as PyTorch's ``__array_wrap__`` does (so a tensor that requires grad
        raises, as ``numpy()``). An operator with an array or NumPy number on the left
        (``array * t``) is the tensor's reflected operator, recorded by autograd."""
        reflected = _REFLECTED_UFUNCS.get(ufunc)
        if (
            reflected is not None
            and method == "__call__"
            and not kwargs
            and len(inputs) == 2
            and inputs[1] is self
            and not isinstance(inputs[0], Tensor)
        ):
            return getattr(self, reflected)(inputs[0])
        if "out" in kwargs:
            return NotImplemented
        arrays = [x.__array__() if isinstance(x, Tensor) else x for x in inputs]
        result = getattr(ufunc, method)(*arrays, **kwargs)
        if isinstance(result, tuple):
            return tuple(_wrap_ufunc_result(r) for r in result)
        return _wrap_ufunc_result(result)

    def __reduce_ex__(self, protocol: int) -> Any:
        # As PyTorch: the values, requires_grad and public attributes travel (a non-leaf
        # arrives as a leaf; .grad stays behind). Checkpoints stay safetensors: glassgrad.load never
        # unpickles; pickling is the user's own choice.
        attrs = {k: v for k, v in vars(self).items() if not k.startswith("_")}
        return (
            _rebuild_tensor,
            (type(self), self._data.copy(), self._requires_grad, attrs),
        )

    def cpu(self, memory_format: Any = None) -> Tensor:
        """This tensor (glassgrad computes on the CPU)."""
        if memory_format is not None and getattr(memory_format, "name", "") not in (
            "contiguous_format",
            "preserve_format",
        ):
            raise RuntimeError(f"cpu(): memory_format {memory_format} is not supported")
        return self

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self._data.size
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __complex__(self) -> complex:
        return complex(self.item())

    __hash__ = object.__hash__

    def __repr__(self) -> str:
        suffixes = []
        try:
            grad_fn = self.grad_fn
        except RuntimeError:
            # A view made in no-grad mode and changed in place there cannot get a history
            # (reading grad_fn raises): PyTorch prints it as Invalid.
            suffixes.append("grad_fn=<Invalid>")
        else:
            if grad_fn is not None:
                # PyTorch prints the node's class name (a C++ node's unqualified name)
                suffixes.append(f"grad_fn=<{type(grad_fn).__name__}>")
            elif self._requires_grad:
                suffixes.append("requires_grad=True")
        return tensor_repr(self._data, suffixes, _dtype.get_default_dtype().name)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment."
            )
        t = type(self)._from_array(self._data.copy())
        if type(self) is not Tensor:
            t = self._rewrap(t)
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            # Through the setter, as PyTorch's: grad_dtype is not copied, so a gradient of
            # another dtype than the tensor's is refused.
            t.grad = Tensor._from_array(self._grad._data.copy())
        for name, value in self.__dict__.items():
            if not name.startswith("_"):
                setattr(t, name, value)
        memo[id(self)] = t
        return t

    def _rewrap(self, t: Tensor) -> Tensor:
        return t


_REFLECTED_UFUNCS = {
    np.add: "__radd__",
    np.subtract: "__rsub__",
    np.multiply: "__rmul__",
    np.true_divide: "__rtruediv__",
    np.floor_divide: "__rfloordiv__",
    np.remainder: "__rmod__",
    np.power: "__rpow__",
    np.matmul: "__rmatmul__",
    np.equal: "__eq__",
    np.not_equal: "__ne__",
    np.less: "__gt__",
    np.less_equal: "__ge__",
    np.greater: "__lt__",
    np.greater_equal: "__le__",
    np.bitwise_and: "__rand__",
    np.bitwise_or: "__ror__",
    np.bitwise_xor: "__rxor__",
}


def _wrap_ufunc_result(value: Any) -> Any:
    array = np.asarray(value)
    if array.dtype not in _dtype._BY_NUMPY:
        return value  # a type glassgrad has no tensors of: NumPy's result as it is
    return Tensor._from_array(array)


def _rebuild_tensor(cls: type, data: np.ndarray, requires_grad: bool, attrs: dict) -> Tensor:
    t = Tensor._from_array(data)
    t._requires_grad = requires_grad
    if cls is not Tensor:
        stub = object.__new__(cls)
        stub._requires_grad = requires_grad
        t = stub._rewrap(t)
    for name, value in attrs.items():
        setattr(t, name, value)
    return t


def wrap_dim(dim: int, ndim: int, op: str = "") -> int:
    """``dim`` in ``[-ndim, ndim)`` as a non-negative index (a 0-d tensor accepts -1 and 0),
    else PyTorch's IndexError naming ``op``."""
    bound = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{op}: dim must be an int, got {type(dim).__name__}")
    if not -bound <= dim < bound:
        prefix = f"{op}: " if op else ""
        raise IndexError(
            f"{prefix}Dimension out of range (expected to be in range of [{-bound}, "
            f"{bound - 1}], but got {dim})"
        )
    return int(dim) % bound


def _legacy_new(dt: _dtype.dtype, args: tuple, kwargs: dict, cls: type = Tensor) -> Tensor:
    """``Tensor(data)``, ``Tensor(2, 3)``, ``Tensor(size)`` and ``Tensor()``."""
    if kwargs:
        raise TypeError(f"legacy constructor got unexpected keyword arguments {sorted(kwargs)}")
    if not args:
        data = np.empty((0,), dtype=dt.numpy)
    elif len(args) == 1 and isinstance(args[0], Tensor):
        data = args[0]._data.astype(dt.numpy, copy=False)
    elif all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        data = np.zeros(tuple(int(a) for a in args), dtype=dt.numpy)
    elif len(args) == 1 and isinstance(args[0], Size):
        data = np.zeros(tuple(args[0]), dtype=dt.numpy)
    elif len(args) == 1:
        data = np.array(args[0], dtype=dt.numpy)
    else:
        raise TypeError(f"legacy constructor: cannot build a tensor from {args!r}")
    t = object.__new__(cls)
    t._data = data
    t._requires_grad = False
    t._grad = None
    t._node = None
    t._version_counter = INFERENCE_VERSION if grad_state.inference else None
    return t


graph.Tensor = Tensor
