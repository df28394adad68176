"""The differential fuzzer in the test suite: a short fixed-seed run and every saved regression.

Long runs are ``python -m tests.fuzz --seed S --budget-s T`` (docs/fuzzing.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad
from glassgrad.ops import REGISTRY

from .execute import pytorch_silent_bug
from .isolate import fuzz_seed
from .program import REGRESSIONS, check, load_regression

# Seeds 0..FIXED_SEEDS-1 in chunks, so pytest-xdist spreads them over its workers.
FIXED_SEEDS = 120
CHUNK = 10

# Seeds of the fixed run whose program still differs from PyTorch, with the class of the
# difference (docs/fuzzing.md, "Open"). The test fails when one of them starts to agree, so
# the list only shrinks.
KNOWN_DIFFERENCES: dict[int, str] = {}


def _fixed_ops() -> tuple[list, list]:
    """The ops and in-place methods of fixed_ops.txt (each must still exist)."""
    ops, methods = [], []
    lines = (Path(__file__).parent / "fixed_ops.txt").read_text().splitlines()
    for line in lines:
        if line and not line.startswith("#"):
            kind, name = line.split()
            (ops if kind == "op" else methods).append(name)
    missing = [name for name in ops if name not in REGISTRY]
    assert not missing, f"fixed_ops.txt names ops the registry no longer has: {missing}"
    return ops, methods


FIXED_OPS = _fixed_ops()


@pytest.mark.parametrize("first", range(0, FIXED_SEEDS, CHUNK))
def test_fixed_seed_programs_agree_with_pytorch(first: int) -> None:
    failures = []
    for seed in range(first, first + CHUNK):
        outcome = fuzz_seed(seed, ops=FIXED_OPS)
        if seed in KNOWN_DIFFERENCES:
            if outcome.status == "agree":
                failures.append(f"seed {seed} now agrees: remove it from KNOWN_DIFFERENCES")
            continue
        if outcome.status in ("differ", "harness"):
            shown = "\n    ".join(outcome.statements)
            failures.append(
                f"seed {seed}: {outcome.difference or outcome.detail}\n    {shown}\n"
                f"  (reproduce: python -m tests.fuzz --seed {seed} --programs 1 --fixed-ops)"
            )
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("program_*.py")), ids=lambda p: p.stem)
def test_saved_regression_agrees_with_pytorch(path: Path) -> None:
    statements, seed = load_regression(path)
    assert check(statements, seed) is None


def test_pytorchs_wrong_second_derivatives_are_still_wrong() -> None:
    """skips.PYTORCH_WRONG_SECOND_ORDER: PyTorch's double backward of embedding with
    scale_grad_by_freq=True is not the adjoint of its first backward (its gradgradcheck
    fails) and glassgrad's is. If PyTorch fixes it, this fails: remove the entry."""
    weight = np.random.default_rng(0).standard_normal((4, 2))
    index = np.array([[1, 3], [1, 1]])

    def check(lib: Any) -> bool:
        return lib.autograd.gradgradcheck(
            lambda w: lib.nn.functional.embedding(lib.tensor(index), w, scale_grad_by_freq=True),
            (lib.tensor(weight, requires_grad=True),),
            raise_exception=False,
        )

    assert not check(torch)
    assert check(glassgrad)


