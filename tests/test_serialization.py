"""glassgrad.save / glassgrad.load: safetensors round trips, interop with safetensors.torch,
and files that are truncated, corrupted or crafted to run code."""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import struct

import numpy as np
import pytest
import safetensors.numpy
import safetensors.torch
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import glassgrad
from glassgrad import serialization

save, load = serialization.save, serialization.load

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool"]
SHAPES = [(), (1,), (5,), (2, 3), (2, 1, 4), (0,), (3, 0), (0, 2, 2)]


def random_array(dtype: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def assert_tensor_equal(loaded, expected: np.ndarray) -> None:
    assert isinstance(loaded, glassgrad.Tensor)
    array = loaded.numpy()
    assert array.dtype == expected.dtype
    assert array.shape == expected.shape
    np.testing.assert_array_equal(array, expected)


def assert_same_structure(loaded, expected) -> None:
    """Equal values and equal container/scalar types, tensors compared element by element."""
    if isinstance(expected, glassgrad.Tensor):
        assert_tensor_equal(loaded, expected.numpy())
        assert loaded.requires_grad == expected.requires_grad
    elif isinstance(expected, np.ndarray):
        assert type(loaded) is np.ndarray
        assert loaded.dtype == expected.dtype
        np.testing.assert_array_equal(loaded, expected)
    elif isinstance(expected, dict):
        assert type(loaded) is dict
        assert list(loaded) == list(expected)
        assert [type(k) for k in loaded] == [type(k) for k in expected]
        for key in expected:
            assert_same_structure(loaded[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert type(loaded) is type(expected)
        assert len(loaded) == len(expected)
        for got, want in zip(loaded, expected, strict=True):
            assert_same_structure(got, want)
    elif isinstance(expected, float) and math.isnan(expected):
        assert type(loaded) is float and math.isnan(loaded)
    else:
        assert type(loaded) is type(expected)
        assert loaded == expected


# ----------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("dtype", DTYPES)
def test_round_trip_every_dtype_and_shape(tmp_path, dtype, shape):
    array = random_array(dtype, shape, np.random.default_rng(0))
    path = tmp_path / "t.safetensors"
    save(glassgrad.from_numpy(array.copy()), path)
    loaded = load(path)
    assert_tensor_equal(loaded, array)
    # The file is a safetensors file for the reference reader too.
    assert_tensor_equal(glassgrad.from_numpy(safetensors.numpy.load_file(path)["tensor"]), array)


def test_loaded_tensors_own_writable_memory(tmp_path):
    save({"a": glassgrad.from_numpy(np.arange(6.0)), "b": glassgrad.ones(3)}, tmp_path / "x")
    loaded = load(tmp_path / "x")
    for tensor in loaded.values():
        array = tensor._data
        assert array.flags.writeable and array.flags.owndata and array.flags.c_contiguous
    loaded["a"].add_(1.0)  # optimizers update loaded state in place
    np.testing.assert_array_equal(loaded["a"].numpy(), np.arange(6.0) + 1)


def test_non_contiguous_tensor_saves_its_values(tmp_path):
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    save(
        {"t": glassgrad.from_numpy(base).t(), "s": glassgrad.from_numpy(base)[:, ::2]},
        tmp_path / "x",
    )
    loaded = load(tmp_path / "x")
    assert_tensor_equal(loaded["t"], base.T)
    assert_tensor_equal(loaded["s"], base[:, ::2])


def test_big_endian_array_is_stored_little_endian(tmp_path):
    array = np.arange(5, dtype=">i4")
    save({"a": array}, tmp_path / "x")
    loaded = load(tmp_path / "x")["a"]
    assert loaded.dtype == np.dtype("int32") and loaded.dtype.isnative
    np.testing.assert_array_equal(loaded, np.arange(5))


def test_flat_state_dict_keeps_keys_and_order(tmp_path):
    rng = np.random.default_rng(1)
    state = {
        "0.weight": glassgrad.from_numpy(rng.standard_normal((4, 3)).astype(np.float32)),
        "0.bias": glassgrad.from_numpy(rng.standard_normal(4).astype(np.float32)),
        "1.num_batches_tracked": glassgrad.tensor(7),
        "1.running_mean": glassgrad.zeros(4, dtype=glassgrad.float64),
    }
    save(state, tmp_path / "m.safetensors")
    assert_same_structure(load(tmp_path / "m.safetensors"), state)


def test_nested_optimizer_state_round_trips_with_types(tmp_path):
    rng = np.random.default_rng(2)

    def rand(*shape):
        return glassgrad.from_numpy(rng.standard_normal(shape))

    state = {
        "state": {
            0: {"step": glassgrad.tensor(3.0), "exp_avg": rand(2, 3), "exp_avg_sq": rand(2, 3)},
            1: {"momentum_buffer": None},
        },
        "param_groups": [
            {
                "lr": 1e-3,
                "betas": (0.9, 0.999),
                "eps": 1e-8,
                "weight_decay": 0,
                "amsgrad": False,
                "maximize": False,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "fused": None,
                "params": [0, 1],
                "name": "encoder",
                "initial_lr": float("inf"),
                "min_lr": float("-inf"),
                "unset": float("nan"),
                "big": 2**70,
            }
        ],
        "extras": [rand(1), (rand(2), "x", [None, True]), np.arange(3, dtype=np.int16)],
        "keys": {0.5: "float key", True: "bool key", None: "none key", "": rand(0)},
    }
    path = tmp_path / "opt.safetensors"
    save(state, path)
    assert_same_structure(load(path), state)


def test_tensor_keys_follow_the_nesting_and_stay_unique(tmp_path):
    state = {"a.b": glassgrad.ones(1), "a": {"b": glassgrad.zeros(1)}, "l": [glassgrad.ones(2)]}
    save(state, tmp_path / "x")
    names = list(safetensors.numpy.load_file(tmp_path / "x"))
    assert sorted(names) == sorted(["a.b", "a.b~1", "l.0"])
    assert_same_structure(load(tmp_path / "x"), state)


def test_requires_grad_is_kept(tmp_path):
    weight = glassgrad.randn(3, requires_grad=True)
    save({"w": weight, "b": glassgrad.zeros(3)}, tmp_path / "x")
    loaded = load(tmp_path / "x")
    assert loaded["w"].requires_grad and loaded["w"].is_leaf
    assert not loaded["b"].requires_grad


def test_plain_values_at_top_level(tmp_path):
    for value in [None, 3, 2.5, "text", True, [1, 2], (1,), {}, [], {"a": []}]:
        save(value, tmp_path / "x")
        assert_same_structure(load(tmp_path / "x"), value)


def test_binary_file_objects(tmp_path):
    buffer = io.BytesIO()
    state = {"w": glassgrad.arange(4.0), "n": 1}
    save(state, buffer)
    buffer.seek(0)
    assert_same_structure(load(buffer), state)
    with open(tmp_path / "x", "wb") as out:
        save(state, out)
    with open(tmp_path / "x", "rb") as stream:
        assert_same_structure(load(stream), state)


def test_load_accepts_and_ignores_torch_keyword_arguments(tmp_path):
    save({"w": glassgrad.ones(2)}, tmp_path / "x")
    for kwargs in [
        {"map_location": "cpu"},
        {"map_location": None, "weights_only": False},
        {"weights_only": True, "mmap": True},
        {"map_location": lambda storage, location: storage, "encoding": "latin1"},
    ]:
        assert_tensor_equal(load(tmp_path / "x", **kwargs)["w"], np.ones(2, np.float32))
    assert_tensor_equal(load(str(tmp_path / "x"), "cpu")["w"], np.ones(2, np.float32))


def test_header_is_padded_so_data_starts_aligned(tmp_path):
    save({"a": glassgrad.ones(1, dtype=glassgrad.uint8), "b": glassgrad.ones(3)}, tmp_path / "x")
    raw = (tmp_path / "x").read_bytes()
    (header_length,) = struct.unpack("<Q", raw[:8])
    assert header_length % 8 == 0
    header = json.loads(raw[8 : 8 + header_length])
    assert header["b"]["data_offsets"] == [0, 12]  # wider items first, as the reference writer


@settings(max_examples=40, deadline=None)
@given(
    dtype=st.sampled_from(DTYPES),
    shape=st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple),
    seed=st.integers(0, 2**32 - 1),
)
def test_round_trip_property(tmp_path_factory, dtype, shape, seed):
    array = random_array(dtype, shape, np.random.default_rng(seed))
    path = tmp_path_factory.mktemp("p") / "x"
    save({"x": glassgrad.from_numpy(array), "pair": (glassgrad.from_numpy(array), seed)}, path)
    loaded = load(path)
    assert_tensor_equal(loaded["x"], array)
    assert_tensor_equal(loaded["pair"][0], array)
    assert loaded["pair"][1] == seed


# ----------------------------------------------------------------------------- interop


def torch_model() -> torch.nn.Module:
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 6 * 6, 10),
    )
    model.train()(torch.randn(2, 1, 8, 8))  # non-trivial running stats and batch count
    return model


