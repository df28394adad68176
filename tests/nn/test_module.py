"""nn.Module and nn.Parameter against PyTorch: registration, traversal, modes, state dicts,
conversion, hooks and printing. Each test runs one program in both libraries."""

from __future__ import annotations

import copy
from collections import OrderedDict

import numpy as np
import pytest
import torch

import glassgrad as gg

from .conftest import copy_state

LIBS = [(torch, torch.nn), (gg, gg.nn)]


def both(program):
    """Run ``program(lib, nn)`` under PyTorch and glassgrad; return both results."""
    return program(torch, torch.nn), program(gg, gg.nn)


def translate(text: str) -> str:
    return text.replace("torch.", "glassgrad.")


# --- models used across tests --------------------------------------------------------------
def mlp(nn):
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.25), nn.Linear(8, 3))


def custom_model(lib, nn):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 6, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(6)
            self.act = nn.ReLU(inplace=True)
            self.register_buffer("scale", lib.ones(1))
            self.register_buffer("cache", lib.zeros(2), persistent=False)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(Block(), nn.MaxPool2d(2), Block())
            self.heads = nn.ModuleDict({"cls": nn.Linear(6, 10), "box": nn.Linear(6, 4)})
            self.blocks = nn.ModuleList([nn.Linear(5, 5) for _ in range(3)] + [nn.Tanh()])
            self.gamma = nn.Parameter(lib.ones(3))
            self.unused = None

    return Net()


# --- Parameter -----------------------------------------------------------------------------
def test_parameter_shares_data_and_requires_grad():
    data = gg.tensor([1.0, 2.0])
    p = gg.nn.Parameter(data)
    assert isinstance(p, gg.Tensor) and isinstance(p, gg.nn.Parameter)
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    data[0] = 5.0
    assert p.tolist() == [5.0, 2.0]
    assert not gg.nn.Parameter(data, requires_grad=False).requires_grad
    empty = gg.nn.Parameter()
    assert empty.shape == (0,) and empty.dtype == gg.float32


def test_parameter_repr_matches_torch():
    theirs, ours = both(lambda lib, nn: repr(nn.Parameter(lib.tensor([[1.5, -2.0], [0.25, 3.0]]))))
    assert ours == theirs
    theirs, ours = both(
        lambda lib, nn: repr(nn.Parameter(lib.tensor([1.0, 2.0]), requires_grad=False))
    )
    assert ours == theirs


def test_parameter_of_integer_tensor_cannot_require_grad():
    with pytest.raises(RuntimeError, match="floating point"):
        gg.nn.Parameter(gg.tensor([1, 2]))
    assert not gg.nn.Parameter(gg.tensor([1, 2]), requires_grad=False).requires_grad


def test_parameter_deepcopy_is_a_fresh_parameter():
    p = gg.nn.Parameter(gg.tensor([1.0, 2.0]))
    p.grad = gg.tensor([0.5, 0.5])
    q = copy.deepcopy(p)
    assert type(q) is gg.nn.Parameter and q.requires_grad
    assert q.tolist() == [1.0, 2.0] and q.grad is None
    q.data[0] = 9.0
    assert p.tolist() == [1.0, 2.0]
    frozen = copy.deepcopy(gg.nn.Parameter(gg.ones(2), requires_grad=False))
    assert not frozen.requires_grad


def test_parameter_in_ops_gives_plain_tensors_with_gradients():
    p = gg.nn.Parameter(gg.tensor([1.0, 2.0, 3.0]))
    out = (p * p).sum()
    assert type(out) is gg.Tensor
    out.backward()
    assert p.grad.tolist() == [2.0, 4.0, 6.0]


# --- registration and traversal ------------------------------------------------------------
def test_named_members_match_torch():
    def program(lib, nn):
        model = custom_model(lib, nn)
        return {
            "parameters": [n for n, _ in model.named_parameters()],
            "parameters_norecurse": [n for n, _ in model.named_parameters(recurse=False)],
            "parameters_prefix": [n for n, _ in model.named_parameters(prefix="model")],
            "buffers": [n for n, _ in model.named_buffers()],
            "children": [n for n, _ in model.named_children()],
            "modules": [n for n, _ in model.named_modules()],
            "module_types": [type(m).__name__ for m in model.modules()],
            "state_dict": list(model.state_dict()),
            "n_parameters": len(list(model.parameters())),
            "n_buffers": len(list(model.buffers())),
        }

    theirs, ours = both(program)
    assert ours == theirs


