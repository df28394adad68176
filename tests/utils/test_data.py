"""glassgrad.utils.data against torch.utils.data: the same data gives the same batches."""

from __future__ import annotations

import collections
import itertools
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as torch_data

import glassgrad
from glassgrad.utils import data

LIBRARIES = {"glassgrad": (glassgrad, data), "torch": (torch, torch_data)}
Point = collections.namedtuple("Point", ["x", "y"])


class AsTensor:
    """A placeholder in a sample: becomes a glassgrad or a torch tensor of this array."""

    def __init__(self, array) -> None:
        self.array = np.asarray(array)


def materialize(obj, library: str):
    """Replace every AsTensor in a nested sample by the library's tensor."""
    if isinstance(obj, AsTensor):
        if library == "torch":
            return torch.from_numpy(obj.array.copy())
        return glassgrad.from_numpy(obj.array.copy())
    if isinstance(obj, dict):
        return type(obj)((key, materialize(value, library)) for key, value in obj.items())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(materialize(value, library) for value in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(materialize(value, library) for value in obj)
    return obj


def assert_same_batch(ours, theirs) -> None:
    """Same structure, same container types, tensors equal in dtype, shape and values."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, glassgrad.Tensor), f"expected a tensor, got {type(ours)}"
        expected = theirs.numpy()
        got = ours.numpy()
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        np.testing.assert_array_equal(got, expected)
    elif isinstance(theirs, (dict, list, tuple)):
        assert type(ours) is type(theirs), (type(ours), type(theirs))
        assert len(ours) == len(theirs)
        if isinstance(theirs, dict):
            assert list(ours) == list(theirs)
            pairs = [(ours[key], theirs[key]) for key in theirs]
        else:
            pairs = zip(ours, theirs, strict=True)
        for got, expected in pairs:
            assert_same_batch(got, expected)
    else:
        assert type(ours) is type(theirs) and ours == theirs, (ours, theirs)


def both(build):
    """Run ``build(tensor_library, data_module)`` for glassgrad and torch."""
    return build(*LIBRARIES["glassgrad"]), build(*LIBRARIES["torch"])


def rng_array(shape, dtype="float32", seed=0):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(0, 100, shape).astype(dtype)


# ----------------------------------------------------------------------------- collate

COLLATE_CASES = {
    "tuple of tensor and int": [(AsTensor(rng_array(3, seed=i)), i) for i in range(4)],
    "lists of numbers": [[1.5, 2], [2.5, 3], [3.5, 4]],
    "python floats": [0.5, 1.5, -2.0],
    "python ints": [3, -1, 7],
    "python bools": [True, False, True],
    "ints and floats": [1, 2.5],
    "dicts": [
        {
            "image": rng_array((2, 2), seed=i),
            "label": i,
            "name": f"s{i}",
            "meta": {"weight": 0.5 * i, "ok": i % 2 == 0},
        }
        for i in range(3)
    ],
    "ordered dicts": [collections.OrderedDict(b=i, a=float(i)) for i in range(3)],
    "numpy float32 scalars": [np.float32(1.5), np.float32(-2)],
    "numpy int32 scalars": [np.int32(3), np.int32(4)],
    "numpy bool scalars": [np.bool_(True), np.bool_(False)],
    "0-d arrays": [np.array(1.5), np.array(2.5)],
    "uint8 arrays": [rng_array((2, 3), "uint8", seed=i) for i in range(3)],
    "int16 arrays": [rng_array(4, "int16", seed=i) for i in range(2)],
    "float16 arrays": [rng_array(4, "float16", seed=i) for i in range(2)],
    "float64 arrays": [rng_array((1, 2), "float64", seed=i) for i in range(2)],
    "bool arrays": [rng_array(5, "bool", seed=i) for i in range(2)],
    "zero-size arrays": [np.zeros((0, 2), np.float32) for _ in range(3)],
    "named tuples": [Point(AsTensor(rng_array(2, seed=i)), float(i)) for i in range(3)],
    "0-d tensors": [AsTensor(np.array(i, np.int64)) for i in range(4)],
    "float64 tensors": [AsTensor(rng_array((2, 3), "float64", seed=i)) for i in range(2)],
    "strings": ["a", "bc"],
    "bytes": [b"a", b"bc"],
    "tuples with strings": [(1, "x"), (2, "y")],
    "nested": [
        ([{"k": AsTensor(rng_array(2, seed=i)), "n": i}], (float(i), np.int64(i))) for i in range(3)
    ],
}


@pytest.mark.parametrize("samples", COLLATE_CASES.values(), ids=COLLATE_CASES.keys())
def test_default_collate_matches_torch(samples):
    ours = data.default_collate(materialize(samples, "glassgrad"))
    theirs = torch_data.default_collate(materialize(samples, "torch"))
    assert_same_batch(ours, theirs)


@pytest.mark.parametrize("sample", [np.ones(2), (np.ones(1), 3), {"a": np.zeros(1), "s": "x"}])
def test_default_convert_matches_torch(sample):
    assert_same_batch(data.default_convert(sample), torch_data.default_convert(sample))


@pytest.mark.parametrize(
    "samples",
    [[[1, 2], [3]], [None, None], [np.array(["a"]), np.array(["b"])], [object(), object()]],
    ids=["unequal lengths", "None", "string arrays", "objects"],
)
def test_default_collate_errors_match_torch(samples):
    with pytest.raises(Exception) as theirs:
        torch_data.default_collate(samples)
    with pytest.raises(theirs.type) as ours:
        data.default_collate(samples)
    assert str(ours.value) == str(theirs.value)


def test_default_collate_of_tensors_with_different_shapes_raises_like_stack():
    samples = [AsTensor(np.zeros(2)), AsTensor(np.zeros(3))]
    with pytest.raises(RuntimeError, match="stack"):
        torch_data.default_collate(materialize(samples, "torch"))
    with pytest.raises(RuntimeError, match="stack"):
        data.default_collate(materialize(samples, "glassgrad"))


def test_collate_of_tensors_that_require_grad_records_the_stack():
    values = [rng_array(3, "float64", seed=i) for i in range(4)]
    weights = rng_array((4, 3), "float64", seed=9)
    results = {}
    for library, module in LIBRARIES.values():
        samples = [library.tensor(v, requires_grad=True) for v in values]
        batch = module.default_collate(samples)
        (batch * library.from_numpy(weights)).sum().backward()
        results[library.__name__] = (
            type(batch.grad_fn).__name__,
            [s.grad.numpy() for s in samples],
        )
    # torch names it StackBackward0; the name is the stack op's business (tests/ops), here
    # the batch must be connected to every sample.
    assert results["glassgrad"][0] is not None and results["torch"][0] == "StackBackward0"
    for ours, theirs in zip(results["glassgrad"][1], results["torch"][1], strict=True):
        np.testing.assert_array_equal(ours, theirs)


def test_tensor_dataset_that_requires_grad_gives_connected_batches():
    features = rng_array((5, 2), "float64")
    grads = {}
    for library, module in LIBRARIES.values():
        leaf = library.tensor(features, requires_grad=True)
        dataset = module.TensorDataset(leaf, library.arange(5))
        for batch, _ in module.DataLoader(dataset, batch_size=2):
            (batch * batch).sum().backward()
        grads[library.__name__] = leaf.grad.numpy()
    np.testing.assert_array_equal(grads["glassgrad"], grads["torch"])


def test_tensor_dataset_batches_are_copies_and_samples_are_views():
    features = glassgrad.zeros(4, 2)
    dataset = data.TensorDataset(features)
    (batch,) = next(iter(data.DataLoader(dataset, batch_size=4)))
    batch.add_(1.0)
    assert features.sum().item() == 0.0  # a batch owns its memory, as torch.stack's result
    for sample in dataset.__getitems__([1, 3]):
        sample[0].add_(2.0)
    np.testing.assert_array_equal(features.numpy()[:, 0], [0.0, 2.0, 0.0, 2.0])


def test_collate_fn_map_can_be_extended():
    class Box:
        def __init__(self, value):
            self.value = value

    def collate_boxes(batch, *, collate_fn_map=None):
        return sum(box.value for box in batch)

    rules = {**data.default_collate_fn_map, Box: collate_boxes}
    batch = data.collate([(Box(1), 2.0), (Box(5), 3.0)], collate_fn_map=rules)
    assert batch[0] == 6
    assert_same_batch(batch[1], torch.tensor([2.0, 3.0], dtype=torch.float64))


# ----------------------------------------------------------------------------- loaders


def tensor_dataset(library, module, size=11):
    features = library.from_numpy(rng_array((size, 3)))
    labels = library.from_numpy(rng_array(size, "int64", seed=1))
    return module.TensorDataset(features, labels)


class DictDataset:
    """A map-style dataset of dict samples with arrays, numbers and strings (no base class)."""

    def __init__(self, size=7):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        return {
            "pixels": rng_array((2, 2), "float32", seed=index),
            "label": index % 3,
            "weight": 0.25 * index,
            "id": f"item{index}",
        }


def assert_same_loader(ours, theirs) -> None:
    assert len(ours) == len(theirs)
    our_batches, their_batches = list(ours), list(theirs)
    assert len(our_batches) == len(their_batches) == len(theirs)
    for got, expected in zip(our_batches, their_batches, strict=True):
        assert_same_batch(got, expected)


@pytest.mark.parametrize("drop_last", [False, True])
@pytest.mark.parametrize("batch_size", [1, 3, 4, 11, 20])
def test_tensor_dataset_batches_match_torch(batch_size, drop_last):
    ours, theirs = both(
        lambda lib, mod: mod.DataLoader(
            tensor_dataset(lib, mod), batch_size=batch_size, drop_last=drop_last
        )
    )
    assert_same_loader(ours, theirs)


@pytest.mark.parametrize("batch_size", [2, 7, None])
def test_dict_samples_match_torch(batch_size):
    ours, theirs = both(lambda lib, mod: mod.DataLoader(DictDataset(), batch_size=batch_size))
    assert_same_loader(ours, theirs)


@pytest.mark.parametrize(
    "dataset",
    [[(0.5 * i, i) for i in range(6)], range(10), [rng_array(3, seed=i) for i in range(5)]],
    ids=["list of tuples", "range", "list of arrays"],
)
def test_plain_sequences_as_datasets_match_torch(dataset):
    ours, theirs = both(lambda lib, mod: mod.DataLoader(dataset, batch_size=4))
    assert_same_loader(ours, theirs)


LOADER_OPTIONS = {
    "sampler list": {"sampler": [4, 2, 0, 1, 9], "batch_size": 2},
    "sampler list, drop_last": {"sampler": [4, 2, 0, 1, 9], "batch_size": 2, "drop_last": True},
    "batch_sampler list": {"batch_sampler": [[0, 1], [5, 3, 2], [4]]},
    "no batching": {"batch_size": None},
    "no batching, sampler": {"batch_size": None, "sampler": [3, 1]},
    "identity collate_fn": {"batch_size": 3, "collate_fn": lambda batch: batch},
    "counting collate_fn": {"batch_size": 4, "collate_fn": lambda batch: len(batch)},
}


@pytest.mark.parametrize("options", LOADER_OPTIONS.values(), ids=LOADER_OPTIONS.keys())
def test_sampler_batch_sampler_and_collate_fn_options_match_torch(options):
    ours, theirs = both(lambda lib, mod: mod.DataLoader(tensor_dataset(lib, mod), **options))
    assert_same_loader(ours, theirs)


def test_sampler_objects_match_torch():
    def build(lib, mod):
        dataset = tensor_dataset(lib, mod)
        sampler = mod.BatchSampler(mod.SequentialSampler(dataset), batch_size=3, drop_last=True)
        return mod.DataLoader(dataset, batch_sampler=sampler)

    assert_same_loader(*both(build))


def test_subset_and_concat_datasets_match_torch():
    def build(lib, mod):
        first = tensor_dataset(lib, mod, size=5)
        second = mod.Subset(tensor_dataset(lib, mod, size=9), [8, 1, 3, 3])
        return mod.DataLoader(first + second, batch_size=4)

    assert_same_loader(*both(build))
    ours, theirs = both(
        lambda lib, mod: mod.ConcatDataset([range(3), range(10, 14), range(20, 22)])
    )
    assert len(ours) == len(theirs) == 9
    for index in range(-9, 9):
        assert ours[index] == theirs[index]
    assert ours.cumulative_sizes == theirs.cumulative_sizes


def make_stream_dataset(mod, size):
    class Stream(mod.IterableDataset):
        def __iter__(self):
            for i in range(size):
                yield {"x": rng_array(2, seed=i), "i": i}

        def __len__(self):
            return size

    return Stream()


@pytest.mark.parametrize(
    "options",
    [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}],
    ids=str,
)
def test_iterable_dataset_matches_torch(options):
    ours, theirs = both(lambda lib, mod: mod.DataLoader(make_stream_dataset(mod, 8), **options))
    assert_same_loader(ours, theirs)


@pytest.mark.parametrize("size", [0, 1, 9, 10, 11])
@pytest.mark.parametrize("batch_size", [1, 3, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_len_matches_torch(size, batch_size, drop_last):
    ours, theirs = both(
        lambda lib, mod: mod.DataLoader(range(size), batch_size=batch_size, drop_last=drop_last)
    )
    assert len(ours) == len(theirs)
    assert len(list(ours)) == len(list(theirs)) == len(theirs)


ARGUMENT_ERRORS = [
    ({"shuffle": True, "sampler": [0, 1]}, "range"),
    ({"batch_sampler": [[0]], "batch_size": 2}, "range"),
    ({"batch_sampler": [[0]], "drop_last": True}, "range"),
    ({"batch_sampler": [[0]], "shuffle": True}, "range"),
    ({"batch_size": None, "drop_last": True}, "range"),
    ({"num_workers": -1}, "range"),
    ({"timeout": -1}, "range"),
    ({"prefetch_factor": 2}, "range"),
    ({"batch_size": 0}, "range"),
    ({"batch_size": True}, "range"),
    ({"batch_size": 2.0}, "range"),
    ({"drop_last": 1}, "range"),
    ({"shuffle": True}, "stream"),
    ({"sampler": [0]}, "stream"),
    ({"batch_sampler": [[0]]}, "stream"),
]


@pytest.mark.parametrize(("options", "kind"), ARGUMENT_ERRORS, ids=str)
def test_argument_errors_match_torch(options, kind):
    def build(lib, mod):
        dataset = range(4) if kind == "range" else make_stream_dataset(mod, 4)
        return mod.DataLoader(dataset, **options)

    with pytest.raises(Exception) as theirs:
        build(*LIBRARIES["torch"])
    with pytest.raises(theirs.type) as ours:
        build(*LIBRARIES["glassgrad"])
    # Up to the repr of the offending object (a sampler's repr differs between libraries).
    assert str(ours.value).split("=")[0] == str(theirs.value).split("=")[0]


# ----------------------------------------------------------------------------- shuffling


def epochs(loader, count=3):
    return [[value for batch in loader for value in batch.tolist()] for _ in range(count)]


def test_shuffle_gives_a_new_permutation_each_epoch_from_the_generator():
    def loader(seed):
        return data.DataLoader(
            range(50), batch_size=8, shuffle=True, generator=glassgrad.Generator().manual_seed(seed)
        )

    first = epochs(loader(0))
    for order in first:
        assert sorted(order) == list(range(50))
        assert order != list(range(50))
    assert first[0] != first[1] != first[2]
    assert epochs(loader(0)) == first  # the same seed replays every epoch
    assert epochs(loader(1))[0] != first[0]


def test_shuffle_with_drop_last_gives_full_batches_only():
    loader = data.DataLoader(
        range(10),
        batch_size=4,
        shuffle=True,
        drop_last=True,
        generator=glassgrad.Generator().manual_seed(3),
    )
    batches = list(loader)
    assert len(loader) == len(batches) == 2
    assert all(len(batch) == 4 for batch in batches)
    assert len(set(itertools.chain.from_iterable(b.tolist() for b in batches))) == 8


def test_shuffle_without_generator_is_still_a_permutation():
    order = epochs(data.DataLoader(range(20), batch_size=3, shuffle=True), count=1)[0]
    assert sorted(order) == list(range(20))


def test_shuffle_without_generator_follows_manual_seed():
    loader = data.DataLoader(range(30), batch_size=7, shuffle=True)
    glassgrad.manual_seed(123)
    first = epochs(loader, count=2)
    glassgrad.manual_seed(123)
    assert epochs(loader, count=2) == first
    assert first[0] != first[1]
    glassgrad.manual_seed(124)
    assert epochs(loader, count=1)[0] != first[0]


def test_generator_is_shared_and_reseeding_replays():
    generator = glassgrad.Generator().manual_seed(5)
    sampler = data.RandomSampler(range(40), generator=generator)
    first, second = list(sampler), list(sampler)
    assert first != second  # the generator's stream advanced
    generator.manual_seed(5)
    assert list(sampler) == first


def test_numpy_generators_are_accepted():
    def order(seed):
        return epochs(
            data.DataLoader(
                range(25), batch_size=4, shuffle=True, generator=np.random.default_rng(seed)
            ),
            count=2,
        )

    assert order(0) == order(0) and order(0) != order(1)
    assert sorted(order(0)[1]) == list(range(25))


def test_random_sampler_options():
    draws = list(data.RandomSampler(range(5), replacement=True, num_samples=200))
    assert len(draws) == 200 and set(draws) == set(range(5))
    chained = list(
        data.RandomSampler(range(4), num_samples=10, generator=glassgrad.Generator().manual_seed(0))
    )
    assert len(chained) == 10
    assert sorted(chained[:4]) == sorted(chained[4:8]) == [0, 1, 2, 3]
    assert len(set(chained[8:])) == 2
    assert sorted(data.SubsetRandomSampler([7, 3, 5])) == [3, 5, 7]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        data.RandomSampler(range(3), num_samples=0)
    with pytest.raises(TypeError, match="replacement should be a boolean"):
        data.RandomSampler(range(3), replacement=1)
    with pytest.raises(TypeError, match="generator must be"):
        list(data.RandomSampler(range(3), generator=42))


# ----------------------------------------------------------------------------- random_split


SPLIT_LENGTHS = [
    [0.5, 0.5],
    [0.8, 0.2],
    [0.3, 0.3, 0.4],
    [1 / 3, 1 / 3, 1 / 3],
    [0.1] * 10,
    [1.0],
    [0.25, 0.75, 0.0],
]


@pytest.mark.parametrize("fractions", SPLIT_LENGTHS, ids=str)
@pytest.mark.parametrize("size", [1, 5, 10, 11, 97])
def test_random_split_sizes_match_torch(size, fractions):
    with warnings.catch_warnings(record=True) as their_warnings:
        warnings.simplefilter("always")
        theirs = torch_data.random_split(range(size), fractions)
    with warnings.catch_warnings(record=True) as our_warnings:
        warnings.simplefilter("always")
        ours = data.random_split(
            range(size), fractions, generator=glassgrad.Generator().manual_seed(0)
        )
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert len(our_warnings) == len(their_warnings)
    assert sorted(itertools.chain.from_iterable(ours)) == list(range(size))


def test_random_split_with_counts_is_disjoint_covering_and_seeded():
    def split(seed):
        subsets = data.random_split(
            range(100), [60, 30, 10], generator=glassgrad.Generator().manual_seed(seed)
        )
        return [list(subset) for subset in subsets]

    first = split(7)
    assert [len(s) for s in first] == [60, 30, 10]
    assert sorted(itertools.chain.from_iterable(first)) == list(range(100))
    assert split(7) == first
    assert split(8) != first


def test_random_split_of_a_tensor_dataset_gives_its_rows():
    dataset = tensor_dataset(glassgrad, data, size=10)
    train, test = data.random_split(
        dataset, [0.7, 0.3], generator=glassgrad.Generator().manual_seed(0)
    )
    assert isinstance(train, data.Subset) and len(train) == 7 and len(test) == 3
    for subset in (train, test):
        for position, index in enumerate(subset.indices):
            features, label = subset[position]
            np.testing.assert_array_equal(features.numpy(), dataset.tensors[0].numpy()[index])
            assert label.item() == dataset.tensors[1].numpy()[index]


@pytest.mark.parametrize(
    "lengths", [[3, 3], [5, 6], [1.5, -0.5], [0.5, 0.4]], ids=["short", "long", "bad", "sum"]
)
def test_random_split_errors_match_torch(lengths):
    with pytest.raises(Exception) as theirs:
        torch_data.random_split(range(10), lengths)
    with pytest.raises(theirs.type) as ours:
        data.random_split(range(10), lengths)
    assert str(ours.value).startswith(str(theirs.value).split("!")[0])


def test_tensor_dataset_rejects_tensors_of_different_lengths():
    with pytest.raises(ValueError, match=r"Size mismatch.*\(3,\), \(4, 2\)"):
        data.TensorDataset(glassgrad.zeros(3), glassgrad.zeros(4, 2))


def test_chain_and_stack_datasets_match_torch():
    def build(lib, mod):
        chain = mod.ChainDataset([make_stream_dataset(mod, 3), make_stream_dataset(mod, 4)])
        stacked = mod.StackDataset(tensor_dataset(lib, mod, size=6), list(range(10, 16)))
        named = mod.StackDataset(features=tensor_dataset(lib, mod, size=6), k=range(6))
        return chain, stacked, named

    (chain, stacked, named), (their_chain, their_stacked, their_named) = both(build)
    assert len(chain) == len(their_chain) == 7
    assert_same_loader(
        data.DataLoader(chain, batch_size=3),
        torch_data.DataLoader(their_chain, batch_size=3),
    )
    for ours, theirs in ((stacked, their_stacked), (named, their_named)):
        assert len(ours) == len(theirs) == 6
        assert_same_batch(ours[2], theirs[2])
        # DataLoader fetches a batch through __getitems__ (TensorDataset has its own).
        assert_same_batch(ours.__getitems__([0, 5, 3]), theirs.__getitems__([0, 5, 3]))
        assert_same_loader(
            data.DataLoader(ours, batch_size=4),
            torch_data.DataLoader(theirs, batch_size=4),
        )


def test_chain_and_stack_dataset_errors_match_torch():
    for mod in (data, torch_data):
        with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
            list(mod.ChainDataset([range(3)]))
        with pytest.raises(ValueError, match="Size mismatch between datasets"):
            mod.StackDataset(range(3), range(4))
        with pytest.raises(ValueError, match="At least one dataset should be passed"):
            mod.StackDataset()
        with pytest.raises(ValueError, match="but both types are given"):
            mod.StackDataset(range(3), y=range(3))


def test_weighted_random_sampler_draws_by_weight():
    weights = [0.0, 1.0, 0.0, 3.0, 4.0]
    generator = glassgrad.Generator().manual_seed(0)
    sampler = data.WeightedRandomSampler(weights, 4000, generator=generator)
    drawn = np.bincount(list(sampler), minlength=5)
    assert len(sampler) == 4000 and drawn[0] == drawn[2] == 0
    np.testing.assert_allclose(drawn / 4000, np.array(weights) / 8, atol=0.03)
    # Without replacement every index comes once; the zero weights come last, as in PyTorch.
    for _ in range(5):
        order = list(data.WeightedRandomSampler(weights, 5, replacement=False))
        assert sorted(order[:3]) == [1, 3, 4] and sorted(order[3:]) == [0, 2]
    # A fixed seed repeats its draws, and a new pass draws anew.
    first = data.WeightedRandomSampler(weights, 6, generator=glassgrad.Generator().manual_seed(3))
    again = data.WeightedRandomSampler(weights, 6, generator=glassgrad.Generator().manual_seed(3))
    assert list(first) == list(again)
    assert isinstance(first.weights, glassgrad.Tensor) and first.weights.dtype == glassgrad.float64


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([1.0, 2.0], 0), "num_samples should be a positive integer value"),
        (([1.0, 2.0], True), "num_samples should be a positive integer value"),
        (([1.0, 2.0], 2, 1), "replacement should be a boolean value"),
        (([[1.0, 2.0]], 2), "weights should be a 1d sequence but given weights have shape"),
    ],
)
def test_weighted_random_sampler_errors_match_torch(args, message):
    for mod in (data, torch_data):
        with pytest.raises(ValueError, match=message):
            mod.WeightedRandomSampler(*args)