def test_glassgrad_state_dict_loads_in_pytorch(tmp_path):
    reference = torch_model().state_dict()
    ours = {name: glassgrad.from_numpy(t.numpy().copy()) for name, t in reference.items()}
    path = tmp_path / "model.safetensors"
    save(ours, path)

    loaded = safetensors.torch.load_file(path)
    assert set(loaded) == set(reference)
    for name, tensor in reference.items():
        assert loaded[name].dtype == tensor.dtype
        assert loaded[name].shape == tensor.shape
        assert torch.equal(loaded[name], tensor)
    fresh = torch.nn.Sequential(
        torch.nn.Conv2d(1, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.ReLU(),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 6 * 6, 10),
    )
    fresh.load_state_dict(loaded, strict=True)
    x = torch.randn(3, 1, 8, 8)
    assert torch.equal(fresh.eval()(x), torch_model().eval()(x))


def test_pytorch_safetensors_file_loads_in_glassgrad(tmp_path):
    reference = {
        "f16": torch.randn(3, 2).half(),
        "f32": torch.randn(4),
        "f64": torch.randn(2, 2, dtype=torch.float64),
        "i8": torch.tensor([-128, 0, 127], dtype=torch.int8),
        "i16": torch.tensor([-5, 300], dtype=torch.int16),
        "i32": torch.arange(-3, 3, dtype=torch.int32),
        "i64": torch.tensor(2**40),
        "u8": torch.tensor([0, 255], dtype=torch.uint8),
        "bool": torch.tensor([[True, False]]),
        "empty": torch.zeros(0, 3),
        **torch_model().state_dict(),
    }
    path = tmp_path / "torch.safetensors"
    safetensors.torch.save_file(reference, path, metadata={"format": "pt"})
    loaded = load(path)
    assert set(loaded) == set(reference)
    for name, tensor in reference.items():
        assert_tensor_equal(loaded[name], tensor.numpy())