def test_shared_parameters_and_modules_remove_duplicate():
    def program(lib, nn):
        shared = nn.Linear(3, 3)
        model = nn.Sequential(shared, nn.ReLU(), shared)
        model.tied = nn.Linear(3, 3)
        model.tied.weight = shared.weight
        return (
            [n for n, _ in model.named_parameters()],
            [n for n, _ in model.named_parameters(remove_duplicate=False)],
            [n for n, _ in model.named_modules()],
            [n for n, _ in model.named_modules(remove_duplicate=False)],
            list(model.state_dict()),
        )

    theirs, ours = both(program)
    assert ours == theirs


def test_attribute_assignment_moves_between_kinds():
    def program(lib, nn):
        m = nn.Module()
        m.x = nn.Parameter(lib.ones(2))
        kinds = [sorted(m._parameters), sorted(m._buffers), sorted(m._modules)]
        try:
            m.x = nn.Linear(2, 2)  # a parameter slot takes only a Parameter or None
        except TypeError as error:
            kinds.append(translate(str(error)).replace("glassgrad.nn.modules", "MOD"))
        del m.x
        m.x = nn.Linear(2, 2)
        kinds += [sorted(m._parameters), sorted(m._modules)]
        m.register_buffer("b", lib.zeros(1))
        m.b = lib.ones(1)  # stays a buffer
        kinds += [sorted(m._buffers), m.b.tolist()]
        m.b = None
        kinds += [list(m.state_dict())]
        del m.x
        kinds += [sorted(m._modules), hasattr(m, "x")]
        m.p = nn.Parameter(lib.ones(1))
        m.p = None  # registered, but empty
        kinds += [sorted(m._parameters), m.p]
        return kinds

    theirs, ours = both(program)
    assert ours == theirs


def test_registration_errors_match_torch():
    def program(lib, nn):
        messages = []
        m = nn.Linear(2, 2)
        attempts = [
            lambda: setattr(m, "weight", lib.ones(2, 2)),
            lambda: m.register_buffer("weight", lib.ones(1)),
            lambda: m.register_buffer("a.b", lib.ones(1)),
            lambda: m.register_buffer("", lib.ones(1)),
            lambda: m.register_buffer("c", 3),
            lambda: m.register_buffer(1, lib.ones(1)),
            lambda: m.register_parameter("d", lib.ones(1)),
            lambda: m.register_parameter("e.f", None),
            lambda: m.add_module("weight", nn.ReLU()),
            lambda: m.add_module("g.h", nn.ReLU()),
            lambda: m.add_module("i", 5),
            lambda: m.register_parameter("j", nn.Parameter(lib.ones(1)) * 2),
            lambda: m.missing,
            lambda: m.get_submodule("nothing"),
            lambda: nn.Linear(2, 2, bogus=1),
        ]
        for attempt in attempts:
            try:
                attempt()
                messages.append(None)
            except Exception as error:  # noqa: BLE001 - the type and message are compared
                messages.append((type(error).__name__, translate(str(error))))
        return messages

    theirs, ours = both(program)
    assert None not in theirs
    # Same exception types and PyTorch's words (type names differ only by library prefix).
    assert ours == theirs


def test_non_leaf_cannot_be_a_parameter():
    m = gg.nn.Module()
    with pytest.raises(TypeError, match="torch.nn.Parameter or None required"):
        m.register_parameter("w", gg.ones(2, requires_grad=True) * 2)
    with pytest.raises(AttributeError, match="before Module.__init__"):

        class Broken(gg.nn.Module):
            def __init__(self):
                self.w = gg.nn.Parameter(gg.ones(1))

        Broken()


def test_get_submodule_parameter_buffer():
    model = custom_model(gg, gg.nn)
    assert model.get_submodule("features.0.conv") is model.features[0].conv
    assert model.get_parameter("heads.cls.weight") is model.heads["cls"].weight
    assert model.get_buffer("features.2.bn.running_mean") is model.features[2].bn.running_mean
    with pytest.raises(AttributeError, match="is not an nn.Parameter"):
        model.get_parameter("features.0.bn.running_mean")


def test_dir_lists_registered_names():
    names = dir(custom_model(gg, gg.nn))
    for expected in ("features", "heads", "gamma", "forward", "training"):
        assert expected in names


