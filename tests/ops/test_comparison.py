"""allclose returns a Python bool (the registry compares tensors only): compared with PyTorch."""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch

import glassgrad as gg

_CASES = [
    ([1.0, 2.0], [1.0, 2.0 + 1e-9], {}),
    ([1.0, 2.0], [1.0, 2.1], {}),
    ([1.0, 2.0], [1.0, 2.1], {"rtol": 0.1}),
    ([1.0, float("nan")], [1.0, float("nan")], {}),
    ([1.0, float("nan")], [1.0, float("nan")], {"equal_nan": True}),
    ([float("inf"), 0.0], [float("inf"), 1e-9], {}),
    ([[1.0], [2.0]], [1.0, 2.0], {}),
]


@pytest.mark.parametrize("a, b, kwargs", _CASES)
def test_allclose_matches_torch(a, b, kwargs) -> None:
    ours = gg.allclose(gg.tensor(a), gg.tensor(b), **kwargs)
    theirs = torch.allclose(torch.tensor(a), torch.tensor(b), **kwargs)
    assert type(ours) is bool and ours == theirs
    assert gg.tensor(a).allclose(gg.tensor(b), **kwargs) == theirs


@pytest.mark.parametrize(
    "a, b, kwargs",
    [
        (np.ones(2, np.float32), np.ones(2), {}),
        (np.ones(2), np.ones(3), {}),
        (np.ones(2), np.ones(2), {"rtol": -1.0}),
        (np.ones(2), np.ones(2), {"atol": -1.0}),
    ],
)
def test_allclose_errors_match_torch(a, b, kwargs) -> None:
    with pytest.raises(RuntimeError) as theirs:
        torch.allclose(torch.from_numpy(a), torch.from_numpy(b), **kwargs)
    with pytest.raises(RuntimeError, match=re.escape(str(theirs.value))):
        gg.allclose(gg.from_numpy(a), gg.from_numpy(b), **kwargs)
