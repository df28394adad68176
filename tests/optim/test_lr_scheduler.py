"""Every learning-rate scheduler gives PyTorch's sequence of rates (and momenta), float for
float, over 100+ steps; state dicts match PyTorch's and resume exactly, also through a file."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg

STEPS = 120

SCHEDULERS = {
    "StepLR": lambda S, o: S.StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda S, o: S.MultiStepLR(o, milestones=[3, 10, 10, 50], gamma=0.3),
    "ExponentialLR": lambda S, o: S.ExponentialLR(o, gamma=0.97),
    "CosineAnnealingLR": lambda S, o: S.CosineAnnealingLR(o, T_max=13, eta_min=1e-3),
    "LambdaLR": lambda S, o: S.LambdaLR(o, lr_lambda=lambda epoch: 1 / (epoch + 1)),
    "LambdaLR-per-group": lambda S, o: S.LambdaLR(
        o, lr_lambda=[lambda e: 0.9**e, lambda e: 1.0 + math.sin(e)]
    ),
    "MultiplicativeLR": lambda S, o: S.MultiplicativeLR(o, lr_lambda=lambda epoch: 0.99),
    "ConstantLR": lambda S, o: S.ConstantLR(o, factor=0.25, total_iters=9),
    "LinearLR": lambda S, o: S.LinearLR(o, start_factor=0.1, end_factor=0.9, total_iters=17),
    "PolynomialLR": lambda S, o: S.PolynomialLR(o, total_iters=50, power=2.0),
    "OneCycleLR-cos": lambda S, o: S.OneCycleLR(o, max_lr=1.0, total_steps=STEPS),
    "OneCycleLR-linear-three-phase": lambda S, o: S.OneCycleLR(
        o,
        max_lr=[0.5, 0.2],
        epochs=4,
        steps_per_epoch=STEPS // 4,
        anneal_strategy="linear",
        three_phase=True,
        base_momentum=[0.8, 0.7],
        max_momentum=0.9,
        div_factor=10.0,
        final_div_factor=100.0,
        pct_start=0.25,
    ),
    "OneCycleLR-no-momentum": lambda S, o: S.OneCycleLR(
        o, max_lr=0.3, total_steps=STEPS + 5, cycle_momentum=False
    ),
    "CyclicLR-triangular": lambda S, o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=7),
    "CyclicLR-triangular2-per-group": lambda S, o: S.CyclicLR(
        o,
        base_lr=[0.01, 0.001],
        max_lr=[0.1, 0.05],
        step_size_up=5,
        step_size_down=9,
        mode="triangular2",
        base_momentum=[0.7, 0.85],
    ),
    "CyclicLR-exp-range-no-momentum": lambda S, o: S.CyclicLR(
        o, 0.01, 0.2, step_size_up=6, mode="exp_range", gamma=0.99, cycle_momentum=False
    ),
    "CyclicLR-scale-fn": lambda S, o: S.CyclicLR(
        o, 0.01, 0.2, step_size_up=4, scale_fn=lambda x: 1 / (1 + x), scale_mode="iterations"
    ),
    "CosineAnnealingWarmRestarts": lambda S, o: S.CosineAnnealingWarmRestarts(o, T_0=10),
    "CosineAnnealingWarmRestarts-mult": lambda S, o: S.CosineAnnealingWarmRestarts(
        o, T_0=3, T_mult=2, eta_min=1e-3
    ),
    "SequentialLR": lambda S, o: S.SequentialLR(
        o,
        [
            S.LinearLR(o, start_factor=0.1, total_iters=5),
            S.ExponentialLR(o, gamma=0.9),
            S.CosineAnnealingLR(o, T_max=20),
        ],
        milestones=[5, 40],
    ),  # fmt: skip
    "ChainedScheduler": lambda S, o: S.ChainedScheduler(
        [S.ConstantLR(o, factor=0.5, total_iters=10), S.ExponentialLR(o, gamma=0.95)]
    ),
}

OPTIMIZERS = {
    "SGD": lambda lib, groups: lib.optim.SGD(groups, lr=0.1, momentum=0.9),
    "Adam": lambda lib, groups: lib.optim.Adam(groups, lr=0.1),
    "RMSprop": lambda lib, groups: lib.optim.RMSprop(groups, lr=0.1, momentum=0.5),
}


def _optimizer(lib, name: str):
    groups = [
        {"params": [lib.zeros(2, requires_grad=True)]},
        {"params": [lib.zeros(3, requires_grad=True)], "lr": 0.02},
    ]
    return OPTIMIZERS[name](lib, groups)


def _momenta(optimizer) -> list:
    return [group.get("betas", group.get("momentum")) for group in optimizer.param_groups]


def _run(scheduler, optimizer, steps: int, metrics=None) -> list:
    """Rates (and momenta) after each of ``steps`` epochs of optimizer.step(); scheduler.step()."""
    history = []
    for i in range(steps):
        optimizer.step()
        if metrics is None:
            scheduler.step()
        else:
            scheduler.step(metrics[i])
        lrs = [group["lr"] for group in optimizer.param_groups]
        assert scheduler.get_last_lr() == lrs
        history.append((lrs, _momenta(optimizer)))
    return history


def _comparable(state_dict: dict) -> dict:
    # Functions are not saved (None), callable objects by their attributes.
    state_dict = {k: v for k, v in state_dict.items() if k != "lr_lambdas"}
    if "_schedulers" in state_dict:  # SequentialLR, ChainedScheduler: the inner ones
        state_dict["_schedulers"] = [_comparable(s) for s in state_dict["_schedulers"]]
    return state_dict


@pytest.mark.parametrize("optimizer_name", list(OPTIMIZERS))
@pytest.mark.parametrize("scheduler_name", list(SCHEDULERS))
def test_rates_equal_torchs(scheduler_name: str, optimizer_name: str) -> None:
    make = SCHEDULERS[scheduler_name]
    ours_opt, theirs_opt = _optimizer(gg, optimizer_name), _optimizer(torch, optimizer_name)
    ours = make(gg.optim.lr_scheduler, ours_opt)
    theirs = make(torch.optim.lr_scheduler, theirs_opt)
    assert ours.get_last_lr() == theirs.get_last_lr()
    assert _momenta(ours_opt) == _momenta(theirs_opt)
    assert _run(ours, ours_opt, STEPS) == _run(theirs, theirs_opt, STEPS)
    assert _comparable(ours.state_dict()) == _comparable(theirs.state_dict())
    for group, reference in zip(ours_opt.param_groups, theirs_opt.param_groups):
        assert {k: v for k, v in group.items() if k != "params"} == {
            k: v for k, v in reference.items() if k != "params"
        }


def test_the_momentum_that_onecycle_sets_is_the_one_the_optimizer_uses() -> None:
    rng = np.random.default_rng(0)
    start = rng.standard_normal(5).astype(np.float32)
    results = []
    for lib in (gg, torch):
        p = lib.tensor(start.copy(), requires_grad=True)
        opt = lib.optim.Adam([p], lr=0.1)
        scheduler = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=50)
        grads = np.random.default_rng(1).standard_normal((50, 5)).astype(np.float32)
        for g in grads:
            p.grad = lib.tensor(g.copy())
            opt.step()
            scheduler.step()
        results.append(p.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-6)


METRIC_SCRIPTS = {
    "random-walk": list(np.cumsum(np.random.default_rng(0).standard_normal(STEPS)) + 50.0),
    "plateaus": [10.0] * 15 + [9.0] * 20 + [9.0 - 1e-6] * 30 + [8.0] * 5 + [8.5] * 50,
}
PLATEAU_OPTIONS = {
    "defaults": {},
    "patience-cooldown-min-lr": {"patience": 3, "cooldown": 2, "min_lr": 1e-3},
    "max-abs": {"mode": "max", "threshold_mode": "abs", "threshold": 0.1, "patience": 2,
                "factor": 0.5},
    "per-group-min-lr": {"min_lr": [0.05, 0.001], "patience": 1, "factor": 0.5},
    "max-rel-eps": {"mode": "max", "patience": 0, "eps": 1e-3, "factor": 0.9},
}  # fmt: skip


@pytest.mark.parametrize("script", list(METRIC_SCRIPTS))
@pytest.mark.parametrize("options", list(PLATEAU_OPTIONS))
def test_reduce_on_plateau_follows_torch(script: str, options: str) -> None:
    metrics = METRIC_SCRIPTS[script]
    ours_opt, theirs_opt = _optimizer(gg, "SGD"), _optimizer(torch, "SGD")
    kwargs = PLATEAU_OPTIONS[options]
    ours = gg.optim.lr_scheduler.ReduceLROnPlateau(ours_opt, **kwargs)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(theirs_opt, **kwargs)
    ours_history = _run(ours, ours_opt, STEPS, metrics)
    assert ours_history == _run(theirs, theirs_opt, STEPS, metrics)
    assert ours.state_dict() == theirs.state_dict()
    assert len({tuple(lrs) for lrs, _ in ours_history}) > 1  # the rate did change


def test_reduce_on_plateau_accepts_a_tensor_metric() -> None:
    opt = _optimizer(gg, "SGD")
    scheduler = gg.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    scheduler.step(gg.tensor(1.0))
    scheduler.step(gg.tensor(2.0))
    assert scheduler.get_last_lr() == pytest.approx([0.01, 0.002])


@pytest.mark.parametrize(
    "scheduler_name",
    ["StepLR", "MultiStepLR", "CosineAnnealingLR", "LambdaLR", "OneCycleLR-cos", "LinearLR",
     "CyclicLR-triangular2-per-group", "CosineAnnealingWarmRestarts-mult", "SequentialLR",
     "ChainedScheduler"],
)  # fmt: skip
@pytest.mark.parametrize("through_file", [False, True], ids=["in_memory", "file"])
def test_resume_from_state_dicts(scheduler_name: str, through_file: bool, tmp_path) -> None:
    make = SCHEDULERS[scheduler_name]
    whole_opt = _optimizer(gg, "SGD")
    whole = make(gg.optim.lr_scheduler, whole_opt)
    expected = _run(whole, whole_opt, 100)

    first_opt = _optimizer(gg, "SGD")
    first = make(gg.optim.lr_scheduler, first_opt)
    history = _run(first, first_opt, 40)
    checkpoint = {"optimizer": first_opt.state_dict(), "scheduler": first.state_dict()}
    if through_file:
        path = tmp_path / "checkpoint.safetensors"
        gg.save(checkpoint, path)
        checkpoint = gg.load(path)
    resumed_opt = _optimizer(gg, "SGD")
    resumed = make(gg.optim.lr_scheduler, resumed_opt)
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    resumed.load_state_dict(checkpoint["scheduler"])
    history += _run(resumed, resumed_opt, 60)
    assert history == expected


def test_reduce_on_plateau_resumes_through_a_file(tmp_path) -> None:
    metrics = METRIC_SCRIPTS["plateaus"]
    whole_opt = _optimizer(gg, "SGD")
    whole = gg.optim.lr_scheduler.ReduceLROnPlateau(whole_opt, patience=3)
    expected = _run(whole, whole_opt, STEPS, metrics)
    first_opt = _optimizer(gg, "SGD")
    first = gg.optim.lr_scheduler.ReduceLROnPlateau(first_opt, patience=3)
    history = _run(first, first_opt, 30, metrics)
    gg.save({"optimizer": first_opt.state_dict(), "scheduler": first.state_dict()}, tmp_path / "c")
    checkpoint = gg.load(tmp_path / "c")
    assert checkpoint["scheduler"]["best"] == first.best
    resumed_opt = _optimizer(gg, "SGD")
    resumed = gg.optim.lr_scheduler.ReduceLROnPlateau(resumed_opt, patience=3)
    resumed_opt.load_state_dict(checkpoint["optimizer"])
    resumed.load_state_dict(checkpoint["scheduler"])
    history += _run(resumed, resumed_opt, STEPS - 30, metrics[30:])
    assert history == expected


def test_lambda_state_of_callable_objects_is_saved() -> None:
    class Decay:
        def __init__(self) -> None:
            self.factor = 0.5

        def __call__(self, epoch: int) -> float:
            return self.factor**epoch

    opt = _optimizer(gg, "SGD")
    decay = Decay()
    scheduler = gg.optim.lr_scheduler.LambdaLR(opt, lr_lambda=[decay, lambda e: 1.0])
    state_dict = scheduler.state_dict()
    assert state_dict["lr_lambdas"] == [{"factor": 0.5}, None]
    decay.factor = 0.1
    scheduler.load_state_dict(state_dict)
    assert decay.factor == 0.5


@pytest.mark.parametrize(
    "scheduler_name",
    ["StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "ConstantLR", "LinearLR",
     "PolynomialLR", "LambdaLR"],
)  # fmt: skip
def test_step_with_an_epoch_uses_torchs_closed_form(scheduler_name: str) -> None:
    make = SCHEDULERS[scheduler_name]
    histories = []
    for lib in (gg, torch):
        opt = _optimizer(lib, "SGD")
        scheduler = make(lib.optim.lr_scheduler, opt)
        history = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for epoch in [3, 1, 17, 40, 13, 26, 100, 0]:
                opt.step()
                scheduler.step(epoch)
                history.append(scheduler.get_last_lr())
        histories.append(history)
    assert histories[0] == histories[1]


def test_deprecated_epoch_argument_warns() -> None:
    opt = _optimizer(gg, "SGD")
    scheduler = gg.optim.lr_scheduler.StepLR(opt, step_size=2)
    opt.step()
    with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
        scheduler.step(5)


def test_get_lr_outside_step_warns() -> None:
    scheduler = gg.optim.lr_scheduler.ExponentialLR(_optimizer(gg, "SGD"), gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        scheduler.get_lr()


def test_scheduler_errors_as_torch() -> None:
    for lib in (torch, gg):
        S = lib.optim.lr_scheduler
        opt = _optimizer(lib, "SGD")
        with pytest.raises(TypeError, match="list is not an Optimizer"):
            S.StepLR([], step_size=1)
        with pytest.raises(KeyError, match="param 'initial_lr' is not specified"):
            S.StepLR(_optimizer(lib, "SGD"), step_size=1, last_epoch=3)
        with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
            S.LambdaLR(opt, lr_lambda=[lambda e: 1.0])
        with pytest.raises(ValueError, match="You must define either total_steps OR"):
            S.OneCycleLR(opt, max_lr=0.1)
        with pytest.raises(ValueError, match="Expected positive integer total_steps"):
            S.OneCycleLR(opt, max_lr=0.1, total_steps=0)
        with pytest.raises(ValueError, match="anneal_strategy must be one of"):
            S.OneCycleLR(opt, max_lr=0.1, total_steps=5, anneal_strategy="exp")
        with pytest.raises(ValueError, match="max_lr must have the same length"):
            S.OneCycleLR(opt, max_lr=[0.1], total_steps=5)
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            S.OneCycleLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.1, 5)
        with pytest.raises(ValueError, match="Factor should be < 1.0."):
            S.ReduceLROnPlateau(opt, factor=1.0)
        with pytest.raises(ValueError, match="mode sideways is unknown!"):
            S.ReduceLROnPlateau(opt, mode="sideways")
        with pytest.raises(ValueError, match="expected 2 min_lrs, got 3"):
            S.ReduceLROnPlateau(opt, min_lr=[0.1, 0.1, 0.1])
        with pytest.raises(ValueError, match="Constant multiplicative factor expected"):
            S.ConstantLR(opt, factor=2.0)
        one_cycle = S.OneCycleLR(_optimizer(lib, "SGD"), max_lr=0.1, total_steps=3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):
                one_cycle.step()
            with pytest.raises(ValueError, match="Tried to step 4 times"):
                one_cycle.step()


def test_warm_restarts_with_fractional_epochs_follow_torch() -> None:
    histories = []
    for lib in (gg, torch):
        opt = _optimizer(lib, "SGD")
        scheduler = lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=4, T_mult=3)
        history = []
        for epoch in [0.5, 1.25, 3.9, 4.0, 7.5, 16.0, 20.2, 2.0, 60.0]:
            opt.step()
            scheduler.step(epoch)
            history.append((scheduler.get_last_lr(), scheduler.T_i, scheduler.T_cur))
        histories.append(history)
    assert histories[0] == histories[1]


def test_composite_and_cyclic_scheduler_errors_as_torch() -> None:
    for lib in (torch, gg):
        S = lib.optim.lr_scheduler
        opt, other = _optimizer(lib, "SGD"), _optimizer(lib, "SGD")
        step = S.StepLR(opt, step_size=2)
        with pytest.raises(ValueError, match="expects at least one scheduler"):
            S.SequentialLR(opt, [], milestones=[])
        with pytest.raises(ValueError, match="number of milestones to be equal to 2"):
            S.SequentialLR(opt, [step], milestones=[1, 2])
        with pytest.raises(ValueError, match="expects all schedulers to belong to the same"):
            S.ChainedScheduler([step, S.StepLR(other, step_size=2)])
        with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
            S.ChainedScheduler([step, S.ReduceLROnPlateau(opt)])
        with pytest.raises(TypeError, match="should have `optimizer` as its attribute"):
            S.SequentialLR(opt, [step, object()], milestones=[3])
        with pytest.raises(ValueError, match="mode is invalid and scale_fn is None"):
            S.CyclicLR(opt, 0.01, 0.1, mode="sawtooth")
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
            S.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.01, 0.1)
        with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
            S.CosineAnnealingWarmRestarts(opt, T_0=0)
        with pytest.raises(ValueError, match="Expected integer T_mult >= 1, but got 1.5"):
            S.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=1.5)
        with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
            S.CosineAnnealingWarmRestarts(opt, T_0=2).step(-1)


def test_resuming_with_last_epoch_continues_the_closed_form() -> None:
    histories = []
    for lib in (gg, torch):
        opt = _optimizer(lib, "SGD")
        for group in opt.param_groups:
            group["initial_lr"] = group["lr"]
        scheduler = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20, last_epoch=7)
        histories.append([scheduler.get_last_lr()] + [h[0] for h in _run(scheduler, opt, 30)])
    assert histories[0] == histories[1]
