"""Issue 15's cases, each as one program run under glassgrad and under PyTorch (the oracle),
with the results compared: hook order, autograd.grad's hooks, None for hooks of outputs without
a gradient, grad-mode forms, custom Function details, saved-tensor hooks, checkpointing,
multi-grad hooks, anomaly warnings and gradcheck's modes."""

from __future__ import annotations

import runpy
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

import glassgrad as gg

LIBS = (gg, torch)


def plain(value: Any) -> Any:
    """Tensors as nested lists (rounded to float32 accuracy), containers element by element."""
    if isinstance(value, (gg.Tensor, torch.Tensor)):
        return np.round(np.asarray(value.detach().tolist(), dtype=float), 5).tolist()
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def same(program: Any) -> Any:
    ours, theirs = plain(program(gg)), plain(program(torch))
    assert ours == theirs
    return ours


def test_leaf_hook_order_tensor_hook_acc_prehook_post_accumulate_posthook() -> None:
    def program(lib):
        log = []
        t = lib.tensor([1.0, 2.0], requires_grad=True)
        acc = t.view_as(t).grad_fn.next_functions[0][0]
        t.register_hook(lambda g: log.append(("tensor", g.tolist())) or g * 2)
        acc.register_prehook(lambda go: log.append(("pre", go[0].tolist())) or (go[0] + 1,))
        t.register_post_accumulate_grad_hook(lambda x: log.append(("post-acc", x.grad.tolist())))
        acc.register_hook(lambda gi, go: log.append(("post", len(gi), go[0].tolist())))
        (t * 3).sum().backward()
        return log, t.grad

    same(program)


def test_grad_runs_only_the_input_nodes_tensor_hooks() -> None:
    def program(lib):
        log = []
        a = lib.tensor(1.0, requires_grad=True)
        b = a * 2
        c = b * 2
        b.register_hook(lambda g: log.append("b tensor hook"))
        b.grad_fn.register_prehook(lambda g: log.append("b pre"))
        b.grad_fn.register_hook(lambda gi, go: log.append("b post"))
        lib.autograd.grad(c, inputs=(b,), retain_graph=True)
        log.append("--")
        c.backward(inputs=(b,))
        return log, b.grad

    same(program)


def test_hooks_of_outputs_without_gradient_see_none() -> None:
    def program(lib):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        first, second = x.unbind()
        first.register_hook(lambda g: log.append(("first", None if g is None else g.item())))
        second.register_hook(lambda g: log.append(("second", None if g is None else g.item())))
        second.backward()
        return log

    same(program)


def test_grad_mode_decorator_forms() -> None:
    def program(lib):
        x = lib.ones(1, requires_grad=True)
        results = [lib.no_grad(lambda t: t * 2)(x).requires_grad]

        @lib.enable_grad
        def doubled(t):
            return t * 2

        with lib.no_grad():
            results.append(doubled(x).requires_grad)
        with lib.enable_grad():

            @lib.set_grad_enabled(False)
            def inner(t):
                return t * 2

            results += [lib.is_grad_enabled(), inner(x).requires_grad]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")

            @lib.no_grad()
            class Made:
                def __init__(self):
                    self.grad = lib.is_grad_enabled()

        results += [Made().grad, [w.category.__name__ for w in caught]]
        return results

    same(program)


def test_custom_function_backward_gets_none_for_non_tensor_outputs() -> None:
    def program(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 3, x * 3

            @staticmethod
            def backward(ctx, g0, g1, g2):
                seen.append([g is None for g in (g0, g1, g2)])
                return g0 * 2

        x = lib.ones(2, requires_grad=True)
        a, _, _ = F.apply(x)
        a.sum().backward()
        return seen, x.grad

    same(program)


def test_saved_tensors_hooks_pack_and_unpack() -> None:
    def program(lib):
        log = []

        def pack(t):
            log.append(("pack", list(t.shape), t.grad_fn is not None))
            return t.detach() * 1

        def unpack(t):
            log.append(("unpack", list(t.shape)))
            return t

        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
            y = (x * x).exp().sum()
        y.backward()
        return sorted(log, key=str), x.grad

    same(program)


def test_disable_saved_tensors_hooks_refuses_hooks() -> None:
    def program(lib):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks here"):
            try:
                with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
            except RuntimeError as error:
                return str(error)
        return "entered"

    assert same(program) == "no hooks here"


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gives_the_plain_gradients(use_reentrant: bool) -> None:
    def program(lib):
        from importlib import import_module

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        lib.manual_seed(0)
        w = lib.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        x = lib.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
        out = checkpoint(lambda t: (t @ w).tanh().exp(), x, use_reentrant=use_reentrant)
        out.sum().backward()
        return x.grad, w.grad

    same(program)


def test_non_reentrant_checkpoint_supports_grad_and_double_backward() -> None:
    def program(lib):
        from importlib import import_module

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        x = lib.tensor([0.3, -0.7, 1.1], requires_grad=True)
        out = checkpoint(lambda t: (t * t).sin(), x, use_reentrant=False)
        (g,) = lib.autograd.grad(out.sum(), x, create_graph=True)
        (gg_,) = lib.autograd.grad(g.sum(), x)
        return g, gg_

    same(program)


def test_reentrant_checkpoint_refuses_autograd_grad() -> None:
    def program(lib):
        from importlib import import_module

        checkpoint = import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        x = lib.ones(2, requires_grad=True)
        try:
            lib.autograd.grad(checkpoint(lib.exp, x, use_reentrant=True).sum(), x)
        except RuntimeError as error:
            return str(error).split(".")[0]

    same(program)


@pytest.mark.parametrize("mode", ["all", "any"])
def test_register_multi_grad_hook(mode: str) -> None:
    def program(lib):
        log = []
        a, b, c = (lib.ones(2, requires_grad=True) for _ in range(3))
        fn = (lambda grads: log.append([g is not None for g in grads])) if mode == "all" else (
            lambda grad: log.append(grad.tolist())
        )  # fmt: skip
        lib.autograd.graph.register_multi_grad_hook((a, b, c), fn, mode=mode)
        (a * b * 2).sum().backward()
        (a + c).sum().backward(inputs=[a])
        return log

    same(program)


def test_anomaly_mode_warns_with_the_forward_line_and_keeps_the_error() -> None:
    def program(lib):
        x = lib.zeros(1, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                y = (lib.log(x) * 0).sum()
                try:
                    y.backward()
                except RuntimeError as error:
                    message = str(error)
        detected = [str(w.message) for w in caught if "Error detected in" in str(w.message)]
        return message, [d.split(":")[0] for d in detected], ["lib.log(x)" in d for d in detected]

    same(program)


@pytest.mark.parametrize("fast_mode", [True, False])
def test_gradcheck_modes_catch_a_wrong_backward(fast_mode: bool) -> None:
    def program(lib):
        class Wrong(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 3

        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        good = lib.autograd.gradcheck(lambda t: t.sin(), (x,), fast_mode=fast_mode)
        bad = lib.autograd.gradcheck(Wrong.apply, (x,), fast_mode=fast_mode, raise_exception=False)
        return good, bad

    assert same(program) == [True, False]


def test_saved_tensors_on_disk_example_runs() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "saved_tensors_on_disk.py"
    runpy.run_path(str(example), run_name="__main__")
