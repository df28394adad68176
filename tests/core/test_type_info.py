"""finfo / iinfo and the module's constants, against PyTorch's."""

from __future__ import annotations

import pytest
import torch

import glassgrad as gg

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8"]


@pytest.mark.parametrize("name", FLOATS)
def test_finfo(name: str) -> None:
    ours, theirs = gg.finfo(getattr(gg, name)), torch.finfo(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field


@pytest.mark.parametrize("name", INTS)
def test_iinfo(name: str) -> None:
    ours, theirs = gg.iinfo(getattr(gg, name)), torch.iinfo(getattr(torch, name))
    assert repr(ours) == repr(theirs)
    for field in ("bits", "max", "min", "dtype"):
        assert getattr(ours, field) == getattr(theirs, field), field


def test_default_dtype_and_errors() -> None:
    assert gg.finfo() == gg.finfo(gg.float32)
    assert gg.finfo().eps == torch.finfo().eps
    for lib in (gg, torch):
        with pytest.raises(TypeError, match="requires an integer input type"):
            lib.iinfo(lib.float32)
        with pytest.raises(TypeError, match="requires a floating point input type"):
            lib.finfo(lib.int32)


def test_constants() -> None:
    for name in ("pi", "e", "inf"):
        assert getattr(gg, name) == getattr(torch, name)
    assert gg.nan != gg.nan and gg.newaxis is torch.newaxis
