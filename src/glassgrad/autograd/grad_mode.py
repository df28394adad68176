"""Grad mode: whether ops record the graph. The state is per thread, as in PyTorch."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = [
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "is_inference_mode_enabled",
]


_CO_GENERATOR = 0x20  # code flag of generator functions (what inspect checks), without inspect


class _GradState(threading.local):
    enabled = True
    inference = False


state = _GradState()


def is_grad_enabled() -> bool:
    """True if ops currently record the graph (the thread's grad mode).

    Example::

        >>> with glassgrad.no_grad():
        ...     glassgrad.is_grad_enabled()
        False
    """
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class _ModeContext:
    """A context manager that is also a decorator (for plain and generator functions)."""

    def clone(self) -> _ModeContext:
        return type(self)()

    def __call__(self, func: Callable) -> Callable:
        if isinstance(func, type):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        code = getattr(func, "__code__", None)
        if code is not None and code.co_flags & _CO_GENERATOR:

            @functools.wraps(func)
            def generator_wrapper(*args: Any, **kwargs: Any):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except BaseException as exc:
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            try:
                                response = gen.send(request)
                            except StopIteration as stop:
                                return stop.value

            return generator_wrapper

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any):
            with self.clone():
                return func(*args, **kwargs)

        return wrapper


class set_grad_enabled(_ModeContext):
    """Set grad mode on or off, as a function call, a context manager or a decorator.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.set_grad_enabled(False):
        ...     (x * 2).requires_grad
        False
    """

    def __init__(self, mode: bool) -> None:
        # Takes effect at once, so that a plain call works; the context restores on exit.
        self.prev = state.enabled
        self.mode = bool(mode)
        state.enabled = self.mode

    def clone(self) -> set_grad_enabled:
        copy = set_grad_enabled.__new__(set_grad_enabled)
        copy.mode = self.mode
        return copy

    def __enter__(self) -> None:
        if not hasattr(self, "prev"):  # a clone made for a decorated call
            self.prev = state.enabled
        state.enabled = self.mode

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class no_grad(_ModeContext):
    """Context manager and decorator that turns graph recording off.

    Results computed inside have ``requires_grad=False`` even when inputs require grad.

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = False

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class enable_grad(_ModeContext):
    """Context manager and decorator that turns graph recording on (inside ``no_grad``).

    Example::

        >>> x = glassgrad.ones(2, requires_grad=True)
        >>> with glassgrad.no_grad(), glassgrad.enable_grad():
        ...     (x * 2).requires_grad
        True
    """

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc: object) -> None:
        state.enabled = self.prev


class inference_mode(_ModeContext):
    """Like ``no_grad``, for code that will never need gradients (``mode=False`` is a no-op).

    Example::

        >>> with glassgrad.inference_mode():
        ...     y = glassgrad.ones(2, requires_grad=True) * 2
        >>> y.requires_grad
        False
    """

    def __init__(self, mode: bool = True) -> None:
        self.mode = mode

    def clone(self) -> inference_mode:
        return inference_mode(self.mode)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode:
            state.enabled = False
            state.inference = True

    def __exit__(self, *exc: object) -> None:
        state.enabled, state.inference = self.prev