# --- modes and gradients -------------------------------------------------------------------
def test_train_eval_recurse_and_validate():
    def program(lib, nn):
        model = custom_model(lib, nn)
        states = [all(m.training for m in model.modules())]
        model.eval()
        states.append([m.training for m in model.modules()])
        model.features.train()
        states.append([m.training for m in model.modules()])
        try:
            model.train("yes")
        except ValueError as error:
            states.append(str(error))
        return states

    theirs, ours = both(program)
    assert ours == theirs


def test_requires_grad_and_zero_grad():
    model = gg.nn.Sequential(gg.nn.Linear(2, 3), gg.nn.Linear(3, 1))
    x = gg.randn(4, 2)
    model[1].requires_grad_(False)
    assert [p.requires_grad for p in model.parameters()] == [True, True, False, False]
    out = model(x).sum()
    out.backward()
    assert model[0].weight.grad is not None and model[1].weight.grad is None
    model.zero_grad(set_to_none=False)
    assert model[0].weight.grad.tolist() == [[0.0, 0.0]] * 3
    model.zero_grad()
    assert model[0].weight.grad is None


def test_zero_grad_detaches_a_grad_with_history():
    layer = gg.nn.Linear(2, 2)
    layer.weight.grad = gg.ones(2, 2, requires_grad=True) * 2
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad.grad_fn is None and not layer.weight.grad.requires_grad
    assert layer.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_apply_visits_children_first():
    def program(lib, nn):
        order = []
        custom_model(lib, nn).apply(lambda m: order.append(type(m).__name__))
        return order

    theirs, ours = both(program)
    assert ours == theirs


def test_to_double_float_keep_parameters_and_integer_buffers():
    model = custom_model(gg, gg.nn)
    params = list(model.parameters())
    model.features[0].conv.weight.grad = gg.ones(*model.features[0].conv.weight.shape)
    assert model.to(gg.float64) is model
    assert [p is q for p, q in zip(model.parameters(), params)] == [True] * len(params)
    assert all(p.dtype == gg.float64 for p in model.parameters())
    assert model.features[0].conv.weight.grad.dtype == gg.float64
    bn = model.features[0].bn
    assert bn.running_mean.dtype == gg.float64 and bn.num_batches_tracked.dtype == gg.int64
    model.float()
    assert all(p.dtype == gg.float32 for p in model.parameters())
    model.to(dtype=gg.float64)
    assert model.gamma.dtype == gg.float64
    model.to(gg.zeros(1, dtype=gg.float32))
    assert model.gamma.dtype == gg.float32
    model.double().to("cpu")
    assert model.gamma.dtype == gg.float64
    with pytest.raises(TypeError, match="only accepts floating point"):
        model.to(gg.int64)


def test_deepcopy_module_copies_parameters():
    model = mlp(gg.nn)
    clone = copy.deepcopy(model)
    assert repr(clone) == repr(model)
    for a, b in zip(model.parameters(), clone.parameters()):
        assert a is not b and type(b) is gg.nn.Parameter
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    with gg.no_grad():
        clone[0].weight.fill_(0.0)
    assert model[0].weight.abs().sum().item() > 0


# --- state dicts ---------------------------------------------------------------------------
def test_state_dict_values_are_detached_views():
    layer = gg.nn.Linear(2, 2)
    state = layer.state_dict()
    assert list(state) == ["weight", "bias"]
    assert not state["weight"].requires_grad and state["weight"].grad_fn is None
    state["weight"][0, 0] = 42.0  # shares storage, as in PyTorch
    assert layer.weight[0, 0].item() == 42.0
    kept = layer.state_dict(keep_vars=True)
    assert kept["weight"] is layer.weight
    assert layer.state_dict(prefix="enc.").keys() == {"enc.weight", "enc.bias"}
    assert state._metadata[""] == {"version": 1}


def test_state_dict_round_trip_through_torch():
    theirs = custom_model(torch, torch.nn)
    ours = custom_model(gg, gg.nn)
    copy_state(ours, theirs)
    for (k, a), (k2, b) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # and back: glassgrad's state dict loads into PyTorch strictly
    back = custom_model(torch, torch.nn)
    back.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    for a, b in zip(back.state_dict().values(), theirs.state_dict().values()):
        assert torch.equal(a, b)


