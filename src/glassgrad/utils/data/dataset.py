"""Datasets, as ``torch.utils.data``'s: map-style (``len`` and ``[i]``) and iterable ones,
and the ways to combine and split them."""

from __future__ import annotations

import bisect
import itertools
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

import glassgrad  # attributes are read at call time, so importing during glassgrad's init works

from .._rng import numpy_generator

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "Subset",
    "random_split",
]

T_co = TypeVar("T_co", covariant=True)


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

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        raise TypeError("IterableDataset does not support '+'; use itertools.chain")


class TensorDataset(Dataset[tuple[Any, ...]]):
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

    def __getitem__(self, index: Any) -> tuple[Any, ...]:
        return tuple(tensor[index] for tensor in self.tensors)

    def __getitems__(self, indices: list[int]) -> list[tuple[Any, ...]]:
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

    cumulative_sizes: list[int]
    datasets: list[Dataset[T_co]]

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


class ChainDataset(IterableDataset[Any]):
    """Several iterable datasets, iterated one after the other (lazily).

    Example
    -------
    >>> class Count(IterableDataset):
    ...     def __init__(self, n): self.n = n
    ...     def __iter__(self): return iter(range(self.n))
    ...     def __len__(self): return self.n
    >>> chain = ChainDataset([Count(2), Count(3)])
    >>> list(chain), len(chain)
    ([0, 1, 0, 1, 2], 5)
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        super().__init__()
        self.datasets = datasets

    def __iter__(self) -> Iterator[Any]:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        total = 0
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(dataset)  # type: ignore[arg-type]
        return total


class StackDataset(Dataset[Any]):
    """Datasets of one length side by side: item ``i`` is the tuple (or, given by keyword,
    the dict) of their items ``i``.

    Example
    -------
    >>> pairs = StackDataset(TensorDataset(glassgrad.arange(3)), [10, 11, 12])
    >>> pairs[1]
    ((tensor(1),), 11)
    >>> StackDataset(x=[1, 2], y=[3, 4])[0]
    {'x': 1, 'y': 3}
    """

    def __init__(self, *args: Dataset[Any], **kwargs: Dataset[Any]) -> None:
        if args:
            if kwargs:
                raise ValueError(
                    "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) "
                    "like input/output, but both types are given."
                )
            parts: Sequence[Any] = args
            self.datasets: tuple[Dataset[Any], ...] | dict[str, Dataset[Any]] = args
        elif kwargs:
            parts = list(kwargs.values())
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])  # type: ignore[arg-type]
        if any(self._length != len(dataset) for dataset in parts):  # type: ignore[arg-type]
            raise ValueError("Size mismatch between datasets")

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {key: dataset[index] for key, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices: list[Any]) -> list[Any]:
        """Items ``indices`` at once, through each dataset's own ``__getitems__`` if any."""
        named = isinstance(self.datasets, dict)
        keys = list(self.datasets) if named else range(len(self.datasets))
        datasets = list(self.datasets.values()) if named else list(self.datasets)
        columns = []
        for dataset in datasets:
            if callable(getattr(dataset, "__getitems__", None)):
                items = dataset.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError(
                        "Nested dataset's output size mismatch. Expected "
                        f"{len(indices)}, got {len(items)}"
                    )
                columns.append(items)
            else:
                columns.append([dataset[index] for index in indices])
        rows = list(zip(*columns)) if columns else []
        if named:
            return [dict(zip(keys, row)) for row in rows]
        return [tuple(row) for row in rows]

    def __len__(self) -> int:
        return self._length


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
