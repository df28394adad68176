"""Ops given operands of different float dtypes: the result dtype, or the error, is PyTorch's.

PyTorch does not promote uniformly: elementwise losses promote, ``binary_cross_entropy_with
_logits`` keeps the target's dtype, ``huber_loss`` the input's, normalisation layers refuse
parameters of another dtype than the input (with messages that depend on which one), matrix
products refuse any mix.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg


def _t(lib: Any, dtype: str, *shape: int) -> Any:
    return lib.ones(*(shape or (2, 3)), dtype=getattr(lib, dtype))


def _p(lib: Any, dtype: str) -> Any:
    return lib.ones(3, dtype=getattr(lib, dtype))


CASES = {
    "layer_norm, weight and bias float64 on float32": lambda L, F: F.layer_norm(
        _t(L, "float32"), (3,), _p(L, "float64"), _p(L, "float64")
    ),
    "layer_norm, bias float32 on float64": lambda L, F: F.layer_norm(
        _t(L, "float64"), (3,), _p(L, "float64"), _p(L, "float32")
    ),
    "layer_norm, weight float32 on float64": lambda L, F: F.layer_norm(
        _t(L, "float64"), (3,), _p(L, "float32"), None
    ),
    "layer_norm, bias only float64 on float32": lambda L, F: F.layer_norm(
        _t(L, "float32"), (3,), None, _p(L, "float64")
    ),
    "layer_norm, bias only float32 on float64": lambda L, F: F.layer_norm(
        _t(L, "float64"), (3,), None, _p(L, "float32")
    ),
    "group_norm, float64 parameters": lambda L, F: F.group_norm(
        _t(L, "float32", 2, 4), 2, L.ones(4, dtype=L.float64), L.ones(4, dtype=L.float64)
    ),
    "batch_norm, float64 running stats": lambda L, F: F.batch_norm(
        _t(L, "float32"), _p(L, "float64"), _p(L, "float64")
    ),
    "batch_norm, float64 weight": lambda L, F: F.batch_norm(
        _t(L, "float32"), _p(L, "float32"), _p(L, "float32"), _p(L, "float64"), _p(L, "float64")
    ),
    "batch_norm, float64 input": lambda L, F: F.batch_norm(
        _t(L, "float64"), _p(L, "float32"), _p(L, "float32"), _p(L, "float32"), _p(L, "float32")
    ),
    "bilinear, float64 weight": lambda L, F: F.bilinear(
        _t(L, "float32", 2, 3), _t(L, "float32", 2, 2), _t(L, "float64", 4, 3, 2), L.ones(4)
    ),
    "binary_cross_entropy_with_logits, float32 target": lambda L, F: (
        F.binary_cross_entropy_with_logits(_t(L, "float64"), _t(L, "float32"))
    ),
    "binary_cross_entropy_with_logits, float64 target": lambda L, F: (
        F.binary_cross_entropy_with_logits(_t(L, "float32"), _t(L, "float64"))
    ),
    "binary_cross_entropy_with_logits, float64 weight": lambda L, F: (
        F.binary_cross_entropy_with_logits(
            _t(L, "float32"), _t(L, "float32"), weight=_p(L, "float64")
        )
    ),
    "binary_cross_entropy_with_logits, float64 pos_weight": lambda L, F: (
        F.binary_cross_entropy_with_logits(
            _t(L, "float32"), _t(L, "float32"), pos_weight=_p(L, "float64")
        )
    ),
    "binary_cross_entropy, float64 target": lambda L, F: F.binary_cross_entropy(
        _t(L, "float32") * 0.5, _t(L, "float64") * 0.5
    ),
    "huber_loss, float32 target": lambda L, F: F.huber_loss(_t(L, "float64"), _t(L, "float32")),
    "huber_loss, float64 target": lambda L, F: F.huber_loss(_t(L, "float32"), _t(L, "float64")),
    "smooth_l1_loss": lambda L, F: F.smooth_l1_loss(_t(L, "float32"), _t(L, "float64")),
    "mse_loss": lambda L, F: F.mse_loss(_t(L, "float32"), _t(L, "float64")),
    "l1_loss": lambda L, F: F.l1_loss(_t(L, "float32"), _t(L, "float64")),
    "kl_div": lambda L, F: F.kl_div(_t(L, "float32"), _t(L, "float64"), reduction="sum"),
    "cosine_similarity": lambda L, F: F.cosine_similarity(_t(L, "float32"), _t(L, "float64")),
    "pairwise_distance": lambda L, F: F.pairwise_distance(_t(L, "float32"), _t(L, "float64")),
    "conv1d, float64 weight": lambda L, F: F.conv1d(
        _t(L, "float32", 1, 2, 3), _t(L, "float64", 1, 2, 2)
    ),
    "linear, float64 weight": lambda L, F: F.linear(_t(L, "float32"), _t(L, "float64", 2, 3)),
    "linear, float64 bias": lambda L, F: F.linear(
        _t(L, "float32"), _t(L, "float32", 2, 3), L.ones(2, dtype=L.float64)
    ),
    "nll_loss, float64 weight": lambda L, F: F.nll_loss(
        _t(L, "float32"), L.zeros(2, dtype=L.int64), weight=_p(L, "float64")
    ),
    "cross_entropy, float64 probabilities": lambda L, F: F.cross_entropy(
        _t(L, "float32"), L.zeros(2, 3, dtype=L.float64)
    ),
    "cross_entropy, float32 probabilities": lambda L, F: F.cross_entropy(
        _t(L, "float64"), L.zeros(2, 3, dtype=L.float32)
    ),
    "embedding, float64 weight": lambda L, F: F.embedding(
        L.zeros(2, dtype=L.int64), _t(L, "float64")
    ),
    "einsum without contraction": lambda L, F: L.einsum(
        "i,i->i", _p(L, "float32"), _p(L, "float64")
    ),
    "einsum with contraction": lambda L, F: L.einsum("i,i->", _p(L, "float32"), _p(L, "float64")),
    "dot": lambda L, F: L.dot(_p(L, "float64"), _p(L, "float32")),
    # bmm's kernel checks dtypes only when it computes: an empty result or contraction comes
    # back first, in batch2's dtype (einsum and batched matmul reach it).
    "einsum of empty vectors": lambda L, F: L.einsum(
        "i,i", L.zeros(0, dtype=L.float32), L.zeros(0, dtype=L.float64)
    ),
    "einsum of empty vectors, float32 second": lambda L, F: L.einsum(
        "i,i", L.zeros(0, dtype=L.float64), L.zeros(0, dtype=L.float32)
    ),
    "einsum of an empty integer vector": lambda L, F: L.einsum(
        "i,i", L.zeros(0, dtype=L.int64), L.zeros(0, dtype=L.float64)
    ),
    "bmm, empty contraction": lambda L, F: L.bmm(
        _t(L, "float32", 2, 1, 0), _t(L, "float64", 2, 0, 3)
    ),
    "bmm, empty result": lambda L, F: L.bmm(_t(L, "float64", 2, 0, 2), _t(L, "bool", 2, 2, 3)),
    "bmm, empty batch": lambda L, F: L.bmm(_t(L, "int64", 0, 1, 2), _t(L, "float32", 0, 2, 3)),
    "bmm, computed": lambda L, F: L.bmm(_t(L, "float32", 2, 1, 2), _t(L, "float64", 2, 2, 3)),
    "matmul batched, empty contraction": lambda L, F: L.matmul(
        _t(L, "float64", 2, 1, 0), _t(L, "float32", 2, 0, 3)
    ),
    "matmul batched, batches not broadcasting": lambda L, F: L.matmul(
        _t(L, "float64", 2, 1, 2), _t(L, "float32", 3, 2, 1)
    ),
    "mm, empty contraction": lambda L, F: L.mm(_t(L, "float64", 1, 0), _t(L, "float32", 0, 2)),
    "matmul of matrix and vector": lambda L, F: L.matmul(
        _t(L, "float32", 3, 2, 3), _p(L, "float64")
    ),
    "rms_norm, weight float64 on float32": lambda L, F: F.rms_norm(
        _t(L, "float32"), (3,), _p(L, "float64")
    ),
    "rms_norm, weight float32 on float64": lambda L, F: F.rms_norm(
        _t(L, "float64"), (3,), _p(L, "float32")
    ),
}


def _outcome(program: Any, lib: Any) -> tuple:
    try:
        return ("dtype", str(program(lib, lib.nn.functional).dtype).split(".")[-1])
    except Exception as exc:  # compared with PyTorch's: type and message
        return (type(exc).__name__, str(exc))


@pytest.mark.parametrize("name", sorted(CASES))
def test_mixed_dtypes_as_pytorch(name: str) -> None:
    """The same dtype, or the same error whose message contains PyTorch's."""
    program = CASES[name]
    (kind, ours), (expected_kind, theirs) = _outcome(program, gg), _outcome(program, torch)
    assert kind == expected_kind, (ours, theirs)
    assert ours == theirs if kind == "dtype" else theirs in ours, (ours, theirs)