def _load_errors(lib, nn, mutate, strict=True):
    model = custom_model(lib, nn)
    state = {
        k: lib.zeros(tuple(v.shape), dtype=v.dtype)
        for k, v in custom_model(lib, nn).state_dict().items()
    }
    mutate(lib, state)
    try:
        result = model.load_state_dict(state, strict=strict)
        return ("ok", sorted(result.missing_keys), sorted(result.unexpected_keys), repr(result))
    except Exception as error:  # noqa: BLE001 - compared with PyTorch's
        return (type(error).__name__, translate(str(error)))


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize(
    "mutation",
    ["none", "missing", "unexpected", "both", "shape", "not_tensor", "child_unexpected"],
)
def test_load_state_dict_errors_match_torch(mutation, strict):
    def mutate(lib, state):
        if mutation in ("missing", "both"):
            del state["gamma"]
            del state["features.0.bn.running_var"]
        if mutation in ("unexpected", "both"):
            state["extra"] = lib.ones(1)
            state["heads.cls.extra"] = lib.ones(1)
        if mutation == "shape":
            state["heads.box.weight"] = lib.ones(3, 3)
        if mutation == "not_tensor":
            state["gamma"] = [1.0, 2.0, 3.0]
        if mutation == "child_unexpected":
            state["nothing.weight"] = lib.ones(1)

    theirs = _load_errors(torch, torch.nn, mutate, strict)
    ours = _load_errors(gg, gg.nn, mutate, strict)
    assert ours == theirs


def test_load_state_dict_copies_values_in_place():
    source, target = mlp(gg.nn), mlp(gg.nn)
    weight = target[0].weight
    assert repr(target.load_state_dict(source.state_dict())) == "<All keys matched successfully>"
    assert target[0].weight is weight
    np.testing.assert_array_equal(weight.detach().numpy(), source[0].weight.detach().numpy())
    assert weight.requires_grad and weight.grad_fn is None


def test_load_state_dict_assign_and_type_check():
    target = gg.nn.Linear(2, 2)
    new_weight = gg.ones(2, 2)
    target.load_state_dict({"weight": new_weight, "bias": gg.zeros(2)}, assign=True)
    assert isinstance(target.weight, gg.nn.Parameter) and target.weight.requires_grad
    assert target.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        target.load_state_dict([("weight", new_weight)])


def test_batchnorm_loads_old_checkpoints_without_num_batches_tracked():
    bn = gg.nn.BatchNorm1d(3)
    state = bn.state_dict()
    del state["num_batches_tracked"]
    state._metadata[""] = {"version": 1}
    assert repr(bn.load_state_dict(state)) == "<All keys matched successfully>"
    state._metadata[""] = {"version": 2}
    with pytest.raises(
        RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'
    ):
        bn.load_state_dict(state)


def test_non_persistent_buffer_left_out_of_state_dict():
    def program(lib, nn):
        m = nn.Module()
        m.register_buffer("kept", lib.ones(1))
        m.register_buffer("dropped", lib.ones(1), persistent=False)
        m.register_buffer("empty", None)
        return list(m.state_dict()), [n for n, _ in m.named_buffers()]

    theirs, ours = both(program)
    assert ours == theirs


def test_nn_buffer_assignment_registers_a_buffer():
    def program(lib, nn):
        m = nn.Module()
        m.steps = nn.Buffer(lib.zeros(()))
        m.tmp = nn.Buffer(lib.zeros(2), persistent=False)
        return list(m.state_dict()), [n for n, _ in m.named_buffers()], type(m.steps).__name__

    theirs, ours = both(program)
    assert ours == theirs


