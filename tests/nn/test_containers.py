"""Sequential, ModuleList and ModuleDict against PyTorch: the same sequence of operations
gives the same structure (names, reprs, identities) and the same errors."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch

import glassgrad as gg


def describe(container) -> tuple:
    return (repr(container), [n for n, _ in container.named_modules()], len(container))


def run_both(program):
    results = []
    for nn in (torch.nn, gg.nn):
        events = []
        try:
            program(nn, events)
        except Exception as error:  # noqa: BLE001 - compared with PyTorch's
            events.append(
                (type(error).__name__, str(error).replace("torch.nn.modules.container", "C"))
            )
        results.append(events)
    theirs, ours = results
    return theirs, ours


def normalise(value):
    """Class paths differ between the libraries; so does one space PyTorch leaves out of a
    ModuleDict message ("is" + type name). Compare class names and words."""
    if isinstance(value, (list, tuple)):
        return type(value)(normalise(v) for v in value)
    if isinstance(value, str):
        for path in ("glassgrad.nn.modules.container", "torch.nn.modules.container"):
            value = value.replace(path, "C")
        return "".join(value.split())
    return value


def test_sequential_operations_match_torch():
    def program(nn, events):
        a, b, c, d = nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 3), nn.Tanh()
        seq = nn.Sequential(a, b, c)
        events.append(describe(seq))
        events += [seq[0] is a, seq[-1] is c, seq[-3] is a, len(seq)]
        part = seq[1:]
        events += [type(part).__name__, describe(part), part[0] is b]
        events.append(describe(seq[::2]))
        events.append([type(m).__name__ for m in seq])
        seq.append(d)
        events.append(describe(seq))
        seq.insert(1, nn.Sigmoid())
        seq.insert(-1, nn.Identity())
        events.append(describe(seq))
        events.append(type(seq.pop(2)).__name__)
        del seq[0]
        events.append(describe(seq))
        del seq[1:3]
        events.append(describe(seq))
        seq[0] = nn.ELU()
        events.append(describe(seq))
        seq.extend([nn.Linear(3, 3), nn.GELU()])
        events.append(describe(seq))
        events.append(describe(seq + nn.Sequential(nn.Softplus())))
        events.append(describe(nn.Sequential(nn.ReLU(), nn.Tanh()) * 2))
        events.append(describe(2 * nn.Sequential(nn.ReLU())))
        doubled = nn.Sequential(nn.ReLU(), nn.Tanh())
        doubled *= 3
        events.append(describe(doubled))
        grown = nn.Sequential(nn.ReLU())
        grown += nn.Sequential(nn.Tanh())
        events.append(describe(grown))
        named = nn.Sequential(OrderedDict([("first", nn.Linear(2, 2)), ("act", nn.ReLU())]))
        events += [describe(named), describe(named[1:]), named.first is named[0]]
        for attempt in (
            lambda: seq[10],
            lambda: seq.insert(20, nn.ReLU()),
            lambda: seq + [nn.ReLU()],
            lambda: seq * 0,
            lambda: seq * 1.5,
        ):
            try:
                attempt()
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                events.append((type(error).__name__, str(error)))

    theirs, ours = run_both(program)
    assert normalise(ours) == normalise(theirs)


def test_sequential_forward_runs_in_order():
    seq = gg.nn.Sequential(gg.nn.Identity(), gg.nn.ReLU(), gg.nn.Softmax(dim=0))
    out = seq(gg.tensor([-1.0, 0.0, 1.0]))
    expected = np.exp([0.0, 0.0, 1.0]) / np.exp([0.0, 0.0, 1.0]).sum()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)
    assert gg.nn.Sequential()(gg.ones(1)).tolist() == [1.0]


def test_module_list_operations_match_torch():
    def program(nn, events):
        layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
        events.append(describe(layers))
        events += [len(layers), layers[-1] is layers[2], type(layers[1:]).__name__]
        layers.append(nn.ReLU())
        layers.extend([nn.Tanh(), nn.Tanh()])
        layers.insert(1, nn.Sigmoid())
        events.append(describe(layers))
        events.append(type(layers.pop(1)).__name__)
        del layers[0]
        layers[0] = nn.GELU()
        events.append(describe(layers))
        del layers[::2]
        events.append(describe(layers))
        layers += [nn.ReLU()]
        events.append(describe(layers + nn.ModuleList([nn.ELU()])))
        events.append([type(m).__name__ for m in layers])
        events.append(len(list(layers.parameters())))
        for attempt in (lambda: layers[7], lambda: layers.extend(5)):
            try:
                attempt()
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                events.append((type(error).__name__, str(error)))

    theirs, ours = run_both(program)
    assert normalise(ours) == normalise(theirs)


def test_module_dict_operations_match_torch():
    def program(nn, events):
        heads = nn.ModuleDict({"cls": nn.Linear(4, 3), "box": nn.Linear(4, 4)})
        events.append(describe(heads))
        events += [list(heads.keys()), list(heads), "cls" in heads, "x" in heads, len(heads)]
        heads["mask"] = nn.Conv2d(1, 1, 1)
        heads.update([("extra", nn.ReLU())])
        heads.update(OrderedDict(other=nn.Tanh()))
        events.append(describe(heads))
        events.append(type(heads.pop("box")).__name__)
        del heads["extra"]
        events += [list(heads.keys()), [type(m).__name__ for m in heads.values()]]
        events.append([(k, type(v).__name__) for k, v in heads.items()])
        events.append(list(heads.state_dict()))
        heads.clear()
        events.append(describe(heads))
        for attempt in (
            lambda: heads["missing"],
            lambda: heads.update(5),
            lambda: heads.update([("a", nn.ReLU(), 1)]),
            lambda: heads.update([5]),
        ):
            try:
                attempt()
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                events.append((type(error).__name__, str(error)))

    theirs, ours = run_both(program)
    assert normalise(ours) == normalise(theirs)


@pytest.mark.parametrize("container", ["sequential", "modulelist", "moduledict"])
def test_containers_register_parameters_for_training(container):
    layers = [gg.nn.Linear(2, 2), gg.nn.Linear(2, 2)]
    model = {
        "sequential": lambda: gg.nn.Sequential(*layers),
        "modulelist": lambda: gg.nn.ModuleList(layers),
        "moduledict": lambda: gg.nn.ModuleDict({"a": layers[0], "b": layers[1]}),
    }[container]()
    assert len(list(model.parameters())) == 4
    assert len(model.state_dict()) == 4
    model.eval()
    assert not layers[0].training


def test_parameter_list_and_dict_match_torch():
    def program(nn, events):
        lib = torch if nn is torch.nn else gg
        plist = nn.ParameterList([nn.Parameter(lib.ones(2)), lib.zeros(2, 3)])
        plist.append(lib.ones(1))
        plist.extend([lib.ones(4), "not a tensor"])
        pdict = nn.ParameterDict({"b": lib.ones(2), "a": nn.Parameter(lib.zeros(1))})
        pdict["c"] = lib.ones(3)
        pdict.update([("d", lib.ones(1))])
        model = nn.Module()
        model.plist, model.pdict = plist, pdict
        events.append(repr(model).replace("glassgrad.", "torch."))
        events += [list(model.state_dict()), len(plist), len(pdict), list(pdict.keys())]
        events += [type(plist[0]).__name__, type(plist[1]).__name__, len(plist[1:3])]
        events += [type(pdict["c"]).__name__, "a" in pdict, pdict.get("z", 5)]
        events += [type(pdict.pop("b")).__name__, pdict.popitem()[0], list(pdict)]
        events.append(sorted((pdict | nn.ParameterDict({"e": lib.ones(1)})).keys()))
        pdict.clear()
        events.append(len(pdict))
        for attempt in (
            lambda: plist[9],
            lambda: plist.extend(lib.ones(2)),
            lambda: pdict[1],
            lambda: plist(),
        ):
            try:
                attempt()
            except Exception as error:  # noqa: BLE001 - compared with PyTorch's
                events.append((type(error).__name__, str(error)))

    theirs, ours = run_both(program)
    assert normalise(ours) == normalise(theirs)