@pytest.mark.parametrize("create_graph", [False, True])
def test_empty_contraction_of_two_dtypes_differentiates_as_pytorch(create_graph: bool) -> None:
    """einsum('i,i') of empty float64 and float32 vectors: a float32 zero, each gradient in
    its input's dtype."""
    results = []
    for lib in (torch, gg):
        a = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        b = lib.zeros(0, dtype=lib.float32, requires_grad=True)
        out = lib.einsum("i,i", a, b)
        grads = lib.autograd.grad(out * 3, (a, b), create_graph=create_graph)
        results.append(
            [str(t.dtype).split(".")[-1] for t in (out, *grads)]
            + [tuple(g.shape) for g in grads]
            + [out.item(), type(out.grad_fn).__name__]
        )
    assert results[0] == results[1]


def _instance_norm_run(lib: Any, dtypes: str, use_input_stats: bool) -> tuple:
    """instance_norm of an input of dtypes[0] with running statistics of dtypes[1] (mean) and
    dtypes[2] (var) and a weight of dtypes[3] ('-': none): the result and the statistics after
    the call, or the error."""
    names = {"h": "float16", "f": "float32", "d": "float64", "l": "int64"}
    x = lib.tensor(np.arange(24.0).reshape(2, 3, 4) ** 1.5, dtype=getattr(lib, names[dtypes[0]]))
    mean, var, weight = (
        None if c == "-" else lib.tensor(np.array([0.5, 1.0, 2.0]), dtype=getattr(lib, names[c]))
        for c in dtypes[1:]
    )
    var = var + 1
    try:
        out = lib.nn.functional.instance_norm(
            x, mean, var, weight=weight, use_input_stats=use_input_stats
        )
    except Exception as exc:  # compared with PyTorch's: type and message
        return (type(exc).__name__, str(exc))
    values = [np.round(t.detach().numpy().astype(np.float64), 4).tolist() for t in (out, mean, var)]
    return (str(out.dtype).split(".")[-1], str(mean.dtype).split(".")[-1], values)


