"""Tensor factories (``tensor``, ``zeros``, ``randn`` ...) and the random generator."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from . import _dtype
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


default_generator = Generator()


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


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``array`` (changes to one show in the other).

    Example::

        >>> a = np.ones(3); t = glassgrad.from_numpy(a); a[0] = 5; t[0].item()
        5.0
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    _dtype.from_numpy_dtype(array.dtype)
    return Tensor._from_array(array)


def _factory(fill: Any, name: str, doc: str) -> Any:
    def factory(
        *size: Any,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        out: Any = None,
        layout: Any = None,
        pin_memory: bool = False,
    ) -> Tensor:
        shape = _size(size)
        return _finish(fill(shape, _np_dtype(dtype)), requires_grad, device)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = doc
    return factory


zeros = _factory(
    np.zeros,
    "zeros",
    """A tensor of zeros of the given size.

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
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from the value).

    Example::

        >>> glassgrad.full((2,), 7)
        tensor([7, 7])
    """
    if dtype is None:
        default = _infer_array(fill_value).dtype
    else:
        default = _np_dtype(dtype)
    return _finish(np.full(_size(tuple(size)), fill_value, dtype=default), requires_grad, device)


def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The identity matrix (``n`` x ``m``).

    Example::

        >>> glassgrad.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad, device)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 for integer arguments.

    Example::

        >>> glassgrad.arange(3)
        tensor([0, 1, 2])
    """
    if end is None:
        start, end = 0, start
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
    return _finish(values.astype(_np_dtype(dtype, default)), requires_grad, device)


def linspace(
    start: float,
    end: float,
    steps: int,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    Example::

        >>> glassgrad.linspace(0, 1, 3)
        tensor([0.0000, 0.5000, 1.0000])
    """
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    values = np.linspace(float(start), float(end), steps)
    return _finish(values.astype(_np_dtype(dtype)), requires_grad, device)


def _rng(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).rng


def rand(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Uniform random values in ``[0, 1)``.

    Example::

        >>> glassgrad.rand(2, 3).shape
        glassgrad.Size([2, 3])
    """
    dt = _np_dtype(dtype)
    values = _rng(generator).random(_size(size), dtype=np.float64).astype(dt)
    return _finish(values, requires_grad, device)


def randn(
    *size: Any,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Standard normal random values.

    Example::

        >>> glassgrad.randn(4).shape
        glassgrad.Size([4])
    """
    dt = _np_dtype(dtype)
    values = _rng(generator).standard_normal(_size(size)).astype(dt)
    return _finish(values, requires_grad, device)


def randint(
    low: int,
    high: int | None = None,
    size: Sequence[int] = (),
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Random integers in ``[low, high)`` (int64).

    Example::

        >>> glassgrad.randint(0, 10, (3,)).dtype
        glassgrad.int64
    """
    if high is None:
        low, high = 0, low
    elif not isinstance(high, int) and isinstance(high, Sequence):
        low, high, size = 0, low, high  # randint(high, size), PyTorch's second overload
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    values = _rng(generator).integers(low, high, _size(tuple(size)))
    return _finish(values.astype(_np_dtype(dtype, np.dtype(np.int64))), requires_grad, device)


def randperm(
    n: int,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of ``0 .. n-1``.

    Example::

        >>> sorted(glassgrad.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    values = _rng(generator).permutation(n)
    return _finish(values.astype(_np_dtype(dtype, np.dtype(np.int64))), requires_grad, device)


def _like(factory: Any, name: str) -> Any:
    def like(
        input: Tensor,
        *,
        dtype: Any = None,
        device: Any = None,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor:
        dt = dtype if dtype is not None else input.dtype
        return factory(input._data.shape, dtype=dt, device=device, requires_grad=requires_grad)

    like.__name__ = like.__qualname__ = name
    like.__doc__ = f"``{factory.__name__}`` with the shape (and by default dtype) of ``input``."
    return like


zeros_like = _like(zeros, "zeros_like")
ones_like = _like(ones, "ones_like")
empty_like = _like(empty, "empty_like")
rand_like = _like(rand, "rand_like")
randn_like = _like(randn, "randn_like")


def full_like(
    input: Tensor, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    """``full`` with the shape (and by default dtype) of ``input``."""
    dt = dtype if dtype is not None else input.dtype
    return full(input._data.shape, fill_value, dtype=dt, requires_grad=requires_grad)


def randint_like(input: Tensor, low: int, high: int | None = None, *, dtype: Any = None) -> Tensor:
    """``randint`` with the shape (and by default dtype) of ``input``."""
    dt = dtype if dtype is not None else input.dtype
    return randint(low, high, input._data.shape, dtype=dt)


def _new(factory: Any, name: str) -> Any:
    def method(
        self: Tensor, *size: Any, dtype: Any = None, requires_grad: bool = False, **kwargs: Any
    ) -> Tensor:
        return factory(*size, dtype=dtype or self.dtype, requires_grad=requires_grad, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


def _new_tensor(
    self: Tensor, data: Any, *, dtype: Any = None, requires_grad: bool = False
) -> Tensor:
    return tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def _new_full(
    self: Tensor,
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    return full(size, fill_value, dtype=dtype or self.dtype, requires_grad=requires_grad)


Tensor.new_zeros = _new(zeros, "new_zeros")
Tensor.new_ones = _new(ones, "new_ones")
Tensor.new_empty = _new(empty, "new_empty")
Tensor.new_tensor = _new_tensor
Tensor.new_full = _new_full
