"""The layers and functions added for PyTorch parity: multi-class margin losses,
linear_cross_entropy, pdist, embedding_bag and EmbeddingBag, CrossMapLRN2d, Container,
NLLLoss2d, RNNCellBase: values, gradients, reprs and errors against PyTorch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import glassgrad as gg
import glassgrad.nn as nn
import glassgrad.nn.functional as F


def _both(values: np.ndarray, requires_grad: bool = False):
    return (gg.tensor(values.copy(), requires_grad=requires_grad),
            torch.tensor(values.copy(), requires_grad=requires_grad))  # fmt: skip


def _close(ours, theirs, **kwargs) -> None:
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), **kwargs)


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "target"),
    [
        ("MultiMarginLoss", (), {"p": 2, "margin": 0.5}, np.array([0, 3, 1])),
        ("MultiMarginLoss", (), {"weight": np.array([1.0, 2.0, 0.5, 1.0]), "reduction": "sum"},
         np.array([0, 3, 1])),
        ("MultiLabelMarginLoss", (), {"reduction": "none"},
         np.array([[3, 0, -1, 1], [1, 2, 3, 0], [2, -1, 0, 0]])),
    ],
)  # fmt: skip
def test_loss_modules_match_torch(name, args, kwargs, target) -> None:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 4))
    ours_kwargs = {k: gg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    theirs_kwargs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                     for k, v in kwargs.items()}  # fmt: skip
    ours_loss, theirs_loss = (
        getattr(nn, name)(**ours_kwargs),
        getattr(torch.nn, name)(**theirs_kwargs),
    )
    assert repr(ours_loss) == repr(theirs_loss)
    a, b = _both(x, True)
    ours, theirs = ours_loss(a, gg.tensor(target)), theirs_loss(b, torch.tensor(target))
    _close(ours, theirs, rtol=1e-12)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    ours.sum().backward()
    theirs.sum().backward()
    _close(a.grad, b.grad, rtol=1e-12)


@pytest.mark.parametrize(
    ("function", "args"),
    [
        ("multi_margin_loss", (np.array([0, 3, 1]),)),
        ("multilabel_margin_loss", (np.array([[3, 0, -1, 1], [1, 2, 3, 0], [2, -1, 0, 0]]),)),
        ("pdist", ()),
    ],
)
def test_no_second_derivative_as_torch(function, args) -> None:
    # PyTorch records the gradient under a node whose backward raises; so does glassgrad.
    x = np.random.default_rng(1).standard_normal((3, 4))
    messages = []
    for lib, functional in ((gg, F), (torch, torch.nn.functional)):
        inp = lib.tensor(x.copy(), requires_grad=True)
        out = getattr(functional, function)(inp, *(lib.tensor(a) for a in args))
        (grad,) = lib.autograd.grad(out.sum(), inp, create_graph=True)
        assert grad.requires_grad
        with pytest.raises(RuntimeError) as error:
            lib.autograd.grad(grad.sum(), inp)
        messages.append(str(error.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    ("function", "make_args", "error"),
    [
        ("multi_margin_loss", lambda l: (l.randn(3, 4), l.tensor([0, 1])), RuntimeError),
        ("multi_margin_loss", lambda l: (l.randn(3, 4), l.tensor([0, 1, 4])), RuntimeError),
        ("multi_margin_loss", lambda l: (l.randn(3, 4), l.tensor([0, 1, 2]), 3), ValueError),
        ("multi_margin_loss", lambda l: (l.randn(3, 4), l.tensor([0, 1, 2]).int()), RuntimeError),
        ("multi_margin_loss", lambda l: (l.randn(2, 0), l.tensor([0, 1])), RuntimeError),
        ("multi_margin_loss", lambda l: (l.ones(3, 4).long(), l.tensor([0, 1, 2])),
         NotImplementedError),
        ("multilabel_margin_loss", lambda l: (l.randn(3, 4), l.zeros(3, 3).long()), RuntimeError),
        ("multilabel_margin_loss", lambda l: (l.randn(3, 4), l.full((3, 4), 7)), RuntimeError),
        ("multilabel_margin_loss", lambda l: (l.randn(3, 4), l.zeros(3, 4).int()), RuntimeError),
        ("pdist", lambda l: (l.randn(3),), RuntimeError),
        ("pdist", lambda l: (l.randn(3, 2), -1.0), RuntimeError),
        ("pdist", lambda l: (l.ones(3, 2).long(),), RuntimeError),
        ("linear_cross_entropy", lambda l: (l.randn(2, 3), l.randn(4, 2), l.tensor([0, 1])),
         RuntimeError),
        ("linear_cross_entropy", lambda l: (l.randn(2, 2, 3), l.randn(4, 3), l.tensor([0, 1])),
         RuntimeError),
        ("linear_cross_entropy", lambda l: (l.randn(3), l.randn(4, 2, 3), l.tensor(1)),
         RuntimeError),
        ("embedding_bag", lambda l: (l.tensor([1, 2]), l.randn(4, 2)), ValueError),
        ("embedding_bag", lambda l: (l.tensor([[1, 2]]), l.randn(4, 2), l.tensor([0])),
         ValueError),
        ("embedding_bag", lambda l: (l.tensor([1, 2]), l.randn(4, 2), l.tensor([1])),
         RuntimeError),
        ("embedding_bag", lambda l: (l.tensor([1, 2]), l.randn(4, 2), l.tensor([0, 3])),
         RuntimeError),
        ("embedding_bag", lambda l: (l.tensor([[1, 2]]), l.randn(4)), ValueError),
    ],
)  # fmt: skip
def test_errors_as_torch(function, make_args, error) -> None:
    messages = []
    for lib, functional in ((gg, F), (torch, torch.nn.functional)):
        with pytest.raises(error) as caught:
            getattr(functional, function)(*make_args(lib))
        # PyTorch's C++ checks append the tensor type on a second line; types print by library
        message = str(caught.value).split("\n")[0]
        messages.append(message.replace("glassgrad._tensor.Tensor", "torch.Tensor"))
    assert messages[0] == messages[1]


def test_embedding_bag_keyword_errors_as_torch() -> None:
    cases = [
        ({"mode": "median"}, ValueError),
        ({"mode": "max", "scale_grad_by_freq": True}, ValueError),
        ({"mode": "mean", "per_sample_weights": "w"}, NotImplementedError),
        ({"padding_idx": 9}, RuntimeError),
    ]
    for kwargs, error in cases:
        messages = []
        for lib, functional in ((gg, F), (torch, torch.nn.functional)):
            given = dict(kwargs)
            if given.get("per_sample_weights") == "w":
                given["per_sample_weights"] = lib.ones(4)
            with pytest.raises(error) as caught:
                functional.embedding_bag(lib.tensor([1, 2, 0, 3]), lib.randn(4, 2),
                                         lib.tensor([0, 2]), **given)  # fmt: skip
            messages.append(str(caught.value))
        assert messages[0] == messages[1], kwargs
    with pytest.raises(NotImplementedError, match="sparse=True is not supported"):
        F.embedding_bag(gg.tensor([[1, 2]]), gg.randn(4, 2), sparse=True)


def test_embedding_bag_module_matches_torch() -> None:
    rng = np.random.default_rng(2)
    table = rng.standard_normal((10, 3))
    indices, offsets = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 4, 4])
    for kwargs in ({"mode": "sum"}, {"mode": "max", "padding_idx": 2},
                   {"include_last_offset": True, "max_norm": 1.0}):  # fmt: skip
        offsets = np.array([0, 4, 4, 8]) if kwargs.get("include_last_offset") else offsets
        ours = nn.EmbeddingBag.from_pretrained(gg.tensor(table), freeze=False, **kwargs)
        theirs = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(table), freeze=False, **kwargs)
        assert repr(ours) == repr(theirs)
        a = ours(gg.tensor(indices), gg.tensor(offsets))
        b = theirs(torch.tensor(indices), torch.tensor(offsets))
        _close(a, b, rtol=1e-12)
        a.pow(2).sum().backward()
        b.pow(2).sum().backward()
        _close(ours.weight.grad, theirs.weight.grad, rtol=1e-12)
        _close(ours.weight, theirs.weight, rtol=1e-12)  # max_norm renormalised the same rows
    fresh = nn.EmbeddingBag(5, 2, padding_idx=-1)
    assert fresh.padding_idx == 4 and float(fresh.weight[4].abs().sum()) == 0.0


def test_embedding_bag_scale_grad_by_freq_is_embeddings() -> None:
    # Documented meaning: each entry's gradient divided by its index's count in the input;
    # the same as F.embedding(..., scale_grad_by_freq=True) summed per bag. (PyTorch 2.13's
    # CPU kernel divides some rows by another index's count; see ops/nn_embedding_bag.py.)
    rng = np.random.default_rng(3)
    table = rng.standard_normal((6, 2))
    indices = np.array([[1, 2, 4], [5, 4, 3], [2, 2, 0]])
    upstream = rng.standard_normal((3, 2))
    bag_weight = gg.tensor(table.copy(), requires_grad=True)
    F.embedding_bag(gg.tensor(indices), bag_weight, mode="sum", scale_grad_by_freq=True).backward(
        gg.tensor(upstream)
    )
    reference = gg.tensor(table.copy(), requires_grad=True)
    rows = F.embedding(gg.tensor(indices), reference, scale_grad_by_freq=True)
    rows.sum(1).backward(gg.tensor(upstream))
    _close(bag_weight.grad, reference.grad, rtol=1e-12)


def test_linear_cross_entropy_module_and_options() -> None:
    rng = np.random.default_rng(4)
    x, target = rng.standard_normal((5, 3)), rng.integers(0, 4, (5, 2))
    ours = nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), bias=True, label_smoothing=0.1)
    theirs = torch.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), bias=True,
                                             label_smoothing=0.1, dtype=torch.float64)  # fmt: skip
    ours.double()
    ours.load_state_dict({k: gg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    _close(ours(gg.tensor(x), gg.tensor(target)), theirs(torch.tensor(x), torch.tensor(target)),
           rtol=1e-12)  # fmt: skip
    options = nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    with pytest.raises(NotImplementedError, match="options .* is not supported"):
        F.linear_cross_entropy(gg.randn(2, 3), gg.randn(4, 3), gg.tensor([0, 1]), options=options)
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="invalid acc_policy"):
            lib.LinearCrossEntropyOptions(acc_policy="fast")
        with pytest.raises(ValueError, match="batch_chunk_size must be positive int or None"):
            lib.LinearCrossEntropyOptions(batch_chunk_size=0)


def test_cross_map_lrn2d_matches_torch() -> None:
    x = np.random.default_rng(5).standard_normal((2, 6, 3, 3))
    upstream = np.random.default_rng(6).standard_normal(x.shape)
    for size in (2, 3, 5, 8):  # (size 1: PyTorch's backward fails)
        a, b = _both(x, True)
        ours = nn.CrossMapLRN2d(size, alpha=0.5, beta=0.6, k=2.0)
        theirs = torch.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.6, k=2.0)
        assert repr(ours) == repr(theirs)
        out_a, out_b = ours(a), theirs(b)
        _close(out_a, out_b, rtol=1e-12)
        assert type(out_a.grad_fn).__name__ == type(out_b.grad_fn).__name__
        out_a.backward(gg.tensor(upstream))
        out_b.backward(torch.tensor(upstream))
        _close(a.grad, b.grad, rtol=1e-10, atol=1e-12)
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D"):
            lib.CrossMapLRN2d(3)((gg if lib is nn else torch).ones(2, 3, 3))


def test_deprecated_names_warn_as_torch() -> None:
    for lib in (nn, torch.nn):
        with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
            loss = lib.NLLLoss2d(ignore_index=1)
        assert isinstance(loss, lib.NLLLoss) and loss.ignore_index == 1
        with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
            container = lib.Container(first=lib.ReLU(), second=lib.Tanh())
        assert [name for name, _ in container.named_children()] == ["first", "second"]


def test_rnn_cell_base_is_the_cells_base() -> None:
    for cell in (nn.RNNCell(3, 4), nn.LSTMCell(3, 4), nn.GRUCell(3, 4)):
        assert isinstance(cell, nn.RNNCellBase)
    ours, theirs = nn.RNNCellBase(3, 5, True, 2), torch.nn.RNNCellBase(3, 5, True, 2)
    assert repr(ours) == repr(theirs)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(nn.RNNCellBase(3, 5, False, 1)) == repr(torch.nn.RNNCellBase(3, 5, False, 1))
