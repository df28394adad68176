"""Issue 15's cases, each as one program run under glassgrad and under PyTorch (the oracle),
with the results compared: hook order, autograd.grad's hooks, None for hooks of outputs without
a gradient, grad-mode forms, custom Function details, saved-tensor hooks, checkpointing,
multi-grad hooks, anomaly warnings and gradcheck's modes."""

# ruff: noqa: B023 - the programs call their closures at once, inside the loop
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


def test_custom_function_edges_are_its_tensor_arguments_only() -> None:
    """next_functions lists the tensor arguments (None for one without grad); numbers, None
    and other objects have no edge, though backward returns a gradient for each."""

    def program(lib):
        seen = []

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b, c, d):
                return a * k + (0 if b is None else b)

            @staticmethod
            def backward(ctx, g):
                return g, None, (g if ctx.needs_input_grad[2] else None), None, None

        x, y, z = lib.ones(2, requires_grad=True), lib.ones(2, requires_grad=True), lib.ones(2)
        for args in [(x, 2.0, y, None, z), (x, 2.0, None, "s", [1]), (x * 1, 3, y, z, None)]:
            out = F.apply(*args)
            out.grad_fn.register_hook(lambda gi, go: seen.append([g is None for g in gi]))
            edges = [(n if n is None else n.name(), i) for n, i in out.grad_fn.next_functions]
            out.sum().backward()
            seen.append(edges)
        return seen, x.grad, y.grad

    same(program)


@pytest.mark.parametrize("returned", ["too few", "number for a number"])
def test_custom_function_gradient_count_errors(returned: str) -> None:
    def program(lib):
        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                return a * k

            @staticmethod
            def backward(ctx, g):
                return (g, None) if returned == "too few" else (g, g, None)

        try:
            F.apply(lib.ones(2, requires_grad=True), 2.0, None).sum().backward()
        except RuntimeError as error:
            return str(error)
        return None

    assert same(program) is not None


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


# --- the rest of the issue's cases, one program each ------------------------------------------
def outcome(fn: Any) -> Any:
    """What ``fn()`` gives: its value, or the error's type and the first words of its message
    (PyTorch's wording, which glassgrad keeps; 'torch' and 'glassgrad' read alike)."""
    try:
        return ["ok", fn()]
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        words = str(error).replace("glassgrad", "torch").split()[:6]
        return [type(error).__name__, " ".join(words)]


def caught_warnings(fn: Any) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return sorted({w.category.__name__ for w in caught})


def _hook_on_view_rebased_by_sibling(lib):
    log = []
    base = lib.zeros(4, requires_grad=True).clone()
    first, second = base[:2], base[:2]
    first.register_hook(lambda g: log.append("hook"))
    second.mul_(2)
    first.sum().backward()
    return log


def _post_accumulate_hook_returning_a_value(lib):
    t = lib.ones(2, requires_grad=True)
    t.register_post_accumulate_grad_hook(lambda x: x * 2)
    return outcome(lambda: (t * 2).sum().backward())[0]


def _numpy_in_no_grad(lib):
    x = lib.ones(2, requires_grad=True)
    with lib.no_grad():
        inside = x.numpy().tolist()
    return inside, outcome(lambda: x.numpy())[0]


def _requires_grad_on_non_leaf(lib):
    y = lib.ones(2, requires_grad=True) * 2
    return outcome(lambda: y.requires_grad_().requires_grad), outcome(
        lambda: y.requires_grad_(False)
    )


def _materialize_grads_with_create_graph(lib):
    x = lib.ones(2, requires_grad=True)
    unused = lib.ones(2, requires_grad=True)
    gx, gu = lib.autograd.grad(
        (x * x).sum(), (x, unused), create_graph=True, allow_unused=True, materialize_grads=True
    )
    return gx, gu, gx.requires_grad, gu.requires_grad


