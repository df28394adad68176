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


def test_adaptive_log_softmax_matches_torch() -> None:
    rng = np.random.default_rng(7)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True)
    theirs = theirs.double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 7], div_value=2.0, head_bias=True).double()
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: gg.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    x, target = rng.standard_normal((6, 8)), np.array([0, 3, 5, 9, 6, 1])  # one row in cluster 2
    a, b = _both(x, True)
    ours_out, theirs_out = ours(a, gg.tensor(target)), theirs(b, torch.tensor(target))
    assert type(ours_out).__name__ == "_ASMoutput" and ours_out._fields == ("output", "loss")
    _close(ours_out.output, theirs_out.output, rtol=1e-12)
    _close(ours_out.loss, theirs_out.loss, rtol=1e-12)
    ours_out.loss.backward()
    theirs_out.loss.backward()
    _close(a.grad, b.grad, rtol=1e-10, atol=1e-14)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters()):
        _close(p.grad, q.grad, rtol=1e-10, atol=1e-14, err_msg=name)
    _close(ours.log_prob(gg.tensor(x)), theirs.log_prob(torch.tensor(x)), rtol=1e-12)
    assert ours.predict(gg.tensor(x)).tolist() == theirs.predict(torch.tensor(x)).tolist()
    single = ours(gg.tensor(x[0]), gg.tensor(5)).output
    assert single.shape == () and float(single) == pytest.approx(
        float(theirs(torch.tensor(x[0]), torch.tensor(5)).output), rel=1e-12
    )
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="cutoffs should be a sequence of unique, positive"):
            lib.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10])
        with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
            model = lib.AdaptiveLogSoftmaxWithLoss(8, 10, [4])
            model(
                (gg if lib is nn else torch).ones(2, 8),
                (gg if lib is nn else torch).tensor([1, 12]),
            )


def test_sync_batch_norm_in_one_process_is_batch_norm() -> None:
    x = np.random.default_rng(8).standard_normal((4, 3, 2, 5)).astype(np.float32)
    ours, theirs = nn.SyncBatchNorm(3, momentum=None), torch.nn.SyncBatchNorm(3, momentum=None)
    assert repr(ours) == repr(theirs)
    for training in (True, True, False):
        ours.train(training)
        theirs.train(training)
        _close(ours(gg.tensor(x)), theirs(torch.tensor(x)), rtol=1e-5, atol=1e-6)
    _close(ours.running_var, theirs.running_var, rtol=1e-6)
    assert int(ours.num_batches_tracked) == int(theirs.num_batches_tracked) == 2
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match=r"expected at least 2D input \(got 1D input\)"):
            lib.SyncBatchNorm(3)((gg if lib is nn else torch).ones(3))
        with pytest.raises(ValueError, match="number of input channels should be non-zero"):
            lib.SyncBatchNorm(0)((gg if lib is nn else torch).ones(2, 0))
    model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.InstanceNorm1d(4))
    model[1].running_mean.fill_(0.5)
    reference = torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.InstanceNorm1d(4)
    )
    converted = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert repr(converted) == repr(torch.nn.SyncBatchNorm.convert_sync_batchnorm(reference))
    assert converted[1].running_mean is model[1].running_mean
    assert converted[1].weight is model[1].weight


def test_ctc_loss_module_and_gradcheck_through_log_softmax() -> None:
    rng = np.random.default_rng(9)
    x = rng.standard_normal((7, 3, 5))
    targets = np.array([[1, 2, 2, 4], [3, 1, 0, 0], [4, 4, 4, 1]])
    lengths = ([7, 6, 7], [3, 2, 4])
    for kwargs in ({}, {"blank": 4, "reduction": "sum"}, {"reduction": "none"}):
        a, b = _both(x, True)
        ours, theirs = nn.CTCLoss(**kwargs), torch.nn.CTCLoss(**kwargs)
        assert repr(ours) == repr(theirs)
        out_a = ours(a.log_softmax(2), gg.tensor(targets), *lengths)
        out_b = theirs(b.log_softmax(2), torch.tensor(targets), *lengths)
        _close(out_a, out_b, rtol=1e-10)
        out_a.sum().backward()
        out_b.sum().backward()
        _close(a.grad, b.grad, rtol=1e-8, atol=1e-12)
    # Through log_softmax PyTorch's gradient is the true derivative: finite differences agree.
    small = gg.tensor(rng.standard_normal((5, 2, 4)), requires_grad=True)
    assert gg.autograd.gradcheck(
        lambda z: F.ctc_loss(z.log_softmax(2), gg.tensor([[1, 2], [3, 3]]), [5, 4], [2, 2]),
        (small,),
    )