def test_pytorch_optimizer_state_round_trips(tmp_path):
    model = torch_model()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9))
    model(torch.randn(2, 1, 8, 8)).sum().backward()
    optimizer.step()
    reference = optimizer.state_dict()

    def to_glassgrad(value):
        if isinstance(value, torch.Tensor):
            return glassgrad.from_numpy(value.numpy().copy())
        if isinstance(value, dict):
            return {k: to_glassgrad(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(to_glassgrad(v) for v in value)
        return value

    ours = to_glassgrad(reference)
    save(ours, tmp_path / "opt")
    assert_same_structure(load(tmp_path / "opt"), ours)


def test_glassgrad_file_is_accepted_by_the_reference_parser(tmp_path):
    state = {"state": {0: {"buf": glassgrad.ones(2)}}, "lr": 0.1}
    save(state, tmp_path / "x")
    with safetensors.safe_open(tmp_path / "x", "np") as reader:
        metadata = reader.metadata()
        assert list(reader.keys()) == ["state.0.buf"]
    structure = json.loads(metadata["glassgrad.structure"])
    assert structure == {
        "dict": [
            ["state", {"dict": [[0, {"dict": [["buf", {"tensor": "state.0.buf"}]]}]]}],
            ["lr", 0.1],
        ]
    }


# ----------------------------------------------------------------------------- saving errors


def test_save_rejects_what_it_cannot_store(tmp_path):
    class Module:
        pass

    cases = [
        ({"model": Module()}, "Module", "'model'"),
        ({"fn": print}, "builtin_function_or_method", "'fn'"),
        ({"s": {1, 2}}, "set", "'s'"),
        ([1, [2, object()]], "object", "[1, 1]"),
        ({(1, 2): glassgrad.ones(1)}, "dict key (1, 2)", "tuple"),
        ({"c": np.array(["a"])}, "dtype <U1", "'c'"),
    ]
    for obj, *words in cases:
        with pytest.raises(TypeError) as error:
            save(obj, tmp_path / "x")
        assert "glassgrad.save" in str(error.value)
        for word in words:
            assert word in str(error.value)


def test_failed_save_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "ckpt.safetensors"
    save({"w": glassgrad.ones(2)}, path)
    with pytest.raises(TypeError):
        save({"w": glassgrad.zeros(2), "bad": object()}, path)
    assert_tensor_equal(load(path)["w"], np.ones(2, np.float32))
    assert os.listdir(tmp_path) == ["ckpt.safetensors"]


# ----------------------------------------------------------------------------- bad files


def write_raw(path, header, body: bytes = b"", header_length: int | None = None) -> None:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    length = len(text) if header_length is None else header_length
    path.write_bytes(struct.pack("<Q", length) + text + body)


def assert_load_fails(path, *words: str) -> None:
    with pytest.raises(ValueError) as error:
        load(path)
    message = str(error.value)
    assert "glassgrad.load" in message and str(path) in message
    for word in words:
        assert word in message, message


def valid_file(tmp_path) -> bytes:
    save({"w": glassgrad.arange(6.0).reshape(2, 3), "step": 3}, tmp_path / "good")
    return (tmp_path / "good").read_bytes()


def test_empty_and_too_short_files(tmp_path):
    for content in [b"", b"\x05\x00\x00"]:
        (tmp_path / "x").write_bytes(content)
        assert_load_fails(tmp_path / "x", "too short", f"{len(content)} bytes")


def test_truncated_files_at_every_part(tmp_path):
    raw = valid_file(tmp_path)
    (header_length,) = struct.unpack("<Q", raw[:8])
    cuts = {
        8 + header_length // 2: "runs past the end of the file",
        8 + header_length: "runs past the end of the data",
        len(raw) - 1: "runs past the end of the data",
    }
    for size, words in cuts.items():
        (tmp_path / "x").write_bytes(raw[:size])
        assert_load_fails(tmp_path / "x", words)


def test_corrupted_header_length(tmp_path):
    raw = valid_file(tmp_path)
    (tmp_path / "x").write_bytes(struct.pack("<Q", 2**63 + 5) + raw[8:])
    assert_load_fails(tmp_path / "x", "larger than the limit")
    (header_length,) = struct.unpack("<Q", raw[:8])
    (tmp_path / "x").write_bytes(struct.pack("<Q", header_length + 3) + raw[8:])
    assert_load_fails(tmp_path / "x", "not valid JSON")


def test_header_that_is_not_json(tmp_path):
    cases = [
        (b'{"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]', "not valid JSON"),
        (b"\xff\xfe{}", "UTF-8"),
        (b"[1, 2]  ", "must start with '{'"),
        (b'{"a": NaN}', "not valid JSON"),
        (b'{"w": {"dtype": "F32", "shape": [], "data_offsets": [0, 0]}, "w": 1}', "duplicate"),
        (b'{"a":' * 100000, "nested too deeply"),
    ]
    for header, words in cases:
        write_raw(tmp_path / "x", header)
        assert_load_fails(tmp_path / "x", words)


def test_entries_with_bad_fields(tmp_path):
    body = bytes(8)
    cases = [
        ({"w": [1]}, "exactly the fields"),
        ({"w": {"dtype": "F32", "shape": [2]}}, "exactly the fields"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8], "code": "x"}}, "fields"),
        ({"w": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}}, "shape"),
        ({"w": {"dtype": "F32", "shape": [2.0], "data_offsets": [0, 8]}}, "shape"),
        ({"w": {"dtype": "F32", "shape": [True, 2], "data_offsets": [0, 8]}}, "shape"),
        ({"w": {"dtype": "F32", "shape": 2, "data_offsets": [0, 8]}}, "shape"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0]}}, "data_offsets"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8.0]}}, "data_offsets"),
        ({"w": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}}, "span -8"),
        ({"w": {"dtype": "F64", "shape": [2], "data_offsets": [0, 8]}}, "need 16 bytes"),
        ({"w": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}}, "need 12 bytes"),
        ({"w": {"dtype": "PICKLE", "shape": [8], "data_offsets": [0, 8]}}, "unknown dtype"),
        ({"w": {"dtype": "O", "shape": [1], "data_offsets": [0, 8]}}, "unknown dtype"),
        ({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]}}, "BF16", "not support"),
        ({"__metadata__": {"a": 1}}, "__metadata__"),
        ({"__metadata__": ["a"]}, "__metadata__"),
    ]
    for header, *words in cases:
        write_raw(tmp_path / "x", header, body)
        assert_load_fails(tmp_path / "x", *words)


