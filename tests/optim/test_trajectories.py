"""Every optimizer and option combination follows PyTorch's trajectory for 100 steps, in
float32 and float64, from the same parameters and the same gradients."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import glassgrad as gg

from .parity import run_both


def _combinations(**options: list) -> list[dict]:
    names = list(options)
    return [dict(zip(names, values)) for values in itertools.product(*options.values())]


def _sgd_cases() -> list[dict]:
    cases = []
    for case in _combinations(
        momentum=[0.0, 0.9],
        dampening=[0.0, 0.5],
        nesterov=[False, True],
        weight_decay=[0.0, 0.1],
        maximize=[False, True],
    ):
        if case["nesterov"] and (case["momentum"] == 0 or case["dampening"] != 0):
            continue
        if case["momentum"] == 0 and case["dampening"] != 0:
            continue
        cases.append({"lr": 0.01, **case})
    return cases


def _adam_cases() -> list[dict]:
    cases = [
        {"lr": 0.01, **case}
        for case in _combinations(
            amsgrad=[False, True],
            weight_decay=[0.0, 0.1],
            maximize=[False, True],
            decoupled_weight_decay=[False, True],
        )
    ]
    # 1 - beta1 >= 0.5 takes lerp's other branch; eps large enough to matter.
    cases.append({"lr": 0.05, "betas": (0.3, 0.6), "eps": 1e-3})
    cases.append({"lr": 0.05, "betas": (0.0, 0.0), "amsgrad": True})
    return cases


def _adamw_cases() -> list[dict]:
    return [
        {"lr": 0.01, **case}
        for case in _combinations(
            amsgrad=[False, True], weight_decay=[0.01, 0.5], maximize=[False, True]
        )
    ]


def _rmsprop_cases() -> list[dict]:
    cases = [
        {"lr": 0.01, **case}
        for case in _combinations(
            centered=[False, True],
            momentum=[0.0, 0.9],
            weight_decay=[0.0, 0.1],
            maximize=[False, True],
        )
    ]
    # 1 - alpha >= 0.5 takes lerp's other branch (centered); a large eps.
    cases.append({"lr": 0.01, "alpha": 0.4, "centered": True})
    cases.append({"lr": 0.01, "alpha": 0.4, "eps": 1e-2, "momentum": 0.5})
    return cases


def _adagrad_cases() -> list[dict]:
    cases = [
        {"lr": 0.1, **case}
        for case in _combinations(
            lr_decay=[0.0, 0.01],
            weight_decay=[0.0, 0.1],
            initial_accumulator_value=[0.0, 0.5],
            maximize=[False, True],
        )
    ]
    cases.append({"lr": 0.1, "eps": 1e-2})
    return cases


CASES = [
    *(("SGD", case) for case in _sgd_cases()),
    *(("Adam", case) for case in _adam_cases()),
    *(("AdamW", case) for case in _adamw_cases()),
    *(("RMSprop", case) for case in _rmsprop_cases()),
    *(("Adagrad", case) for case in _adagrad_cases()),
]


def _case_id(case: tuple[str, dict]) -> str:
    name, options = case
    return name + "-" + ",".join(f"{k}={v}" for k, v in options.items() if k != "lr")


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_trajectory_matches_torch(case: tuple[str, dict], dtype: type) -> None:
    name, options = case
    _, _, ours_opt, theirs_opt = run_both(
        lambda ps: getattr(gg.optim, name)(ps, **options),
        lambda ps: getattr(torch.optim, name)(ps, **options),
        dtype,
    )
    # The state follows too: same keys per parameter, same step counts.
    assert [list(s) for s in ours_opt.state.values()] == [
        list(s) for s in theirs_opt.state.values()
    ]


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad"])
def test_zero_grad_to_zeros_keeps_updating(name: str) -> None:
    # zero_grad(set_to_none=False): the gradients stay as (zeroed) tensors, refilled in place.
    options = {"lr": 0.01, "weight_decay": 0.1}
    if name in ("SGD", "RMSprop"):
        options["momentum"] = 0.9
    run_both(
        lambda ps: getattr(gg.optim, name)(ps, **options),
        lambda ps: getattr(torch.optim, name)(ps, **options),
        np.float32,
        steps=30,
        set_to_none=False,
    )


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_param_groups_with_their_own_options(name: str) -> None:
    first = {"lr": 0.1} if name != "SGD" else {"lr": 0.1, "momentum": 0.5}
    second = {"lr": 0.003, "weight_decay": 0.2, "maximize": True}

    def groups(ps: list) -> list[dict]:
        return [{"params": ps[:1], **first}, {"params": ps[1:], **second}]

    _, _, ours_opt, theirs_opt = run_both(
        lambda ps: getattr(gg.optim, name)(groups(ps), lr=0.05),
        lambda ps: getattr(torch.optim, name)(groups(ps), lr=0.05),
        np.float32,
    )
    assert [g["lr"] for g in ours_opt.param_groups] == [0.1, 0.003]
    for ours, theirs in zip(ours_opt.param_groups, theirs_opt.param_groups):
        assert {k: v for k, v in ours.items() if k != "params"} == {
            k: v for k, v in theirs.items() if k != "params"
        }


def test_large_parameters_split_between_threads_match_torch() -> None:
    # 400,000 elements: above the size where the update is chunked and shared by threads.
    rng = np.random.default_rng(3)
    start = rng.standard_normal((400, 1000)).astype(np.float32)
    ours = gg.tensor(start.copy(), requires_grad=True)
    theirs = torch.tensor(start.copy(), requires_grad=True)
    ours_opt = gg.optim.Adam([ours], lr=0.01, weight_decay=0.01, amsgrad=True)
    theirs_opt = torch.optim.Adam([theirs], lr=0.01, weight_decay=0.01, amsgrad=True)
    for _ in range(4):
        grad = rng.standard_normal(start.shape).astype(np.float32)
        ours.grad = gg.tensor(grad)
        theirs.grad = torch.tensor(grad)
        ours_opt.step()
        theirs_opt.step()
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6)
