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
import torch

import glassgrad as gg

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


# Keywords glassgrad takes that PyTorch's signatures (stubs, docstrings) do not name, each
# with a call PyTorch accepts (checked below): the stubs omit them.
STUBS_OMIT = {
    ("", "numel", "input"): lambda t: t.numel(input=t.ones(2)),
    ("", "get_device", "input"): lambda t: t.get_device(input=t.ones(2)),
    ("nn.functional", "rrelu_", "generator"): lambda t: t.nn.functional.rrelu_(
        t.ones(2), generator=None
    ),
    ("", "range", "layout"): lambda t: t.range(0, 2, layout=t.strided),
    ("Tensor", "requires_grad_", "requires_grad"): lambda t: t.ones(1).requires_grad_(
        requires_grad=True
    ),
    ("linalg", "matrix_rank", "tol"): lambda t: t.linalg.matrix_rank(t.eye(2), tol=0.1),
    ("linalg", "pinv", "rcond"): lambda t: t.linalg.pinv(t.eye(2), rcond=0.1),
    ("special", "round", "decimals"): lambda t: t.special.round(t.ones(1), decimals=1),
    **{
        ("Tensor", cast, "memory_format"): (
            lambda t, cast=cast: getattr(t.ones(1), cast)(memory_format=t.preserve_format)
        )
        for cast in ("bool", "byte", "char", "double", "float", "half", "int", "long", "short")
    },
}
# Kept from PyTorch's legacy API on purpose (glassgrad.autograd.variable): Tensor.backward's
# grad_variables= (removed from PyTorch's method; torch.autograd.backward still has it).
LEGACY = {("Tensor", "backward", "grad_variables")}

FUNCTION_CASES = [
    c
    for c in CASES
    if c.values[0] in ("", "Tensor", "nn.functional", "linalg", "special", "fft")
    and not inspect.isclass(_our_callable(*c.values))
]


@pytest.mark.parametrize("namespace, name", FUNCTION_CASES)
def test_glassgrad_takes_no_keyword_pytorch_lacks(namespace: str, name: str) -> None:
    """The converse of the test above: every keyword glassgrad's function or method takes
    is one PyTorch's takes (``out=`` apart: test_out_parity compares it by real calls)."""
    if isinstance(inspect.getattr_static(ns.glassgrad_object(namespace), name), property):
        return
    try:
        params = list(inspect.signature(_our_callable(namespace, name)).parameters.values())
    except (TypeError, ValueError):
        return  # a builtin: no Python signature
    overloads = torch_overloads(namespace, name)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for o in overloads for p in o):
        return  # PyTorch's takes any keyword
    theirs = {p.name for overload in overloads for p in overload}
    if namespace == "Tensor" and params:
        params = params[1:]  # self
    extra = [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in theirs
        and p.name != "out"
        and (namespace, name, p.name) not in STUBS_OMIT
        and (namespace, name, p.name) not in LEGACY
    ]
    assert not extra, f"{namespace or 'torch'}.{name} takes keywords PyTorch's lacks: {extra}"


@pytest.mark.parametrize("key", list(STUBS_OMIT), ids=lambda k: ".".join(filter(None, k)))
def test_keywords_the_stubs_omit_are_taken_by_pytorch(key: tuple) -> None:
    STUBS_OMIT[key](torch)
    STUBS_OMIT[key](gg)