def test_extra_state_round_trip():
    def build(nn):
        class WithExtra(nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = nn.Linear(1, 1)
                self.note = "a"

            def get_extra_state(self):
                return {"note": self.note}

            def set_extra_state(self, state):
                self.note = state["note"]

        return WithExtra()

    source = build(gg.nn)
    source.note = "b"
    state = source.state_dict()
    assert list(state) == list(build(torch.nn).state_dict())
    assert "_extra_state" in state
    target = build(gg.nn)
    target.load_state_dict(state)
    assert target.note == "b"
    del state["_extra_state"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "_extra_state"'):
        target.load_state_dict(state)


def test_state_dict_and_load_hooks():
    layer = gg.nn.Linear(2, 2)
    seen = []
    h1 = layer.register_state_dict_pre_hook(lambda m, prefix, keep: seen.append(("pre", prefix)))
    h2 = layer.register_state_dict_post_hook(lambda m, sd, prefix, meta: sd.pop("bias"))
    with pytest.raises(RuntimeError, match="must return None"):
        layer.state_dict()
    h2.remove()
    h3 = layer.register_state_dict_post_hook(lambda m, sd, prefix, meta: seen.append("post"))
    assert list(layer.state_dict()) == ["weight", "bias"]
    h1.remove(), h3.remove()
    assert seen == [("pre", ""), ("pre", ""), "post"]
    layer.register_load_state_dict_post_hook(lambda m, keys: keys.missing_keys.clear())
    assert layer.load_state_dict({"weight": gg.ones(2, 2)}).missing_keys == []


# --- hooks ---------------------------------------------------------------------------------
class Scale:
    """A module multiplying by a parameter, written the same way in both libraries."""

    @staticmethod
    def build(lib, nn):
        class ScaleModule(nn.Module):
            def __init__(self):
                super().__init__()
                self.factor = nn.Parameter(lib.tensor([2.0]))

            def forward(self, x, shift=0.0):
                return x * self.factor + shift

        return ScaleModule()


def test_forward_hooks_order_and_replacement_match_torch():
    def program(lib, nn):
        events = []
        m = Scale.build(lib, nn)
        x = lib.tensor([1.0, 2.0])

        def pre(tag, replace=None):
            def hook(module, args):
                events.append((tag, [a.tolist() for a in args]))
                return replace(args) if replace else None

            return hook

        def post(tag, replace=None):
            def hook(module, args, output):
                events.append((tag, output.tolist()))
                return replace(output) if replace else None

            return hook

        handles = [
            m.register_forward_pre_hook(pre("pre1", lambda args: args[0] + 1)),  # one value
            m.register_forward_pre_hook(pre("pre2")),
            m.register_forward_pre_hook(pre("pre0"), prepend=True),
            m.register_forward_hook(post("post1", lambda out: out * 10)),
            m.register_forward_hook(post("post2")),
            m.register_forward_hook(post("post0"), prepend=True),
        ]
        events.append(("result", m(x).tolist()))
        handles[0].remove()
        handles[3].remove()
        events.append(("result", m(x).tolist()))
        for h in handles:
            h.remove()
        events.append(("result", m(x).tolist()))
        return events

    theirs, ours = both(program)
    assert ours == theirs


def test_hooks_with_kwargs_match_torch():
    def program(lib, nn):
        events = []
        m = Scale.build(lib, nn)

        def pre(module, args, kwargs):
            events.append(("pre", sorted(kwargs)))
            return args, {"shift": 100.0}

        def post(module, args, kwargs, output):
            events.append(("post", kwargs["shift"], output.tolist()))

        m.register_forward_pre_hook(pre, with_kwargs=True)
        m.register_forward_hook(post, with_kwargs=True)
        events.append(m(lib.tensor([1.0]), shift=1.0).tolist())
        bad = m.register_forward_pre_hook(lambda mod, a, k: 5, with_kwargs=True)
        try:
            m(lib.tensor([1.0]))
        except RuntimeError as error:
            events.append(str(error))
        bad.remove()
        return events

    theirs, ours = both(program)
    assert ours == theirs


def test_always_call_hook_runs_when_forward_raises():
    def program(lib, nn):
        events = []

        class Failing(nn.Module):
            def forward(self, x):
                raise ValueError("boom")

        m = Failing()
        m.register_forward_hook(lambda mod, a, out: events.append("normal"))
        m.register_forward_hook(
            lambda mod, a, out: events.append(("always", out)), always_call=True
        )
        try:
            m(lib.ones(1))
        except ValueError as error:
            events.append(str(error))
        return events

    theirs, ours = both(program)
    assert ours == theirs


def test_hook_handle_is_a_context_manager_and_does_not_leak():
    m = Scale.build(gg, gg.nn)
    calls = []
    with m.register_forward_hook(lambda mod, a, out: calls.append(1)):
        m(gg.ones(1))
    m(gg.ones(1))
    assert calls == [1]
    assert not m._forward_hooks


def test_missing_forward_error():
    def program(lib, nn):
        try:
            nn.Module()(lib.ones(1))
        except NotImplementedError as error:
            return str(error)

    theirs, ours = both(program)
    assert ours == theirs


# --- printing ------------------------------------------------------------------------------
def _rnn_family(nn):
    return nn.ModuleList(
        [
            nn.RNN(3, 4),
            nn.RNN(3, 4, 2, "relu", batch_first=True),
            nn.LSTM(3, 4, num_layers=2, bidirectional=True, dropout=0.5),
            nn.LSTM(3, 4, proj_size=2, bias=False),
            nn.GRU(3, 4, batch_first=True),
            nn.RNNCell(3, 4, nonlinearity="relu"),
            nn.LSTMCell(3, 4, bias=False),
            nn.GRUCell(3, 4),
        ]
    )


def _layers(nn):
    return nn.Sequential(
        OrderedDict(
            [
                ("conv1", nn.Conv1d(3, 4, 3)),
                ("conv", nn.Conv2d(3, 8, (3, 5), stride=2, padding=1, dilation=2, groups=1)),
                ("conv_same", nn.Conv2d(8, 8, 3, padding="same", bias=False, groups=4)),
                ("conv_reflect", nn.Conv2d(8, 8, 3, padding=1, padding_mode="reflect")),
                ("up", nn.ConvTranspose2d(8, 4, 3, stride=2, output_padding=1)),
                ("pool", nn.MaxPool2d(2)),
                ("pool3", nn.MaxPool2d((3, 2), stride=1, padding=1, ceil_mode=True)),
                ("avg", nn.AvgPool2d(3, stride=2)),
                ("adaptive", nn.AdaptiveAvgPool2d((5, 7))),
                ("adaptive1", nn.AdaptiveAvgPool2d(1)),
                ("bn1", nn.BatchNorm1d(4, momentum=None, affine=False)),
                ("bn2", nn.BatchNorm2d(4, eps=1e-3, track_running_stats=False)),
                ("ln", nn.LayerNorm([4, 5], elementwise_affine=False)),
                ("ln_nobias", nn.LayerNorm(4, bias=False)),
                ("gn", nn.GroupNorm(2, 4, affine=False)),
                ("drop", nn.Dropout(0.1, inplace=True)),
                ("emb", nn.Embedding(10, 3, padding_idx=0, max_norm=1.0)),
                ("flat", nn.Flatten()),
                ("unflat", nn.Unflatten(1, (2, 5))),
                ("id", nn.Identity()),
                ("bilinear", nn.Bilinear(3, 4, 5, bias=False)),
                ("linear", nn.Linear(5, 6)),
                ("mha", nn.MultiheadAttention(8, 2, batch_first=True)),
                ("mha_kv", nn.MultiheadAttention(8, 2, kdim=4, vdim=6, add_bias_kv=True)),
            ]
        )
    )


def _activations(nn):
    return nn.Sequential(
        nn.ReLU(),
        nn.ReLU(inplace=True),
        nn.ReLU6(),
        nn.LeakyReLU(0.2, inplace=True),
        nn.ELU(alpha=0.5),
        nn.SELU(),
        nn.GELU(approximate="tanh"),
        nn.SiLU(),
        nn.Mish(),
        nn.Softplus(beta=2, threshold=10),
        nn.Hardtanh(-2.0, 2.0),
        nn.Hardsigmoid(),
        nn.Hardswish(),
        nn.LogSigmoid(),
        nn.Sigmoid(),
        nn.Tanh(),
        nn.Softmax(dim=1),
        nn.LogSoftmax(dim=-1),
        nn.Softmin(dim=0),
    )


def _losses(nn, lib):
    return nn.ModuleList(
        [
            nn.MSELoss(),
            nn.L1Loss(reduction="sum"),
            nn.SmoothL1Loss(beta=0.5),
            nn.HuberLoss(delta=2.0),
            nn.CrossEntropyLoss(weight=lib.ones(3), label_smoothing=0.1),
            nn.NLLLoss(ignore_index=1),
            nn.BCELoss(),
            nn.BCEWithLogitsLoss(pos_weight=lib.ones(2)),
            nn.KLDivLoss(reduction="batchmean", log_target=True),
        ]
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda lib, nn: mlp(nn),
        custom_model,
        lambda lib, nn: _rnn_family(nn),
        lambda lib, nn: _layers(nn),
        lambda lib, nn: _activations(nn),
        lambda lib, nn: _losses(nn, lib),
        lambda lib, nn: nn.ModuleList(
            [nn.Linear(2, 2)] * 3 + [nn.ReLU(), nn.ReLU(), nn.Linear(2, 2)]
        ),
        lambda lib, nn: nn.ModuleList(),
        lambda lib, nn: nn.Sequential(),
        lambda lib, nn: nn.ModuleDict({"a": nn.Sequential(nn.Linear(1, 1)), "b": nn.Identity()}),
    ],
    ids=[
        "mlp",
        "custom",
        "rnn",
        "layers",
        "activations",
        "losses",
        "modulelist",
        "empty_list",
        "empty_seq",
        "moduledict",
    ],
)
def test_repr_and_state_dict_keys_match_torch(build):
    theirs, ours = both(lambda lib, nn: build(lib, nn))
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (name, a), (name2, b) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == name2 and tuple(a.shape) == tuple(b.shape), name
    for (name, a), (name2, b) in zip(ours.named_buffers(), theirs.named_buffers()):
        assert (
            name == name2
            and tuple(a.shape) == tuple(b.shape)
            and str(a.dtype)[-5:] == str(b.dtype)[-5:]
        )


def test_custom_extra_repr_multiline():
    def program(lib, nn):
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = nn.Linear(1, 1)

            def extra_repr(self):
                return "alpha=1,\nbeta=2"

        class Leaf(nn.Module):
            def extra_repr(self):
                return "only=1"

        return repr(nn.Sequential(Custom(), Leaf()))

    theirs, ours = both(program)
    assert ours == theirs


# --- backward hooks ------------------------------------------------------------------------
def test_full_backward_hooks_match_torch():
    def program(lib, nn):
        events = []

        def record(tag):
            def hook(module, *grads):
                events.append(
                    (
                        tag,
                        type(module).__name__,
                        [[None if g is None else g.tolist() for g in gs] for gs in grads],
                    )
                )

            return hook

        model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Bilinear(3, 3, 2)).double()
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(
                    lib.linspace(-1, 1, p.numel(), dtype=lib.float64).reshape(p.shape) * (i + 1)
                )

        class Pair(nn.Module):
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                h = self.inner[1](self.inner[0](x))
                return self.inner[2](h, h)

        pair = Pair(model)
        for m in (pair, *model):
            m.register_full_backward_pre_hook(record("pre"))
            m.register_full_backward_hook(record("post"))
        # a pre-hook that scales grad_output and a hook that replaces grad_input
        model[2].register_full_backward_pre_hook(lambda m, go: (go[0] * 3,))
        model[0].register_full_backward_hook(lambda m, gi, go: (gi[0] + 1,), prepend=True)
        x = lib.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=lib.float64, requires_grad=True)
        out = pair(x)
        names = set()
        stack = [out.grad_fn]
        while stack:
            node = stack.pop()
            if node is not None and node.name() not in names:
                names.add(node.name())
                stack.extend(fn for fn, _ in node.next_functions)
        events.append("BackwardHookFunctionBackward" in names)
        (out * lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64)).sum().backward()
        events.append(x.grad.tolist())
        events.append([p.grad.tolist() for p in model.parameters()])
        return events

    theirs, ours = both(program)
    assert theirs[0] is True  # the identity node on the inputs and outputs is in the graph
    assert _round(ours) == _round(theirs)


def _round(value):
    if isinstance(value, float):
        return round(value, 10)
    if isinstance(value, (list, tuple)):
        return type(value)(_round(v) for v in value)
    return value


def test_backward_hook_errors_and_removal():
    layer = gg.nn.Linear(2, 2)
    handle = layer.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(
        RuntimeError,
        match="Backward hook returned an invalid number of grad_input, got 2, but expected 1",
    ):
        layer(gg.ones(1, 2, requires_grad=True)).sum().backward()
    handle.remove()
    pre = layer.register_full_backward_pre_hook(lambda m, go: ())
    with pytest.raises(
        RuntimeError,
        match="Backward pre hook returned an invalid number of grad_output, got 0, but expected 1",
    ):
        layer(gg.ones(1, 2)).sum().backward()
    pre.remove()
    assert not layer._backward_hooks and not layer._backward_pre_hooks
    out = layer(gg.ones(1, 2, requires_grad=True))
    assert out.grad_fn.name() != "BackwardHookFunctionBackward"