def test_offsets_out_of_range_overlapping_or_leaving_gaps(tmp_path):
    def entry(begin, end):
        return {"dtype": "U8", "shape": [end - begin], "data_offsets": [begin, end]}

    cases = [
        ({"a": entry(0, 4), "b": entry(4, 12)}, 8, "runs past the end of the data"),
        ({"a": entry(0, 2**40)}, 8, "runs past the end of the data"),
        ({"a": entry(0, 6), "b": entry(4, 8)}, 8, "overlaps"),
        ({"a": entry(0, 4), "b": entry(0, 4)}, 4, "overlaps"),
        ({"a": entry(0, 4), "b": entry(6, 8)}, 8, "gap"),
        ({"a": entry(2, 8)}, 8, "gap"),
        ({"a": entry(0, 4)}, 8, "trailing bytes"),
        ({}, 3, "trailing bytes"),
    ]
    for header, body_size, words in cases:
        write_raw(tmp_path / "x", header, bytes(body_size))
        assert_load_fails(tmp_path / "x", words)


def test_bool_tensor_with_bytes_other_than_0_and_1(tmp_path):
    write_raw(
        tmp_path / "x", {"b": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}}, b"\x01\x07"
    )
    assert_load_fails(tmp_path / "x", "BOOL", "other than 0 and 1")


