"""Changing in place a tensor saved for backward (``autograd.graph.allow_mutation_on_saved_tensors``).

Normally a saved tensor changed in place fails backward's version check. Inside
``allow_mutation_on_saved_tensors()`` every tensor saved for backward is packed (saved-tensor
hooks) as a handle, and before any in-place write glassgrad calls the write hooks of this
module with the tensor about to be written: a saved tensor that shares its storage and version
with it is cloned first, and backward gets the clone. PyTorch watches writes with a dispatch
mode over every op that writes an argument; glassgrad's places that write a tensor's memory
(in-place ops, ``out=``, in-place view ops, ``resize_``, gradient accumulation, optimizer
steps) call ``before_write`` instead, so nothing here knows about specific ops.
"""

from __future__ import annotations

import contextlib
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["before_write", "mutation_allowed", "write_hooks"]

# Callables run with each tensor about to be written in place, before the write. Writers test
# the list for emptiness first (the common case costs nothing); it is mutated, never rebound.
write_hooks: list[Callable[[Any], None]] = []


def before_write(target: Any) -> None:
    """Tell the write hooks that ``target``'s memory is about to change in place."""
    for hook in write_hooks:
        hook(target)


class _Handle:
    """What a node keeps for a saved tensor: its key in the context's tables."""

    __slots__ = ("__weakref__",)


def _storage_key(t: Any) -> tuple[int, int]:
    # Tensors of one storage (a base and its views) share one version counter object: it and
    # the version name the memory's present contents. (PyTorch uses the data pointer, which
    # misses views that start elsewhere in the storage.)
    counter = t._vc
    return (id(counter), counter[0])


class _AllowMutationOnSavedContext:
    """The tables of one ``allow_mutation_on_saved_tensors`` context (PyTorch's names):
    ``original`` and ``cloned`` map live handles to the saved tensor or its clone,
    ``tid_to_weakhandle`` finds the handle of a tensor at a version, ``sid_to_tid`` the tensors
    saved from a storage at a version."""

    def __init__(self) -> None:
        self.cloned: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.original: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.tid_to_weakhandle: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
        self.sid_to_tid: defaultdict[tuple[int, int], set] = defaultdict(set)

    def clear(self) -> None:
        self.cloned.clear()
        self.original.clear()
        self.tid_to_weakhandle.clear()
        self.sid_to_tid.clear()

    def pack(self, tensor: Any) -> _Handle:
        sid = _storage_key(tensor)
        tid = (id(tensor), *sid)
        self.sid_to_tid[sid].add(tid)
        handle = self.tid_to_weakhandle.get(tid)
        if handle is None:  # the same tensor at the same version is saved once
            handle = _Handle()
            self.tid_to_weakhandle[tid] = handle
            self.original[handle] = tensor
        return handle

    def unpack(self, handle: _Handle) -> Any:
        if _state.active is not self:
            raise AssertionError(_OUTSIDE)
        if handle in self.cloned:
            return self.cloned[handle]
        if handle not in self.original:
            raise AssertionError(_OUTSIDE)
        return self.original[handle]

    def clone_saved(self, target: Any) -> None:
        """Before ``target`` is written: clone the saved tensors that share its contents."""
        for tid in self.sid_to_tid.get(_storage_key(target), ()):
            handle = self.tid_to_weakhandle.get(tid)
            if handle is None or handle in self.cloned:
                continue  # freed by backward since it was saved, or cloned already
            original = self.original.pop(handle)
            self.cloned[handle] = original.detach().clone()


_OUTSIDE = (
    "Trying to backward outside of the 'allow_mutation_on_saved_tensors' context"
    "in which the graph was originally recorded."
)


class _State:
    active: _AllowMutationOnSavedContext | None = None


_state = _State()


@contextlib.contextmanager
def mutation_allowed(
    saved_tensors_hooks: Callable[[Callable, Callable], Any],
) -> Iterator[_AllowMutationOnSavedContext]:
    """The body of ``autograd.graph.allow_mutation_on_saved_tensors``, given the
    ``saved_tensors_hooks`` context manager (graph defines it and imports this module)."""
    if _state.active is not None:
        raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
    ctx = _AllowMutationOnSavedContext()
    _state.active = ctx
    write_hooks.append(ctx.clone_saved)
    try:
        with saved_tensors_hooks(ctx.pack, ctx.unpack):
            yield ctx
    finally:
        write_hooks.remove(ctx.clone_saved)
        _state.active = None
        ctx.clear()
