"""Margin, embedding and likelihood loss modules against PyTorch's: same inputs, same losses
and gradients, same printed form, PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import NoGrad, check_parity

RNG = np.random.default_rng(13)


def randn(*shape):
    return RNG.standard_normal(shape)


def signs(*shape):
    return NoGrad(np.where(RNG.random(shape) < 0.5, -1.0, 1.0))


LOSSES = [
    ("margin_ranking", lambda nn: nn.MarginRankingLoss(0.3), [randn(5), randn(5), signs(5)]),
    (
        "hinge_embedding",
        lambda nn: nn.HingeEmbeddingLoss(reduction="sum"),
        [randn(4, 3), signs(4, 3)],
    ),
    ("soft_margin", lambda nn: nn.SoftMarginLoss(), [randn(4, 3), signs(4, 3)]),
    (
        "cosine_embedding",
        lambda nn: nn.CosineEmbeddingLoss(0.2, reduction="none"),
        [randn(4, 3), randn(4, 3), signs(4)],
    ),
    ("triplet_margin", lambda nn: nn.TripletMarginLoss(2.0, p=3, swap=True), [randn(4, 3)] * 3),
    (
        "triplet_margin_with_distance",
        lambda nn: nn.TripletMarginWithDistanceLoss(margin=2.5),
        [randn(4, 3), randn(4, 3), randn(4, 3)],
    ),
    (
        "multilabel_soft_margin",
        lambda nn: nn.MultiLabelSoftMarginLoss(),
        [randn(4, 3), NoGrad((RNG.random((4, 3)) < 0.5).astype(np.float64))],
    ),
    (
        "poisson_nll",
        lambda nn: nn.PoissonNLLLoss(full=True),
        [randn(4, 3), NoGrad(RNG.integers(0, 6, (4, 3)).astype(np.float64))],
    ),
    (
        "gaussian_nll",
        lambda nn: nn.GaussianNLLLoss(full=True),
        [randn(4, 3), randn(4, 3), np.abs(randn(4, 1)) + 0.1],
    ),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in LOSSES], ids=[c[0] for c in LOSSES])
def test_loss_matches_torch(make, arrays):
    ours, theirs = check_parity(make, arrays)
    assert repr(ours) == repr(theirs)


def test_loss_errors_match_pytorch():
    for lib in (gg, torch):
        F = lib.nn.functional
        with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
            F.margin_ranking_loss(lib.ones(2), lib.ones(2, 1), lib.ones(2))
        with pytest.raises(ValueError, match="margin must be greater than 0"):
            F.triplet_margin_loss(lib.ones(2), lib.ones(2), lib.ones(2), margin=0.0)
        with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
            F.cosine_embedding_loss(lib.ones(2), lib.ones(2), lib.ones(2))
        with pytest.raises(ValueError, match="var has negative entry"):
            F.gaussian_nll_loss(lib.ones(2), lib.ones(2), -lib.ones(2))
        with pytest.raises(ValueError, match="var is of incorrect size"):
            F.gaussian_nll_loss(lib.ones(2, 3), lib.ones(2, 3), lib.ones(3, 2))
        with pytest.raises(ValueError, match="expected margin to be greater than 0"):
            lib.nn.TripletMarginWithDistanceLoss(margin=-1.0)