class _RunsCode:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (self.marker,))


def test_pickle_payloads_never_run(tmp_path):
    marker = str(tmp_path / "pwned")
    payload = pickle.dumps(_RunsCode(marker))
    # A bare pickle, a torch.save zip file holding one, and a safetensors file that hides the
    # pickle in its body and asks the structure to unpickle it.
    (tmp_path / "bare").write_bytes(payload)
    torch.save({"x": _RunsCode(marker)}, tmp_path / "torch.pt")
    for tag in [{"pickle": "blob"}, {"__reduce__": ["os.mkdir", [marker]]}, {"tensor": 1}]:
        header = {
            "__metadata__": {
                "glassgrad.format": "1",
                "glassgrad.structure": json.dumps({"dict": [["x", tag]]}),
            },
            "blob": {"dtype": "U8", "shape": [len(payload)], "data_offsets": [0, len(payload)]},
        }
        write_raw(tmp_path / "crafted", header, payload)
        assert_load_fails(tmp_path / "crafted", "not a known kind of value")
    for name in ["bare", "torch.pt"]:
        with pytest.raises(ValueError) as error:
            load(tmp_path / name)
        assert "not a valid safetensors file" in str(error.value)
    assert not os.path.exists(marker)


def test_structure_that_does_not_match_the_tensors(tmp_path):
    def header(structure, version="1"):
        return {
            "__metadata__": {"glassgrad.format": version, "glassgrad.structure": structure},
            "w": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
        }

    cases = [
        (header(json.dumps({"tensor": "missing"})), "missing"),
        (header(json.dumps([{"tensor": "w"}, {"tensor": "w"}])), "twice"),
        (header(json.dumps([1, 2])), "never uses"),
        (header("{not json"), "glassgrad.structure", "not valid JSON"),
        (header(json.dumps({"tensor": "w"}), version="9"), "glassgrad.format"),
        (header(json.dumps({"dict": [["k"]]})), "[key, value] pair"),
        (header(json.dumps({"dict": [[[1], {"tensor": "w"}]]})), "dict key"),
        (header(json.dumps({"float": "1e400"})), "not a known kind"),
        (header(json.dumps({"tensor": "w", "requires_grad": "yes"})), "not a known kind"),
        (header(json.dumps({"tuple": [], "dict": []})), "not a known kind"),
        (header("[" * 100000 + "]" * 100000), "nested too deeply"),
    ]
    for head, *words in cases:
        write_raw(tmp_path / "x", head, b"\x00\x01")
        assert_load_fails(tmp_path / "x", *words)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent.safetensors")
