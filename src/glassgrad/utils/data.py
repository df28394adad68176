"""Datasets, samplers, collation and ``DataLoader``, as ``torch.utils.data``.

A *map-style* dataset answers ``len(dataset)`` and ``dataset[i]``; an *iterable* dataset is
iterated. A *sampler* yields dataset indices (in order, or a seeded random permutation per
epoch); a ``BatchSampler`` groups them into lists; ``DataLoader`` fetches the samples of each
list and *collates* them into one batch: ``default_collate`` stacks tensors, NumPy arrays and
numbers along a new first dimension and keeps the structure of tuples, lists and dicts::

    [(x0, y0), (x1, y1), (x2, y2)]  ->  [stack([x0, x1, x2]), tensor([y0, y1, y2])]

Given the same data and ``shuffle=False``, a loader yields the same batches as PyTorch's.
With ``shuffle=True`` each epoch is a new permutation drawn from ``generator`` (NumPy's
stream behind it: reproducible for a seed, but not PyTorch's order for the same seed).
Loading always happens in the calling process: ``num_workers`` and the other worker
options are accepted for compatibility and change nothing, like PyTorch with
``num_workers=0``.

Example
-------
>>> dataset = TensorDataset(glassgrad.arange(10.0).reshape(5, 2), glassgrad.arange(5))
>>> for features, labels in DataLoader(dataset, batch_size=2):
...     print(features.shape, labels.tolist())
glassgrad.Size([2, 2]) [0, 1]
glassgrad.Size([2, 2]) [2, 3]
glassgrad.Size([1, 2]) [4]
"""

from __future__ import annotations

import bisect
import collections.abc
import copy
import itertools
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

import glassgrad  # attributes are read at call time, so importing during glassgrad's init works

from .._tensor import Tensor
from ._rng import numpy_generator

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "collate",
    "default_collate",
    "default_collate_fn_map",
    "default_convert",
    "get_worker_info",
    "DataLoader",
]

T_co = TypeVar("T_co", covariant=True)


