"""``DataLoader``: iterate over a dataset in batches."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic

from .collate import default_collate, default_convert
from .dataset import IterableDataset, T_co
from .sampler import BatchSampler, RandomSampler, SequentialSampler

__all__ = ["get_worker_info", "DataLoader"]


def get_worker_info() -> None:
    """Always ``None``: data is loaded in the calling process (as PyTorch's main process)."""
    return None


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
        sampler: Iterable[Any] | None = None,
        batch_sampler: Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
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
