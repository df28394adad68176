"""nn.utils.parametrizations.orthogonal against PyTorch: the three maps, square, tall and wide
weights, batches, gradients through the parametrization, assignment, state dicts, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg
import glassgrad.nn as nn

CASES = [
    ((4, 4), None, True),
    ((4, 4), "cayley", True),
    ((4, 4), "householder", True),
    ((3, 3), "householder", False),
    ((5, 3), None, False),
    ((3, 5), "householder", False),
    ((5, 3), "cayley", False),
    ((2, 3, 3), "matrix_exp", True),
]


def _build(lib, shape, orthogonal_map, use_trivialization, values):
    module = (nn if lib is gg else torch.nn).Module()
    module.weight = (nn if lib is gg else torch.nn).Parameter(lib.tensor(values.copy()))
    parametrizations = (nn if lib is gg else torch.nn).utils.parametrizations
    return parametrizations.orthogonal(
        module, orthogonal_map=orthogonal_map, use_trivialization=use_trivialization
    )


def _orthogonality(w: np.ndarray) -> float:
    tall = w.shape[-2] >= w.shape[-1]
    gram = np.swapaxes(w, -1, -2) @ w if tall else w @ np.swapaxes(w, -1, -2)
    return float(np.abs(gram - np.eye(gram.shape[-1])).max())


@pytest.mark.parametrize(("shape", "orthogonal_map", "trivial"), CASES)
def test_orthogonal_matches_torch(shape, orthogonal_map, trivial) -> None:
    rng = np.random.default_rng(0)
    values = rng.standard_normal(shape)
    weights = rng.standard_normal(shape)
    ours = _build(gg, shape, orthogonal_map, trivial, values)
    theirs = _build(torch, shape, orthogonal_map, trivial, values)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    w = ours.weight.detach().numpy()
    assert _orthogonality(w) < 1e-12
    # The random completion of a non-square base (use_trivialization) differs by generator;
    # everything else is deterministic and must be PyTorch's.
    deterministic = shape[-1] == shape[-2] or not trivial
    if deterministic:
        np.testing.assert_allclose(w, theirs.weight.detach().numpy(), atol=1e-12)
    for module, lib in ((ours, gg), (theirs, torch)):
        (module.weight * lib.tensor(weights)).sum().backward()
    original = ours.parametrizations.weight.original
    if deterministic:
        np.testing.assert_allclose(
            original.grad.numpy(),
            theirs.parametrizations.weight.original.grad.numpy(),
            atol=1e-10,
        )
    else:
        assert original.grad is not None and np.isfinite(original.grad.numpy()).all()


def test_assignment_and_training_keep_it_orthogonal() -> None:
    layer = nn.utils.parametrizations.orthogonal(nn.Linear(4, 4))
    opt = gg.optim.SGD(layer.parameters(), lr=0.1)
    x, y = gg.randn(8, 4), gg.randn(8, 4)
    for _ in range(5):
        opt.zero_grad()
        ((layer(x) - y) ** 2).mean().backward()
        opt.step()
        assert _orthogonality(layer.weight.detach().numpy()) < 1e-5
    q = np.linalg.qr(np.random.default_rng(1).standard_normal((4, 4)))[0].astype(np.float32)
    layer.weight = gg.tensor(q)  # an orthogonal matrix is taken as the new base
    np.testing.assert_allclose(layer.weight.detach().numpy(), q, atol=1e-5)


def test_errors_as_torch() -> None:
    for lib in (gg, torch):
        module_lib = nn if lib is gg else torch.nn
        parametrizations = module_lib.utils.parametrizations
        with pytest.raises(
            ValueError, match="Expected a matrix or batch of matrices. Got a tensor"
        ):
            parametrizations.orthogonal(module_lib.Linear(3, 3), "bias")
        with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
            parametrizations.orthogonal(module_lib.Linear(3, 3), orthogonal_map="svd")
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'kernel'"):
            parametrizations.orthogonal(module_lib.Linear(3, 3), "kernel")
        layer = parametrizations.orthogonal(
            module_lib.Linear(3, 3), orthogonal_map="cayley", use_trivialization=False
        )
        with pytest.raises(NotImplementedError, match="It is not possible to assign"):
            layer.weight = lib.eye(3)
