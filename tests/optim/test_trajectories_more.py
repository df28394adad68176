"""The optimizers beyond the common five follow PyTorch's trajectories for 100 steps in
float32 and float64 (Adadelta, Adamax, ASGD, NAdam, RAdam, Rprop, Adafactor), Muon to
bfloat16 precision, LBFGS iterate for iterate; their refused options and errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .parity import run_both

CASES = [
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.01, "weight_decay": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.01, "betas": (0.3, 0.5), "eps": 1e-3}),  # lerp's other branch
    ("ASGD", {"lr": 0.01}),
    ("ASGD", {"lr": 0.01, "t0": 10, "lambd": 0.01, "weight_decay": 0.1}),  # averaging on
    ("ASGD", {"lr": 0.01, "t0": 0, "alpha": 0.5, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "momentum_decay": 0.1}),
    ("NAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01}),  # rho_t > 5 from step 6 on: both branches
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1}),
    ("RAdam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.01, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.1), "maximize": True}),
    ("Adafactor", {}),  # factored second moment for the matrix, plain for vector and scalar
    ("Adafactor", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("Adafactor", {"eps": (1e-4, 1e-2), "d": 2.0, "beta2_decay": -0.5}),
]


def _case_id(case: tuple[str, dict]) -> str:
    name, options = case
    return name + "-" + ",".join(f"{k}={v}" for k, v in options.items())


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_trajectory_matches_torch(case: tuple[str, dict], dtype: type) -> None:
    name, options = case
    _, _, ours_opt, theirs_opt = run_both(
        lambda ps: getattr(gg.optim, name)(ps, **options),
        lambda ps: getattr(torch.optim, name)(ps, **options),
        dtype,
    )
    assert [list(s) for s in ours_opt.state.values()] == [
        list(s) for s in theirs_opt.state.values()
    ]
    for ours, theirs in zip(ours_opt.state.values(), theirs_opt.state.values()):
        for key, value in theirs.items():
            assert ours[key].dtype == getattr(gg, str(value.dtype).split(".")[1]), key
            assert tuple(ours[key].shape) == tuple(value.shape), key


@pytest.mark.parametrize(
    "options", [{"lr": 0.02}, {"lr": 0.02, "nesterov": False, "adjust_lr_fn": "match_rms_adamw"}]
)
@pytest.mark.parametrize("shape", [(6, 4), (3, 7)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_muon_follows_torch_to_bfloat16_precision(options: dict, shape: tuple, dtype: type) -> None:
    # PyTorch orthogonalises in bfloat16; glassgrad rounds each product to bfloat16 too. The
    # two may differ by a bfloat16 ulp of the update (2^-8 relative), so the parameters are
    # compared to 2% of one step's size: a wrong formula moves them by whole steps.
    rng = np.random.default_rng(0)
    start = rng.standard_normal(shape).astype(dtype)
    ours = gg.tensor(start.copy(), requires_grad=True)
    theirs = torch.tensor(start.copy(), requires_grad=True)
    ours_opt, theirs_opt = gg.optim.Muon([ours], **options), torch.optim.Muon([theirs], **options)
    for _ in range(30):
        grad = rng.standard_normal(shape).astype(dtype)
        ours.grad, theirs.grad = gg.tensor(grad.copy()), torch.tensor(grad.copy())
        ours_opt.step()
        theirs_opt.step()
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=0, atol=0.02 * options["lr"]
        )
    assert ours.dtype == getattr(gg, str(theirs.dtype).split(".")[1])
    buffer = theirs_opt.state[theirs]["momentum_buffer"].numpy()
    np.testing.assert_allclose(
        ours_opt.state[ours]["momentum_buffer"].numpy(), buffer, rtol=1e-6, atol=1e-6
    )


def _rosenbrock(lib, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2 + (x[2:] ** 2).sum()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"lr": 0.5, "history_size": 3, "max_iter": 7},
        {"line_search_fn": "strong_wolfe"},
        {"line_search_fn": "strong_wolfe", "history_size": 2, "max_eval": 9},
    ],
    ids=["plain", "short_history", "strong_wolfe", "strong_wolfe_few_evals"],
)
def test_lbfgs_follows_torch_iterate_for_iterate(options: dict) -> None:
    start = np.array([-1.2, 1.0, 0.5, -0.3])
    results = {}
    for lib in (gg, torch):
        x = lib.tensor(start.copy(), requires_grad=True)
        opt = lib.optim.LBFGS([x], **options)
        losses, path = [], []

        def closure(x=x, opt=opt, lib=lib):
            opt.zero_grad()
            loss = _rosenbrock(lib, x)
            loss.backward()
            return loss

        for _ in range(4):
            losses.append(float(opt.step(closure).detach()))
            path.append(x.detach().numpy().copy())
        state = opt.state[x]
        results[lib.__name__] = (
            losses,
            np.stack(path),
            state["func_evals"],
            state["n_iter"],
            len(state["old_dirs"]),
            sorted(state),
        )
    ours, theirs = results["glassgrad"], results["torch"]
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-9, atol=1e-12)
    # near the optimum the rounding of the dot products shows at 1e-11 of the scale (1)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-9, atol=1e-9)
    assert ours[2:] == theirs[2:]


def test_lbfgs_stops_at_once_on_a_zero_gradient_and_refuses_groups() -> None:
    x = gg.zeros(3, requires_grad=True)
    opt = gg.optim.LBFGS([x])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    assert float(opt.step(closure)) == 0.0 and len(calls) == 1
    with pytest.raises(ValueError, match="doesn't support per-parameter options"):
        gg.optim.LBFGS([{"params": [x]}, {"params": [gg.zeros(1, requires_grad=True)]}])
    opt = gg.optim.LBFGS([x], line_search_fn="backtracking")
    x.grad = None
    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(lambda: ((x - 1) ** 2).sum().backward() or ((x - 1) ** 2).sum())


def test_sparse_adam_refuses_dense_gradients_as_torch() -> None:
    ours, theirs = gg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    ours_opt, theirs_opt = gg.optim.SparseAdam([ours]), torch.optim.SparseAdam([theirs])
    ours_opt.step()  # no gradient yet: nothing to do
    ours.grad, theirs.grad = gg.ones(2), torch.ones(2)
    with pytest.raises(RuntimeError) as theirs_error:
        theirs_opt.step()
    with pytest.raises(RuntimeError) as ours_error:
        ours_opt.step()
    assert str(ours_error.value) == str(theirs_error.value)
    with pytest.raises(ValueError, match="Invalid learning rate"):
        gg.optim.SparseAdam([ours], lr=0.0)


@pytest.mark.parametrize(
    ("name", "option"),
    [
        ("Adadelta", "capturable"),
        ("Adadelta", "differentiable"),
        ("Adamax", "capturable"),
        ("ASGD", "differentiable"),
        ("NAdam", "capturable"),
        ("RAdam", "differentiable"),
        ("Rprop", "capturable"),
    ],
)
def test_graph_and_cuda_options_are_refused_not_ignored(name: str, option: str) -> None:
    with pytest.raises(NotImplementedError, match=f"{name}: {option}=True"):
        getattr(gg.optim, name)([gg.ones(2, requires_grad=True)], **{option: True})


@pytest.mark.parametrize(
    ("name", "options", "message"),
    [
        ("Adadelta", {"rho": 1.5}, "Invalid rho value"),
        ("Adamax", {"betas": (1.0, 0.9)}, "Invalid beta parameter at index 0"),
        ("NAdam", {"momentum_decay": -1.0}, "Invalid momentum_decay value"),
        ("RAdam", {"eps": -1.0}, "Invalid epsilon value"),
        ("Rprop", {"etas": (1.5, 2.0)}, "Invalid eta values"),
        ("ASGD", {"weight_decay": -1.0}, "Invalid weight_decay value"),
        ("Adafactor", {"d": 0.5}, "Clipping threshold d should be >= 1"),
        ("Adafactor", {"beta2_decay": 0.5}, "beta2_decay should be <= 0"),
        ("Muon", {"adjust_lr_fn": "other"}, "is not supported"),
    ],
)
def test_bad_options_raise_torchs_errors(name: str, options: dict, message: str) -> None:
    shape = (2, 2)
    for lib in (gg, torch):
        with pytest.raises(ValueError, match=message):
            getattr(lib.optim, name)([lib.ones(shape, requires_grad=True)], **options)


def test_muon_refuses_parameters_that_are_not_matrices() -> None:
    for lib in (gg, torch):
        with pytest.raises(ValueError, match="Muon only supports 2D parameters"):
            lib.optim.Muon([lib.ones(3, requires_grad=True)])
