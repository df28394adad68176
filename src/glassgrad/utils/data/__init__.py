"""Datasets, samplers, collation and ``DataLoader``, as ``torch.utils.data``; and
``DistributedSampler``, each rank's share of a dataset in data-parallel training.

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

from .collate import collate, default_collate, default_collate_fn_map, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ConcatDataset",
    "ChainDataset",
    "StackDataset",
    "Subset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "collate",
    "default_collate",
    "default_collate_fn_map",
    "default_convert",
    "get_worker_info",
    "DataLoader",
]
