"""The short paths of in-place writes and of the error function (issue 18) give what the paths
they shorten give: the same values bit for bit, the same version bumps, records and errors."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import glassgrad
from glassgrad._dtype import checked_scalar
from glassgrad.autograd import op
from glassgrad.autograd.inplace_record import last_write
from glassgrad.ops import _erf
from glassgrad.ops._registry import REGISTRY, NoGrad
from glassgrad.ops.inplace_functions import FUNCTIONS

# The functions made from Tensor methods (torch.relu_ ... are nn.functional's own).
METHODS = sorted(n for n, f in FUNCTIONS.items() if f.__module__ == FUNCTIONS["exp_"].__module__)


def _leaf(value: object) -> object:
    if isinstance(value, NoGrad):
        value = value.array
    if isinstance(value, np.ndarray):
        return glassgrad.from_numpy(value.copy())
    if isinstance(value, list):
        return [_leaf(v) for v in value]
    return value


@pytest.mark.parametrize("name", METHODS)
def test_inplace_function_by_position_is_the_bound_call(name: str) -> None:
    # By position the function skips ``Signature.bind``; ``input=`` by keyword goes through it.
    sample = REGISTRY[name].samples(np.random.default_rng(0))[0]
    function = FUNCTIONS[name]
    results = []
    for by_keyword in (False, True):
        args = [_leaf(a) for a in sample.args]
        kwargs = {k: _leaf(v) for k, v in sample.kwargs.items()}
        x = args[0]
        if by_keyword:
            out = function(*args[1:], input=x, **kwargs) if not args[1:] else None
            if out is None:  # input by keyword with positional arguments after it: bind it
                bound = inspect.signature(function).bind(*args, **kwargs)
                out = getattr(x, name)(*bound.args[1:], **bound.kwargs)
        else:
            out = function(*args, **kwargs)
        assert out is x
        results.append((x.numpy().tobytes(), x.shape, x.stride(), x._version))
    assert results[0] == results[1]


def test_inplace_function_errors_are_the_bound_calls() -> None:
    x = glassgrad.zeros(3)
    with pytest.raises(TypeError, match="clamp_max_"):
        glassgrad.clamp_max_(x)  # missing max: bind's error
    with pytest.raises(TypeError, match="exp_"):
        glassgrad.exp_(x, 1)  # one argument too many
    with pytest.raises(TypeError, match="round_"):
        glassgrad.round_(x, 1)  # decimals is keyword-only
    with pytest.raises(TypeError, match="addmv_"):
        glassgrad.addmv_(x, glassgrad.zeros(3, 2), glassgrad.zeros(2), gamma=1)
    assert glassgrad.round_(glassgrad.tensor([0.26]), decimals=1).item() == pytest.approx(0.3)


def _overlap_reference(out: np.ndarray, src: np.ndarray) -> str:
    # op._overlap before its memory-bounds test (np.may_share_memory) came first.
    if out.size == 0 or src.size == 0 or not (op._dense(out) and op._dense(src)):
        return "none"
    (a_begin, a_end), (b_begin, b_end) = op._extent(out), op._extent(src)
    if a_begin == b_begin and a_end == b_end:
        return "full" if out.strides == src.strides else "partial"
    return "partial" if a_begin < b_end and b_begin < a_end else "none"


def test_overlap_status_is_the_extent_comparison() -> None:
    base = np.arange(60.0).reshape(6, 10)
    other = np.arange(60.0)
    views = [
        base,
        base[1:],
        base[:, 2:5],
        base[::2],
        base.T,
        base[2:4, 3:7],
        base[0],
        base[:0],
        base.reshape(-1)[5:35],
        base.reshape(-1)[::-1],
        np.broadcast_to(base[0], (3, 10)),
        other,
        other[10:20],
    ]
    for a in views:
        for b in views:
            assert op._overlap(a, b) == _overlap_reference(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8])
def test_checked_scalar_float_path_is_the_general_one(dtype: type) -> None:
    # A dtype object takes the short path for float32/float64; the scalar type, the general one.
    for value in (0.5, -3.0, 1e38, 3.5e38, -3.5e38, 1e300, float("inf"), float("nan"), 70000.0):
        outcomes = []
        for target in (np.dtype(dtype), dtype):
            try:
                outcomes.append(("value", repr(checked_scalar(value, target, "fill_"))))
            except RuntimeError as error:
                outcomes.append(("error", str(error)))
        assert outcomes[0] == outcomes[1]


def test_inplace_write_without_grad_checks_and_records() -> None:
    x = glassgrad.tensor([0.5, -1.0])
    before = x._version
    line = inspect.currentframe().f_lineno + 1
    x.neg_()  # the line the record names
    assert x._version == before + 1
    what, where = last_write(x._version_counter)
    assert what == "NegBackward0 (in place)"
    assert where[1:3] == (line, "test_inplace_write_without_grad_checks_and_records")
    assert "x.neg_()" in where[3]
    expanded = glassgrad.zeros(1).expand(3)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        expanded.neg_()
    frozen = glassgrad.from_numpy(np.zeros(2, np.float32))
    frozen._data.flags.writeable = False
    with pytest.raises(RuntimeError, match="read-only"):
        frozen.neg_()
    y = glassgrad.arange(6.0)
    with pytest.raises(RuntimeError, match="refer to a single memory location"):
        y[1:].copy_(y[:-1])


def _erf_nonnegative_reference(m: np.ndarray) -> np.ndarray:
    # _erf._erf_nonnegative before the one-element path and the 0-d constants.
    inside = m < _erf._GRID_END
    index = np.rint(np.where(inside, m / _erf._STEP, 0.0)).astype(np.intp)
    offset = np.where(inside, m - index * _erf._STEP, 0.0)
    coefficients = _erf._TABLE_BY_DEGREE.take(index, axis=1)
    result = np.multiply(coefficients[_erf._DEGREE], offset, out=np.empty_like(offset))
    for k in range(_erf._DEGREE - 1, 0, -1):
        result += coefficients[k]
        result *= offset
    result += coefficients[0]
    return np.where(inside, result, np.where(np.isnan(m), m, 1.0))


def _erfcx_continued_fraction_reference(x: np.ndarray) -> np.ndarray:
    denominator = x.copy()
    for k in range(_erf._CONTINUED_FRACTION_DEPTH, 0, -1):
        denominator = x + (0.5 * k) / denominator
    return 1.0 / (_erf._SQRT_PI * denominator)


def test_erf_paths_are_the_replaced_formulas_bit_for_bit() -> None:
    rng = np.random.default_rng(18)
    nans = np.array([0x7FF8000000000123, 0xFFF8000000000456], np.uint64).view(np.float64)
    special = [0.0, 6.0, 5.999999999, 6.0625, 1e-310, 5e-324, 1e300, np.inf, np.nan]
    m = np.abs(np.concatenate([rng.standard_normal(3000) * 3, np.linspace(0, 7, 1121), special]))
    m = np.concatenate([m, nans])
    expected = _erf_nonnegative_reference(m)
    assert _erf._erf_nonnegative(m).tobytes() == expected.tobytes()
    for i in range(0, m.size, 7):  # one element: the out-of-place Horner steps
        assert _erf._erf_nonnegative(m[i : i + 1]).tobytes() == expected[i : i + 1].tobytes()
    layout = np.asfortranarray(m[:35].reshape(5, 7))  # laid out as the values are
    got = _erf._erf_nonnegative(layout)
    assert got.strides == _erf_nonnegative_reference(layout).strides
    far = 2.0 + np.abs(rng.standard_normal(500)) * 10
    got = _erf._erfcx_continued_fraction(far)
    assert got.tobytes() == _erfcx_continued_fraction_reference(far).tobytes()


def test_erfc_of_finite_values_is_the_masked_path() -> None:
    # All finite: erfc skips the masks; with a NaN or an infinity in the array it takes them.
    rng = np.random.default_rng(5)
    finite = np.concatenate([rng.standard_normal(500) * 4, [0.0, -0.0, 2.0, -2.0, 30.0, -30.0]])
    masked = _erf.erfc(np.concatenate([finite, [np.nan, np.inf, -np.inf]]))
    assert _erf.erfc(finite).tobytes() == masked[: finite.size].tobytes()
    assert np.isnan(masked[-3]) and masked[-2] == 0.0 and masked[-1] == 2.0


def _broadcast_copy(self: object, x: np.ndarray, src: object) -> np.ndarray:
    # CopyBackwards' forward before its short paths: NumPy's broadcast_to, then the cast
    return np.broadcast_to(src, np.broadcast_shapes(x.shape, np.shape(src))).astype(x.dtype)


def _copy_programs() -> list:
    def number_cast(lib: object) -> object:
        x = lib.zeros(3, dtype=lib.int32)
        x.copy_(lib.tensor([1.7, -2.5, 3e9]))  # float into int: C's cast, as broadcast_to's
        return x

    def zero_d(lib: object) -> object:
        x = lib.zeros(2, 3)
        x.copy_(lib.tensor(2.5, dtype=lib.float64))
        x[1] = 7  # a number: a 0-d source
        x[0, 1:] = True
        return x

    def same_shape(lib: object) -> object:
        x = lib.zeros(2, 2)
        x.copy_(lib.tensor([[1.0, 2.0], [3.0, 4.0]]).t())
        x.copy_(x)  # the very same memory: returns before any check
        x[:] = x.flip(0)  # a slice that keeps everything: no view
        return x

    def broadcast(lib: object) -> object:
        x = lib.zeros(2, 3)
        x.copy_(lib.tensor([1.0, 2.0, 3.0]))
        x[0:1] = lib.tensor([[5.0, 6.0, 7.0]])
        return x

    return [number_cast, zero_d, same_shape, broadcast]


@pytest.mark.parametrize("program", _copy_programs(), ids=lambda p: p.__name__)
def test_copy_short_paths_are_the_broadcast_copy(program: object, monkeypatch) -> None:
    from glassgrad.ops.conversion import CopyBackwards

    def run() -> tuple:
        with np.errstate(invalid="ignore"):
            x = program(glassgrad)
        return x.numpy().tobytes(), x.dtype, x.stride(), x._version

    fast = run()
    monkeypatch.setattr(CopyBackwards, "forward", _broadcast_copy)
    assert run() == fast


def test_setitem_of_one_key_is_the_key_walk(monkeypatch) -> None:
    from glassgrad.ops import index_put

    def run() -> list:
        seen = []
        for key in (0, -1, slice(1, 3), slice(None), slice(0, 9), slice(None, None, 2)):
            base = glassgrad.arange(6.0, requires_grad=True)
            x = base * 1
            x[key] = 0.5
            x[key] = glassgrad.tensor(2.0, requires_grad=True)
            x.sum().backward()
            seen.append((x.detach().numpy().tobytes(), type(x.grad_fn).__name__, x._version))
            seen.append(base.grad.numpy().tobytes())
        for key, error in ((6, IndexError), (slice(None, None, -1), ValueError)):
            with pytest.raises(error):
                glassgrad.zeros(6)[key] = 1.0
        return seen

    fast = run()
    monkeypatch.setattr(index_put, "_one_basic_key", lambda input, key: None)
    assert run() == fast
