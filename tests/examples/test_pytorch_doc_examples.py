"""PyTorch's own documentation examples run unchanged with ``torch`` resolved to glassgrad.

The examples are read at test time from the docstrings of the installed PyTorch (its API
reference: ``torch.sort``, ``torch.nn.Linear`` ...), executed statement by statement as
doctest parses them, once with ``torch`` = PyTorch and once with ``torch`` = glassgrad:

- ``EXACT``: examples without random numbers; every statement prints the same text in both
  (PyTorch's "torch." read as "glassgrad.", object addresses masked).
- ``RUN`` and ``NN`` (the nn modules' pages): examples drawing random numbers (glassgrad's
  streams are not PyTorch's): they run to the end in glassgrad, printing where PyTorch
  prints.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
import warnings
from typing import Any

import pytest
import torch

import glassgrad

EXACT = """
    torch.abs torch.addr torch.all torch.allclose torch.aminmax torch.angle torch.arange
    torch.argwhere torch.atleast_1d torch.atleast_2d torch.atleast_3d torch.baddbmm
    torch.bitwise_and torch.bitwise_left_shift torch.bitwise_not torch.bitwise_or
    torch.bitwise_right_shift torch.bitwise_xor torch.block_diag torch.bmm
    torch.broadcast_shapes torch.broadcast_tensors torch.broadcast_to torch.bucketize
    torch.can_cast torch.cartesian_prod torch.cdist torch.chunk torch.column_stack
    torch.complex torch.cumulative_trapezoid torch.deg2rad torch.diagonal_scatter torch.diff
    torch.div torch.dot torch.dsplit torch.dstack torch.enable_grad torch.eq torch.equal
    torch.eye torch.flatten torch.flip torch.fliplr torch.flipud torch.floor_divide
    torch.fmax torch.fmin torch.fmod torch.frac torch.frexp torch.full torch.full_like
    torch.gather torch.gcd torch.ge torch.gt torch.heaviside
    torch.histc torch.histogram torch.hsplit torch.hstack torch.hypot torch.is_complex
    torch.is_floating_point torch.is_tensor torch.isclose torch.isfinite torch.isin
    torch.isinf torch.isnan torch.isneginf torch.isposinf torch.kron torch.kthvalue
    torch.lcm torch.ldexp torch.le torch.lerp torch.lgamma torch.linspace torch.logaddexp
    torch.logical_and torch.logical_not torch.logical_or torch.logical_xor torch.logspace
    torch.lt torch.lu_unpack torch.matmul torch.maximum torch.meshgrid torch.minimum
    torch.mode torch.nan_to_num torch.nanmean torch.nanmedian torch.nanquantile torch.nansum
    torch.narrow torch.ne torch.nextafter torch.no_grad torch.nonzero torch.numel torch.ones
    torch.ones_like torch.outer torch.permute torch.promote_types torch.rad2deg torch.range
    torch.ravel torch.remainder torch.renorm torch.repeat_interleave torch.reshape
    torch.result_type torch.roll torch.rot90 torch.round torch.searchsorted
    torch.select_scatter
""".split()

RUN = """
    torch.acos torch.acosh torch.add torch.addbmm torch.addcdiv torch.addcmul torch.addmm
    torch.addmv torch.amax torch.amin torch.any torch.argmax torch.argmin torch.argsort
    torch.asin torch.asinh torch.atan torch.atan2 torch.atanh torch.bernoulli torch.bincount
    torch.cat torch.ceil torch.chain_matmul torch.cholesky torch.clamp torch.copysign
    torch.corrcoef torch.cos torch.cosh torch.count_nonzero torch.cov torch.cross
    torch.cummax torch.cummin torch.cumprod torch.cumsum torch.diag torch.diag_embed
    torch.diagflat torch.diagonal torch.dist torch.einsum torch.empty torch.empty_strided
    torch.float_power torch.floor torch.imag torch.index_select torch.inner torch.log
    torch.log10 torch.log1p torch.log2 torch.logcumsumexp torch.logdet torch.logsumexp
    torch.lu torch.lu_solve torch.masked_select torch.max torch.mean torch.median torch.min
    torch.mm torch.moveaxis torch.movedim torch.msort torch.mul torch.mv torch.neg
    torch.poisson torch.positive torch.pow torch.prod torch.quantile torch.rand
    torch.randint torch.randn torch.randperm torch.real torch.reciprocal torch.rsqrt