@pytest.mark.parametrize("use_input_stats", [True, False])
@pytest.mark.parametrize("dtypes", ["dff-", "dll-", "fdd-", "ddf-", "dffd", "dfff", "fhhf", "fddf"])
def test_instance_norm_running_stats_of_another_dtype(dtypes: str, use_input_stats: bool) -> None:
    """As PyTorch's instance_norm: running statistics whose mean has another dtype than the
    weight (the input without a weight) are used in that dtype and updated in their own (a
    float64 input with float32 or int64 statistics works; batch_norm itself refuses it)."""
    ours = _instance_norm_run(gg, dtypes, use_input_stats)
    theirs = _instance_norm_run(torch, dtypes, use_input_stats)
    assert ours == theirs


def test_rms_norm_gradients_with_a_weight_of_another_dtype() -> None:
    """rms_norm casts its result to the input's dtype (PyTorch's type_as): the gradients
    flow back through that cast to each argument in its own dtype."""
    rng = np.random.default_rng(0)
    x, w, g = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    results = []
    for L in (gg, torch):
        xt = L.tensor(x, dtype=L.float32, requires_grad=True)
        wt = L.tensor(w, dtype=L.float64, requires_grad=True)
        out = L.nn.functional.rms_norm(xt, (3,), wt)
        out.backward(L.tensor(g, dtype=L.float32))
        results.append([(t.detach().numpy(), str(t.dtype)[-7:]) for t in (out, xt.grad, wt.grad)])
    for (ours, our_dtype), (theirs, their_dtype) in zip(*results):
        assert our_dtype == their_dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5)


