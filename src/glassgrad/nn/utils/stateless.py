"""``nn.utils.stateless.functional_call``: run a module with some of its parameters and
buffers replaced by given tensors, for that call only (``torch.func.functional_call``).

Example::

    >>> layer = nn.Linear(2, 1, bias=False)
    >>> w = glassgrad.ones(1, 2, requires_grad=True)
    >>> out = nn.utils.stateless.functional_call(layer, {"weight": w}, (glassgrad.ones(3, 2),))
    >>> out.sum().backward()
    >>> w.grad
    tensor([[3., 3.]])
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]


def _owner(module: Module, name: str) -> tuple:
    """The submodule holding dotted ``name`` and the last part of the name."""
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _swap(module: Module, name: str, value: Any) -> Any:
    """Put ``value`` where ``name`` is (a parameter, buffer or attribute slot); return what
    was there (None if nothing)."""
    owner, leaf = _owner(module, name)
    for slots in (owner._parameters, owner._buffers):
        if leaf in slots:
            old, slots[leaf] = slots[leaf], value
            return old
    old = getattr(owner, leaf, None)
    setattr(owner, leaf, value)
    return old


def _untied(module: Module, tensors: dict) -> dict:
    """``tensors`` plus, for each tied parameter or buffer given under one of its names, the
    same value under its other names (PyTorch's ``tie_weights``)."""
    names_of: dict = {}
    for name, t in [
        *module.named_parameters(remove_duplicate=False),
        *module.named_buffers(remove_duplicate=False),
    ]:
        names_of.setdefault(id(t), []).append(name)
    result = dict(tensors)
    for names in names_of.values():
        given = [n for n in names if n in tensors]
        if len(given) > 1 and any(tensors[n] is not tensors[given[0]] for n in given):
            raise ValueError(
                f"functional_call got multiple values for keys {given}, which are tied. "
                "Consider using tie_weights=False"
            )
        if given:
            for n in names:
                result.setdefault(n, tensors[given[0]])
    return result


@contextmanager
def _reparametrized(module: Module, tensors: dict, tie_weights: bool, strict: bool):
    if tie_weights:
        tensors = _untied(module, tensors)
    if strict:
        known = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        known |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        messages = []
        unexpected = sorted(set(tensors) - known)
        missing = sorted(known - set(tensors))
        if unexpected:
            messages.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            messages.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if messages:
            raise RuntimeError(
                f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                + "\n\t".join(messages)
            )
    originals: dict = {}
    try:
        for name, value in tensors.items():
            originals[name] = _swap(module, name, value)
        yield
    finally:
        for name, old in originals.items():
            _swap(module, name, old)


def functional_call(
    module: Module,
    parameters_and_buffers: dict[str, Tensor] | tuple[Any, ...],
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """``module(*args, **kwargs)`` with the parameters and buffers named in
    ``parameters_and_buffers`` (dotted names, as in ``state_dict``; a tuple of dicts is
    merged) replaced for this call; gradients flow to the given tensors.

    Example::

        >>> layer = nn.Linear(2, 2)
        >>> params = {k: v.detach() * 0 for k, v in layer.named_parameters()}
        >>> nn.utils.stateless.functional_call(layer, params, glassgrad.ones(1, 2))
        tensor([[0., 0.]])
    """
    if isinstance(parameters_and_buffers, tuple):
        merged: dict = {}
        for part in parameters_and_buffers:
            duplicated = set(merged) & set(part)
            if duplicated:
                raise ValueError(
                    f"{sorted(duplicated)} appeared in multiple dictionaries; behavior of "
                    "functional call is ambiguous"
                )
            merged.update(part)
        parameters_and_buffers = merged
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **(kwargs or {}))
