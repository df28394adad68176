"""Tensor factories (``tensor``, ``zeros``, ``randn`` ...) and the random generator."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype
from ._layout import check_factory_options
from ._linspace import linspace_values
from ._tensor import Tensor, check_device

__all__ = [
    "Generator",
    "manual_seed",
    "seed",
    "initial_seed",
    "default_generator",
    "tensor",
    "as_tensor",
    "from_numpy",
    "zeros",
    "ones",
    "full",
    "empty",
    "eye",
    "arange",
    "linspace",
    "rand",
    "randn",
    "randint",
    "randperm",
    "zeros_like",
    "ones_like",
    "full_like",
    "empty_like",
    "rand_like",
    "randn_like",
    "randint_like",
]


class Generator:
    """A seeded source of random numbers (NumPy's PCG64 underneath).

    glassgrad's random streams differ from PyTorch's: the same seed gives reproducible, but
    different, numbers.

    Example::

        >>> g = glassgrad.Generator().manual_seed(0)
        >>> glassgrad.rand(2, generator=g).shape
        glassgrad.Size([2])
    """

    def __init__(self, device: Any = "cpu") -> None:
        self._seed = 67280421310721
        self._rng: np.random.Generator | None = None

    @property
    def rng(self) -> np.random.Generator:
        """The NumPy generator behind this one (made on first use: numpy.random is imported
        only when random numbers are needed)."""
        if self._rng is None:
            self._rng = np.random.default_rng(self._seed)
        return self._rng

    @rng.setter
    def rng(self, value: np.random.Generator) -> None:
        self._rng = value

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._rng = None
        return self

    def seed(self) -> int:
        new = int(np.random.SeedSequence().entropy) % (1 << 63)
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        state = self.rng.bit_generator.state["state"]
        words = [state["state"], state["inc"]]
        return Tensor._from_array(
            np.frombuffer(b"".join(int(w).to_bytes(16, "little") for w in words), np.uint8).copy()
        )

    def set_state(self, new_state: Tensor) -> None:
        raw = new_state._data.tobytes()
        bit = self.rng.bit_generator
        state = bit.state
        state["state"]["state"] = int.from_bytes(raw[:16], "little")
        state["state"]["inc"] = int.from_bytes(raw[16:32], "little")
        bit.state = state


default_generator: Generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (and return it).

    Example::

        >>> _ = glassgrad.manual_seed(0); a = glassgrad.rand(1)
        >>> _ = glassgrad.manual_seed(0); bool((a == glassgrad.rand(1)).all())
        True
    """
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the OS and return the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def _size(size: tuple) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"size must be a sequence of ints, got {size!r}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(size)}")
    return tuple(int(s) for s in size)


def _np_dtype(dtype: Any, default: np.dtype | None = None) -> np.dtype:
    if dtype is None:
        return default if default is not None else _dtype.default_numpy_float()
    if isinstance(dtype, _dtype.dtype):
        return dtype.numpy
    raise TypeError(f"dtype must be a glassgrad.dtype, got {dtype!r}")


def _finish(data: np.ndarray, requires_grad: bool, dev: Any = None) -> Tensor:
    if dev is not None:
        check_device(dev)
    t = Tensor._from_array(data)
    if requires_grad:
        t.requires_grad = True
    return t


def _infer_array(data: Any, dtype: np.dtype | None = None) -> np.ndarray:
    """``data`` as a new array of ``dtype``, or of PyTorch's inferred dtype (Python floats
    take the default dtype, ints int64)."""
    if isinstance(data, Tensor):
        data = data._data
    if isinstance(data, (np.ndarray, np.generic)):
        return np.array(data, dtype=dtype)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in _flat(data)):
        data = _items(data)
    if dtype is not None:
        return np.array(data, dtype=dtype)
    array = np.array(data)
    if array.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if array.dtype.kind == "f":
        return array.astype(_dtype.default_numpy_float())
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "c":  # Python complex numbers: the default float's complex dtype
        return array.astype(_dtype.complex_of(_dtype.default_numpy_float()))
    if array.dtype.kind in "US":
        raise TypeError(f"new(): invalid data type '{array.dtype.kind == 'U' and 'str'}'")
    return array


def _flat(data: Any):
    for x in data:
        if isinstance(x, (list, tuple)):
            yield from _flat(x)
        else:
            yield x


