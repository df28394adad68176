"""Every public name glassgrad shares with PyTorch takes every call PyTorch documents for it,
with the same keyword names and positional slots (see _parity_check), and the coverage of
PyTorch's public API is counted and printed (see _namespaces for what counts).

The list of PyTorch names glassgrad lacks, grouped, is docs/api_coverage.md
(``python -m tests.api.report`` writes it).
"""

from __future__ import annotations

import inspect
import warnings

import pytest

from . import _namespaces as ns
from ._parity_check import binds, call_shapes, confirmed, in_scope
from ._torch_signatures import torch_overloads

# The target: 85% of PyTorch's public API (see _namespaces for what counts).
MINIMUM_COVERAGE = 0.85

CASES = [
    pytest.param(namespace, name, id=f"{namespace or 'torch'}.{name}")
    for namespace in ns.NAMESPACES
    for name in ns.glassgrad_public_names(namespace)
]


def _our_callable(namespace: str, name: str):
    return getattr(ns.glassgrad_object(namespace), name)


def _callable_for_binding(obj):
    if inspect.isclass(obj):
        return (
            obj.__init__ if "__init__" in vars(obj) or obj.__init__ is not object.__init__ else obj
        )
    return obj


@pytest.mark.parametrize("namespace, name", CASES)
def test_glassgrad_takes_every_call_pytorch_takes(namespace: str, name: str) -> None:
    ours = _our_callable(namespace, name)
    if isinstance(inspect.getattr_static(ns.glassgrad_object(namespace), name), property):
        return  # attributes, not calls
    theirs = getattr(ns.torch_object(namespace), name)
    method = namespace == "Tensor"
    target = _callable_for_binding(ours)
    is_class = inspect.isclass(ours)
    mismatches = []
    for overload in torch_overloads(namespace, name):
        if not in_scope(overload):
            continue
        for shape in call_shapes(overload):
            label, positional, keywords = shape
            error = binds(target, positional, keywords, method or (is_class and target is not ours))
            if error is None:
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if confirmed(ours, theirs, shape, name if method else None):
                    mismatches.append(f"{label}: {overload} -> {error}")
    assert not mismatches, f"{namespace or 'torch'}.{name}:\n" + "\n".join(mismatches)


def test_coverage_of_pytorchs_public_api(capsys: pytest.CaptureFixture) -> None:
    lines, have, total = [], 0, 0
    for namespace in ns.NAMESPACES:
        names = ns.torch_public_names(namespace)
        present = [n for n in names if ns.glassgrad_has(namespace, n)]
        have, total = have + len(present), total + len(names)
        lines.append(
            f"  {namespace or 'torch':<20} {len(present):4d} / {len(names):4d}  "
            f"{len(present) / max(len(names), 1):6.1%}"
        )
    with capsys.disabled():
        print("\nPyTorch public API present in glassgrad (scope and exclusions: tests/api):")
        print("\n".join(lines))
        print(f"  {'all':<20} {have:4d} / {total:4d}  {have / total:6.1%}")
    assert have / total >= MINIMUM_COVERAGE
