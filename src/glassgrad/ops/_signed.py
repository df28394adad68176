"""Wrappers written with the wrapped function's own signature: the public functions' ``out=``
(``_out.with_out``), NumPy's keyword names (``_numpy_names``) and the methods without ``out=``
(``_out.without_out``).

A wrapper written as ``def wrapper(*args, out=None, **kwargs)`` packs every call into a tuple
and a dict and unpacks them again (~1 us a call, a third of a small op's forward). The wrapper
made here is a ``def`` with the function's parameters, compiled once per function: a call
without ``out=`` and without NumPy's names goes straight to the function, its arguments passed
as they came; any other call goes to the general wrapper (the ``*args, **kwargs`` one, kept as
the one place of those rules) with the arguments the caller gave. Python's own argument errors
(a wrong keyword, too many positional arguments, a missing one) are raised by the new ``def``,
which has the function's parameters and name, so they read as before.

A parameter whose being passed matters to the general wrapper (``sum(x, out=o)`` is refused,
``sum(x, 0, out=o)`` taken; ``dim`` and ``axis`` together are refused) gets a private default
in the ``def``, replaced by the real one on the way to the function.
"""

from __future__ import annotations

import functools
import inspect
import linecache
import os
from typing import Any

__all__ = ["signed_wrapper"]


class _Unset:
    """The default of a parameter whose being passed is looked at (see the module's note)."""

    def __repr__(self) -> str:
        return "<unset>"


_UNSET = _Unset()
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _general_call(
    general: Any,
    names: tuple[str, ...],
    positional: tuple,
    var_positional: tuple,
    keywords: dict,
    out: Any,
    extra: dict,
) -> Any:
    """Call ``general`` with the arguments the caller gave: positional ones up to the first
    unset parameter, the set ones after it by name, ``out`` when given, and the keywords the
    ``def`` did not take (``extra``: NumPy's names, or a wrong keyword for ``general`` to
    refuse as before)."""
    args: list = []
    kwargs: dict = {}
    hole = False
    for name, value in zip(names, positional):
        if value is _UNSET:
            hole = True
        elif hole:
            kwargs[name] = value
        else:
            args.append(value)
    args.extend(var_positional)
    kwargs.update((k, v) for k, v in keywords.items() if v is not _UNSET)
    if out is not None:
        kwargs["out"] = out
    kwargs.update(extra)
    return general(*args, **kwargs)


def signed_wrapper(
    fn: Any,
    general: Any,
    name: str,
    *,
    takes_out: bool,
    takes_extra: bool,
    unset: frozenset[str] = frozenset(),
    drop: str | None = None,
) -> Any:
    """A ``def`` named ``name`` with ``fn``'s parameters (less ``drop``), plus a keyword-only
    ``out=None`` when ``takes_out`` and a ``**`` catch-all when ``takes_extra``: a call with
    neither calls ``fn`` with the arguments as they came, any other ``general``. ``unset``:
    parameters whose being passed ``general`` looks at (see the module's note). Signed as
    ``general`` (``__signature__``), with ``fn``'s docstring and metadata."""
    if not name.isidentifier():
        return general
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != drop]
    namespace: dict[str, Any] = {"_fn": fn, "_general": general, "_call": _general_call}
    namespace["_UNSET"] = _UNSET
    header: list[str] = []
    fast: list[str] = []
    names: list[str] = []
    var_positional = "()"
    keywords: list[str] = []
    keyword_only = False
    last_positional_only = max(
        (i for i, p in enumerate(params) if p.kind is p.POSITIONAL_ONLY), default=None
    )
    for i, p in enumerate(params):
        default = value = ""
        if p.default is not p.empty:
            namespace[f"_d_{p.name}"] = p.default
            default = f"=_d_{p.name}"
            if p.name in unset:
                default = "=_UNSET"
                value = f"(_d_{p.name} if {p.name} is _UNSET else {p.name})"
        value = value or p.name
        if p.kind is p.VAR_POSITIONAL:
            header.append(f"*{p.name}")
            fast.append(f"*{p.name}")
            var_positional = p.name
            keyword_only = True
        elif p.kind is p.KEYWORD_ONLY:
            if not keyword_only:
                header.append("*")
                keyword_only = True
            header.append(f"{p.name}{default}")
            fast.append(f"{p.name}={value}")
            keywords.append(f"{p.name!r}: {p.name}")
        elif p.kind in _POSITIONAL:
            header.append(f"{p.name}{default}")
            fast.append(value)
            names.append(p.name)
        else:  # a **kwargs of fn's own: nothing to gain, the caller keeps ``general``
            return general
        if i == last_positional_only:
            header.append("/")
    conditions = []
    if takes_out:
        if not keyword_only:
            header.append("*")
        header.append("out=None")
        conditions.append("out is None")
    if takes_extra:
        header.append("**__extra")
        conditions.append("not __extra")
    positional = "".join(f"{n}, " for n in names)
    source = (
        f"def {name}({', '.join(header)}):\n"
        f"    if {' and '.join(conditions) or 'True'}:\n"
        f"        return _fn({', '.join(fast)})\n"
        f"    return _call(_general, {tuple(names)!r}, ({positional}), {var_positional}, "
        f"{{{', '.join(keywords)}}}, {'out' if takes_out else 'None'}, "
        f"{'__extra' if takes_extra else '{}'})\n"
    )
    # A file name inside the package: what looks for the user's frame (the in-place write
    # record, the graph explorer) passes over glassgrad's files by their directory.
    filename = os.path.join(os.path.dirname(os.path.abspath(__file__)), f"<signed {name}>")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace["__name__"] = __name__  # warnings' module filters see glassgrad's
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102
    wrapper = namespace[name]
    functools.update_wrapper(wrapper, fn)
    wrapper.__name__ = wrapper.__qualname__ = name
    wrapper.__signature__ = inspect.signature(general)
    wrapper._signed = (fn, takes_out, unset)  # what a wrapper around this one reuses
    return wrapper
