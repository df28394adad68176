"""``DistributedSampler`` against ``torch.utils.data.DistributedSampler``: without shuffling
the shares are PyTorch's exactly; with it, each epoch's order is one permutation shared by
every rank, reproducible for a seed (glassgrad's generator, not PyTorch's stream)."""

from __future__ import annotations

import pytest
import torch.utils.data as torch_data

import glassgrad
from glassgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def shares(cls, size, replicas, **kwargs):
    return [
        list(cls(range(size), num_replicas=replicas, rank=r, **kwargs)) for r in range(replicas)
    ]


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize(
    "size,replicas", [(10, 3), (12, 3), (7, 2), (2, 5), (1, 4), (0, 2), (17, 4)]
)
def test_shares_without_shuffle_are_pytorchs(size, replicas, drop_last):
    ours = shares(DistributedSampler, size, replicas, shuffle=False, drop_last=drop_last)
    theirs = shares(
        torch_data.DistributedSampler, size, replicas, shuffle=False, drop_last=drop_last
    )
    assert ours == theirs
    for r in range(replicas):
        sampler = DistributedSampler(
            range(size), num_replicas=replicas, rank=r, drop_last=drop_last
        )
        reference = torch_data.DistributedSampler(
            range(size), num_replicas=replicas, rank=r, drop_last=drop_last
        )
        assert len(sampler) == len(reference)
        assert (sampler.num_samples, sampler.total_size) == (
            reference.num_samples,
            reference.total_size,
        )


@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_shares_partition_one_permutation_per_epoch(drop_last):
    size, replicas = 23, 4
    first = shares(DistributedSampler, size, replicas, seed=3, drop_last=drop_last)
    assert first == shares(DistributedSampler, size, replicas, seed=3, drop_last=drop_last)
    merged = [i for share in first for i in share]
    assert len({len(s) for s in first}) == 1  # equal length on every rank
    if drop_last:
        assert len(merged) == len(set(merged)) == 20  # disjoint, tail dropped
    else:
        assert set(merged) == set(range(size)) and len(merged) == 24  # padded by one repeat
    assert sorted(merged) != merged  # shuffled
    later = []
    for r in range(replicas):
        sampler = DistributedSampler(
            range(size), num_replicas=replicas, rank=r, seed=3, drop_last=drop_last
        )
        sampler.set_epoch(1)
        later.append(list(sampler))
    assert later != first
    other_seed = shares(DistributedSampler, size, replicas, seed=4, drop_last=drop_last)
    assert other_seed != first


def test_padding_repeats_the_start_when_the_dataset_is_short():
    ours = shares(DistributedSampler, 2, 7, shuffle=False)
    assert ours == shares(torch_data.DistributedSampler, 2, 7, shuffle=False)
    assert ours == [[0], [1], [0], [1], [0], [1], [0]]


def test_bad_rank_as_pytorch():
    with pytest.raises(
        ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"
    ):
        DistributedSampler(range(4), num_replicas=3, rank=3)
    with pytest.raises(ValueError, match=r"Invalid rank -1"):
        DistributedSampler(range(4), num_replicas=3, rank=-1)


def test_without_a_process_group_the_defaults_say_so():
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))


def test_feeds_a_dataloader():
    dataset = TensorDataset(glassgrad.arange(10.0))
    sampler = DistributedSampler(dataset, num_replicas=2, rank=1, shuffle=False)
    batches = [batch[0].tolist() for batch in DataLoader(dataset, batch_size=2, sampler=sampler)]
    assert batches == [[1.0, 3.0], [5.0, 7.0], [9.0]]