def _items(data: Any) -> Any:
    if isinstance(data, (list, tuple)):
        return [_items(x) for x in data]
    if isinstance(data, Tensor):
        return data._data.tolist()
    return data


def tensor(
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (nested lists, numbers, arrays).

    Python floats take the default dtype (float32), ints int64, bools bool.

    Example::

        >>> glassgrad.tensor([[1, 2], [3, 4]], dtype=glassgrad.float64)
        tensor([[1., 2.],
                [3., 4.]], dtype=glassgrad.float64)
    """
    array = _infer_array(data, None if dtype is None else _np_dtype(dtype))
    return _finish(array, requires_grad, device)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """Like ``tensor``, but shares memory with a NumPy array or Tensor when it can.

    Example::

        >>> a = np.zeros(2, dtype=np.float32); glassgrad.as_tensor(a).numpy() is a
        True
    """
    if isinstance(data, Tensor):
        if dtype is None or dtype.numpy == data._data.dtype:
            return data
        return data.to(dtype)
    if isinstance(data, np.ndarray):
        _dtype.from_numpy_dtype(data.dtype)
        if dtype is None or dtype.numpy == data.dtype:
            return _finish(data, False, device)
        return _finish(data.astype(dtype.numpy), False, device)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray, /) -> Tensor:
    """A tensor sharing memory with ``array`` (changes to one show in the other).

    Example::

        >>> a = np.ones(3); t = glassgrad.from_numpy(a); a[0] = 5; t[0].item()
        5.0
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return Tensor._from_array(array)


def _created(
    op: str,
    data: np.ndarray,
    out: Any,
    requires_grad: bool,
    device: Any,
    layout: Any = None,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A factory's result: its options checked, then a new leaf, or ``data`` written into
    ``out`` (PyTorch's rules: the same dtype, resized if needed)."""
    check_factory_options(op, layout, pin_memory, memory_format)
    if out is None:
        return _finish(data, requires_grad, device)
    if device is not None:
        check_device(device)
    if requires_grad:
        raise RuntimeError(
            f"{op}(): functions with out=... arguments don't support automatic "
            "differentiation, but one of the arguments requires grad."
        )
    from .ops._out import out_result  # the ops package imports this module

    return out_result(op, out, Tensor._from_array(data), (), exact=True)


def _out_dtype(dtype: Any, out: Any, default: np.dtype | None = None) -> np.dtype:
    """The dtype to create: ``dtype``, else ``out``'s, else ``default``."""
    if dtype is None and isinstance(out, Tensor):
        return out._data.dtype
    return _np_dtype(dtype, default)


def _size_argument(op: str, args: tuple, size: Any) -> tuple:
    """The size of ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``."""
    if size is not None:
        if args:
            raise TypeError(f"{op}() got multiple values for argument 'size'")
        args = (size,)
    return _size(args)


def _factory(fill: Any, name: str, doc: str) -> Any:
    def build(args: tuple, size: Any, out: Any, dtype: Any, *options: Any) -> Tensor:
        data = fill(_size_argument(name, args, size), _out_dtype(dtype, out))
        return _created(name, data, out, *options)

    def factory(
        *args: Any,
        size: Any = None,
        out: Any = None,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
    ) -> Tensor:
        return build(args, size, out, dtype, requires_grad, device, layout, pin_memory)

    def factory_with_format(
        *args: Any,
        size: Any = None,
        out: Any = None,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        return build(
            args, size, out, dtype, requires_grad, device, layout, pin_memory, memory_format
        )

    # PyTorch's empty takes a memory_format; its zeros and ones do not.
    chosen = factory_with_format if name == "empty" else factory
    chosen.__name__ = chosen.__qualname__ = name
    chosen.__doc__ = doc
    return chosen


zeros = _factory(
    np.zeros,
    "zeros",
    """A tensor of zeros of the given size (``zeros(2, 3)``, ``zeros((2, 3))`` or
``zeros(size=(2, 3))``).

Example::

    >>> glassgrad.zeros(2, 3).shape
    glassgrad.Size([2, 3])
""",
)
ones = _factory(
    np.ones,
    "ones",
    """A tensor of ones of the given size.

Example::

    >>> glassgrad.ones(2)
    tensor([1., 1.])
""",
)
empty = _factory(
    np.zeros,
    "empty",
    """An uninitialised tensor of the given size (zeros here).

Example::

    >>> glassgrad.empty(2, 3).shape
    glassgrad.Size([2, 3])
""",
)


def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from the value).

    Example::

        >>> glassgrad.full((2,), 7)
        tensor([7, 7])
    """
    if dtype is None and out is None:
        default = _infer_array(fill_value).dtype
    else:
        default = _out_dtype(dtype, out)
    fill_value = _dtype.checked_scalar(fill_value, default, "full", "fill_value")
    data = np.full(_size(tuple(size)), fill_value, dtype=default)
    return _created("full", data, out, requires_grad, device, layout, pin_memory)


def eye(
    n: int,
    m: int | None = None,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """The identity matrix (``n`` x ``m``).

    Example::

        >>> glassgrad.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
    """
    data = np.eye(n, m, dtype=_out_dtype(dtype, out))
    return _created("eye", data, out, requires_grad, device, layout, pin_memory)


def arange(
    start: Any = None,
    end: Any = None,
    step: Any = 1,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` (0 by default) to ``end`` (exclusive) by ``step``; int64 for
    integer arguments. ``arange(5)``, ``arange(2, 5)``, ``arange(end=5)``.

    Example::

        >>> glassgrad.arange(3)
        tensor([0, 1, 2])
    """
    if end is None:
        if start is None:
            raise TypeError("arange() missing required argument 'end'")
        start, end = 0, start
    elif start is None:
        start = 0
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("arange: upper bound and larger bound inconsistent with step sign")
    numbers = (start, end, step)
    is_float = any(
        isinstance(x, float) or (isinstance(x, Tensor) and x.is_floating_point()) for x in numbers
    )
    default = _dtype.default_numpy_float() if is_float else np.dtype(np.int64)
    count = max(math.ceil((float(end) - float(start)) / float(step)), 0)
    values = float(start) + np.arange(count, dtype=np.float64) * float(step)
    data = values.astype(_out_dtype(dtype, out, default))
    return _created("arange", data, out, requires_grad, device, layout, pin_memory)


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    Example::

        >>> glassgrad.linspace(0, 1, 3)
        tensor([0.0000, 0.5000, 1.0000])
    """
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    start, end = (x.item() if isinstance(x, Tensor) else x for x in (start, end))
    data = linspace_values(start, end, steps, _out_dtype(dtype, out))
    return _created("linspace", data, out, requires_grad, device, layout, pin_memory)


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).rng


def _random_factory(name: str, draw: Any, doc: str, complex_scale: float = 1.0) -> Any:
    """A random factory drawing with ``draw(rng, shape)``; for a complex dtype the real and
    imaginary parts are two draws, scaled by ``complex_scale`` (PyTorch's randn gives each
    part variance 1/2, so that the complex value has variance 1)."""

    def factory(
        *args: Any,
        size: Any = None,
        generator: Generator | None = None,
        out: Any = None,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
    ) -> Tensor:
        shape = _size_argument(name, args, size)
        target = np.dtype(_out_dtype(dtype, out))
        rng = _rng(generator)
        values = draw(rng, shape)
        if target.kind == "c":
            values = (values + 1j * draw(rng, shape)) * complex_scale
        return _created(name, values.astype(target), out, requires_grad, device, layout, pin_memory)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = doc
    return factory


rand = _random_factory(
    "rand",
    lambda rng, shape: rng.random(shape, dtype=np.float64),
    """Uniform random values in ``[0, 1)``.

Example::

    >>> glassgrad.rand(2, 3).shape
    glassgrad.Size([2, 3])
""",
)
randn = _random_factory(
    "randn",
    lambda rng, shape: rng.standard_normal(shape),
    """Standard normal random values.

Example::

    >>> glassgrad.randn(4).shape
    glassgrad.Size([4])
""",
    complex_scale=math.sqrt(0.5),
)


def randint(
    low: Any = None,
    high: Any = None,
    size: Any = None,
    *,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """Random integers in ``[low, high)`` (int64): ``randint(high, size)`` or
    ``randint(low, high, size)``.

    Example::

        >>> glassgrad.randint(0, 10, (3,)).dtype
        glassgrad.int64
    """
    if size is None and high is not None and not isinstance(high, (int, np.integer)):
        low, high, size = 0, low, high  # randint(high, size), PyTorch's first overload
    if low is None:
        low = 0
    if high is None or size is None:
        raise TypeError("randint() missing required arguments: 'high' and 'size'")
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    values = _rng(generator).integers(low, high, _size(tuple(size)))
    data = values.astype(_out_dtype(dtype, out, np.dtype(np.int64)))
    return _created("randint", data, out, requires_grad, device, layout, pin_memory)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    out: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of ``0 .. n-1``.

    Example::

        >>> sorted(glassgrad.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    values = _rng(generator).permutation(n)
    data = values.astype(_out_dtype(dtype, out, np.dtype(np.int64)))
    return _created("randperm", data, out, requires_grad, device, layout, pin_memory)


def _like(factory: Any, name: str, random: bool = False) -> Any:
    def build(
        input: Tensor, dtype: Any, layout: Any, device: Any, pin_memory: bool,
        requires_grad: bool, memory_format: Any, **generator: Any,
    ) -> Tensor:  # fmt: skip
        check_factory_options(name, layout, pin_memory, memory_format)
        dt = dtype if dtype is not None else input.dtype
        return factory(
            input._data.shape, dtype=dt, device=device, requires_grad=requires_grad, **generator
        )

    def like(
        input: Tensor,
        *,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        return build(input, dtype, layout, device, pin_memory, requires_grad, memory_format)

    def random_like(
        input: Tensor,
        *,
        generator: Generator | None = None,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        return build(
            input, dtype, layout, device, pin_memory, requires_grad, memory_format,
            generator=generator,
        )  # fmt: skip

    chosen = random_like if random else like
    chosen.__name__ = chosen.__qualname__ = name
    chosen.__doc__ = f"``{factory.__name__}`` with the shape (and by default dtype) of ``input``."
    return chosen


zeros_like = _like(zeros, "zeros_like")
ones_like = _like(ones, "ones_like")
empty_like = _like(empty, "empty_like")
rand_like = _like(rand, "rand_like", random=True)
randn_like = _like(randn, "randn_like", random=True)


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """``full`` with the shape (and by default dtype) of ``input``."""
    check_factory_options("full_like", layout, pin_memory, memory_format)
    dt = dtype if dtype is not None else input.dtype
    return full(input._data.shape, fill_value, dtype=dt, device=device, requires_grad=requires_grad)


def randint_like(
    input: Tensor,
    low: Any = None,
    high: Any = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """``randint`` with the shape (and by default dtype) of ``input``: ``randint_like(x, high)``
    or ``randint_like(x, low, high)``."""
    check_factory_options("randint_like", layout, pin_memory, memory_format)
    if high is None:
        low, high = 0, low
    if low is None:
        low = 0
    dt = dtype if dtype is not None else input.dtype
    return randint(
        low, high, input._data.shape, generator=generator, dtype=dt, device=device,
        requires_grad=requires_grad,
    )  # fmt: skip


def _new(factory: Any, name: str) -> Any:
    def method(
        self: Tensor,
        *size: Any,
        dtype: Any = None,
        layout: Any = None,
        device: Any = None,
        pin_memory: bool = False,
        requires_grad: bool = False,
        **named_size: Any,
    ) -> Tensor:
        if set(named_size) - {"size"}:  # PyTorch's keywords only: no out=, no memory_format=
            unexpected = sorted(set(named_size) - {"size"})[0]
            raise TypeError(f"{name}() got an unexpected keyword argument {unexpected!r}")
        return factory(
            *size, **named_size, dtype=dtype or self.dtype, layout=layout, device=device,
            pin_memory=pin_memory, requires_grad=requires_grad,
        )  # fmt: skip

    method.__name__ = method.__qualname__ = name
    return method


def _new_tensor(
    self: Tensor,
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    check_factory_options("new_tensor", pin_memory=pin_memory)
    return tensor(data, dtype=dtype or self.dtype, device=device, requires_grad=requires_grad)


def _new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    return full(
        size, fill_value, dtype=dtype or self.dtype, layout=layout, device=device,
        pin_memory=pin_memory, requires_grad=requires_grad,
    )  # fmt: skip


Tensor.new_zeros = _new(zeros, "new_zeros")
Tensor.new_ones = _new(ones, "new_ones")
Tensor.new_empty = _new(empty, "new_empty")
Tensor.new_tensor = _new_tensor
Tensor.new_full = _new_full
