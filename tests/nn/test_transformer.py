"""Transformer layers against PyTorch's: same weights (state dict), same inputs and masks,
then the same outputs and gradients, in training (dropout 0) and eval mode, including the
zeros PyTorch's nested-tensor inference path leaves at padded positions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import NoGrad, check_parity

RNG = np.random.default_rng(7)


def randn(*shape):
    return RNG.standard_normal(shape)


def causal(n):
    return NoGrad(np.triu(np.full((n, n), -np.inf), 1))


PAD = np.array([[False, False, False, True, True], [False, False, False, False, False]])

LAYERS = [
    (
        "encoder_layer",
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
        [randn(5, 2, 8)],
        {},
    ),
    (
        "encoder_layer_masks",
        lambda nn: nn.TransformerEncoderLayer(8, 2, 16, 0.0, "gelu", batch_first=True),
        [randn(2, 5, 8), causal(5), PAD],
        {},
    ),
    (
        "encoder_layer_norm_first",
        lambda nn: nn.TransformerEncoderLayer(8, 4, 16, 0.0, norm_first=True, bias=False),
        [randn(5, 8), causal(5)],
        {"is_causal": True},
    ),
    (
        "encoder",
        lambda nn: nn.TransformerEncoder(
            nn.TransformerEncoderLayer(8, 2, 16, 0.0, batch_first=True),
            2,
            nn.LayerNorm(8),
        ),
        [randn(2, 5, 8), None, PAD],
        {},
    ),
    (
        "decoder_layer",
        lambda nn: nn.TransformerDecoderLayer(8, 2, 16, 0.0, norm_first=True),
        [randn(4, 2, 8), randn(5, 2, 8), causal(4), None, None, PAD],
        {},
    ),
    (
        "decoder",
        lambda nn: nn.TransformerDecoder(
            nn.TransformerDecoderLayer(8, 2, 16, 0.0, activation=torch.nn.functional.gelu)
            if nn is torch.nn
            else nn.TransformerDecoderLayer(8, 2, 16, 0.0, activation=gg.nn.functional.gelu),
            2,
        ),
        [randn(4, 2, 8), randn(5, 2, 8), causal(4)],
        {},
    ),
    (
        "transformer",
        lambda nn: nn.Transformer(8, 2, 2, 1, 16, 0.0, batch_first=True),
        [randn(2, 5, 8), randn(2, 4, 8), None, causal(4), None, PAD],
        {"tgt_is_causal": True},
    ),
]


@pytest.mark.parametrize(
    "make, arrays, kwargs", [c[1:] for c in LAYERS], ids=[c[0] for c in LAYERS]
)
@pytest.mark.parametrize("train", [True, False])
def test_layer_matches_torch(make, arrays, kwargs, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # enable_nested_tensor, in both
        check_parity(make, arrays, kwargs=kwargs, train=train, rtol=1e-9, atol=1e-10)


def test_encoder_inference_zeroes_padded_positions_as_pytorch():
    x = randn(2, 5, 8)
    encoders = []
    for lib in (torch, gg):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        encoders.append(lib.nn.TransformerEncoder(layer, 2).double().eval())
    theirs, ours = encoders
    ours.load_state_dict({k: gg.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    outs = []
    for lib, encoder in ((gg, ours), (torch, theirs)):
        with lib.no_grad():
            outs.append(encoder(lib.tensor(x), src_key_padding_mask=lib.tensor(PAD)).numpy())
    assert np.all(outs[1][0, 3:] == 0)
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-9, atol=1e-10)


def test_nested_tensor_warning_and_errors_match():
    for lib in (gg, torch):
        with pytest.warns(UserWarning, match="self_attn.batch_first was not True"):
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2), 1)
        with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
            lib.nn.TransformerEncoderLayer(8, 2, activation="tanh")
        model = lib.nn.Transformer(8, 2, 1, 1, 16)
        with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
            model(lib.zeros(5, 2, 8), lib.zeros(4, 3, 8))
        with pytest.raises(RuntimeError, match="must be equal to d_model"):
            model(lib.zeros(5, 2, 8), lib.zeros(4, 2, 6))
    mask = gg.nn.Transformer.generate_square_subsequent_mask(4).numpy()
    np.testing.assert_array_equal(mask, torch.nn.Transformer.generate_square_subsequent_mask(4))