def test_eigvalsh_is_passed_over_at_a_repeated_eigenvalue_only() -> None:
    """skips.LAPACK_REPEATED_EIGENVALUES (seed 804723): at a constant matrix, whose zero
    eigenvalue is repeated, eigvalsh's weighted gradient V diag(g) V^T differs between MKL's
    and OpenBLAS's eigenvectors, so the generator passes over it; a matrix with distinct
    eigenvalues (either triangle's) is fuzzed."""
    from .generate import _repeated_eigenvalues_or_nonfinite

    weights = np.array([0.3, -1.2, 0.7])
    grads = []
    for lib in (glassgrad, torch):
        a = lib.full((3, 3), 1.96827, dtype=lib.float64, requires_grad=True)
        (lib.linalg.eigvalsh(a) * lib.tensor(weights)).sum().backward()
        grads.append(a.grad.numpy())
    assert np.abs(grads[0] - grads[1]).max() > 1e-3  # LAPACK's basis: else drop the skip
    assert _repeated_eigenvalues_or_nonfinite(torch.full((3, 3), 1.96827, dtype=torch.float64))
    assert _repeated_eigenvalues_or_nonfinite(torch.eye(3)[None].expand(2, 3, 3))
    distinct = torch.tensor([[2.0, 0.5, 9.0], [0.5, -1.0, 9.0], [0.0, 0.0, 4.0]])
    assert not _repeated_eigenvalues_or_nonfinite(distinct)
    assert not _repeated_eigenvalues_or_nonfinite(torch.ones(2, 3))


def test_a_difference_pytorch_gives_too_from_glassgrads_inputs_is_inherited(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seed 81884: PyTorch's shifted_chebyshev_polynomial_w(0.5, 7) is -1.0000000000000013;
    glassgrad's was -1 (its recurrence; it now takes the closed form there, as PyTorch's
    kernel). Both are within tolerance, and ``// 0.5`` floors them to -3 and -2. PyTorch's
    floor_divide on glassgrad's values gives -2: no verdict, not a difference. The old
    value is put back by rounding glassgrad's result to 12 decimals."""
    exact = glassgrad.special.shifted_chebyshev_polynomial_w

    def rounded(x: Any, n: Any) -> Any:
        return glassgrad.round(exact(x, n), decimals=12)

    statements = [
        "v8 = torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64)",
        "v9 = torch.special.shifted_chebyshev_polynomial_w(v8, torch.tensor([[2], [7]]))",
        "v13 = v9 // v8",
    ]
    assert check(statements, 81884) is None  # the kernel as PyTorch's: they agree
    monkeypatch.setattr(glassgrad.special, "shifted_chebyshev_polynomial_w", rounded)
    found = check(statements, 81884)
    assert found is not None and found.ill_conditioned and found.aspect == "inherited"


def test_the_replay_keeps_variables_bound_to_one_tensor_together() -> None:
    """Seed 601373: ``v7 = v6.div_(v6)`` is 1 - 3e-17j in PyTorch, exactly 1 in glassgrad;
    less 1.02611 and to the power -1.5 (the branch cut) that is -237j against +237j. The
    replay binds v6, v7 and v13 to one tensor, as the program did, so PyTorch's pow_ on
    glassgrad's values gives glassgrad's: inherited rounding, no verdict."""
    statements = [
        "v4 = torch.tensor([[0.474512, 1.06309, 0.691582, 0.0328128, 0.432876, 0.47938, "
        "-0.237052, 0.488415]], dtype=torch.float64)",
        "v5 = torch.tensor([[-1.01502, 1.74644, 0.763862, -1.03029, 0.0865579, 0.497646, "
        "-2.9829, -0.613446]], dtype=torch.float64)",
        "v6 = torch.fft.fft((v4 + 1j * v5))",
        "v7 = v6.div_(v6)",
        "v12 = torch.tensor([1.02611, -0.128537, -0.725131, -0.481813, 0.661726, -0.201289, "
        "0.683074, 0.554455], dtype=torch.float64)",
        "v13 = v7.sub_(v12)",
        "v14 = v6.pow_(-1.5)",
    ]
    found = check(statements, 601373)
    assert found is not None and found.ill_conditioned and found.aspect == "inherited"