# In place, PyTorch's TensorIterator refuses a common dtype the target cannot hold before a
# kernel refuses the dtype, and after the autograd checks (a leaf that requires grad).
INPLACE_METHODS = [
    "atan2_", "fmod_", "remainder_", "hypot_", "xlogy_", "floor_divide_", "copysign_",
    "nextafter_", "igamma_", "igammac_", "gcd_", "lcm_", "heaviside_", "add_", "lt_", "ge_",
]  # fmt: skip


@pytest.mark.parametrize("method", INPLACE_METHODS)
@pytest.mark.parametrize(
    ("target", "other", "leaf"),
    [
        ("float32", "complex64", False),
        ("float32", "complex64", True),
        ("float64", "complex128", False),
        ("int64", "float32", False),
        ("bool", "int64", False),
    ],
)
def test_in_place_result_dtype_is_refused_before_the_kernel(
    method: str, target: str, other: str, leaf: bool
) -> None:
    outcomes = []
    for lib in (torch, gg):
        x = lib.tensor([[1, 2], [3, 4]], dtype=getattr(lib, target), requires_grad=leaf)
        y = lib.tensor([[1, 2], [3, 1]], dtype=getattr(lib, other))
        try:
            getattr(x, method)(y)
            outcomes.append(("ok", x.dtype == getattr(lib, target)))
        except Exception as exc:
            words = ("leaf Variable", "can't be cast to the desired output type")
            outcomes.append((type(exc).__name__, [w in str(exc) for w in words]))
    assert outcomes[0] == outcomes[1]


DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float32", "float64"]


def _in_place_outcome(lib: Any, method: str, target: str, other: str) -> tuple:
    x = lib.tensor([1, 2], dtype=getattr(lib, target))
    try:
        result = getattr(x, method)(lib.tensor([3, 1], dtype=getattr(lib, other)))
    except Exception as exc:
        return type(exc).__name__, str(exc)
    return str(result.dtype).split(".")[-1], result.tolist()


@pytest.mark.parametrize("method", ["add_", "mul_", "hypot_", "fmod_", "bitwise_and_"])
def test_in_place_casts_as_pytorch_can_cast(method: str) -> None:
    """PyTorch's canCast: any integer result goes into any integer target (a uint8 tensor
    takes an int64 result; NumPy's "same_kind" refuses it), and a kernel such as hypot's is
    dispatched on the operands' common dtype (a float64 tensor takes an int64 other)."""
    for target in DTYPES:
        for other in DTYPES:
            theirs = _in_place_outcome(torch, method, target, other)
            assert _in_place_outcome(gg, method, target, other) == theirs, (target, other)


@pytest.mark.parametrize("op", ["hypot", "logaddexp", "logaddexp2"])
@pytest.mark.parametrize("dtypes", [("float64", "int64"), ("int32", "float32"), ("int64", "bool")])
def test_float_kernels_take_the_common_dtype(op: str, dtypes: tuple[str, str]) -> None:
    outcomes = []
    for lib in (torch, gg):
        a, b = (lib.tensor([3, 1], dtype=getattr(lib, d)) for d in dtypes)
        try:
            result = getattr(lib, op)(a, b)
            outcomes.append((str(result.dtype).split(".")[-1], result.tolist()))
        except Exception as exc:
            outcomes.append((type(exc).__name__, str(exc)))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm_refuses_statistics_of_another_dtype_that_require_grad(
    use_input_stats: bool,
) -> None:
    """Fuzz seed 804812: float64 running statistics that require grad with a float32 input:
    PyTorch's native_batch_norm refuses them; the conversion to the input's dtype dropped
    requires_grad, and glassgrad computed."""
    messages = []
    for lib in (torch, gg):
        stats = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        x = lib.ones(2, 2, 3, 2, dtype=lib.float32)
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.instance_norm(x, stats, stats, use_input_stats=use_input_stats)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
