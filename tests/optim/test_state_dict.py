"""Optimizer state dicts: PyTorch's layout and values, a round trip that continues exactly
where it stopped (in memory and through ``glassgrad.save``/``glassgrad.load``), and loading
PyTorch's own state dict."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .parity import RTOL, assert_same_tree, gradient_sequence, initial_parameters, to_numpy_tree

OPTIONS = {
    "SGD": {"lr": 0.05, "momentum": 0.9, "weight_decay": 0.01},
    "Adam": {"lr": 0.01, "amsgrad": True},
    "AdamW": {"lr": 0.01},
    "RMSprop": {"lr": 0.01, "momentum": 0.5, "centered": True},
    "Adagrad": {"lr": 0.1, "lr_decay": 0.01},
    "Adadelta": {"lr": 0.5, "rho": 0.8},
    "Adamax": {"lr": 0.01},
    "ASGD": {"lr": 0.01, "t0": 5},
    "NAdam": {"lr": 0.01},
    "RAdam": {"lr": 0.01},
    "Rprop": {"lr": 0.01},
    "Adafactor": {"lr": 0.05},
}


def _make(lib, name: str, params: list) -> object:
    groups = [
        {"params": params[:1]},
        {"params": params[1:], "lr": OPTIONS[name]["lr"] / 2, "weight_decay": 0.05},
    ]
    return getattr(lib.optim, name)(groups, **OPTIONS[name])


def _train(params: list, optimizer, grads: list, lib) -> None:
    for step_grads in grads:
        optimizer.zero_grad()
        for p, g in zip(params, step_grads):
            p.grad = lib.tensor(g.copy())
        optimizer.step()


def _setup(name: str, dtype: type = np.float32, steps: int = 20):
    rng = np.random.default_rng(7)
    start = initial_parameters(rng, dtype)
    grads = gradient_sequence(rng, dtype, steps)
    return start, grads


@pytest.mark.parametrize("name", list(OPTIONS))
def test_state_dict_has_torchs_layout_and_values(name: str) -> None:
    start, grads = _setup(name)
    ours = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    ours_opt, theirs_opt = _make(gg, name, ours), _make(torch, name, theirs)
    _train(ours, ours_opt, grads, gg)
    _train(theirs, theirs_opt, grads, torch)
    state_dict = ours_opt.state_dict()
    assert isinstance(state_dict["state"][0][next(iter(state_dict["state"][0]))], gg.Tensor)
    assert_same_tree(to_numpy_tree(state_dict), to_numpy_tree(theirs_opt.state_dict()), np.float32)


@pytest.mark.parametrize("name", list(OPTIONS))
@pytest.mark.parametrize("through_file", [False, True], ids=["in_memory", "file"])
def test_round_trip_continues_exactly(name: str, through_file: bool, tmp_path) -> None:
    start, grads = _setup(name, steps=30)
    # Uninterrupted: 30 steps.
    whole = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    _train(whole, _make(gg, name, whole), grads, gg)
    # Interrupted after 12 steps: state saved, loaded into a fresh optimizer, resumed.
    first = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    first_opt = _make(gg, name, first)
    _train(first, first_opt, grads[:12], gg)
    state_dict = first_opt.state_dict()
    if through_file:
        path = tmp_path / "optimizer.safetensors"
        gg.save(state_dict, path)
        state_dict = gg.load(path)
    resumed = [gg.tensor(p.detach().numpy().copy(), requires_grad=True) for p in first]
    resumed_opt = _make(gg, name, resumed)
    resumed_opt.load_state_dict(state_dict)
    assert_same_tree(
        to_numpy_tree(resumed_opt.state_dict()), to_numpy_tree(first_opt.state_dict()), np.float32
    )
    _train(resumed, resumed_opt, grads[12:], gg)
    for p, q in zip(resumed, whole):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_loaded_state_shares_no_memory_with_its_source() -> None:
    start, grads = _setup("Adam", steps=3)
    params = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    source = _make(gg, "Adam", params)
    _train(params, source, grads, gg)
    copy_params = [gg.tensor(p.detach().numpy().copy(), requires_grad=True) for p in params]
    loaded = _make(gg, "Adam", copy_params)
    loaded.load_state_dict(source.state_dict())
    before = source.state[params[0]]["exp_avg"].detach().numpy().copy()
    _train(copy_params, loaded, grads, gg)
    np.testing.assert_array_equal(source.state[params[0]]["exp_avg"].detach().numpy(), before)
    assert loaded.state[copy_params[0]]["step"].item() == 6.0
    assert source.state[params[0]]["step"].item() == 3.0


def test_state_dict_returns_the_live_state_tensors() -> None:
    # As PyTorch: state_dict() does not copy; save it (or deepcopy) to keep a snapshot.
    p = gg.ones(2, requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.1, momentum=0.9)
    p.grad = gg.ones(2)
    opt.step()
    assert opt.state_dict()["state"][0]["momentum_buffer"] is opt.state[p]["momentum_buffer"]


def test_loading_casts_state_to_the_parameters_dtype_but_not_step() -> None:
    start, grads = _setup("Adam", dtype=np.float64, steps=3)
    params = [gg.tensor(p.copy(), requires_grad=True) for p in start]
    opt = _make(gg, "Adam", params)
    _train(params, opt, grads, gg)
    float32_params = [gg.tensor(p.detach().numpy().astype(np.float32), requires_grad=True)
                      for p in params]  # fmt: skip
    loaded = _make(gg, "Adam", float32_params)
    loaded.load_state_dict(opt.state_dict())
    state = loaded.state[float32_params[0]]
    assert state["exp_avg"].dtype == gg.float32
    assert state["step"].dtype == opt.state[params[0]]["step"].dtype


@pytest.mark.parametrize("name", list(OPTIONS))
def test_a_torch_state_dict_loads_and_the_runs_continue_together(name: str) -> None:
    start, grads = _setup(name, steps=25)
    theirs = [torch.tensor(p.copy(), requires_grad=True) for p in start]
    theirs_opt = _make(torch, name, theirs)
    _train(theirs, theirs_opt, grads[:10], torch)

    def to_glassgrad(value):
        if isinstance(value, torch.Tensor):
            return gg.tensor(value.detach().numpy().copy())
        if isinstance(value, dict):
            return {k: to_glassgrad(v) for k, v in value.items()}
        if isinstance(value, list):
            return [to_glassgrad(v) for v in value]
        return value

    ours = [gg.tensor(q.detach().numpy().copy(), requires_grad=True) for q in theirs]
    ours_opt = _make(gg, name, ours)
    ours_opt.load_state_dict(to_glassgrad(theirs_opt.state_dict()))
    _train(ours, ours_opt, grads[10:], gg)
    _train(theirs, theirs_opt, grads[10:], torch)
    for p, q in zip(ours, theirs):
        scale = float(q.detach().abs().max())
        np.testing.assert_allclose(
            p.detach().numpy(), q.detach().numpy(), rtol=RTOL[np.float32],
            atol=RTOL[np.float32] * scale,
        )  # fmt: skip


def test_load_state_dict_checks_the_groups() -> None:
    p, q = gg.ones(2, requires_grad=True), gg.ones(3, requires_grad=True)
    two_groups = gg.optim.SGD([{"params": [p]}, {"params": [q]}], lr=0.1)
    one_group = gg.optim.SGD([p, q], lr=0.1)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        one_group.load_state_dict(two_groups.state_dict())
    other = gg.optim.SGD([{"params": [p, q]}, {"params": [gg.ones(1, requires_grad=True)]}])
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        other.load_state_dict(two_groups.state_dict())


def test_load_restores_group_options_and_keeps_own_parameters() -> None:
    p, q = gg.ones(2, requires_grad=True), gg.ones(2, requires_grad=True)
    source = gg.optim.Adam([p], lr=0.123, betas=(0.5, 0.75))
    target = gg.optim.Adam([q], lr=1.0)
    target.load_state_dict(source.state_dict())
    assert target.param_groups[0]["lr"] == 0.123
    assert target.param_groups[0]["betas"] == (0.5, 0.75)
    assert target.param_groups[0]["params"][0] is q


def test_state_dict_hooks() -> None:
    p = gg.ones(2, requires_grad=True)
    opt = gg.optim.SGD([p], lr=0.1)
    calls = []
    opt.register_state_dict_pre_hook(lambda o: calls.append("pre"))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_state_dict_post_hook(lambda o, sd: calls.append("first"), prepend=True)
    state_dict = opt.state_dict()
    assert calls == ["pre", "first"] and state_dict["extra"] == 1

    def change_lr(o, sd):
        sd = dict(sd)
        sd["param_groups"] = [dict(g, lr=0.5) for g in sd["param_groups"]]
        return sd

    opt.register_load_state_dict_pre_hook(change_lr)
    opt.register_load_state_dict_post_hook(lambda o: calls.append("loaded"))
    opt.load_state_dict(state_dict)
    assert opt.param_groups[0]["lr"] == 0.5 and calls[-1] == "loaded"


def test_numeric_step_of_an_old_state_dict_becomes_a_tensor() -> None:
    p = gg.ones(2, requires_grad=True)
    opt = gg.optim.Adam([p], lr=0.1)
    p.grad = gg.ones(2)
    opt.step()
    state_dict = opt.state_dict()
    state_dict["state"][0]["step"] = 1  # the pre-1.12 PyTorch layout: a plain number
    fresh_param = gg.tensor(p.detach().numpy().copy(), requires_grad=True)
    fresh = gg.optim.Adam([fresh_param], lr=0.1)
    fresh.load_state_dict(state_dict)
    fresh_param.grad = gg.ones(2)
    fresh.step()
    assert isinstance(fresh.state[fresh_param]["step"], gg.Tensor)
    assert fresh.state[fresh_param]["step"].item() == 2.0
