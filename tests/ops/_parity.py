"""Helpers for tests that run one program in glassgrad and in PyTorch and compare."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def result_of(value: Any) -> Any:
    """Values comparable across the libraries: tensors as (repr of values, dtype name)."""
    if isinstance(value, (tuple, list)):
        return tuple(result_of(v) for v in value)
    if hasattr(value, "detach"):
        return (repr(value.detach().numpy().tolist()), str(value.dtype).split(".")[-1])
    return value


def same(program: Callable[[Any], Any]) -> Any:
    """``program(lib)`` gives the same values (and dtypes) with glassgrad and PyTorch."""
    ours, theirs = result_of(program(gg)), result_of(program(torch))
    assert ours == theirs, f"glassgrad {ours!r}\n   torch {theirs!r}"
    return ours


def same_error(program: Callable[[Any], Any]) -> str:
    """``program`` raises the same exception type in both, with PyTorch's message (which
    glassgrad may prefix with the op's name)."""
    caught = []
    for lib in LIBS:
        with pytest.raises(Exception) as info:
            program(lib)
        caught.append(info.value)
    ours, theirs = caught
    assert type(ours) is type(theirs), (ours, theirs)
    assert str(ours).endswith(str(theirs).split("\n")[0]), (ours, theirs)
    return str(ours)