# ----------------------------------------------------------------------------- datasets


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` and usually ``__len__``.

    ``dataset_a + dataset_b`` is their ``ConcatDataset``.

    Example
    -------
    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, index):
    ...         return index * index
    >>> next(iter(DataLoader(Squares(), batch_size=4)))
    tensor([0, 1, 4, 9])
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """A dataset read by iterating: subclasses define ``__iter__``.

    A ``DataLoader`` over it batches the stream in order; it takes no sampler and no shuffle.

    Example
    -------
    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [batch.tolist() for batch in DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Dataset[T_co]):
        raise TypeError("IterableDataset does not support '+'; use itertools.chain")


class TensorDataset(Dataset):
    """Samples are the rows of tensors that share their first dimension: ``(x[i], y[i], ...)``.

    Example
    -------
    >>> features, labels = glassgrad.randn(100, 3), glassgrad.zeros(100)
    >>> dataset = TensorDataset(features, labels)
    >>> len(dataset), dataset[0][0].shape
    (100, glassgrad.Size([3]))
    """

    def __init__(self, *tensors: Any) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [tuple(tensor.shape) for tensor in tensors]
        if any(len(shape) == 0 for shape in sizes) or len({shape[0] for shape in sizes}) != 1:
            raise ValueError(
                f"Size mismatch between tensors: TensorDataset needs tensors with the same "
                f"first dimension, got shapes {sizes}"
            )
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple:
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices: list[int]) -> list[tuple]:
        """The samples at ``indices`` (what ``DataLoader`` fetches for one batch).

        When no tensor requires grad, no graph can be recorded, so each row is a plain view
        of the tensor's array; otherwise each goes through indexing, as ``dataset[i]``.
        """
        if any(tensor.requires_grad for tensor in self.tensors):
            return [self[index] for index in indices]
        arrays = [tensor._data for tensor in self.tensors]
        return [tuple(glassgrad.from_numpy(a[index, ...]) for a in arrays) for index in indices]

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset[T_co]):
    """Several map-style datasets one after the other.

    Example
    -------
    >>> both = ConcatDataset([TensorDataset(glassgrad.zeros(2)), TensorDataset(glassgrad.ones(3))])
    >>> len(both), both[4][0].item()
    (5, 1.0)
    """

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        for dataset in self.datasets:
            if isinstance(dataset, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> T_co:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][index - start]


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order.

    Example
    -------
    >>> evens = Subset(TensorDataset(glassgrad.arange(10)), [0, 2, 4])
    >>> len(evens), evens[1][0].item()
    (3, 2)
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> T_co:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        inner = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(inner)
        return [self.dataset[i] for i in inner]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset[T_co],
    lengths: Sequence[int | float],
    generator: Any = None,
) -> list[Subset[T_co]]:
    """Split ``dataset`` at random into non-overlapping subsets of the given lengths.

    ``lengths`` are sample counts that add up to ``len(dataset)``, or fractions that add up
    to 1: each gets ``floor(fraction * len(dataset))`` samples and the samples left over are
    dealt one each to the first subsets, as PyTorch does. The split is a permutation drawn
    from ``generator`` (a seeded ``glassgrad.Generator`` or ``numpy.random.Generator`` gives
    the same split every time; the subsets are not PyTorch's for the same seed).

    Example
    -------
    >>> seeded = glassgrad.Generator().manual_seed(0)
    >>> train, test = random_split(range(10), [0.8, 0.2], generator=seeded)
    >>> len(train), len(test), sorted(list(train) + list(test)) == list(range(10))
    (8, 2, True)
    """
    total = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, fraction in enumerate(lengths):
            if fraction < 0 or fraction > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(total * fraction)))
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.",
                    stacklevel=2,
                )
        lengths = counts
    if sum(lengths) != total:
        raise ValueError(
            "Sum of input lengths does not equal the length of the input dataset! "
            f"(lengths {list(lengths)} add up to {sum(lengths)}, the dataset has {total})"
        )
    if any(isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0 for n in lengths):
        raise ValueError(
            f"random_split: lengths must be sample counts (integers >= 0) adding up to {total}, "
            f"or fractions adding up to 1; got {list(lengths)}"
        )
    order = numpy_generator(generator).permutation(total).tolist()
    ends = itertools.accumulate(lengths)
    return [
        Subset(dataset, order[end - length : end])
        for end, length in zip(ends, lengths, strict=True)
    ]


# ----------------------------------------------------------------------------- samplers


class Sampler(Generic[T_co]):
    """Yields the indices (or lists of indices) a ``DataLoader`` fetches; defines ``__iter__``.

    Any iterable of indices works where a sampler is expected.
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler[int]):
    """The indices ``0, 1, ..., len(data_source) - 1`` in order.

    Example
    -------
    >>> list(SequentialSampler(range(3)))
    [0, 1, 2]
    """

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A random order of the indices, drawn anew from ``generator`` at each iteration.

    Without ``replacement`` each pass is a permutation (``num_samples`` beyond the dataset
    size chains several); with it, ``num_samples`` independent uniform draws.

    Example
    -------
    >>> sorted(RandomSampler(range(4), generator=glassgrad.Generator().manual_seed(0)))
    [0, 1, 2, 3]
    """

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: Any = None,
    ) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        size = len(self.data_source)
        stream = numpy_generator(self.generator)
        if self.replacement:
            yield from stream.integers(0, size, self.num_samples).tolist()
            return
        for _ in range(self.num_samples // size):
            yield from stream.permutation(size).tolist()
        yield from stream.permutation(size)[: self.num_samples % size].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices in a random order, drawn anew at each iteration.

    Example
    -------
    >>> sorted(SubsetRandomSampler([5, 7, 9]))
    [5, 7, 9]
    """

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for position in numpy_generator(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[position]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` into lists of ``batch_size``.

    The last list is shorter when the sampler's length is not a multiple of ``batch_size``,
    unless ``drop_last``, which leaves it out.

    Example
    -------
    >>> list(BatchSampler(range(5), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    >>> list(BatchSampler(range(5), batch_size=2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)


# ----------------------------------------------------------------------------- collation

_COLLATE_ERROR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _collate_tensors(batch: Sequence[Any], *, collate_fn_map: dict | None = None) -> Any:
    first = batch[0]._data
    if all(
        not t.requires_grad and t._data.shape == first.shape and t._data.dtype == first.dtype
        for t in batch
    ):  # no graph to record and nothing to promote: stack the arrays directly
        return glassgrad.from_numpy(np.stack([t._data for t in batch]))
    return glassgrad.stack(list(batch), 0)


def _collate_arrays(batch: Sequence[np.ndarray], *, collate_fn_map: dict | None = None) -> Any:
    if batch[0].dtype.kind in "SaUO":
        raise TypeError(_COLLATE_ERROR.format(batch[0].dtype))
    return _collate_tensors([glassgrad.from_numpy(np.asarray(a)) for a in batch])


def _collate_numpy_scalars(batch: Sequence[Any], *, collate_fn_map: dict | None = None) -> Any:
    return glassgrad.from_numpy(np.asarray(batch))


def _collate_floats(batch: Sequence[float], *, collate_fn_map: dict | None = None) -> Any:
    return glassgrad.tensor(list(batch), dtype=glassgrad.float64)


def _collate_ints(batch: Sequence[int], *, collate_fn_map: dict | None = None) -> Any:
    return glassgrad.tensor(list(batch))


def _collate_strings(batch: Sequence[str | bytes], *, collate_fn_map: dict | None = None) -> Any:
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: _collate_tensors,
    np.ndarray: _collate_arrays,
    (np.bool_, np.number): _collate_numpy_scalars,
    float: _collate_floats,
    int: _collate_ints,
    (str, bytes): _collate_strings,
}
"""Element type -> function that collates a batch of such elements (extend it, as PyTorch's)."""


def collate(batch: Sequence[Any], *, collate_fn_map: dict | None = None) -> Any:
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


def get_worker_info() -> None:
    """Always ``None``: data is loaded in the calling process (as PyTorch's main process)."""
    return None


# ----------------------------------------------------------------------------- the loader


class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches: sample indices, fetch samples, collate them.

    Parameters
    ----------
    dataset : Dataset | IterableDataset
        A map-style dataset (``len`` and ``[i]``; a list or ``range`` works too) or an
        iterable one.
    batch_size : int | None, default 1
        Samples per batch. ``None`` turns batching off: each sample goes through
        ``default_convert`` (or ``collate_fn``) on its own.
    shuffle : bool, default False
        Visit the samples in a new random order at each epoch (``RandomSampler``).
    sampler : Sampler | Iterable[int], optional
        The order of the indices; excludes ``shuffle``.
    batch_sampler : Sampler | Iterable[list[int]], optional
        Yields the index list of each batch; excludes ``batch_size``, ``shuffle``,
        ``sampler`` and ``drop_last``.
    collate_fn : callable, optional
        Merges a list of samples into a batch; ``default_collate`` by default.
    drop_last : bool, default False
        Leave out the last batch if it is smaller than ``batch_size``.
    generator : glassgrad.Generator | numpy.random.Generator, optional
        The random stream for ``shuffle``; seed it for the same order on every run. Without
        one, each epoch's order is seeded from the global generator.
    num_workers, pin_memory, timeout, worker_init_fn, prefetch_factor, persistent_workers,
    pin_memory_device, multiprocessing_context, in_order
        Accepted as in PyTorch and checked; loading still happens in this process.

    Example
    -------
    >>> dataset = TensorDataset(glassgrad.randn(1437, 64), glassgrad.zeros(1437))
    >>> loader = DataLoader(dataset, batch_size=64, shuffle=True,
    ...                     generator=glassgrad.Generator().manual_seed(0))
    >>> len(loader)  # batches per epoch
    23
    >>> features, labels = next(iter(loader))
    >>> features.shape, labels.shape
    (glassgrad.Size([64, 64]), glassgrad.Size([64]))
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Iterable | None = None,
        batch_sampler: Iterable[list] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        multiprocessing_context: Any = None,
        generator: Any = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor "
                "to None."
            )
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self._is_iterable = isinstance(dataset, IterableDataset)
        if self._is_iterable:
            if shuffle not in (False, None):
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified shuffle option, "
                    f"but got shuffle={shuffle}"
                )
            if sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified sampler option, "
                    f"but got sampler={sampler}"
                )
            if batch_sampler is not None:
                raise ValueError(
                    "DataLoader with IterableDataset: expected unspecified batch_sampler "
                    f"option, but got batch_sampler={batch_sampler}"
                )
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive "
                "with drop_last"
            )

        if sampler is None and not self._is_iterable:
            if shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._is_iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None or (self._is_iterable and self.batch_size is not None)

    def __iter__(self) -> Iterator[Any]:
        if self._is_iterable:
            return self._iterate_stream()
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[index]) for index in self.sampler)
        return (self.collate_fn(self._fetch(indices)) for indices in self.batch_sampler)

    def _fetch(self, indices: list) -> list:
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems(indices)
        return [self.dataset[index] for index in indices]

    def _iterate_stream(self) -> Iterator[Any]:
        samples = iter(self.dataset)
        if self.batch_size is None:
            yield from (self.collate_fn(sample) for sample in samples)
            return
        while batch := list(itertools.islice(samples, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._is_iterable:
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            if self.drop_last:
                return length // self.batch_size
            return -(-length // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self.sampler)