""".split()


NN = """
    torch.nn.AdaptiveAvgPool1d torch.nn.AdaptiveAvgPool2d torch.nn.AdaptiveAvgPool3d
    torch.nn.AdaptiveMaxPool1d torch.nn.AdaptiveMaxPool2d torch.nn.AdaptiveMaxPool3d
    torch.nn.AlphaDropout torch.nn.AvgPool1d torch.nn.AvgPool2d torch.nn.AvgPool3d
    torch.nn.BCELoss torch.nn.BCEWithLogitsLoss torch.nn.BatchNorm1d torch.nn.BatchNorm2d
    torch.nn.BatchNorm3d torch.nn.Bilinear torch.nn.CELU torch.nn.ChannelShuffle
    torch.nn.CircularPad1d torch.nn.CircularPad2d torch.nn.CircularPad3d
    torch.nn.ConstantPad1d torch.nn.ConstantPad2d torch.nn.ConstantPad3d torch.nn.Conv1d
    torch.nn.Conv2d torch.nn.Conv3d torch.nn.ConvTranspose1d torch.nn.ConvTranspose2d
    torch.nn.ConvTranspose3d torch.nn.CosineEmbeddingLoss torch.nn.CosineSimilarity
    torch.nn.Dropout torch.nn.Dropout1d torch.nn.Dropout2d torch.nn.Dropout3d torch.nn.ELU
    torch.nn.Embedding torch.nn.FeatureAlphaDropout torch.nn.Flatten torch.nn.GELU
    torch.nn.GLU torch.nn.GRU torch.nn.GRUCell torch.nn.GaussianNLLLoss torch.nn.GroupNorm
    torch.nn.Hardshrink torch.nn.Hardsigmoid torch.nn.Hardswish torch.nn.Hardtanh
    torch.nn.HingeEmbeddingLoss torch.nn.HuberLoss torch.nn.Identity torch.nn.InstanceNorm1d
    torch.nn.InstanceNorm2d torch.nn.InstanceNorm3d torch.nn.KLDivLoss torch.nn.L1Loss
    torch.nn.LPPool1d torch.nn.LPPool2d torch.nn.LPPool3d torch.nn.LSTM torch.nn.LSTMCell
    torch.nn.LayerNorm torch.nn.LeakyReLU torch.nn.Linear torch.nn.LocalResponseNorm
    torch.nn.LogSigmoid torch.nn.LogSoftmax torch.nn.MSELoss torch.nn.MarginRankingLoss
    torch.nn.MaxPool1d torch.nn.MaxPool2d torch.nn.MaxPool3d torch.nn.MaxUnpool1d
    torch.nn.MaxUnpool3d torch.nn.Mish torch.nn.MultiLabelSoftMarginLoss torch.nn.NLLLoss
    torch.nn.PReLU torch.nn.PairwiseDistance torch.nn.PixelShuffle torch.nn.PixelUnshuffle
    torch.nn.PoissonNLLLoss torch.nn.RMSNorm torch.nn.RNN torch.nn.RNNCell torch.nn.RReLU
    torch.nn.ReLU torch.nn.ReLU6 torch.nn.ReflectionPad1d torch.nn.ReflectionPad2d
    torch.nn.ReflectionPad3d torch.nn.ReplicationPad1d torch.nn.ReplicationPad2d
    torch.nn.ReplicationPad3d torch.nn.SELU torch.nn.SiLU torch.nn.Sigmoid
    torch.nn.SmoothL1Loss torch.nn.SoftMarginLoss torch.nn.Softmax torch.nn.Softmax2d
    torch.nn.Softmin torch.nn.Softplus torch.nn.Softshrink torch.nn.Softsign torch.nn.Tanh
    torch.nn.Tanhshrink torch.nn.Threshold torch.nn.Transformer torch.nn.TransformerDecoder
    torch.nn.TransformerDecoderLayer torch.nn.TransformerEncoder
    torch.nn.TransformerEncoderLayer torch.nn.TripletMarginLoss torch.nn.Upsample
    torch.nn.UpsamplingBilinear2d torch.nn.UpsamplingNearest2d torch.nn.ZeroPad1d
    torch.nn.ZeroPad2d torch.nn.ZeroPad3d
""".split()

_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _examples(name: str) -> list:
    obj: Any = torch
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return doctest.DocTestParser().get_examples(obj.__doc__)


def _run(lib: Any, examples: list) -> list[str]:
    """What each statement prints (its repr as the interactive prompt shows it). Global
    settings an example may change (default dtype, grad mode) are restored afterwards."""
    dtype, grad_enabled = lib.get_default_dtype(), lib.is_grad_enabled()
    try:
        return _printed(lib, examples)
    finally:
        lib.set_default_dtype(dtype)
        lib.set_grad_enabled(grad_enabled)


def _printed(lib: Any, examples: list) -> list[str]:
    # The names the examples assume: torch, and nn / F for the nn pages.
    namespace = {"torch": lib, "nn": lib.nn, "F": lib.nn.functional}
    printed = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for example in examples:
            buffer = io.StringIO()
            with contextlib.redirect_stdout(buffer):
                exec(compile(example.source, "<example>", "single"), namespace)  # noqa: S102
            printed.append(_ADDRESS.sub("", buffer.getvalue()))
    return printed


@pytest.mark.parametrize("name", EXACT)
def test_example_prints_what_pytorchs_prints(name: str) -> None:
    examples = _examples(name)
    assert examples, f"{name}: PyTorch's docstring has no example"
    theirs = [text.replace("torch.", "glassgrad.") for text in _run(torch, examples)]
    ours = _run(glassgrad, examples)
    for example, a, b in zip(examples, ours, theirs):
        assert a == b, f"{name}: {example.source.strip()}\nglassgrad: {a}\nPyTorch:   {b}"


@pytest.mark.parametrize("name", RUN + NN)
def test_random_example_runs(name: str) -> None:
    examples = _examples(name)
    assert examples, f"{name}: PyTorch's docstring has no example"
    ours = _run(glassgrad, examples)
    assert len(ours) == len(examples)
    assert [bool(text) for text in ours] == [bool(text) for text in _run(torch, examples)]
