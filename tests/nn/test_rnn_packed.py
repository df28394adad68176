"""nn.utils.rnn and the recurrent layers on packed sequences, against PyTorch: packing,
padding and their gradients, and RNN/LSTM/GRU (bidirectional, stacked, projections, sorted
or not, given initial states) returning the same packed outputs, final states and
gradients for the same weights."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import assert_close, copy_state

RNG = np.random.default_rng(11)
LENGTHS = [4, 6, 1, 3]


def _sequences() -> list:
    return [RNG.standard_normal((n, 3)) for n in LENGTHS]


def _both(arrays: list) -> tuple:
    ours = [gg.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    return ours, theirs


def _backward(outputs: list, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for lib_outputs in outputs:
        total = 0
        for out in lib_outputs:
            v = rng.standard_normal(tuple(out.shape))
            lib = gg if isinstance(out, gg.Tensor) else torch
            total = total + (out * lib.tensor(v, dtype=out.dtype)).sum()
        total.backward()
        rng = np.random.default_rng(seed)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence(batch_first: bool, padding_side: str) -> None:
    ours, theirs = _both(_sequences())
    a = gg.nn.utils.rnn.pad_sequence(ours, batch_first, -1.5, padding_side)
    b = torch.nn.utils.rnn.pad_sequence(theirs, batch_first, -1.5, padding_side)
    _backward([[a], [b]])
    assert_close(a, b, 1e-12, 0, "padded")
    for x, y in zip(ours, theirs):
        assert_close(x.grad, y.grad, 1e-12, 0, "grad")


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_and_pad_round_trip(batch_first: bool) -> None:
    results = []
    for lib, seqs in zip((gg, torch), _both(_sequences())):
        U = lib.nn.utils.rnn
        packed = U.pack_sequence(seqs, enforce_sorted=False)
        padded, lengths = U.pad_packed_sequence(packed, batch_first, 0.5, total_length=7)
        again = U.pack_padded_sequence(padded, lengths, batch_first, enforce_sorted=False)
        results.append((packed, padded, lengths, again, U.unpack_sequence(again), seqs))
    (p, pad, n, again, unpacked, seqs), (tp, tpad, tn, tagain, tunpacked, tseqs) = results
    for a, b, what in (
        (p.data, tp.data, "data"),
        (p.batch_sizes, tp.batch_sizes, "batch_sizes"),
        (p.sorted_indices, tp.sorted_indices, "sorted_indices"),
        (p.unsorted_indices, tp.unsorted_indices, "unsorted_indices"),
        (pad, tpad, "padded"),
        (n, tn, "lengths"),
        (again.data, tagain.data, "repacked"),
    ):
        assert_close(a, b, 1e-12, 0, what)
    for a, b in zip(unpacked, tunpacked):
        assert_close(a, b, 1e-12, 0, "unpacked")
    _backward([[again.data], [tagain.data]])
    for x, y in zip(seqs, tseqs):
        assert_close(x.grad, y.grad, 1e-12, 0, "grad")


def test_packing_errors_match_pytorch() -> None:
    for lib in (gg, torch):
        U = lib.nn.utils.rnn
        x = lib.zeros(5, 3, 2)
        with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
            U.pack_padded_sequence(x, [2, 5, 1])
        with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
            U.pack_padded_sequence(x, [5, 2, 0])
        packed = U.pack_padded_sequence(x, [5, 2, 1])
        with pytest.raises(ValueError, match="Expected total_length to be at least"):
            U.pad_packed_sequence(packed, total_length=3)


LAYERS = [
    ("rnn", lambda nn: nn.RNN(3, 4)),
    ("rnn_relu_2_layers", lambda nn: nn.RNN(3, 4, 2, nonlinearity="relu")),
    ("gru_bidirectional", lambda nn: nn.GRU(3, 4, bidirectional=True)),
    ("lstm", lambda nn: nn.LSTM(3, 4)),
    ("lstm_stacked_bidirectional", lambda nn: nn.LSTM(3, 4, 2, bidirectional=True)),
    ("lstm_proj", lambda nn: nn.LSTM(3, 5, proj_size=2, bidirectional=True)),
]


@pytest.mark.parametrize("make", [c[1] for c in LAYERS], ids=[c[0] for c in LAYERS])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_layers_on_packed_sequences(make: Any, with_state: bool, enforce_sorted: bool) -> None:
    arrays = _sequences()
    if enforce_sorted:
        arrays = sorted(arrays, key=len, reverse=True)
    theirs_layer = make(torch.nn).double()
    ours_layer = make(gg.nn).double()
    copy_state(ours_layer, theirs_layer)
    results = []
    for lib, layer, seqs in zip((gg, torch), (ours_layer, theirs_layer), _both(arrays)):
        packed = lib.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=enforce_sorted)
        hx = None
        if with_state:
            real = layer.proj_size if layer.proj_size > 0 else layer.hidden_size
            dirs = 2 if layer.bidirectional else 1
            states = np.random.default_rng(3).standard_normal(
                (2, layer.num_layers * dirs, len(seqs), layer.hidden_size)
            )
            h = lib.tensor(states[0][..., :real], requires_grad=True)
            c = lib.tensor(states[1], requires_grad=True)
            hx = (h, c) if layer.mode == "LSTM" else h
        out, hidden = layer(packed, hx)
        assert isinstance(out, lib.nn.utils.rnn.PackedSequence)
        finals = list(hidden) if isinstance(hidden, tuple) else [hidden]
        results.append((out, finals, seqs, hx))
    (out, finals, seqs, hx), (tout, tfinals, tseqs, thx) = results
    assert_close(out.data, tout.data, 1e-10, 1e-12, "packed output")
    assert_close(out.batch_sizes, tout.batch_sizes, 0, 0, "batch_sizes")
    for a, b in zip(finals, tfinals):
        assert_close(a, b, 1e-10, 1e-12, "final state")
    _backward([[out.data, *finals], [tout.data, *tfinals]])
    for x, y in zip(seqs, tseqs):
        assert_close(x.grad, y.grad, 1e-10, 1e-12, "input grad")
    theirs_params = dict(theirs_layer.named_parameters())
    for name, p in ours_layer.named_parameters():
        assert_close(p.grad, theirs_params[name].grad, 1e-10, 1e-12, f"grad of {name}")
    if with_state:
        for a, b in zip(
            hx if isinstance(hx, tuple) else [hx], thx if isinstance(thx, tuple) else [thx]
        ):
            assert_close(a.grad, b.grad, 1e-10, 1e-12, "state grad")
