"""Data types, the default dtype, and PyTorch's type-promotion rules.

Complex dtypes (complex64, complex128) exist for the ops whose results are inherently complex
(``glassgrad.fft``) and the few ops on their results (real, imag, conj, abs, angle, arithmetic);
promotion follows PyTorch's categories bool < integer < floating < complex.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "dtype",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool_",
    "get_default_dtype",
    "set_default_dtype",
    "promote_types",
]

# Category of a dtype for promotion: bool < integer < floating < complex.
_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3
_CATEGORIES = {"b": _BOOL, "u": _INT, "i": _INT, "f": _FLOAT, "c": _COMPLEX}


class dtype:
    """A tensor element type (``glassgrad.float32``, ``glassgrad.int64``, ...).

    Each wraps a NumPy dtype; ``is_floating_point`` tells whether tensors of this type can
    require gradients.
    """

    __slots__ = ("name", "numpy", "is_floating_point", "is_signed", "itemsize", "_category")
    name: str
    numpy: np.dtype[Any]
    is_floating_point: bool
    is_signed: bool
    itemsize: int

    def __init__(self, name: str, np_dtype: type) -> None:
        self.name = name
        self.numpy = np.dtype(np_dtype)
        self.is_floating_point = self.numpy.kind == "f"
        self.is_signed = self.numpy.kind in "fic"
        self.itemsize = self.numpy.itemsize
        self._category = _CATEGORIES[self.numpy.kind]

    @property
    def is_complex(self) -> bool:
        return self._category == _COMPLEX

    def to_real(self) -> dtype:
        """The real dtype of a complex one's parts (itself for the others)."""
        return _BY_NUMPY[_real_of(self.numpy)]

    def to_complex(self) -> dtype:
        """The complex dtype with this floating dtype's precision (itself if complex)."""
        return _BY_NUMPY[complex_of(self.numpy)]

    def __repr__(self) -> str:
        return f"glassgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


float16: dtype = dtype("float16", np.float16)
float32: dtype = dtype("float32", np.float32)
float64: dtype = dtype("float64", np.float64)
complex64: dtype = dtype("complex64", np.complex64)
complex128: dtype = dtype("complex128", np.complex128)
int8: dtype = dtype("int8", np.int8)
int16: dtype = dtype("int16", np.int16)
int32: dtype = dtype("int32", np.int32)
int64: dtype = dtype("int64", np.int64)
uint8: dtype = dtype("uint8", np.uint8)
bool_: dtype = dtype("bool", np.bool_)

_BY_NUMPY = {
    d.numpy: d
    for d in (
        float16,
        float32,
        float64,
        complex64,
        complex128,
        int8,
        int16,
        int32,
        int64,
        uint8,
        bool_,
    )
}
_COMPLEX_OF = {
    np.dtype(np.float16): np.dtype(np.complex64),  # PyTorch's complex32 is not offered
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
}


def complex_of(np_dtype: np.dtype) -> np.dtype:
    """The complex NumPy dtype of a floating one's precision (complex dtypes unchanged)."""
    return np_dtype if np_dtype.kind == "c" else _COMPLEX_OF[np_dtype]


def _real_of(np_dtype: np.dtype) -> np.dtype:
    return (
        np.dtype(np.float32 if np_dtype == np.complex64 else np.float64)
        if np_dtype.kind == "c"
        else np_dtype
    )


_default = float32


def from_numpy_dtype(np_dtype: np.dtype) -> dtype:
    """The glassgrad dtype of a NumPy dtype; raises TypeError for unsupported ones."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        raise TypeError(
            f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
            "and bool."
        )
    return found


def to_numpy_dtype(d: dtype | None) -> np.dtype | None:
    """NumPy dtype for a glassgrad dtype (None stays None)."""
    if d is None:
        return None
    if isinstance(d, dtype):
        return d.numpy
    raise TypeError(f"dtype must be a glassgrad.dtype, got {d!r}")


def get_default_dtype() -> dtype:
    """The floating dtype that factories use when none is given (``float32`` at start).

    Example::

        >>> glassgrad.get_default_dtype()
        glassgrad.float32
    """
    return _default


def set_default_dtype(d: dtype) -> None:
    """Set the floating dtype used by factories and by Python floats in promotion.

    Example::

        >>> glassgrad.set_default_dtype(glassgrad.float64)
        >>> glassgrad.tensor([1.2]).dtype
        glassgrad.float64
    """
    global _default
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {d!r}")
    _default = d


def default_numpy_float() -> np.dtype:
    return _default.numpy


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype to which both can be converted, as ``torch.promote_types``.

    Example::

        >>> glassgrad.promote_types(glassgrad.int64, glassgrad.float32)
        glassgrad.float32
    """
    return _BY_NUMPY[_promote_np(type1.numpy, type2.numpy)]


