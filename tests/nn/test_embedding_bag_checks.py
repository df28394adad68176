"""embedding_bag's argument checks in PyTorch's order: torch.nn.functional's, then ATen's
``check_arguments`` (after ``promoteIndicesAndOffsets``), then the kernels' index range
checks, whose message depends on the kernel PyTorch picks (fuzz seed 110587: a float64
``per_sample_weights`` beside a float32 weight was accepted here)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
import torch

import glassgrad as gg


def _calls(L: Any) -> dict:
    f = L.nn.functional.embedding_bag

    def idx(*values: int, dtype: Any = None) -> Any:
        return L.tensor(list(values), dtype=dtype or L.int64)

    def w32() -> Any:
        return L.ones(10, 3)

    def w64() -> Any:
        return L.ones(10, 3, dtype=L.float64)

    return {
        "psw float64, weight float32": lambda: f(
            idx(1, 2, 4), w32(), idx(0, 1), mode="sum", per_sample_weights=L.ones(3).double()
        ),
        "psw float32, weight float64": lambda: f(
            idx(1, 2, 4), w64(), idx(0, 1), mode="sum", per_sample_weights=L.ones(3)
        ),
        "psw int64": lambda: f(
            idx(1, 2, 4), w32(), idx(0, 1), mode="sum", per_sample_weights=L.ones(3).long()
        ),
        "2-d input, psw float64": lambda: f(
            L.ones(2, 2).long(), w32(), mode="sum", per_sample_weights=L.ones(2, 2).double()
        ),
        "psw with mode max": lambda: f(
            idx(1, 2, 4), w32(), idx(0, 1), mode="max", per_sample_weights=L.ones(3).double()
        ),
        "float indices": lambda: f(L.tensor([1.0, 2.0]), w32(), idx(0, 1)),
        "float offsets": lambda: f(idx(1, 2), w32(), L.tensor([0.0, 1.0])),
        "float indices, int32 weight": lambda: f(
            L.tensor([1.0, 2.0]), L.ones(10, 3, dtype=L.int32), idx(0, 1)
        ),
        "int32 indices, int64 offsets": lambda: f(idx(1, 2, 4, dtype=L.int32), w32(), idx(0, 1)),
        "include_last_offset without offsets": lambda: f(
            idx(1, 2), w32(), idx(), include_last_offset=True
        ),
        "padding_idx and indices out of range": lambda: f(
            idx(1, 22), w32(), idx(0, 1), padding_idx=10
        ),
        "2-d input of width 0": lambda: f(L.ones(2, 0).long(), w32()),
        "out of range, float64": lambda: f(idx(1, 2, 14), w64(), idx(0, 1)),
        "negative, float64": lambda: f(idx(1, -2, 4), w64(), idx(0, 1), mode="sum"),
        "out of range, max": lambda: f(idx(1, 2, 14), w32(), idx(0, 1), mode="max"),
        "out of range, padding": lambda: f(idx(1, 2, 14), w32(), idx(0, 1), padding_idx=0),
        "out of range, strided weight": lambda: f(idx(1, 12, 3), w32()[:, ::2], idx(0, 2)),
        "out of range, fast path": lambda: f(idx(1, 2, 14), w32(), idx(0, 1), mode="sum"),
        "out of range, fast path, psw": lambda: f(
            idx(1, 2, 14), w32(), idx(0, 1), mode="sum", per_sample_weights=L.ones(3)
        ),
        "out of range, fast path, later bag": lambda: f(
            idx(1, 2, 3, 4, 15, 5), w32(), idx(0, 1, 2, 3, 4)
        ),
        "out of range, max_norm": lambda: f(idx(1, 2, 14), w32(), idx(0, 1), max_norm=1.0),
        "weight is int32, input float (no swap)": lambda: f(
            L.ones(10, 3), L.tensor([1, 2], dtype=L.int32), idx(0, 1)
        ),
    }


def _outcome(call: Any) -> tuple:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call()
    except Exception as error:  # noqa: BLE001 - the outcome compared is the error
        message = str(error).split("\n")[0]
        return type(error).__name__, message.replace("glassgrad.", "torch.")
    return "ok", result.detach().numpy().tolist()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_embedding_bag_checks_as_pytorch(threads: int) -> None:
    """Also with 2 and 3 threads: PyTorch's fast-path error report splits the bags among
    its threads and names a shifted position past the first chunk."""
    before = (gg.get_num_threads(), torch.get_num_threads())
    gg.set_num_threads(threads)
    torch.set_num_threads(threads)
    try:
        ours = {name: _outcome(call) for name, call in _calls(gg).items()}
        theirs = {name: _outcome(call) for name, call in _calls(torch).items()}
    finally:
        gg.set_num_threads(before[0])
        torch.set_num_threads(before[1])
    assert ours == theirs


@pytest.mark.parametrize("indices", [[1, -2, 4], [1, 2, 14], [1, -14, 4]])
def test_max_norm_renorms_as_embedding_renorm(indices: list) -> None:
    """embedding_renorm_ renorms rows in sorted order of the indices, reading each by
    ``select``: a negative index wraps, one out of range raises after the rows before it."""
    seen = []
    for L in (gg, torch):
        weight = L.arange(30.0).reshape(10, 3)
        outcome = _outcome(
            lambda L=L, weight=weight: L.nn.functional.embedding(
                L.tensor(indices), weight, max_norm=5.0
            )
        )
        seen.append((outcome[0], weight.numpy().round(4).tolist()))
    assert seen[0] == seen[1]
