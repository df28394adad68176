"""Loss modules against PyTorch's: value and gradient with respect to the input (and to the
target where it is differentiable), for every reduction and option."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import NoGrad, check_parity

RNG = np.random.default_rng(1)


def randn(*shape):
    return RNG.standard_normal(shape)


def probs(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def labels(high, *shape):
    return RNG.integers(0, high, shape)


def log_probs(*shape):
    x = RNG.standard_normal(shape)
    return x - np.log(np.exp(x).sum(-1, keepdims=True))


CASES = []
for reduction in ("mean", "sum", "none"):
    CASES += [
        (
            f"mse_{reduction}",
            lambda nn, r=reduction: nn.MSELoss(reduction=r),
            [randn(4, 3), randn(4, 3)],
        ),
        (
            f"l1_{reduction}",
            lambda nn, r=reduction: nn.L1Loss(reduction=r),
            [randn(4, 3), NoGrad(randn(4, 3))],
        ),
        (
            f"smooth_l1_{reduction}",
            lambda nn, r=reduction: nn.SmoothL1Loss(reduction=r, beta=0.5),
            [randn(4, 3), NoGrad(randn(4, 3))],
        ),
        (
            f"huber_{reduction}",
            lambda nn, r=reduction: nn.HuberLoss(reduction=r, delta=0.7),
            [randn(4, 3), NoGrad(randn(4, 3))],
        ),
        (
            f"cross_entropy_{reduction}",
            lambda nn, r=reduction: nn.CrossEntropyLoss(reduction=r),
            [randn(5, 4), labels(4, 5)],
        ),
        (
            f"nll_{reduction}",
            lambda nn, r=reduction: nn.NLLLoss(reduction=r),
            [log_probs(5, 4), labels(4, 5)],
        ),
        (
            f"bce_{reduction}",
            lambda nn, r=reduction: nn.BCELoss(reduction=r),
            [probs(4, 3), NoGrad(probs(4, 3))],
        ),
        (
            f"bce_logits_{reduction}",
            lambda nn, r=reduction: nn.BCEWithLogitsLoss(reduction=r),
            [randn(4, 3), NoGrad(probs(4, 3))],
        ),
        (
            f"kl_div_{reduction}",
            lambda nn, r=reduction: nn.KLDivLoss(reduction=r),
            [log_probs(4, 3), NoGrad(probs(4, 3))],
        ),
    ]

CASES += [
    (
        "cross_entropy_weight_ignore_smoothing",
        lambda nn: nn.CrossEntropyLoss(
            weight=gg_or_torch(nn).tensor([1.0, 2.0, 0.5, 1.5], dtype=gg_or_torch(nn).float64),
            ignore_index=1,
            label_smoothing=0.2,
        ),
        [randn(6, 4), np.array([0, 1, 2, 3, 1, 2])],
    ),
    (
        "cross_entropy_probabilities",
        lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1),
        [randn(5, 4), NoGrad(np.exp(log_probs(5, 4)))],
    ),
    (
        "cross_entropy_spatial",
        lambda nn: nn.CrossEntropyLoss(),
        [randn(2, 3, 4, 5), labels(3, 2, 4, 5)],
    ),
    (
        "nll_weight_ignore",
        lambda nn: nn.NLLLoss(
            weight=gg_or_torch(nn).tensor([0.5, 1.0, 3.0], dtype=gg_or_torch(nn).float64),
            ignore_index=0,
        ),
        [log_probs(6, 3), np.array([0, 1, 2, 2, 1, 0])],
    ),
    (
        "bce_weight",
        lambda nn: nn.BCELoss(
            weight=gg_or_torch(nn).tensor([1.0, 2.0, 3.0], dtype=gg_or_torch(nn).float64)
        ),
        [probs(4, 3), NoGrad(probs(4, 3))],
    ),
    (
        "bce_logits_pos_weight",
        lambda nn: nn.BCEWithLogitsLoss(
            weight=gg_or_torch(nn).tensor([1.0, 0.5, 2.0], dtype=gg_or_torch(nn).float64),
            pos_weight=gg_or_torch(nn).tensor([3.0, 1.0, 0.2], dtype=gg_or_torch(nn).float64),
        ),
        [randn(4, 3) * 3, NoGrad(probs(4, 3))],
    ),
    (
        "kl_div_batchmean",
        lambda nn: nn.KLDivLoss(reduction="batchmean"),
        [log_probs(4, 3), NoGrad(probs(4, 3))],
    ),
    (
        "kl_div_log_target",
        lambda nn: nn.KLDivLoss(reduction="batchmean", log_target=True),
        [log_probs(4, 3), log_probs(4, 3)],
    ),
]


def gg_or_torch(nn):
    return torch if nn is torch.nn else gg


@pytest.mark.parametrize("make, arrays", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_loss_matches_torch(make, arrays):
    check_parity(make, arrays)


def test_weight_buffers_appear_in_state_dict_like_torch():
    for make in (
        lambda nn, lib: nn.CrossEntropyLoss(weight=lib.ones(3)),
        lambda nn, lib: nn.BCEWithLogitsLoss(pos_weight=lib.ones(3)),
        lambda nn, lib: nn.NLLLoss(),
    ):
        assert list(make(gg.nn, gg).state_dict()) == list(make(torch.nn, torch).state_dict())


def test_legacy_size_average_and_reduce():
    for size_average, reduce, expected in [
        (False, None, "sum"),
        (None, False, "none"),
        (True, True, "mean"),
    ]:
        with pytest.warns(UserWarning, match=f"please use reduction='{expected}' instead"):
            loss = gg.nn.MSELoss(size_average=size_average, reduce=reduce)
        assert loss.reduction == expected == torch.nn.MSELoss(size_average, reduce).reduction


def test_loss_of_a_training_step_matches_torch():
    # A two-layer classifier's loss and the first layer's gradient, end to end.
    def make(nn):
        return nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.LogSoftmax(dim=1))

    images = randn(4, 1, 3, 3)
    theirs, ours = make(torch.nn).double(), make(gg.nn).double()
    ours.load_state_dict(
        {k: gg.from_numpy(v.numpy().copy()) for k, v in theirs.state_dict().items()}
    )
    target = labels(2, 4)
    lt = torch.nn.NLLLoss()(theirs(torch.tensor(images)), torch.tensor(target))
    lg = gg.nn.NLLLoss()(ours(gg.tensor(images)), gg.tensor(target))
    lt.backward()
    lg.backward()
    np.testing.assert_allclose(lg.item(), lt.item(), rtol=1e-12)
    np.testing.assert_allclose(
        ours[0].weight.grad.numpy(), theirs[0].weight.grad.numpy(), rtol=1e-10
    )
