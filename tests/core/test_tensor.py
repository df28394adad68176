"""Tensor basics: factories, attributes, dtypes and promotion, repr, conversions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg


def test_readme_example(parity) -> None:
    def program(lib):
        x = lib.tensor([2.0, 3.0], requires_grad=True)
        y = (x + 3) * (x + 3) * 3
        out = y.mean()
        out.backward()
        return [out, x.grad, type(out.grad_fn).__name__, x.is_leaf, y.is_leaf]

    parity(program, rtol=1e-6)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor([1, 2, 3]),
        lambda lib: lib.tensor([1.0, 2.0]),
        lambda lib: lib.tensor(3.5),
        lambda lib: lib.tensor([True, False]),
        lambda lib: lib.tensor([[1, 2]], dtype=lib.float64),
        lambda lib: lib.tensor(np.arange(3, dtype=np.float64)),
        lambda lib: lib.tensor(np.arange(3, dtype=np.int32)),
        lambda lib: lib.zeros(2, 3),
        lambda lib: lib.ones((2, 3), dtype=lib.int64),
        lambda lib: lib.full((2,), 7),
        lambda lib: lib.full((2,), 7.0),
        lambda lib: lib.eye(3),
        lambda lib: lib.eye(2, 3),
        lambda lib: lib.arange(5),
        lambda lib: lib.arange(1, 2, 0.25),
        lambda lib: lib.arange(0.0, 1.0, 0.3),
        lambda lib: lib.linspace(0, 1, 5),
        lambda lib: lib.zeros_like(lib.ones(2, 2, dtype=lib.float64)),
        lambda lib: lib.ones_like(lib.ones(2, dtype=lib.int32)),
        lambda lib: lib.full_like(lib.ones(2), 3),
        lambda lib: lib.empty(2, 0).shape,
        lambda lib: lib.as_tensor([1.0, 2.0]),
        lambda lib: lib.from_numpy(np.ones(2, dtype=np.float16)),
    ],
)
def test_factories(parity, make) -> None:
    parity(lambda lib: make(lib))


def test_random_factories_shapes_dtypes_and_seeding() -> None:
    gg.manual_seed(3)
    a = gg.rand(2, 3)
    gg.manual_seed(3)
    assert np.array_equal(a.numpy(), gg.rand(2, 3).numpy())
    assert a.dtype == gg.float32 and ((a.numpy() >= 0) & (a.numpy() < 1)).all()
    assert gg.randn(4, dtype=gg.float64).dtype == gg.float64
    r = gg.randint(0, 5, (100,))
    assert r.dtype == gg.int64 and r.numpy().min() >= 0 and r.numpy().max() < 5
    assert gg.randn_like(gg.ones(2, 2)).shape == (2, 2)
    assert sorted(gg.randperm(5).tolist()) == list(range(5))
    g = gg.Generator().manual_seed(1)
    assert np.array_equal(
        gg.rand(3, generator=g).numpy(), gg.rand(3, generator=gg.Generator().manual_seed(1)).numpy()
    )


@pytest.mark.parametrize("name", ["randn", "rand", "randn_like", "rand_like"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_random_factories_draw_both_parts_like_torch(name: str, dtype: str) -> None:
    # PyTorch: randn's real and imaginary parts each have variance 1/2 (the value has 1),
    # rand's are each uniform in [0, 1).
    parts = []
    for lib in (gg, torch):
        dt = getattr(lib, dtype)
        lib.manual_seed(0)
        if name.endswith("_like"):
            x = getattr(lib, name)(lib.zeros(40000, dtype=dt))
        else:
            x = getattr(lib, name)(40000, dtype=dt)
        assert x.dtype == dt
        values = x.numpy()
        parts.append((values.real.mean(), values.imag.mean(), values.real.var(), values.imag.var()))
        if name.startswith("rand_") or name == "rand":
            assert 0 <= values.real.min() and values.real.max() < 1
            assert 0 <= values.imag.min() and values.imag.max() < 1
    np.testing.assert_allclose(parts[0], parts[1], atol=0.02)


def test_attributes(parity) -> None:
    def program(lib):
        x = lib.arange(6.0).reshape(2, 3)
        return [
            tuple(x.shape),
            tuple(x.size()),
            x.size(1),
            x.size(-1),
            x.dim(),
            x.ndim,
            x.numel(),
            x.tolist(),
            x[1, 2].item(),
            str(x.dtype).split(".")[-1],
            x.is_floating_point(),
            len(x),
            x.requires_grad,
            x.is_leaf,
            x.grad_fn,
        ]

    parity(program)


def test_default_dtype_round_trip() -> None:
    assert gg.get_default_dtype() == gg.float32
    try:
        gg.set_default_dtype(gg.float64)
        assert gg.tensor([1.5]).dtype == gg.float64
        assert gg.zeros(1).dtype == gg.float64
        assert (gg.tensor([1, 2]) * 1.5).dtype == gg.float64
    finally:
        gg.set_default_dtype(gg.float32)
    with pytest.raises(TypeError, match="floating"):
        gg.set_default_dtype(gg.int64)


PROMOTION = [
    ("int64", "float32"),
    ("int32", "int64"),
    ("float32", "float64"),
    ("bool", "int64"),
    ("float16", "float32"),
    ("int64", "float16"),
    ("uint8", "int8"),
    ("bool", "float32"),
]


@pytest.mark.parametrize("a, b", PROMOTION)
def test_type_promotion_tensors(a: str, b: str) -> None:
    for da, db in ((a, b), (b, a)):
        ours = gg.ones(2, dtype=getattr(gg, da if da != "bool" else "bool")) + gg.ones(
            2, dtype=getattr(gg, db)
        )
        theirs = torch.ones(2, dtype=getattr(torch, da)) + torch.ones(2, dtype=getattr(torch, db))
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.tensor([1, 2]) * 1.5,
        lambda lib: lib.tensor([1, 2]) / lib.tensor([2, 4]),
        lambda lib: lib.tensor([1, 2]) + 1,
        lambda lib: lib.tensor([1.0, 2.0]) + lib.tensor(1.0, dtype=lib.float64),
        lambda lib: lib.tensor([1, 2]) + lib.tensor(1.5, dtype=lib.float64),
        lambda lib: lib.tensor([True, False]) + 1,
        lambda lib: lib.tensor([1.0], dtype=lib.float16) * 3.0,
        lambda lib: lib.tensor(2) * 2.5,
        lambda lib: lib.tensor([1, 2], dtype=lib.int32) * 3,
    ],
)
def test_type_promotion_with_scalars_and_zero_dim(parity, program) -> None:
    parity(program)


@pytest.mark.parametrize(
    "make",
    [
        lambda lib: lib.tensor([2.0, 3.0], requires_grad=True),
        lambda lib: lib.tensor(91.5),
        lambda lib: lib.tensor([1e-5, 1.0]),
        lambda lib: lib.tensor([1e5, 1.0]),
        lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
        lambda lib: lib.zeros(0, 3),
        lambda lib: lib.zeros(0, dtype=lib.int64),
        lambda lib: lib.zeros(2, 0, dtype=lib.bool),
        lambda lib: lib.zeros(0, dtype=lib.complex64),
        lambda lib: lib.zeros(0, dtype=lib.float64),
        lambda lib: lib.nonzero(lib.tensor(0), as_tuple=True)[0],
        lambda lib: lib.tensor([True]),
        lambda lib: lib.tensor([1, -20, 300]),
        lambda lib: lib.tensor([float("nan"), 1.0, float("inf")]),
        lambda lib: lib.tensor([0.0, -0.0]),
        lambda lib: lib.arange(2000.0),
        lambda lib: lib.arange(24.0).reshape(2, 3, 4),
        lambda lib: lib.tensor([[-1621.7874, 15.4874], [26.7341, -1883.7271]]),
        lambda lib: lib.tensor([1.5], dtype=lib.float64),
        lambda lib: lib.tensor([1], dtype=lib.int32),
        lambda lib: lib.tensor([2.0], requires_grad=True) * 2,
        lambda lib: lib.tensor([2.0], requires_grad=True).sum(),
        lambda lib: lib.arange(100.0) / 7,
    ],
)
def test_repr_matches_pytorch(make) -> None:
    ours = repr(make(gg)).replace("glassgrad.", "torch.")
    theirs = repr(make(torch))
    assert ours == theirs


def test_repr_setitem_example() -> None:
    m = gg.tensor([[2.0, 3.0]], requires_grad=True)
    n = gg.zeros(1, 2)
    n[0, 0] = m[0, 0] ** 2
    n[0, 1] = m[0, 1] ** 3
    assert repr(n) == "tensor([[ 4., 27.]], grad_fn=<CopySlices>)"


def test_numpy_refuses_tensor_that_requires_grad() -> None:
    x = gg.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_only_floating_tensors_require_grad() -> None:
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        gg.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        gg.ones(2, dtype=gg.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf"):
        (gg.ones(1, requires_grad=True) * 2).requires_grad = False


def test_result_requires_grad_iff_grad_mode_and_input_requires_grad() -> None:
    x, c = gg.ones(2, requires_grad=True), gg.ones(2)
    assert (x * c).requires_grad and not (c * c).requires_grad
    with gg.no_grad():
        assert not (x * c).requires_grad


def test_conversions(parity) -> None:
    def program(lib):
        x = lib.tensor([1.7, -2.2], requires_grad=True)
        y = x.double() * 2
        y.sum().backward()
        return [
            x.float().dtype == x.dtype,
            x.long(),
            x.to(lib.float64),
            y,
            x.grad,
            type(y.grad_fn.next_functions[0][0]).__name__,
            x.int(),
            x.bool(),
        ]

    parity(program)


def test_data_detach_clone_zero(parity) -> None:
    def program(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = x.data
        d[0] = 5.0  # .data shares storage, is not tracked
        det = x.detach()
        c = x.clone()
        (c * c).sum().backward()
        x.grad.zero_()
        return [
            x,
            d.requires_grad,
            det.requires_grad,
            x.grad,
            type(c.grad_fn).__name__,
            x._version,
            det._version,
        ]

    parity(program)


def test_detach_shares_version_counter_and_data_does_not() -> None:
    x = gg.ones(2)
    det, dat = x.detach(), x.data
    x.add_(1)
    assert det._version == x._version == 1 and dat._version == 0


def test_legacy_constructors_warn_and_work() -> None:
    with pytest.warns(DeprecationWarning, match="glassgrad.tensor"):
        t = gg.Tensor([1, 2])
    assert t.dtype == gg.float32 and t.tolist() == [1.0, 2.0]
    with pytest.warns(DeprecationWarning):
        assert gg.Tensor(2, 3).shape == (2, 3)
    with pytest.warns(DeprecationWarning, match="FloatTensor"):
        f = gg.FloatTensor([1.5])
    with pytest.warns(DeprecationWarning):
        assert gg.LongTensor([1, 2]).dtype == gg.int64
    with pytest.warns(DeprecationWarning):
        assert gg.DoubleTensor(2).dtype == gg.float64
    assert isinstance(f, gg.FloatTensor) and not isinstance(f, gg.DoubleTensor)


def test_item_tolist_bool_errors() -> None:
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        gg.ones(2).item()
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(gg.ones(2))
    assert float(gg.tensor([2.5])) == 2.5 and int(gg.tensor(3)) == 3


def test_no_torch_import() -> None:
    import subprocess
    import sys

    code = "import sys, glassgrad; x = glassgrad.ones(2); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_numpy_operands_defer_to_tensor() -> None:
    x = gg.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y = np.float64(2.0) * x
    assert isinstance(y, gg.Tensor) and y.requires_grad