def test_the_replay_keeps_complex_variables_requiring_grad() -> None:
    """Seed 803717: MKL's r2c transform gives entry 2 of a row of equal-valued pairs +0j,
    pocketfft's -0j (the sign of an exact cancellation), so the ifft's entry 6 sits on
    either side of pow's branch cut (-336.96 + 203.91j against - 203.91j). The replay
    rebuilds the complex v5 requiring grad, as it was (it rebuilt it without, so the flag
    differed and the difference stood); PyTorch's pow on glassgrad's values gives
    glassgrad's: inherited rounding, no verdict."""
    statements = [
        "v4 = torch.tensor([[-0.496866, -0.496866, -0.447782, -0.447782, -0.496866, "
        "-0.447782, -0.496866, -0.496866]], dtype=torch.float64, requires_grad=True)",
        "v5 = torch.fft.ifft(v4).clone()",
        "v7 = torch.tensor(-1.17322, dtype=torch.float64, requires_grad=True)",
        "v8 = v5 ** v7",
    ]
    found = check(statements, 803717)
    assert found is not None and found.ill_conditioned and found.aspect == "inherited"


# log_ndtr's second derivative at -44.6854 in float32 (the float64 value is -0.99950):
# PyTorch gives -0.81677, glassgrad -0.93884. The forwards differ in the last bit there (one of
# the 0.07% of float32 inputs below -30 where PyTorch's float erfcx rounds otherwise than
# glassgrad's), and the derivative, which cancels ~1000 against ~1000, amplifies it.
_LOG_NDTR_FAR_OUT = [
    "v0 = torch.tensor([-44.6854, -10.1, 3.3], dtype=torch.float32, requires_grad=True)",
    "v1 = torch.special.log_ndtr(v0)",
]


def test_float32_values_no_farther_than_pytorchs_from_float64_are_ill_conditioned() -> None:
    found = check(_LOG_NDTR_FAR_OUT, 5)
    assert found is not None and found.ill_conditioned and found.aspect == "float32"
    assert found.where.startswith("phase gradgrad")


