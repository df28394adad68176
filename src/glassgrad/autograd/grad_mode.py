"""Grad mode and inference mode: whether ops record the graph. The state is per thread, as
in PyTorch.

Inference mode (PyTorch's ``InferenceMode``) turns recording off even where grad mode is on
(``enable_grad`` inside it changes ``is_grad_enabled()`` only), and the tensors made inside
it are *inference tensors*: they track no version (their version counter is
``INFERENCE_VERSION``), may be changed in place only inside inference mode, and may not be
saved for backward. While no thread is inside ``inference_mode()``, no code path pays for
this: tensor creation learns to mark inference tensors only while one is (see
``on_inference_change``).
"""

from __future__ import annotations

import functools
import threading
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
    "set_multithreading_enabled",
    "is_multithreading_enabled",
]


_CO_GENERATOR = 0x20  # code flag of generator functions (what inspect checks), without inspect


class _GradState(threading.local):
    enabled = True  # ops record; outside inference mode, also the grad mode (the hot flag)
    inference = False
    grad = False  # the grad mode while inference mode is on (recording stays off)


state: _GradState = _GradState()


def _set_grad_mode(mode: bool) -> None:
    if state.inference:
        state.grad = mode
    else:
        state.enabled = mode


INPLACE_ON_INFERENCE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details."
)


class _InferenceVersion(list[int]):
    """The version counter of every inference tensor: PyTorch's track no version. It reads
    as a fixed nonzero version, so that saving one for backward takes the checked path
    (``op._saved_versions``); a bump is ignored inside inference mode and is PyTorch's error
    outside (as ``VariableVersion::bump``: the in-place op has already written)."""

    __slots__ = ()

    def __setitem__(self, index: Any, value: Any) -> None:
        if not state.inference:
            raise RuntimeError(INPLACE_ON_INFERENCE_ERROR)


INFERENCE_VERSION = _InferenceVersion([1])

# Called with True when the first thread enters inference mode and with False when the last
# leaves: tensor creation swaps in its inference-marking form only meanwhile (_tensor.py).
on_inference_change: list[Callable[[bool], None]] = []
_inference_lock = threading.Lock()
_inference_depth = [0]  # inference_mode(True) contexts open, all threads together


def _count_inference(delta: int) -> None:
    with _inference_lock:
        before = _inference_depth[0]
        _inference_depth[0] = before + delta
        if (before == 0) != (_inference_depth[0] == 0):
            for callback in on_inference_change:
                callback(before == 0)