@pytest.mark.parametrize(
    "make_args",
    [
        lambda l, lp: (lp, l.tensor([[1, 2]]), l.tensor([7]), l.tensor([2])),
        lambda l, lp: (lp, l.tensor([[1, 2]]), l.tensor([6]), l.tensor([3])),
        lambda l, lp: (lp, l.tensor([1, 2]), [6], [3]),
        lambda l, lp: (lp, l.tensor([[1, 2]]), [6], [2], 9),
        lambda l, lp: (lp[:, :, None], l.tensor([[1, 2]]), [6], [2]),
    ],
)
def test_ctc_loss_errors_as_torch(make_args) -> None:
    x = np.random.default_rng(10).standard_normal((6, 1, 4))
    messages = []
    for lib in (gg, torch):
        with pytest.raises(RuntimeError) as caught:
            lib.nn.functional.ctc_loss(*make_args(lib, lib.tensor(x)))
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "shape"),
    [
        ("FractionalMaxPool2d", (3,), {"output_ratio": 0.5, "return_indices": True}, (2, 3, 9, 8)),
        ("FractionalMaxPool2d", ((2, 3),), {"output_size": (4, 3)}, (3, 7, 6)),
        ("FractionalMaxPool3d", (2,), {"output_size": (3, 2, 3)}, (1, 2, 5, 5, 6)),
    ],
)
def test_fractional_max_pool_modules_match_torch(name, args, kwargs, shape) -> None:
    rng = np.random.default_rng(11)
    x = rng.standard_normal(shape)
    nd = 2 if name.endswith("2d") else 3
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = rng.random((batch, shape[-nd - 1], nd))
    ours = getattr(nn, name)(*args, _random_samples=gg.tensor(samples), **kwargs)
    theirs = getattr(torch.nn, name)(*args, _random_samples=torch.tensor(samples), **kwargs)
    assert repr(ours) == repr(theirs)
    a, b = _both(x, True)
    out_a, out_b = ours(a), theirs(b)
    if kwargs.get("return_indices"):
        assert out_a[1].tolist() == out_b[1].tolist()
        out_a, out_b = out_a[0], out_b[0]
    _close(out_a, out_b, rtol=0)
    out_a.pow(2).sum().backward()
    out_b.pow(2).sum().backward()
    _close(a.grad, b.grad, rtol=1e-12)
    # Without fixed samples each call draws new windows; the shape is the same.
    free = getattr(nn, name)(*args, **kwargs)
    drawn = free(gg.tensor(x))
    assert tuple((drawn[0] if isinstance(drawn, tuple) else drawn).shape) == tuple(out_b.shape)


def test_fractional_max_pool_errors_as_torch() -> None:
    for lib in (gg, torch):
        x = lib.ones(1, 1, 5, 5)
        with pytest.raises(
            RuntimeError, match="pool height 6 too large relative to input height 5"
        ):
            lib.nn.functional.fractional_max_pool2d(x, 6, output_size=2)
        with pytest.raises(RuntimeError, match="pool width 2 too large relative to input width 5"):
            lib.nn.functional.fractional_max_pool2d(x, (1, 2), output_size=(2, 5))
        with pytest.raises(ValueError, match="requires specifying either an output_size or an"):
            lib.nn.functional.fractional_max_pool2d(x, 2)
        with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
            lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)
        with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
            lib.nn.FractionalMaxPool3d(2, output_ratio=1.5)
