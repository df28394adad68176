"""RNN, LSTM, GRU and their cells against PyTorch: outputs, final states, and the gradients
of every parameter, input and initial state, for layers, directions, batch_first, unbatched
input, projections and missing biases."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import check_parity

RNG = np.random.default_rng(2)


def randn(*shape):
    return RNG.standard_normal(shape)


T, B, I, H = 4, 3, 5, 6  # time steps, batch, input features, hidden size

CASES = [
    ("rnn", lambda nn: nn.RNN(I, H), [randn(T, B, I)]),
    ("rnn_relu_2layers", lambda nn: nn.RNN(I, H, 2, "relu"), [randn(T, B, I)]),
    ("rnn_h0", lambda nn: nn.RNN(I, H, num_layers=2), [randn(T, B, I), randn(2, B, H)]),
    (
        "rnn_bidirectional_batch_first",
        lambda nn: nn.RNN(I, H, bidirectional=True, batch_first=True),
        [randn(B, T, I), randn(2, B, H)],
    ),
    ("rnn_unbatched", lambda nn: nn.RNN(I, H, nonlinearity="tanh"), [randn(T, I), randn(1, H)]),
    ("rnn_no_bias", lambda nn: nn.RNN(I, H, bias=False), [randn(T, B, I)]),
    ("gru", lambda nn: nn.GRU(I, H), [randn(T, B, I)]),
    (
        "gru_2layers_bidirectional",
        lambda nn: nn.GRU(I, H, num_layers=2, bidirectional=True),
        [randn(T, B, I), randn(4, B, H)],
    ),
    (
        "gru_batch_first_no_bias",
        lambda nn: nn.GRU(I, H, batch_first=True, bias=False),
        [randn(B, T, I)],
    ),
    ("gru_unbatched", lambda nn: nn.GRU(I, H, 2), [randn(T, I)]),
    ("lstm", lambda nn: nn.LSTM(I, H), [randn(T, B, I)]),
    (
        "lstm_states",
        lambda nn: nn.LSTM(I, H, num_layers=2),
        [randn(T, B, I), (randn(2, B, H), randn(2, B, H))],
    ),
    (
        "lstm_3layers_bidirectional_batch_first",
        lambda nn: nn.LSTM(I, H, num_layers=3, bidirectional=True, batch_first=True),
        [randn(B, T, I)],
    ),
    (
        "lstm_proj",
        lambda nn: nn.LSTM(I, H, proj_size=3, num_layers=2, bidirectional=True),
        [randn(T, B, I)],
    ),
    ("lstm_unbatched", lambda nn: nn.LSTM(I, H), [randn(T, I), (randn(1, H), randn(1, H))]),
    ("lstm_no_bias", lambda nn: nn.LSTM(I, H, bias=False), [randn(T, B, I)]),
    ("rnn_cell", lambda nn: nn.RNNCell(I, H), [randn(B, I), randn(B, H)]),
    ("rnn_cell_relu_unbatched", lambda nn: nn.RNNCell(I, H, nonlinearity="relu"), [randn(I)]),
    ("gru_cell", lambda nn: nn.GRUCell(I, H), [randn(B, I), randn(B, H)]),
    ("gru_cell_no_bias", lambda nn: nn.GRUCell(I, H, bias=False), [randn(B, I)]),
    ("lstm_cell", lambda nn: nn.LSTMCell(I, H), [randn(B, I), (randn(B, H), randn(B, H))]),
    ("lstm_cell_unbatched", lambda nn: nn.LSTMCell(I, H), [randn(I)]),
]


@pytest.mark.parametrize("make, arrays", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_recurrent_layer_matches_torch(make, arrays):
    flat = []
    pairs = []
    for a in arrays:
        if isinstance(a, tuple):
            pairs.append(len(flat))
            flat.extend(a)
        else:
            flat.append(a)

    def wrap(nn):
        inner = make(nn)

        class Wrapper(nn.Module):
            # Re-packs (h0, c0) arrays into a tuple, so each state is a separate input.
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, *inputs):
                args, i = [], 0
                while i < len(inputs):
                    if i in pairs:
                        args.append((inputs[i], inputs[i + 1]))
                        i += 2
                    else:
                        args.append(inputs[i])
                        i += 1
                return self.inner(*args)

        return Wrapper()

    check_parity(wrap, flat, rtol=1e-9, atol=1e-12)


def test_dropout_between_layers_only_in_training():
    gg.manual_seed(0)
    lstm = gg.nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = gg.randn(5, 2, 3)
    lstm.eval()
    first, _ = lstm(x)
    second, _ = lstm(x)
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
    lstm.train()
    noisy, _ = lstm(x)
    assert not np.allclose(noisy.detach().numpy(), first.detach().numpy())
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        gg.nn.GRU(3, 4, dropout=0.5)


def test_parameter_names_shapes_and_init_range():
    def program(nn):
        lstm = nn.LSTM(3, 8, num_layers=2, bidirectional=True, proj_size=2)
        return [(n, tuple(p.shape)) for n, p in lstm.named_parameters()], lstm._flat_weights_names

    assert program(gg.nn) == program(torch.nn)
    gru = gg.nn.GRU(3, 16)
    bound = 1 / np.sqrt(16)
    for p in gru.parameters():
        values = p.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.std() > bound / 3  # drawn, not constant
    assert len(gru.all_weights) == 1 and len(gru.all_weights[0]) == 4


def test_errors_match_torch():
    def errors(lib, nn):
        rnn = nn.RNN(3, 4, num_layers=2)
        lstm = nn.LSTM(3, 4)
        attempts = [
            lambda: rnn(lib.randn(5, 2, 4)),
            lambda: rnn(lib.randn(5, 3)[None, None]),
            lambda: rnn(lib.randn(5, 2, 3), lib.randn(2, 3, 4)),
            lambda: rnn(lib.randn(5, 2, 3), lib.randn(2, 4)),
            lambda: rnn(lib.randn(5, 3), lib.randn(2, 1, 4)),
            lambda: lstm(lib.randn(5, 2, 3), (lib.randn(1, 2, 4), lib.randn(1, 3, 4))),
            lambda: lstm(lib.randn(5, 2, 3), (lib.randn(2, 4), lib.randn(1, 2, 4))),
            lambda: rnn(lib.randn(5, 2, 3, dtype=lib.float64)),
            lambda: nn.RNN(3, 4, nonlinearity="sigmoid"),
            lambda: nn.GRU(3, 4, proj_size=2),
            lambda: nn.LSTM(3, 4, proj_size=4),
            lambda: nn.LSTM(3, 4, dropout=2),
            lambda: nn.LSTM(0, 4),
            lambda: nn.LSTM(3, 4, batch_first=1),
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


def test_lstm_state_dict_loads_into_torch():
    ours = gg.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    theirs = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    x = np.random.default_rng(0).standard_normal((5, 2, 3)).astype(np.float32)
    out_ours, _ = ours(gg.tensor(x))
    out_theirs, _ = theirs(torch.tensor(x))
    np.testing.assert_allclose(
        out_ours.detach().numpy(), out_theirs.detach().numpy(), rtol=1e-4, atol=1e-5
    )