def is_grad_enabled() -> bool:
    """True if grad mode is on: ops record the graph (outside inference mode).

    Example::

        >>> with glassgrad.no_grad():
        ...     glassgrad.is_grad_enabled()
        False
    """
    return state.grad if state.inference else state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` (and not inside a nested ``inference_mode(False)``).

    Example::

        >>> with glassgrad.inference_mode():
        ...     glassgrad.is_inference_mode_enabled()
        True
    """
    return state.inference


class _ModeContext:
    """A context manager that is also a decorator (for plain and generator functions)."""

    def clone(self) -> _ModeContext:
        return type(self)()

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if isinstance(func, type):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func

            def func(*args: Any, **kwargs: Any) -> Any:  # as PyTorch: the class is constructed
                return cls(*args, **kwargs)

        code = getattr(func, "__code__", None)
        if code is not None and code.co_flags & _CO_GENERATOR:
            return self._wrap_generator(func)

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper

    def _wrap_generator(self, func: Callable) -> Callable:
        """The generator runs in this mode at each step; the caller's mode between steps."""

        @functools.wraps(func)
        def generator_wrapper(*args: Any, **kwargs: Any):
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator_wrapper


class _NoParamDecorator(_ModeContext):
    """``mode(fn)`` and ``@mode`` without parentheses decorate ``fn`` directly, as
    PyTorch's ``no_grad`` and ``enable_grad`` allow."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class set_grad_enabled(_ModeContext):
    """Set grad mode on or off, as a function call, a context manager or a decorator.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.set_grad_enabled(False):
        ...     (x * 2).requires_grad
        False
    """

    prev: bool
    mode: bool

    def __init__(self, mode: bool) -> None:
        # Takes effect at once, so that a plain call works; the context restores on exit.
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        _set_grad_mode(self.mode)

    def clone(self) -> set_grad_enabled:
        copy = set_grad_enabled.__new__(set_grad_enabled)
        copy.mode = self.mode
        return copy

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        # Used as a decorator, the call that made this object changes nothing: the mode
        # applies inside the decorated function only.
        _set_grad_mode(self.prev)
        return super().__call__(func)

    def __enter__(self) -> None:
        if not hasattr(self, "prev"):  # a clone made for a decorated call
            self.prev = is_grad_enabled()
        _set_grad_mode(self.mode)

    def __exit__(self, *exc: object) -> None:
        _set_grad_mode(self.prev)


_multithreading = [True]  # process-wide, as PyTorch's engine setting


def is_multithreading_enabled() -> bool:
    """Whether backward may use worker threads (PyTorch: one per device). glassgrad's engine
    runs on the calling thread whatever the setting; deep re-entrant backward still moves to
    fresh threads.

    Example::

        >>> glassgrad.autograd.is_multithreading_enabled()
        True
    """
    return _multithreading[0]


class set_multithreading_enabled(_ModeContext):
    """Turn the multithreaded backward on or off, as a call, a context manager or a
    decorator (the previous setting comes back on exit). Only the flag: glassgrad's engine
    runs backward on the calling thread either way.

    Example::

        >>> with glassgrad.autograd.set_multithreading_enabled(False):
        ...     glassgrad.autograd.is_multithreading_enabled()
        False
    """

    prev: bool
    mode: bool

    def __init__(self, mode: bool) -> None:
        self.prev = _multithreading[0]
        self.mode = bool(mode)
        _multithreading[0] = self.mode

    def clone(self) -> set_multithreading_enabled:
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _multithreading[0] = self.prev


class no_grad(_NoParamDecorator):
    """Context manager and decorator that turns graph recording off.

    Results computed inside have ``requires_grad=False`` even when inputs require grad.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    prev: bool

    def __enter__(self) -> None:
        if state.inference:
            self.prev = state.grad
            state.grad = False
        else:
            self.prev = state.enabled
            state.enabled = False

    def __exit__(self, *exc: object) -> None:
        _set_grad_mode(self.prev)


class enable_grad(_NoParamDecorator):
    """Context manager and decorator that turns graph recording on (inside ``no_grad``).

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.no_grad(), glassgrad.enable_grad():
        ...     (x * 2).requires_grad
        True
    """

    prev: bool

    def __enter__(self) -> None:
        if state.inference:
            self.prev = state.grad
            state.grad = True
        else:
            self.prev = state.enabled
            state.enabled = True

    def __exit__(self, *exc: object) -> None:
        _set_grad_mode(self.prev)


class inference_mode(_ModeContext):
    """Like ``no_grad``, for code that will never need gradients: nothing records (even
    under ``enable_grad``) and the tensors made inside are inference tensors
    (``Tensor.is_inference()``), which track no version and cannot be saved for backward or
    changed in place outside inference mode. Views of ordinary tensors stay ordinary tensors.
    ``inference_mode(False)`` turns both modes off inside: inference mode off, grad mode on
    (as PyTorch's). Also a decorator, with or without parentheses.

    Example::

        >>> with glassgrad.inference_mode():
        ...     y = glassgrad.ones(2, requires_grad=True) * 2
        >>> y.requires_grad, y.is_inference()
        (False, True)
    """

    mode: bool
    prev: tuple[bool, bool, bool]

    def __new__(cls, mode: Any = True) -> Any:
        if mode is None or isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference, state.grad)
        # PyTorch's InferenceMode guard sets grad mode to the opposite of inference mode.
        if self.mode:
            _count_inference(1)
            state.enabled = state.grad = False
            state.inference = True
        else:
            state.enabled = True
            state.inference = False

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference, state.grad = self.prev
        if self.mode:
            _count_inference(-1)
