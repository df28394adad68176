"""Views, in-place ops and grad mode: the classes of difference the fuzzer found in seeds
70000-83000 (issue 14), each as short programs run under glassgrad and PyTorch and compared as
the fuzzer compares them (every variable after every statement, errors, first and second
derivatives).

Between statements the comparison reads every tensor's ``is_leaf``, which derives a stale
view's ``grad_fn`` again in both libraries; what PyTorch decides from the flags as they are
set, before that, is tested by statements that do several things at once.
"""

from __future__ import annotations

import pytest
import torch

import glassgrad

from .program import check

LEAF = "torch.tensor([0.5, -1.5, 2.0, 3.0], dtype=torch.float64, requires_grad=True)"
VALUE = "torch.tensor(0.75, dtype=torch.float64, requires_grad=True)"

PROGRAMS = {
    # Reading .grad reads grad_fn as set (PyTorch's C++ is_leaf): it never raises for a view
    # of several outputs, or made in no-grad mode, whose base changed in place since.
    "grad of a multi-output view after its base changed": [
        f"v0 = {LEAF}",
        "v1 = (v0 * 1j).exp()",
        "v2, v3 = v1.chunk(2)",
        "v1[1:] = v0[0]",
        "v4 = v2.grad is None and v3.grad is None",
    ],
    "grad of a no-grad view after its base changed": [
        f"v0 = {LEAF}",
        "v1 = v0 * 2",
        "with torch.no_grad(): v2 = v1[:2]",
        f"v1.mul_({VALUE})",
        "v3 = v2.grad is None",
        "v4 = v2.requires_grad",
    ],
    # So do output_nr, requires_grad_, the requires_grad setter and retain_grad.
    "flags of stale views that may not get a new history": [
        f"v0 = {LEAF}",
        "v1 = v0 * 1",
        "with torch.no_grad(): v2 = v1[:2]",
        "v3, v4, v5, v6 = v1.unbind()",
        "v1.mul_(2)",
        "v7 = (v2.output_nr, v3.output_nr)",
        "v2.retain_grad(); v3.retain_grad()",
        "v8 = v2.requires_grad_().requires_grad",
        "v2.requires_grad = False",
        "v9 = v3.requires_grad_().is_leaf",
    ],
    # copy_ into an integer or bool target neither records nor checks the target (PyTorch's
    # copy_ clears requires_grad for it); the generated in-place ops still check.
    "copy_ into bool views of several outputs and of no-grad mode": [
        "v0 = torch.tensor([[1, 2, 3], [4, 5, 2]]) > 2",
        "v1, v2 = v0.unbind(0)",
        f"v3 = {VALUE}",
        "v4 = v1.copy_(v3)",
        "v2[1:] = v3",
        "with torch.no_grad(): v5 = v0.view(-1)",
        "v5[2:4] = v3",
        "v6 = torch.tensor([3, 4, 5]).split(1)[0]",
        "v6.fill_(v3)",
    ],
    # check_inplace reads the target's flags as set: a view without history whose base gained
    # one (through another view) is a leaf that requires grad; a view keeps the history it had
    # when its base was detached in place.
    "in-place through a stale view in one statement": [
        f"v0 = {LEAF}",
        "v1 = v0[3].detach()",
        "v2 = v1.view(-1)",
        f"v3 = {VALUE}",
        "v2[...] += v3",
    ],
    "in-place on a view while its base gains a history": [
        f"v0 = {VALUE}",
        "v1 = torch.zeros(4, dtype=torch.float64)",
        "v2 = v1[1:]",
        "v1.add_(v0); v2.mul_(2)",
    ],
    "in-place view op on a view while its base gains a history": [
        "v0 = torch.zeros(2, 2, dtype=torch.float64)",
        "v1 = v0[:, :]",
        f"v0.add_({VALUE}); v1.t_()",
    ],
    "full-slice augmented assignment into a view of a temporary": [
        "v0 = torch.arange(6.0, dtype=torch.float64).reshape(2, 3)",
        "v1 = v0.t().contiguous().view(3, 2)",
        "v2 = torch.tensor([[1.0, 2.0]], dtype=torch.float64, requires_grad=True)",
        "v1[:] *= v2",
    ],
    "view of a base detached in place": [
        f"v0 = {LEAF}",
        "v1 = v0 * 2",
        "v2 = v1.view(2, 2)",
        "v1.detach_()",
        "v3 = v2.flatten()",
        f"v3[[0, 0]] *= {VALUE}",
    ],
    # A view without history requires grad exactly while its root base does.
    "no-grad view of a base detached in place": [
        f"v0 = {LEAF}",
        "with torch.no_grad(): v1 = v0.reshape(-1)",
        "v0.detach_()",
        "v2 = v1 * 2",
    ],
    "no-grad view of a view whose base was detached in place": [
        "v0 = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=torch.float64, "
        "requires_grad=True)",
        "v1 = v0.T",
        "v0.detach_()",
        "with torch.no_grad(): v2 = v1[1]",
        "v3 = v2 * 2",
    ],
    "view of a tensor that starts to require grad": [
        "v0 = torch.tensor([[1.0, -2.0, 3.0]], dtype=torch.float64)",
        "v1 = v0.transpose(1, 0)",
        "v0.requires_grad_()",
        "v2 = v1[v1 > 0]",
        "v3 = v1 * 2",
        "v0.requires_grad_(False)",
        "v4 = v1 * 2",
    ],
    # x[a:b] = v skips the slice only for a start of 0 and a stop past the end as written:
    # x[1:] of an empty dimension is written through a slice view (CopySlices).
    "setitem of an empty slice": [
        "v0 = torch.zeros((0, 3), dtype=torch.float64, requires_grad=True)",
        "v1 = torch.tensor([0.35, 0.3, -0.15], dtype=torch.float64, requires_grad=True)",
        "v2 = torch.add(v0, v1)",
        "v2[1:] = torch.zeros((0, 3), dtype=torch.float64)",
        "v3 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)",
        "v2[:, 0] *= v3",
    ],
    # fill_ with a 0-d tensor in the target's memory reads it first (PyTorch clones it).
    "fill from an element of the target": [
        f"v0 = {LEAF}",
        "v1 = v0 * 2",
        "v1[:] = v1[2]",
        "v2 = (v0 * 3).sum()",
        "v3 = v2.reshape(-1)",
        "v3[None] = v2",
        "v4 = v0 * 1",
        "v5 = v4.fill_(v4[1])",
    ],
    # index_put_ of a one-element value through one boolean mask is PyTorch's masked_fill_
    # with value.item(): the value may lie in the target's memory (masked_fill_ too).
    "masked fill from an element of the target": [
        f"v0 = {LEAF}",
        "v1 = v0 * 1",
        "v1[v1 > 0] = v1[0]",
        "v2 = (v0 * 1).reshape(2, 2)",
        "v2[torch.tensor([True, False])] = v2[1, :1]",
        "v3 = (v0 * 1).reshape(2, 2)",
        "v3[:, torch.tensor([False, True])] = v3[0, 0]",
        "v4 = v0 * 1",
        "v4.masked_fill_(v4 < 0, v4[3])",
        "v5 = v0 * 1",
        "v5.index_put_((v5 > 1,), v5[1:2])",
        "v6 = v0 * 1",
        "v6[v6 > 0] = v6[:2]",
    ],
    # The very same tensor as target and source overlaps fully even when empty: PyTorch's
    # get_overlap_status compares the TensorImpls first (a full slice is the tensor itself).
    "the very same empty tensor written into itself": [
        "v0 = torch.zeros((0,), dtype=torch.float64)",
        "v1 = torch.zeros((0,), dtype=torch.int64)",
        "v0[torch.zeros((0,), dtype=torch.bool)] = v0",
        "v0.index_put_((v1,), v0, accumulate=True)",
        "v0.index_add_(0, v1, v0)",
        "v0.index_copy_(0, v1, v0)",
        "v0.put_(v1, v0)",
        "v0.scatter_(0, v1, v0)",
        "v0.add_(v0)",
        "v2 = torch.zeros((0, 2), dtype=torch.float64)",
        "v2[:, torch.tensor([True, False])] = v2",
        "v2[0:0, ..., torch.tensor([True, False])] = v2",
        "v2[1:, torch.tensor([True, False])] = v2",
    ],
    # An elementwise op in place into overlapping windows (unfold with step < size) computes
    # element after element in TensorIterator's order, each reading what the ones before
    # wrote (seed 110130); the gradients go through CopySlices over the overlapping view.
    "elementwise in place into overlapping unfold windows": [
        "v0 = torch.tensor([0.5, -1.5, 2.0, 3.0, -0.25, 1.25, 0.75], dtype=torch.float64, "
        "requires_grad=True)",
        "v1 = v0 * 1",
        "v2 = v1.unfold(0, 2, 1)",
        "v3 = torch.tensor([[0.3, -1.2], [0.7, 0.4], [-0.6, 1.1], [0.2, -0.9], [1.3, 0.5], "
        "[-0.8, 0.6]], dtype=torch.float64, requires_grad=True)",
        "v2.mul_(v3)",
        "v4 = v1.unfold(0, 3, 2)",
        "v4.atan_()",
        "v5 = v1.unfold(0, 2, 1).t()",
        "v5.add_(v3.t(), alpha=0.5)",
        "v6 = v1.detach().unfold(0, 3, 1)",
        "v6.mul_(v6)",
    ],
    # index_put_ (x[key] = v) validates its index tensors after the autograd check and the
    # overlap check, as PyTorch's kernel: a mask of another shape or an index out of bounds
    # loses to "a leaf Variable ..." and to the overlap error; out of bounds also to the
    # value's shape mismatch.
    "index validation after the autograd and overlap checks": [
        f"v0 = {LEAF}",
        "v0[torch.tensor([True, False, True])] = 1.0",
        "v0[torch.tensor([7])] = torch.zeros(2, dtype=torch.float64)",
        "v0.index_put_((torch.tensor([9]),), torch.zeros(1, dtype=torch.float64))",
        "v1 = torch.zeros(2, dtype=torch.float64)",
        "v1[torch.tensor([True, True, False])] = v1",
        "v1[torch.tensor([5])] = v1",
        "v1[torch.tensor([5])] = torch.zeros(3, dtype=torch.float64)",
        "v1[torch.tensor([True, False, True])] = torch.zeros(3, dtype=torch.float64)",
    ],
    # A stale view used as the source of an in-place op is asked for its history.
    "copy from a no-grad view whose base changed": [
        f"v0 = {LEAF}",
        "v1 = v0 * 1",
        "with torch.no_grad(): v2 = v1[:2]",
        "v1.mul_(2)",
        "v3 = torch.zeros(2, dtype=torch.float64)",
        "v3.copy_(v2)",
    ],
    # An AccumulateGrad reached after its leaf was detached and given a history in place.
    "leaf moved into the graph interior": [
        f"v0 = {LEAF}",
        "v1 = v0 * 2",
        "v0.detach_()",
        f"v0[torch.tensor([2])] += {VALUE}",
    ],
    "leaf detached in place after use": [f"v0 = {LEAF}", "v1 = v0 * v0", "v0.detach_()"],
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_view_program_agrees_with_pytorch(name: str) -> None:
    assert check(PROGRAMS[name], seed=0) is None


def test_indexing_with_a_full_slice_is_a_slice() -> None:
    def names(lib: object) -> list:
        x = lib.zeros(3, 2, requires_grad=True) * 1  # type: ignore[attr-defined]
        views = [x[:], x[0:3], x[0:7], x[:, :], x[...], x[0:, 1]]
        return [v.grad_fn.name() for v in views]

    assert names(glassgrad) == names(torch)
