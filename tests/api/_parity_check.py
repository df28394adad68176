"""Does glassgrad accept every call shape PyTorch documents for a name both have?

For each PyTorch overload three calls are formed (every parameter in its slot; only the
required ones; every keyword-able parameter by name) and bound to glassgrad's signature. A
call that does not bind is a disagreement; it counts as a mismatch only when a real call,
with values made from PyTorch's annotations, is accepted by PyTorch and refused by
glassgrad's argument binding (a TypeError before the op runs).
"""

from __future__ import annotations

import inspect
import re
import warnings
from typing import Any

import torch

import glassgrad as gg

from ._torch_signatures import (
    KEYWORD_ONLY,
    POSITIONAL,
    POSITIONAL_ONLY,
    VAR_POSITIONAL,
    Overload,
)

# Overloads whose parameters glassgrad has no objects for (named dims, storages, complex
# and quantized types, memory formats of sparse layouts): PyTorch-only by scope.
_OUT_OF_SCOPE_TYPES = re.compile(
    r"Dimname|DimnameList|Storage|ScriptObject|QScheme|_qscheme|Stream|"
    r"_dispatchkey|DispatchKey|SymInt\]\]"
)


def call_shapes(overload: Overload) -> list[tuple[str, list, dict]]:
    """(label, positional parameters, keyword parameters) of the three calls."""
    shapes = []
    full_pos: list = []
    full_kw: dict = {}
    req_pos: list = []
    req_kw: dict = {}
    by_name_pos: list = []
    by_name_kw: dict = {}
    for p in overload:
        if p.kind in (POSITIONAL_ONLY, POSITIONAL):
            full_pos.append(p)
            if p.required:
                req_pos.append(p)
            # "self" is the name PyTorch's generated scalar-first overloads give the argument
            # its documentation calls input: passed by position.
            if p.kind is POSITIONAL_ONLY or p.name == "self":
                by_name_pos.append(p)
            else:
                by_name_kw[p.name] = p
        elif p.kind is VAR_POSITIONAL:
            full_pos += [p, p]
            req_pos += [p]
            by_name_pos += [p]
        elif p.kind is KEYWORD_ONLY:
            full_kw[p.name] = p
            by_name_kw[p.name] = p
            if p.required:
                req_kw[p.name] = p
    shapes.append(("every parameter in its slot", full_pos, full_kw))
    shapes.append(("the required parameters", req_pos, req_kw))
    shapes.append(("parameters by name", by_name_pos, by_name_kw))
    return shapes


def _deprecated(overload: Overload) -> bool:
    """PyTorch's deprecated signatures (tools/autograd/deprecated.yaml): a scale (alpha,
    beta, value) passed by position before the tensors it scales, as in ``add(x, 2, y)``."""
    positional = [p for p in overload if p.kind in (POSITIONAL_ONLY, POSITIONAL)]
    for i, p in enumerate(positional):
        if p.name in ("alpha", "beta", "value") and any(
            "Tensor" in q.annotation for q in positional[i + 1 :]
        ):
            return True
    return False


def in_scope(overload: Overload) -> bool:
    """Not a deprecated signature, nor one with types glassgrad does not have."""
    if _deprecated(overload):
        return False
    return not any(_OUT_OF_SCOPE_TYPES.search(p.annotation) for p in overload)


def binds(fn: Any, positional: list, keywords: dict, method: bool) -> str | None:
    """None if ``fn``'s signature takes the call, else the binding error."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None  # a builtin: cannot tell statically
    args = [object()] * (len(positional) + (1 if method else 0))
    try:
        signature.bind(*args, **dict.fromkeys(keywords, object()))
    except TypeError as error:
        return str(error)
    return None


# --- real calls --------------------------------------------------------------------------


def _value(lib: Any, annotation: str, name: str, default: str) -> Any:
    """A plausible argument for a parameter, from its annotation and name."""
    text = annotation.replace(" ", "")
    if default not in (inspect.Parameter.empty, "None", "..."):
        try:
            value = eval(default, {"torch": lib, "inf": float("inf")})  # noqa: S307 - stub text
        except Exception:
            value = None
        if value is not None and not callable(value):
            return value
    if name == "out":
        return None
    if name in ("dtype",):
        return lib.float32
    if name in ("device",):
        return "cpu"
    if name in ("layout", "memory_format", "generator", "names", "pin_memory"):
        return None if name != "pin_memory" else False
    if text.startswith(("Tensor|None", "Tensor", "TensorBase")) and "tuple" not in text:
        return lib.ones(2, 3)
    if "Sequence[Tensor]" in text or "tuple[Tensor" in text or "list[Tensor]" in text:
        return [lib.ones(2, 3), lib.ones(2, 3)]
    if text.startswith(("_bool", "bool")):
        return False
    if text.startswith(("_int", "int", "SymInt", "_int|SymInt")) or name in ("dim", "n", "k"):
        return 1
    if "Sequence[" in text or "_size" in text or "tuple[" in text or "list[" in text:
        return [1]
    if text.startswith(("_float", "float", "Number", "_complex", "complex")):
        return 1.0
    if text.startswith(("str", "_str")):
        return "none"
    if text.startswith("_dtype"):
        return lib.float32
    return lib.ones(2, 3)


class Deprecated(Exception):
    """PyTorch warned that the call's overload is deprecated."""


def real_call(lib: Any, fn: Any, shape: tuple, method: bool) -> BaseException | None:
    """Call ``fn`` with values for the call shape; the exception it raised, or None."""
    _, positional, keywords = shape
    args = [_value(lib, p.annotation, p.name, p.default) for p in positional]
    kwargs = {n: _value(lib, p.annotation, n, p.default) for n, p in keywords.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if method:
                getattr(lib.ones(2, 3), fn)(*args, **kwargs)
            else:
                fn(*args, **kwargs)
        except BaseException as error:  # noqa: BLE001 - any outcome is information
            return error
    if any("deprecated" in str(w.message) for w in caught):
        return Deprecated()
    return None


_BINDING_ERROR = re.compile(
    r"unexpected keyword argument|missing \d+ required|takes \d+ positional|"
    r"takes from \d+ to \d+ positional|positional-only|got multiple values|"
    r"takes no keyword|takes at most|takes exactly|invalid combination of arguments"
)


def is_binding_error(error: BaseException | None) -> bool:
    return isinstance(error, TypeError) and bool(_BINDING_ERROR.search(str(error)))


def confirmed(ours: Any, theirs: Any, shape: tuple, method_name: str | None) -> bool:
    """A real call with this shape is accepted by PyTorch and refused by glassgrad."""
    if method_name is not None:
        torch_error = real_call(torch, method_name, shape, True)
        our_error = real_call(gg, method_name, shape, True)
    else:
        torch_error = real_call(torch, theirs, shape, False)
        our_error = real_call(gg, ours, shape, False)
    # Not accepted by PyTorch either: its parser refused the call, its CPU build has no
    # kernel for it, or the overload is deprecated (out of scope).
    refused = (
        is_binding_error(torch_error)
        or isinstance(torch_error, (NotImplementedError, Deprecated))
        or "cannot create" in str(torch_error)  # a type PyTorch does not let users make
    )
    return not refused and is_binding_error(our_error)