def _category(np_dtype: np.dtype) -> int:
    kind = np_dtype.kind
    return _FLOAT if kind == "f" else _BOOL if kind == "b" else _COMPLEX if kind == "c" else _INT


def _promote_np(a: np.dtype, b: np.dtype) -> np.dtype:
    if a is b or a == b:
        return a
    ca, cb = _category(a), _category(b)
    if ca != cb:
        if {ca, cb} == {_FLOAT, _COMPLEX}:  # float64 + complex64 -> complex128
            return np.promote_types(a, b)
        # PyTorch: the higher category wins outright (int64 + float16 -> float16)
        return a if ca > cb else b
    return np.promote_types(a, b)


def result_numpy_dtype(operands) -> np.dtype:
    """PyTorch's result type for an op over tensors (ndarrays here) and Python scalars.

    Dimensioned tensors outrank 0-d tensors, which outrank Python scalars; a lower rank only
    matters when its category (bool < int < float) is higher than every higher-ranked one.
    """
    dims = zero_dims = scalars = None
    for x in operands:
        if isinstance(x, np.ndarray):
            if x.ndim:
                dims = x.dtype if dims is None else _promote_np(dims, x.dtype)
            else:
                zero_dims = x.dtype if zero_dims is None else _promote_np(zero_dims, x.dtype)
        elif x is not None:
            if isinstance(x, bool):
                s = _np_bool
            elif isinstance(x, (int, np.integer)):
                s = _np_int64
            elif isinstance(x, (complex, np.complexfloating)):
                s = complex_of(_default.numpy)
            else:
                s = _default.numpy
            scalars = s if scalars is None else _promote_np(scalars, s)
    result = dims
    for lower in (zero_dims, scalars):
        if lower is None:
            continue
        if result is None:
            result = lower
        elif _category(lower) > _category(result):
            # A scalar of a higher category takes the default type of that category; a complex
            # one keeps a floating tensor's precision (PyTorch's combine_categories).
            if _category(lower) == _COMPLEX and _category(result) == _FLOAT:
                result = complex_of(result)
            elif lower is scalars and _category(lower) == _FLOAT:
                result = _default.numpy
            elif lower is scalars and _category(lower) == _INT:
                result = _np_int64
            else:
                result = lower
    return result


_np_bool = np.dtype(np.bool_)
_np_int64 = np.dtype(np.int64)


# PyTorch's scalar type names, as its error messages print them.
_SCALAR_TYPE_NAMES = {
    "float16": "Half",
    "float32": "Float",
    "float64": "Double",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "uint8": "Byte",
    "bool": "Bool",
    "complex64": "ComplexFloat",
    "complex128": "ComplexDouble",
}


def scalar_type_name(np_dtype: np.dtype) -> str:
    """PyTorch's name of a dtype in messages: ``Double``, ``Long``, ``Bool`` ..."""
    name = np.dtype(np_dtype).name
    return _SCALAR_TYPE_NAMES.get(name, name)


def can_cast(result: np.dtype, target: np.dtype) -> bool:
    """PyTorch's ``canCast``: a result may be written into any target of its category or a
    higher one; integers of any sign and width into one another (NumPy's "same_kind" refuses
    signed into unsigned), nothing but bool into bool."""
    result_category, target_category = _category(result), _category(target)
    if target_category == _BOOL:
        return result_category == _BOOL
    return result_category <= target_category


def check_result_cast(result: np.dtype, target: np.dtype) -> None:
    """PyTorch's refusal to write a result into a target of a lower kind (complex into real,
    floating into integer)."""
    if result != target and not can_cast(result, target):
        raise RuntimeError(
            f"result type {scalar_type_name(result)} can't be cast to the desired output type "
            f"{scalar_type_name(target)}"
        )


def tensor_type_name(np_dtype: np.dtype) -> str:
    """PyTorch's legacy tensor type name of a dtype: ``torch.DoubleTensor`` ..."""
    return f"torch.{scalar_type_name(np_dtype)}Tensor"


