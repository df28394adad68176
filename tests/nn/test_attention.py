"""MultiheadAttention and scaled_dot_product_attention against PyTorch: outputs, attention
weights, and gradients of every parameter and input, with masks and every option."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import NoGrad, check_parity

RNG = np.random.default_rng(3)
L, S, N, E, HEADS = 4, 5, 3, 8, 2  # target length, source length, batch, embedding, heads


def randn(*shape):
    return RNG.standard_normal(shape)


def padding_mask():
    mask = np.zeros((N, S), dtype=bool)
    mask[0, -2:] = True
    mask[2, 0] = True
    return mask


def causal_mask():
    return np.triu(np.ones((L, S), dtype=bool), k=1)


CASES = [
    ("self", lambda nn: nn.MultiheadAttention(E, HEADS), "self", {}),
    (
        "cross",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {},
    ),
    (
        "batch_first",
        lambda nn: nn.MultiheadAttention(E, HEADS, batch_first=True),
        [randn(N, L, E), randn(N, S, E), randn(N, S, E)],
        {},
    ),
    (
        "key_padding_mask",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"key_padding_mask": padding_mask()},
    ),
    (
        "bool_attn_mask",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"attn_mask": causal_mask()},
    ),
    (
        "float_attn_mask_3d_and_padding",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"attn_mask": randn(N * HEADS, L, S), "key_padding_mask": padding_mask()},
    ),
    (
        "not_averaged",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"average_attn_weights": False},
    ),
    (
        "no_weights",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"need_weights": False},
    ),
    (
        "kdim_vdim",
        lambda nn: nn.MultiheadAttention(E, HEADS, kdim=3, vdim=6),
        [randn(L, N, E), randn(S, N, 3), randn(S, N, 6)],
        {},
    ),
    (
        "bias_kv_zero_attn_masks",
        lambda nn: nn.MultiheadAttention(E, HEADS, add_bias_kv=True, add_zero_attn=True),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {"attn_mask": causal_mask(), "key_padding_mask": padding_mask()},
    ),
    (
        "no_bias",
        lambda nn: nn.MultiheadAttention(E, 4, bias=False),
        [randn(L, N, E), randn(S, N, E), randn(S, N, E)],
        {},
    ),
    (
        "unbatched",
        lambda nn: nn.MultiheadAttention(E, HEADS),
        [randn(L, E), randn(S, E), randn(S, E)],
        {"key_padding_mask": np.array([False, False, True, False, False])},
    ),
]


@pytest.mark.parametrize("make, arrays, kwargs", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("train", [True, False])
def test_multihead_attention_matches_torch(make, arrays, kwargs, train):
    if arrays == "self":
        x = randn(L, N, E)
        # One tensor used three times (PyTorch takes its packed self-attention path).
        check_parity(lambda nn: _SelfAttention(nn, make(nn)), [x], kwargs=kwargs, train=train)
        return
    masks = {
        k: (NoGrad(v) if v.dtype.kind == "f" else v)
        for k, v in kwargs.items()
        if isinstance(v, np.ndarray)
    }
    options = {k: v for k, v in kwargs.items() if not isinstance(v, np.ndarray)}
    names = list(masks)

    def wrap(nn):
        return _WithMasks(nn, make(nn), names, options)

    check_parity(wrap, [*arrays, *masks.values()], train=train, rtol=1e-9, atol=1e-12)


def _SelfAttention(nn, inner):
    class SelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, x):
            return self.inner(x, x, x)

    return SelfAttention()


def _WithMasks(nn, inner, names, options):
    class WithMasks(nn.Module):
        # Passes the trailing inputs as the named mask arguments.
        def __init__(self):
            super().__init__()
            self.inner = inner

        def forward(self, query, key, value, *masks):
            return self.inner(query, key, value, **dict(zip(names, masks)), **options)

    return WithMasks()


def test_attention_dropout_only_in_training():
    gg.manual_seed(0)
    mha = gg.nn.MultiheadAttention(E, HEADS, dropout=0.5)
    x = gg.randn(L, N, E)
    mha.eval()
    a, wa = mha(x, x, x)
    b, wb = mha(x, x, x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    mha.train()
    c, wc = mha(x, x, x)
    assert not np.allclose(wc.detach().numpy(), wa.detach().numpy())


def test_default_initialisation_follows_torch_scheme():
    mha = gg.nn.MultiheadAttention(E, HEADS, add_bias_kv=True)
    bound = np.sqrt(6 / (E + 3 * E))  # xavier_uniform_ on the (3E, E) packed weight
    w = mha.in_proj_weight.detach().numpy()
    assert w.min() >= -bound and w.max() <= bound and w.std() > bound / 3
    assert (mha.in_proj_bias.detach().numpy() == 0).all()
    assert (mha.out_proj.bias.detach().numpy() == 0).all()
    assert mha.bias_k.shape == (1, 1, E)
    names = [n for n, _ in mha.named_parameters()]
    assert names == [
        n for n, _ in torch.nn.MultiheadAttention(E, HEADS, add_bias_kv=True).named_parameters()
    ]


def test_attention_errors_match_torch():
    def errors(lib, nn):
        mha = nn.MultiheadAttention(E, HEADS)
        q = lib.randn(L, N, E)
        attempts = [
            lambda: nn.MultiheadAttention(E, 3),
            lambda: nn.MultiheadAttention(0, 1),
            lambda: mha(q, q, q, attn_mask=lib.zeros(L, L + 1, dtype=lib.bool)),
            lambda: mha(q, q, q, attn_mask=lib.zeros(N, L, L, dtype=lib.bool)),
        ]
        out = []
        for attempt in attempts:
            try:
                attempt()
                out.append(None)
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                out.append((type(error).__name__, str(error).replace("torch.", "glassgrad.")))
        return out

    theirs, ours = errors(torch, torch.nn), errors(gg, gg.nn)
    assert None not in theirs
    assert ours == theirs


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"is_causal": True}, {"scale": 0.3}, {"attn_mask": "bool"}, {"attn_mask": "float"}],
    ids=["plain", "causal", "scale", "bool_mask", "float_mask"],
)
def test_scaled_dot_product_attention_matches_torch(kwargs):
    q, k, v = randn(2, 3, L, 4), randn(2, 3, S, 4), randn(2, 3, S, 5)
    masks = {"bool": RNG.random((L, S)) > 0.3, "float": randn(L, S)}
    masks["bool"][:, 0] = True  # every query sees at least one key
    results = []
    for lib, functional in ((torch, torch.nn.functional), (gg, gg.nn.functional)):
        tensors = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        options = dict(kwargs)
        if "attn_mask" in options:
            options["attn_mask"] = lib.tensor(masks[options["attn_mask"]])
        if options.get("is_causal"):
            tensors[1], tensors[2] = (lib.tensor(a[..., :L, :], requires_grad=True) for a in (k, v))
        out = functional.scaled_dot_product_attention(*tensors, **options)
        out.backward(lib.tensor(np.ones(tuple(out.shape))))
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in tensors])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