def test_float32_values_farther_than_pytorchs_from_float64_are_a_difference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The float64 rerun excuses rounding, not an error: a log_ndtr wrong by 1% in float32
    only (its float64 run agrees with PyTorch) is still reported, at the statement."""
    exact = glassgrad.special.log_ndtr

    def wrong_in_float32(x: Any) -> Any:
        y = exact(x)
        return y * 1.01 if x.dtype == glassgrad.float32 else y

    monkeypatch.setattr(glassgrad.special, "log_ndtr", wrong_in_float32)
    found = check(_LOG_NDTR_FAR_OUT, 5)
    assert found is not None and not found.ill_conditioned
    assert (found.where, found.aspect) == (
        "statement 1 `v1 = torch.special.log_ndtr(v0)` v1",
        "value",
    )


def test_each_value_beyond_the_tolerance_is_weighed_against_float64() -> None:
    """Closer at one place does not excuse farther at another."""
    from .compare import first_difference
    from .execute import Trace

    def trace(values: list) -> Trace:
        return Trace(phases={"backward": {"v0": np.array(values, dtype=np.float32)}})

    statements: list = []
    reference = {"phase backward v0.grad": np.array([1.0, 2.0])}
    ours, theirs = trace([1.0, 2.5]), trace([1.5, 2.4])
    assert first_difference(ours, theirs, statements, reference=reference) is not None
    ours = trace([1.0, 2.3])
    assert first_difference(ours, theirs, statements, reference=reference) is None
    assert first_difference(ours, theirs, statements) is not None


@pytest.mark.parametrize(
    ("ours", "theirs", "agree"),
    [
        ([complex("inf+nanj")], [complex("inf+nanj")], True),
        ([complex("nan+0j")], [complex("nan+nanj")], False),
        ([complex("-inf+nanj")], [complex("inf+nanj")], False),
        ([complex("1+infj")], [complex("1+infj")], True),
    ],
)
def test_complex_values_are_compared_part_by_part(ours: list, theirs: list, agree: bool) -> None:
    """Seed 650712: inf + NaN j in both libraries was reported as "infinities differ" (a
    complex NaN is never equal to itself); which part is NaN or infinite counts."""
    from .compare import first_difference
    from .execute import Trace

    def trace(values: list) -> Trace:
        return Trace(phases={"backward": {"v0": np.array(values, dtype=np.complex128)}})

    assert (first_difference(trace(ours), trace(theirs), []) is None) == agree


@pytest.mark.parametrize(
    ("weight", "bias", "bug"),
    [(False, True, True), (True, True, False), (False, False, False), (True, False, False)],
)
def test_silent_pytorch_bug_is_recognised_on_pytorchs_graph(
    weight: bool, bias: bool, bug: bool
) -> None:
    # Only layer_norm without a weight and with a bias that requires grad is left uncompared
    # from the second derivative on (skips.PYTORCH_SILENT_BUGS).
    x = torch.randn(3, 4, requires_grad=True)
    w = torch.randn(4, requires_grad=True) if weight else None
    b = torch.randn(4, requires_grad=True) if bias else None
    loss = (torch.nn.functional.layer_norm(x * 2, (4,), w, b) ** 2).sum()
    assert (pytorch_silent_bug(loss.grad_fn, "gradgrad") is not None) == bug
    assert pytorch_silent_bug(loss.grad_fn, "grad") is None


def test_silu_in_place_of_complex_is_recognised_as_a_pytorch_bug() -> None:
    x = torch.tensor([1 + 1j, 2.0], requires_grad=True)
    inplace, plain = x * 1, x * 1
    torch.nn.functional.silu(inplace, inplace=True)
    assert pytorch_silent_bug(inplace.abs().sum().grad_fn, "backward") is not None
    assert (
        pytorch_silent_bug(torch.nn.functional.silu(plain.real).sum().grad_fn, "backward") is None
    )


def test_det_of_an_exactly_singular_matrix_is_recognised_as_a_pytorch_bug() -> None:
    # PyTorch's first derivative there is 0 (the cofactor matrix is not); a determinant that
    # is not exactly 0 is compared
    singular = torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    (grad,) = torch.autograd.grad(torch.linalg.det(singular), singular)
    assert not grad.any()
    assert pytorch_silent_bug(torch.linalg.det(singular * 2).grad_fn, "backward") is not None
    invertible = torch.tensor([[1.0, 2.0], [2.0, 4.5]], requires_grad=True)
    assert pytorch_silent_bug(torch.linalg.det(invertible).grad_fn, "backward") is None


def test_hooks_of_a_phase_where_pytorch_fails_its_own_assert_give_no_verdict() -> None:
    """PyTorch failing an internal assert in a backward phase (seed 115850: its engine's
    isDifferentiableType on a gradient for an integer tensor) is no verdict: the hooks that
    ran in that phase under glassgrad are not a difference."""
    from .compare import first_difference
    from .execute import Error, Trace

    assertion = Error("RuntimeError", "isDifferentiableType(...) INTERNAL ASSERT FAILED at ...")
    ours = Trace(hooks={"h0": [("backward", np.ones(2))]}, phases={"backward": {}})
    theirs = Trace(phases={"backward": assertion})
    found = first_difference(ours, theirs, [])
    assert found is not None and found.oracle_failure


def test_a_column_depending_on_the_ones_before_counts_as_rank_deficient() -> None:
    """skips.MKL_RANK_DEFICIENT (seed 862170): QR without pivoting of a full-rank matrix whose
    first two columns are proportional is LAPACK's rounding too."""
    from .generate import _rank_deficient_or_nonfinite

    proportional = torch.tensor([[0.4, 0.5, 1.0], [0.4, 0.5, -2.0]], dtype=torch.float64)
    assert int(torch.linalg.matrix_rank(proportional)) == 2
    assert _rank_deficient_or_nonfinite(proportional)
    general = torch.tensor([[0.4, 0.5, 1.0], [0.3, 0.9, -2.0]], dtype=torch.float64)
    assert not _rank_deficient_or_nonfinite(general)