def type_string(np_dtype: np.dtype) -> str:
    """How ATen's ``toString`` names a CPU tensor's type in its argument checks
    (``checkScalarTypes``, ``checkSameType``): the legacy tensor type, except for bool and
    complex dtypes, which have none (``CPUBoolType``, ``CPUComplexFloatType``)."""
    if np_dtype.kind in "bc":
        return f"CPU{scalar_type_name(np_dtype)}Type"
    return tensor_type_name(np_dtype)


# The C++ type names some PyTorch kernels print (``float``, ``double`` ...).
_C_TYPE_NAMES = {
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "uint8": "unsigned char",
    "uint16": "short unsigned int",
    "uint32": "unsigned int",
    "uint64": "long unsigned int",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def c_type_name(np_dtype: np.dtype) -> str:
    """The C++ name PyTorch's kernels print for a dtype: ``float``, ``double``, ``long int``."""
    name = np.dtype(np_dtype).name
    return _C_TYPE_NAMES.get(name, name)


# The C++ type names PyTorch's checked scalar conversion prints.
_CONVERSION_NAMES = {
    "float16": "c10::Half",
    "float32": "float",
    "float64": "double",
    "complex64": "c10::complex<float>",
    "int8": "int8_t",
    "int16": "int16_t",
    "int32": "int",
    "int64": "int64_t",
    "uint8": "uint8_t",
}


# The largest finite float32 (float64 takes any float).
_FLOAT_LARGEST = {
    np.dtype(np.float32): float(np.finfo(np.float32).max),
    np.dtype(np.float64): math.inf,
}


def is_scalar_argument(value: Any) -> bool:
    """What PyTorch's parser takes for a Scalar: a number, or a 0-d tensor that does not
    require grad (a glassgrad Tensor, recognised by its 0-d ``_data`` array: this module sits
    below the Tensor class)."""
    if isinstance(value, (numbers.Number, np.generic)):
        return True
    data = getattr(value, "_data", None)
    return isinstance(data, np.ndarray) and data.ndim == 0 and not value.requires_grad


def checked_scalar(value: Any, np_dtype: np.dtype, op: str, argument: str = "value") -> Any:
    """``value`` (a Python number) to store in a tensor of ``np_dtype``, or PyTorch's error
    where it does not fit (c10's ``checked_convert``): a complex number with an imaginary part
    into a real dtype, a NaN, an infinity or an out-of-range number into an integer dtype, a
    finite number beyond the range of float16, float32 or complex64. Nothing is silently
    truncated. A negative integer wraps into an unsigned dtype, as in PyTorch; bool, float64
    and complex128 take any number. Anything but a number (a tuple, list, str, None: NumPy
    would broadcast a sequence) is the TypeError of PyTorch's parser for ``op``'s
    ``argument``."""
    if type(value) is float:  # the common case, a float into float32 or float64, first
        largest = _FLOAT_LARGEST.get(np_dtype)
        if largest is not None:
            if math.isfinite(value) and abs(value) > largest:
                raise RuntimeError("value cannot be converted to type float without overflow")
            return value
    if not is_scalar_argument(value):
        raise TypeError(f"{op}(): argument '{argument}' must be Number, not {type(value).__name__}")
    name = _CONVERSION_NAMES.get(np.dtype(np_dtype).name)
    if name is None or isinstance(value, bool) or not isinstance(value, (int, float, complex)):
        return value
    kind = np.dtype(np_dtype).kind
    number = value
    if isinstance(number, complex):
        if number.imag != 0 and kind != "c":
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
        number = number.real if kind != "c" else max(abs(number.real), abs(number.imag))
    if kind in "iu":
        info = np.iinfo(np_dtype)
        if isinstance(number, float) and not math.isfinite(number):
            fits = False
        elif kind == "u":
            fits = abs(number) <= info.max
            if fits and number < 0:
                return int(number) % (info.max + 1)  # wraps, as c10's conversion
        else:
            fits = info.min <= number <= info.max
    elif name == "double":
        fits = True
    else:  # float16, float32, complex64: a finite number beyond the largest finite value
        largest = float(np.finfo(np.float32 if kind == "c" else np_dtype).max)
        fits = not (math.isfinite(number) and abs(number) > largest)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return value
