"""``DistributedSampler``: each rank of a data-parallel job reads its own share of a dataset."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import glassgrad

from .dataset import Dataset, T_co
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[T_co]):
    """The indices of ``dataset`` that rank ``rank`` of ``num_replicas`` reads, as PyTorch's.

    Every rank draws the same order (a permutation seeded by ``seed + epoch`` when
    ``shuffle``, else ``0, 1, ...``), pads it by repeating its start until it divides evenly
    (or, with ``drop_last``, cuts the tail), and takes every ``num_replicas``-th index from
    position ``rank``: the shares are disjoint and, without padding, cover the dataset.
    Call ``set_epoch(epoch)`` before each epoch for a new order. ``num_replicas`` and
    ``rank`` default to the default process group's size and this process's rank.

    The shuffled order is drawn from glassgrad's generator, so it is reproducible for a
    seed but not PyTorch's order for the same seed; without shuffling the shares are
    PyTorch's exactly.

    Example::

        >>> sampler = DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False)
        >>> list(sampler)
        [1, 4, 7, 0]
        >>> loader = DataLoader(dataset, batch_size=32, sampler=sampler)
    """

    epoch: int
    num_samples: int
    total_size: int

    def __init__(
        self,
        dataset: Dataset[Any],
        num_replicas: int | None = None,
        rank: int | None = None,
        shuffle: bool = True,
        seed: int = 0,
        drop_last: bool = False,
    ) -> None:
        if num_replicas is None or rank is None:
            dist = glassgrad.distributed
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if num_replicas <= 0:
            raise ValueError(f"num_replicas must be positive, got {num_replicas}")
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]"
            )
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        size = len(dataset)  # type: ignore[arg-type]
        if drop_last and size % num_replicas != 0:
            self.num_samples = math.ceil((size - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(size / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[T_co]:
        size = len(self.dataset)  # type: ignore[arg-type]
        if self.shuffle:
            generator = glassgrad.Generator().manual_seed(self.seed + self.epoch)
            indices = glassgrad.randperm(size, generator=generator).tolist()
        else:
            indices = list(range(size))
        if self.drop_last:
            indices = indices[: self.total_size]
        else:
            padding = self.total_size - len(indices)
            if padding:
                repeats = math.ceil(padding / len(indices))
                indices += (indices * repeats)[:padding]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use the order of epoch ``epoch`` (with ``shuffle``, a new permutation per epoch,
        the same on every rank)."""
        self.epoch = epoch