def _setup_context_gets_defaults(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(x, factor=3.0):
            return x * factor

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.factor = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None

    x = lib.ones(2, requires_grad=True)
    Scale.apply(x).sum().backward()
    return x.grad


def _function_instantiated(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

    made = []
    warned = caught_warnings(lambda: made.append(F()))
    return warned, outcome(lambda: made[0](lib.ones(1)))[0]


def _inplace_function(lib):
    from importlib import import_module

    InplaceFunction = import_module(f"{lib.__name__}.autograd.function").InplaceFunction

    class Add1(InplaceFunction):
        @staticmethod
        def forward(ctx, x):
            return x + 1

        @staticmethod
        def backward(ctx, g):
            return g

    made = []
    caught_warnings(lambda: made.append(Add1(inplace=True)))
    x = lib.ones(2, requires_grad=True)
    Add1.apply(x).sum().backward()
    return made[0].inplace, x.grad


def _once_differentiable_double_backward(lib):
    from importlib import import_module

    once_differentiable = import_module(f"{lib.__name__}.autograd.function").once_differentiable

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = lib.tensor([1.5], requires_grad=True)
    (g,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
    return g, g.requires_grad, type(g.grad_fn).__name__, outcome(lambda: g.sum().backward())


def _mark_dirty_of_a_non_input(lib):
    results = []
    for returned in ("input's double", "the other tensor", "both"):

        class F(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                other = lib.ones(2)
                ctx.mark_dirty(other)
                choices = {"input's double": x * 2, "the other tensor": other}
                return choices.get(returned, (x * 2, other))

            @staticmethod
            def backward(ctx, *g):
                return g[0] * 2

        x = lib.ones(2, requires_grad=True)
        results.append(caught_warnings(lambda: results.append(outcome(lambda: F.apply(x))[0])))
    view_case = outcome(lambda: _dirty_view_not_an_input(lib))
    return results, view_case


def _dirty_view_not_an_input(lib):
    class G(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            view = x.clone().view_as(x)
            ctx.mark_dirty(view)
            return view

        @staticmethod
        def backward(ctx, g):
            return g

    G.apply(lib.ones(1, requires_grad=True).clone())


def _backward_and_vjp_both_defined(lib):
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

        @staticmethod
        def vjp(ctx, g):
            return g

    x = lib.ones(2, requires_grad=True)
    return outcome(lambda: F.apply(x).sum().backward())


def _calling_a_node_output_nr_increment_version(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    called = y.grad_fn(lib.tensor([1.0, 1.0]))
    first, second = x.unbind()
    t = lib.zeros(2)
    lib.autograd.graph.increment_version(t)
    return called, first.output_nr, second.output_nr, t._version


def _view_of_leaf_made_requires_grad_after(lib):
    leaf = lib.zeros(3)
    view = leaf[:2]
    leaf.requires_grad_()
    return outcome(lambda: view.add_(1))[0]


def _view_of_view_made_in_no_grad(lib):
    base = lib.ones(4, requires_grad=True).clone()
    with lib.no_grad():
        view = base.view(-1)
    inner = view[:2]
    results = [outcome(lambda: inner.mul_(2))]
    with lib.inference_mode():
        view = base.view(-1)
    results.append(outcome(lambda: view[:2].mul_(2)))
    with lib.inference_mode():
        results.append(outcome(lambda: view[:2].mul_(2)[0].item()))  # inside: allowed
    return results


def _forbidden_views_still_usable_without_grad(lib):
    # PyTorch refuses such a view's history only when it needs it: in grad mode (or .grad_fn)
    results = []
    for mode in (lib.inference_mode, lib.no_grad):
        base = lib.ones(4, requires_grad=True).clone()
        with mode():
            view = base.view(-1)
        with mode():
            changed = view[:2].mul_(2)
            results.append(outcome(lambda: (changed[0] * 2).item()))
        with lib.no_grad():
            results.append(outcome(lambda: (changed * 2).sum().item()))
            results.append(outcome(lambda: changed.grad_fn))
        results.append(outcome(lambda: changed * 2))
    return results


def _view_returned_by_a_function(lib):
    class ViewOf(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.view_as(x)

        @staticmethod
        def backward(ctx, g):
            return g

    x = lib.ones(2, requires_grad=True).clone()
    out = ViewOf.apply(x)
    return outcome(lambda: out.mul_(2))[0]


def _data_set_to_an_int_tensor(lib):
    a = lib.ones(2, requires_grad=True)

    def assign():
        a.data = lib.tensor([1, 2])

    def delete():
        del a.data

    return outcome(assign)[0], outcome(delete)[0]


def _detach_in_place_of_a_saved_tensor(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True).clone()
    b = a.sin()
    a.detach_()
    return outcome(lambda: b.sum().backward())[0]


def _second_backward_through_index_put(lib):
    x = lib.zeros(3, requires_grad=True)
    y = x.index_put((lib.tensor([0, 2]),), lib.tensor([1.0, 2.0])) * x
    y.sum().backward()
    return outcome(lambda: y.sum().backward())[0]


def _write_into_an_expanded_tensor(lib):
    one = lib.zeros(1, 1).expand(1, 3)
    many = lib.zeros(1).expand(3)

    def write_one():
        one[0, 1] = 5.0
        return one

    def write_many():
        many[:2] = 5.0

    return outcome(write_one), outcome(write_many)[0]


def _zero_to_the_power_of_b(lib):
    b = lib.tensor([-1.0, 0.0, 1.0], requires_grad=True)
    (0**b).sum().backward()
    return b.grad


def _anomaly_check_nan_false(lib):
    x = lib.tensor([-1.0], requires_grad=True)
    with lib.autograd.detect_anomaly(check_nan=False):
        lib.sqrt(x).sum().backward()
    return bool(lib.isnan(x.grad).all())


def _create_graph_and_saved_variables_warnings(lib):
    x = lib.ones(2, requires_grad=True)

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_variables
            return g * 2

    # Both libraries give the create_graph warning once per process (the test that checks
    # that runs in fresh processes: test_create_graph_warning_once_per_process); made to
    # repeat, it does not depend on which test ran first.
    lib.set_warn_always(True)
    try:
        first = caught_warnings(lambda: (x * x).sum().backward(create_graph=True))
    finally:
        lib.set_warn_always(False)
    second = caught_warnings(lambda: F.apply(x).sum().backward())
    return first, second


def _repr_of_an_invalid_grad_fn(lib):
    base = lib.ones(2, requires_grad=True).clone()
    with lib.no_grad():
        view = base[:1]
        view.mul_(2)
    return repr(view).split("grad_fn=")[1]


def _gradcheck_options(lib):
    class NotReentrant(lib.autograd.Function):
        calls = [0]

        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            NotReentrant.calls[0] += 1
            return g * 2 + NotReentrant.calls[0] * 1e-3

    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    check = lib.autograd.gradcheck
    return [
        outcome(lambda: check(NotReentrant.apply, (x,)))[0],
        outcome(lambda: check(NotReentrant.apply, (x,), nondet_tol=1.0)),
        outcome(lambda: check(lambda t: t.argmax().double(), (x,)))[0],
        outcome(lambda: check(lambda t: t.sin(), (x,), check_undefined_grad=True)),
        outcome(lambda: lib.autograd.gradgradcheck(lambda t: t.sin() * t, (x,))),
    ]


def _functional_checks_name_the_function(lib):
    import importlib

    functional = importlib.import_module(f"{lib.__name__}.autograd.functional")
    x = lib.ones(2)
    return [
        outcome(lambda: functional.jacobian(lambda t: 1.0, x)),
        outcome(lambda: functional.vjp(lambda t: t * 2, (x, 1.0))),
        outcome(lambda: functional.hessian(lambda t: t * 2, x)),
    ]


CASES = [
    _hook_on_view_rebased_by_sibling,
    _post_accumulate_hook_returning_a_value,
    _numpy_in_no_grad,
    _requires_grad_on_non_leaf,
    _materialize_grads_with_create_graph,
    _setup_context_gets_defaults,
    _function_instantiated,
    _inplace_function,
    _once_differentiable_double_backward,
    _mark_dirty_of_a_non_input,
    _backward_and_vjp_both_defined,
    _calling_a_node_output_nr_increment_version,
    _view_of_leaf_made_requires_grad_after,
    _view_of_view_made_in_no_grad,
    _forbidden_views_still_usable_without_grad,
    _view_returned_by_a_function,
    _data_set_to_an_int_tensor,
    _detach_in_place_of_a_saved_tensor,
    _second_backward_through_index_put,
    _write_into_an_expanded_tensor,
    _zero_to_the_power_of_b,
    _anomaly_check_nan_false,
    _create_graph_and_saved_variables_warnings,
    _repr_of_an_invalid_grad_fn,
    _gradcheck_options,
    _functional_checks_name_the_function,
]


@pytest.mark.parametrize("program", CASES, ids=[case.__name__.strip("_") for case in CASES])
def test_issue_case_matches_pytorch(program: Any) -> None:
    same(program)


_WARN_ONCE_PROGRAM = """
import sys, warnings
lib = __import__(sys.argv[1])
x = lib.ones(2, requires_grad=True)
def warned(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w.category.__name__ for w in caught if "create_graph=True" in str(w.message)]
seen = [warned(lambda: lib.autograd.grad((x * x).sum(), x, create_graph=True))]
for _ in range(2):
    seen.append(warned(lambda: (x * x).sum().backward(create_graph=True)))
lib.set_warn_always(True)
seen.append(warned(lambda: (x * x).sum().backward(create_graph=True)))
lib.set_warn_always(False)
seen.append(warned(lambda: (x * x).sum().backward(create_graph=True)))
print(seen)
"""


def test_create_graph_warning_once_per_process() -> None:
    # PyTorch's engine warns with TORCH_WARN_ONCE: the first backward(create_graph=True) of
    # a process only (autograd.grad never), every one under set_warn_always(True). Each
    # library runs in a fresh process, so no earlier test can have used up the warning.
    import subprocess
    import sys

    runs = [
        subprocess.run(
            [sys.executable, "-c", _WARN_ONCE_PROGRAM, name],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
        for name in ("glassgrad", "torch")
    ]
    assert runs[0] == runs[1] == "[[], ['UserWarning'], [], ['UserWarning'], []]\n"


# --- allow_mutation_on_saved_tensors: every kind of in-place write clones what was saved ----
def _mutation_by_inplace_view_op(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        x = a.clone()
        out = (x * lib.tensor([[1.0, 10.0], [100.0, 1000.0]])).sum() + (x**2).sum()
        x.t_()
        cloned = len(ctx.cloned)
        out.backward()
    return cloned, a.grad


def _mutation_by_optimizer_step(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        out = (w**2).sum()
        w.grad = lib.tensor([1.0, 1.0])
        lib.optim.SGD([w], lr=0.5).step()
        cloned = len(ctx.cloned)
        w.grad = None
        out.backward()
    return cloned, w.grad, w


def _mutation_by_resize(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0])
        out = (a * b).sum()
        b.resize_(4)
        cloned = len(ctx.cloned)
        out.backward()
    return cloned, a.grad


def _mutation_by_gradient_accumulation(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (x * 3).sum().backward()
        y = lib.tensor([1.0, 1.0], requires_grad=True)
        out = (y * x.grad).sum()  # saves x.grad, which the next backward adds to in place
        (x * 5).sum().backward()
        cloned = len(ctx.cloned)
        out.backward()
    return cloned, y.grad, x.grad


def _mutation_by_embedding_renorm(lib):
    with lib.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        w = lib.tensor([[3.0, 4.0], [0.3, 0.4]], requires_grad=True)
        table = w.clone()
        out = (table**2).sum()
        with lib.no_grad():
            lib.nn.functional.embedding(lib.tensor([0, 1]), table, max_norm=1.0)
        cloned = len(ctx.cloned)
        out.backward()
    return cloned, w.grad


MUTATION_CASES = [
    _mutation_by_inplace_view_op,
    _mutation_by_optimizer_step,
    _mutation_by_resize,
    _mutation_by_gradient_accumulation,
    _mutation_by_embedding_renorm,
]


@pytest.mark.parametrize(
    "program", MUTATION_CASES, ids=[case.__name__.strip("_") for case in MUTATION_CASES]
)
def test_allow_mutation_on_saved_tensors_matches_pytorch(program: Any) -> None:
    cloned = same(program)[0]
    assert cloned == 1


def test_allow_mutation_clones_a_saved_view_written_through_its_base() -> None:
    # A saved view that starts elsewhere in its base's memory: glassgrad matches saved tensors
    # to writes by storage (the shared version counter), so the view is cloned and the
    # gradient is that of the values it had. PyTorch matches by data pointer, misses this view
    # and computes with the written values (a = [1, 2, 3] gives [0, 40, 60]).
    with gg.autograd.graph.allow_mutation_on_saved_tensors() as ctx:
        a = gg.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.clone()
        out = (b[1:] ** 2).sum()
        b.mul_(10)
        assert len(ctx.cloned) == 1
        out.backward()
    assert a.grad.tolist() == [0.0, 4.0, 6.0]


@pytest.mark.parametrize("op", ["exp_", "sgn_", "sigmoid_", "tanh_"])
def test_second_derivative_through_an_output_saved_by_an_inplace_op_on_a_temporary_view(
    op: str,
) -> None:
    """An in-place op that saves its output, on a view that is gone by backward: the saved
    output's history is the op's own node, which the second derivative then runs directly
    as well as inside the base's CopySlices. Releasing CopySlices drops its reference to
    that node without freeing the node's saved values, as PyTorch's release_variables."""

    def run(lib: Any) -> tuple:
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = x * 2
        getattr(y[1:], op)()
        (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        (gg_x,) = lib.autograd.grad(g.sum(), x)
        y = x * 2
        getattr(y[1:], op)()
        loss = (y * y).sum()
        loss.backward()
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            loss.backward()
        return g.detach().numpy(), gg_x.numpy()

    for ours, theirs in zip(run(gg), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
