"""The minimal harness that lets tests ported from PyTorch's test suite run unchanged in spirit.

PyTorch's tests subclass ``torch.testing._internal.common_utils.TestCase``; this is the part of
it they use, over glassgrad tensors: ``assertEqual`` with PyTorch's per-dtype tolerances,
``assertNotEqual``, ``disable_gc``. Nothing here knows about autograd.
"""

from __future__ import annotations

import contextlib
import gc
import unittest
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

import glassgrad

# PyTorch's default tolerances for assertEqual, by dtype (torch.testing._comparison).
_TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}


def _as_array(value: Any) -> Any:
    if isinstance(value, glassgrad.Tensor):
        return value.detach().numpy()
    return value


class TestCase(unittest.TestCase):
    """``assertEqual`` compares tensors, numbers and sequences of them as PyTorch's does."""

    def setUp(self) -> None:
        # glassgrad silences NumPy's floating-point warnings from its own code with a filter
        # set at import; pytest's per-test warning capture can drop it, and tests that count
        # the warnings they record would then see them. The same filter, again:
        warnings.filterwarnings(
            "ignore",
            message=r"(divide by zero|invalid value|overflow|underflow) encountered",
            category=RuntimeWarning,
            module=r"glassgrad\.",
        )

    def assertEqual(  # noqa: N802 (unittest's spelling)
        self,
        first: Any,
        second: Any,
        msg: Any = None,
        *,
        atol: float | None = None,
        rtol: float | None = None,
        exact_dtype: bool = True,
    ) -> None:
        if isinstance(first, glassgrad.Tensor) or isinstance(second, glassgrad.Tensor):
            a, b = np.asarray(_as_array(first)), np.asarray(_as_array(second))
            both_tensors = isinstance(first, glassgrad.Tensor) and isinstance(
                second, glassgrad.Tensor
            )
            if exact_dtype and both_tensors:
                self.assertEqual(a.dtype, b.dtype, msg)
            if both_tensors:
                self.assertEqual(a.shape, b.shape, msg)
            default_rtol, default_atol = _TOLERANCES.get(np.result_type(a, b), (0.0, 0.0))
            np.testing.assert_allclose(
                a,
                np.broadcast_to(b, a.shape) if not both_tensors else b,
                rtol=default_rtol if rtol is None else rtol,
                atol=default_atol if atol is None else atol,
                err_msg=str(msg or ""),
            )
            return
        if isinstance(first, (list, tuple)) and isinstance(second, (list, tuple)):
            self.assertEqual(len(first), len(second), msg)
            for x, y in zip(first, second):
                self.assertEqual(x, y, msg, atol=atol, rtol=rtol, exact_dtype=exact_dtype)
            return
        if isinstance(first, float) or isinstance(second, float):
            if first is None or second is None:
                super().assertEqual(first, second, msg)
                return
            # A Python int beyond int64 (int(sys.float_info.max)) is compared as a float.
            first, second = (float(v) if isinstance(v, int) else v for v in (first, second))
            np.testing.assert_allclose(
                first,
                second,
                rtol=1e-7 if rtol is None else rtol,
                atol=1e-7 if atol is None else atol,
            )
            return
        super().assertEqual(first, second, msg)

    def assertNotWarn(self, callable: Any, msg: str = "") -> None:  # noqa: N802
        """The call emits no warning."""
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            callable()
        self.assertTrue(len(caught) == 0, msg or [str(w.message) for w in caught])

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category: type, regex: str = "") -> Iterator[None]:  # noqa: N802
        """At least one warning of ``category`` whose message matches ``regex``."""
        import re

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        pattern = re.compile(regex)
        self.assertTrue(
            any(
                issubclass(w.category, category) and pattern.search(str(w.message)) for w in caught
            ),
            f"no {category.__name__} matching {regex!r} in {[str(w.message) for w in caught]}",
        )

    def assertNotEqual(self, first: Any, second: Any, msg: Any = None) -> None:  # noqa: N802
        try:
            self.assertEqual(first, second)
        except AssertionError:
            return
        raise AssertionError(msg or f"{first!r} == {second!r}")


@contextlib.contextmanager
def disable_gc() -> Iterator[None]:
    """Run the body with Python's cyclic garbage collector off (as PyTorch's helper)."""
    if gc.isenabled():
        try:
            gc.disable()
            yield
        finally:
            gc.enable()
    else:
        yield


@contextlib.contextmanager
def set_warn_always_context(new_val: bool) -> Iterator[None]:
    """PyTorch's helper: ``set_warn_always(new_val)`` inside (once-per-process warnings
    repeat), and Python's filter to match, so that no earlier warning hides one."""
    old_val = glassgrad.is_warn_always_enabled()
    glassgrad.set_warn_always(new_val)
    try:
        with warnings.catch_warnings():
            if new_val:
                warnings.simplefilter("always")
            yield
    finally:
        glassgrad.set_warn_always(old_val)
