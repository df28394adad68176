"""Collation: how a ``DataLoader`` turns a list of samples into one batch."""

from __future__ import annotations

import collections.abc
import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import glassgrad  # attributes are read at call time, so importing during glassgrad's init works

from ..._tensor import Tensor

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _collate_tensors(
    batch: Sequence[Any], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    first = batch[0]._data
    if all(
        not t.requires_grad and t._data.shape == first.shape and t._data.dtype == first.dtype
        for t in batch
    ):  # no graph to record and nothing to promote: stack the arrays directly
        return glassgrad.from_numpy(np.stack([t._data for t in batch]))
    return glassgrad.stack(list(batch), 0)


def _collate_arrays(
    batch: Sequence[np.ndarray], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    if batch[0].dtype.kind in "SaUO":
        raise TypeError(_COLLATE_ERROR.format(batch[0].dtype))
    return _collate_tensors([glassgrad.from_numpy(np.asarray(a)) for a in batch])


def _collate_numpy_scalars(
    batch: Sequence[Any], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    return glassgrad.from_numpy(np.asarray(batch))


def _collate_floats(
    batch: Sequence[float], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    return glassgrad.tensor(list(batch), dtype=glassgrad.float64)


def _collate_ints(
    batch: Sequence[int], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    return glassgrad.tensor(list(batch))


def _collate_strings(
    batch: Sequence[str | bytes], *, collate_fn_map: dict[Any, Callable[..., Any]] | None = None
) -> Any:
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable[..., Any]] = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_arrays,
    (np.bool_, np.number): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    (str, bytes): _collate_strings,
}
"""Element type -> function that collates a batch of such elements (extend it, as PyTorch's)."""


def collate(batch: Sequence[Any], *, collate_fn_map: dict[Any, Any] | None = None) -> Any:
    """Collate a list of samples with ``collate_fn_map`` for the leaves, keeping the structure.

    The type of the first sample picks the rule: a type found in ``collate_fn_map`` (exactly,
    then by ``isinstance`` in the map's order) uses that function; a mapping is collated key
    by key; a named tuple field by field; any other sequence position by position (a tuple
    gives a list, as in PyTorch). Anything else raises ``TypeError``.

    Example
    -------
    >>> collate([{"x": 1.0}, {"x": 2.0}], collate_fn_map=default_collate_fn_map)
    {'x': tensor([1., 2.], dtype=glassgrad.float64)}
    """
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type, collate_leaves in collate_fn_map.items():
            if isinstance(elem, collate_type):
                return collate_leaves(batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        collated = {
            key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem
        }
        return _rebuild_mapping(elem, collated)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a named tuple
        fields = zip(*batch, strict=True)
        return elem_type(*(collate(field, collate_fn_map=collate_fn_map) for field in fields))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [
            collate(column, collate_fn_map=collate_fn_map) for column in zip(*batch, strict=True)
        ]
        if isinstance(elem, tuple):
            return columns  # a list, as PyTorch (for backward compatibility there)
        return _rebuild_sequence(elem, columns)
    raise TypeError(_COLLATE_ERROR.format(elem_type))


def _rebuild_mapping(elem: collections.abc.Mapping, collated: dict) -> Any:
    # Keep the sample's mapping type (OrderedDict, a dict subclass...) where it allows.
    try:
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(collated)
            return clone
        return type(elem)(collated)
    except TypeError:
        return collated


def _rebuild_sequence(elem: collections.abc.Sequence, columns: list) -> Any:
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, column in enumerate(columns):
                clone[i] = column
            return clone
        return type(elem)(columns)
    except TypeError:
        return columns


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, as ``torch.utils.data.default_collate``.

    Tensors are stacked along a new first dimension; NumPy arrays become tensors and are
    stacked; Python floats become a float64 tensor, ints an int64 tensor (bools a bool
    tensor), NumPy scalars a tensor of their dtype; strings and bytes stay a list. Dicts,
    named tuples, lists and tuples keep their structure, each field collated across samples
    (a tuple gives a list). Samples whose sequences differ in length raise ``RuntimeError``;
    other types (``None``, objects, string arrays) raise ``TypeError``.

    Example
    -------
    >>> default_collate([(np.zeros(2), 0), (np.ones(2), 1)])
    [tensor([[0., 0.],
            [1., 1.]], dtype=glassgrad.float64), tensor([0, 1])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data: Any) -> Any:
    """Turn NumPy arrays and scalars into tensors, keeping containers (no batching).

    This is what a ``DataLoader`` with ``batch_size=None`` applies to each sample.

    Example
    -------
    >>> default_convert({"x": np.ones(2), "name": "a"})
    {'x': tensor([1., 1.], dtype=glassgrad.float64), 'name': 'a'}
    """
    if isinstance(data, Tensor):
        return data
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "SaUO":
            return data
        return glassgrad.from_numpy(data)
    if isinstance(data, (np.bool_, np.number)):
        return glassgrad.from_numpy(np.asarray(data))
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data
