"""Writes whose source lies in the target's memory, setitem values, what is saved and which
nodes a second derivative passes: the classes of difference found by fuzz seeds
160000-168059 and 200000-202689 (issue 14), each as short programs run under glassgrad and
PyTorch and compared as the fuzzer compares them (values after every statement, errors, first
and second derivatives, hooks).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

import glassgrad

from .program import check

ROW = "torch.tensor([{}], dtype=torch.{}, requires_grad=True)"


def _row(n: int, dtype: str = "float64") -> str:
    values = np.random.default_rng(n).standard_normal(n).round(3)
    return ROW.format(", ".join(str(v) for v in values), dtype)


PROGRAMS = {
    # PyTorch's get_overlap_status: the same memory is a full overlap only with the very same
    # strides, those of size-1 dimensions included (seed 160210: a 1-element v[::2] has
    # stride 2, v stride 1); expand gives a new leading dimension PyTorch's stride, so
    # x[None] = x copies onto the same memory while x[None].copy_(x) overlaps in part.
    "full or partial overlap by the strides of size-1 dimensions": [
        "v0 = torch.tensor([-0.766621], dtype=torch.float64)",
        "v1 = v0 + v0",
        "v1[::2] = v1",
        "v1[::2].add_(v1)",
        "v2 = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)",
        "v2[None] = v2",
        "v2[None].copy_(v2)",
        "v2.copy_(v2[None])",
        "v2.add_(v2[None])",
        "v2.add_(v2.view(3))",
        "v3 = v2.expand(1, 3).stride() == (3, 1) and v2[:1].expand(1, 1).stride() == (1, 1)",
        "v4 = v2.view(3, 1).expand(2, 3, 4).stride()",
    ],
    # A source in the target's memory that PyTorch cannot classify (not dense): its kernel
    # reads each element as the elements before it left it (seed 160782), in TensorIterator's
    # order, a vectorized row reading 2 vectors before writing them.
    "sources overlapping the target in memory": [
        "v0 = torch.combinations(torch.tensor([1, 2, 3], dtype=torch.int64), 2)",
        "v0.add_(v0.diagonal().view(-1))",
        f"v1 = {_row(40)} * 1",
        "v2 = v1.view(2, 20)",
        "v2[:, 1:].add_(v2[:, :-1])",
        "v2[:, 1:].mul_(v2[:, :-1], )",
        "v2[:, 2:].addcmul_(v2[:, 1:-1], v2[:, :-2], value=0.5)",
        "v2[:, 1:].lerp_(v2[:, :-1], 0.3)",
        "v2[:, 1:].copy_(v2[:, :-1] * 1 + v2[:, 1:])",
        "v2[:, :19] = v2[:, 1:]",
        "v2[:, 1:] = v2[:, :-1]",
        "v2[:, :4].mul_(v2[1, 2])",
        "v1[2::2].sub_(v1[:8:2], alpha=0.5)",
        "v1.view(4, 10)[:3, :3].div_(v1.view(4, 10)[1:, 1:].t() + 3)",
        f"v3 = {_row(36, 'float32')} * 1",
        "v3.view(2, 18)[:, 1:].add_(v3.view(2, 18)[:, :-1])",
        "v4 = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]], dtype=torch.int64)",
        "v4[:, 1:].bitwise_xor_(v4[:, :-1])",
        "v4[:, 1:].lt_(v4[:, :-1])",
        "v4[:, 1:].logical_or_(v4[:, :-1])",
        "v4[:, 1:].floor_divide_(v4[:, :-1] + 1)",
    ],
    "sources overlapping the target: kernels with other vector widths": [
        f"v0 = {_row(42)} * 1",
        "v1 = v0.view(2, 21)",
        "v1[:, 1:].atan2_(v1[:, :-1])",
        "v1[:, 1:].hypot_(v1[:, :-1])",
        "v2 = v1.abs() + 0.5",
        "v2[:, 1:].xlogy_(v2[:, :-1])",
        "v2[:, 1:].pow_(v2[:, :-1])",
    ],
    # out= of a TensorIterator kernel checks out's memory against the inputs as an in-place
    # write does (a partial overlap raises; one PyTorch cannot classify is read element after
    # element); cat refuses any overlap with an input.
    "out= overlapping an input": [
        "v0 = torch.arange(12, dtype=torch.float64) * 1.5",
        "v1 = torch.add(v0[1:], v0[:-1], out=v0[:-1])",
        "v2 = torch.exp(v0[1:], out=v0[:-1])",
        "v3 = torch.add(v0, v0, out=v0)",
        "v4 = v0.view(3, 4)",
        "v5 = torch.add(v4[:, 1:], v4[:, :-1], alpha=0.5, out=v4[:, 1:])",
        "v6 = torch.mul(v4[:, :3], 0.5, out=v4[:, 1:])",
        "v7 = torch.neg(v4[:, :3], out=v4[:, 1:])",
        "v8 = torch.atan2(v4[:, :3], v4[:, 1:], out=v4[:, 1:])",
        "v9 = torch.cat([v0[:3], v0[3:6]], out=v0[:6])",
        "v10 = torch.stack([v0[:3], v0[3:6]], out=v0[6:].view(2, 3))",
        "v11 = torch.cat([v0[:3], v0[3:6]], out=v0[6:])",
        "v12 = torch.zeros(3, dtype=torch.float64).expand(2, 3)",
        "v13 = torch.add(v4[:2, :3], 1, out=v12)",
    ],
    # A view made in no-grad mode of a leaf requires grad, but has no edge: an op taking it
    # saves nothing for its gradient (PyTorch's should_compute_output), so changing the other
    # operand in place afterwards is no error (seed 202169).
    "nothing saved for the gradient of a no-grad view": [
        "v0 = torch.tensor([[0.39, -1.81, 1.32, 0.3]], dtype=torch.float64, requires_grad=True)",
        "with torch.no_grad(): v1 = v0[:, 1:]",
        "v2 = v1.clone()",
        "v3 = v1 * v2",
        "v4 = v2 * v1",
        "v5 = torch.addcmul(v2, v1, v2)",
        "v2.clamp_(min=-0.5)",
    ],
    # PyTorch's valueToTensor: a tensor, a Python or NumPy integer, a bool, a float or a
    # complex number; a tuple or list (of tensors, of numbers) is a TypeError (seed 166363),
    # checked before the key is read.
    "setitem values that are not tensors": [
        "v0 = torch.zeros((0,), dtype=torch.float64, requires_grad=True)",
        "v1 = v0.detach()",
        "v2 = v1.split(1, 0)",
        "v1[1:] = v2",
        "v3 = torch.zeros(2, dtype=torch.float64)",
        "v3[:] = [1.0, 2.0]",
        "v3[0] = (1.0,)",
        "v3[torch.tensor([0])] = [3.0]",
        "v3[7] = [3.0]",
        "v3[:] = None",
        "v3[:] = 2j",
        "v3[:] = 1 + 0j",
        "v3[1] = True",
        "v4 = torch.zeros(2, dtype=torch.int8)",
        "v4[0] = 300",
        "v4[1] = 2.7",
    ],
    # PyTorch's double backward of group norm reads the mean and rstd it saved, outputs of
    # the forward node: a second derivative runs that node, and a hook on its result sees
    # None there (seed 161210).
    "a second derivative through group norm's statistics": [
        "v0 = torch.tensor([[[-0.88, 0.41, 0.99], [0.38, 0.12, -0.47]], [[-1.14, 1.14, -0.18], "
        "[-1.14, -0.27, -2.44]]], dtype=torch.float64, requires_grad=True)",
        "v1 = torch.tensor([-0.49, 0.99], dtype=torch.float64, requires_grad=True)",
        "v2 = torch.tensor([0.3, -0.2], dtype=torch.float64, requires_grad=True)",
        "v3 = torch.nn.functional.group_norm(v0, 1, v1.detach())",
        "_ = v3.register_hook(hook('h3'))",
        "v4 = torch.nn.functional.group_norm(v0 * 2, 2, v1, v2)",
        "_ = v4.register_hook(hook('h4'))",
    ],
    # Indexed writes into a tensor whose elements share memory without a zero stride
    # (overlapping unfold windows: PyTorch's overlap check answers TooHard and lets them
    # through): only the indexed elements are written, one after the other in the kernel's
    # order, an accumulating write reading what the earlier ones left (seed 300032:
    # glassgrad wrote the whole window tensor back, so an alias of a written element that
    # was not indexed restored its old value).
    "indexed writes into overlapping windows": [
        "v0 = torch.arange(1.0, 13.0, dtype=torch.float64)",
        "v1 = v0.unfold(0, 4, 2)",
        "v1[[1, 0]] = torch.arange(8.0, dtype=torch.float64).view(2, 4) + 10",
        "v1[[4, 0]] += torch.tensor([100.0, 200.0, 300.0, 400.0], dtype=torch.float64)",
        "v1[:, [1, 2]] = torch.tensor([[10.0, 20.0]], dtype=torch.float64)",
        "v1[torch.tensor([True, False, True, False, True])] = torch.tensor(5.0, dtype=torch.float64)",
        "v1.index_put_((torch.tensor([0, 1, 1]),), torch.ones(3, 4, dtype=torch.float64), True)",
        "v1.index_add_(0, torch.tensor([0, 1]), torch.ones(2, 4, dtype=torch.float64))",
        "v1.index_add_(1, torch.tensor([0, 2]), torch.ones(5, 2, dtype=torch.float64), alpha=2)",
        "v2 = torch.tensor([[0, 1, 2, 3], [1, 2, 3, 4]])",
        "v1.scatter_(0, v2, torch.arange(8.0, dtype=torch.float64).view(2, 4) - 4)",
        "v1.scatter_(1, v2[:, :2], 7.0)",
        "v1.scatter_add_(0, v2, torch.arange(8.0, dtype=torch.float64).view(2, 4))",
        "v1.scatter_reduce_(0, v2, torch.arange(8.0, dtype=torch.float64).view(2, 4), 'prod')",
        "v1.scatter_reduce_(0, v2, torch.arange(8.0, dtype=torch.float64).view(2, 4), 'amax', "
        "include_self=False)",
        "v1.scatter_reduce_(0, v2, torch.arange(8.0, dtype=torch.float64).view(2, 4), 'mean')",
        "v1.index_reduce_(0, torch.tensor([0, 1]), torch.full((2, 4), 3.0, dtype=torch.float64), "
        "'prod')",
        "v1.masked_fill_(torch.tensor([True, False, True, False]), -2.0)",
        "v1.masked_scatter_(v1 > 5, torch.arange(100.0, 120.0, dtype=torch.float64))",
        "v1.put_(torch.tensor([1, 4, 9]), torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))",
        "v1.put_(torch.tensor([2, 6]), torch.tensor([8.0, 9.0], dtype=torch.float64), True)",
        "v1.masked_scatter_(torch.tensor([False, False, True, False]), torch.arange(5.0, "
        "dtype=torch.float64))",
        "v1.index_fill_(0, torch.tensor([0, 1]), -1.0)",
        "v1.index_fill_(1, torch.tensor([3, -4]), -3.0)",
        "v1.index_copy_(0, torch.tensor([1, 0]), torch.arange(8.0, dtype=torch.float64).view(2, 4))",
        "v1.index_copy_(1, torch.tensor([3, 0]), torch.full((5, 2), 7.0, dtype=torch.float64))",
        "v1.fill_diagonal_(-5.0)",
        "v1.tril_()",
        "v1.triu_(1)",
    ],
    # The same writes recorded: CopySlices on the base of the windows, first and second
    # derivatives.
    "recorded indexed writes into overlapping windows": [
        "v0 = " + ROW.format("0.0675, 0.656, 1.956, 1.118, -0.083, -0.34, 0.686", "float64"),
        "v1 = v0 * 1",
        "v2 = v1.unfold(0, 2, 1)",
        "v3 = torch.tensor([-0.96, 0.42], dtype=torch.float64, requires_grad=True)",
        "v2[[5, 0]] += v3",
        "v2[[1, 0]] = v3 * v3",
        "v2.index_add_(0, torch.tensor([2, 3]), torch.stack([v3, v3 * 2]))",
        "v2.scatter_(0, torch.tensor([[0, 1]]), v3[None] ** 2)",
    ],
    # float_power_ is pow_ with the exponent cast (a tensor of the wide dtype stays itself),
    # heaviside_, gcd_, lcm_ and the shifts are TensorIterator kernels of their own, xlogy_ of
    # a number is xlogy's kernel, ldexp_ is mul_ by pow(2, other): a source that overlaps the
    # target where PyTorch's check cannot tell, or a target whose windows overlap, is read as
    # the kernel reads it (the vector widths measured: none for heaviside, gcd, lcm, xlogy;
    # 256 bits for the shifts and mul). mvlgamma_ copies a result computed apart.
    "kernels written in place over the memory they read": [
        "v0 = torch.linspace(0.5, 1.5, 82, dtype=torch.float64).view(2, 41)",
        "v0[:, 1:].float_power_(v0[:, :-1])",
        "v0.unfold(1, 3, 2).float_power_(2.0)",
        "v1 = (torch.arange(82) % 7 - 3).view(2, 41)",
        "v1[:, 1:].heaviside_(v1[:, :-1])",
        "v2 = torch.arange(1, 83).view(2, 41)",
        "v2[:, 1:].gcd_(v2[:, :-1])",
        "v3 = (torch.arange(82) % 3 + 1).view(2, 41)",
        "v3[:, 1:].lcm_(v3[:, :-1])",
        "v4 = (torch.arange(82) % 4).view(2, 41)",
        "v4[:, 1:].bitwise_right_shift_(v4[:, :-1])",
        "v5 = (torch.arange(82) % 2).view(2, 41)",
        "v5[:, 1:].bitwise_left_shift_(v5[:, :-1])",
        "v6 = torch.linspace(0.5, 2.0, 12, dtype=torch.float64)",
        "v6.unfold(0, 4, 2).xlogy_(2.0)",
        "v6.unfold(0, 4, 2).ldexp_(torch.tensor([1, 2, 3, 4]))",
        "v6.unfold(0, 4, 2).abs_().mvlgamma_(1)",
    ],
    # out= of TensorIterator kernels that write through out_result directly (the unary
    # special functions, lgamma, digamma, polygamma, angle, sgn, the incomplete gammas,
    # xlogy, zeta) and of where: out is checked against the inputs as an in-place write is
    # (an expanded out, a partial overlap raise) and an input PyTorch cannot classify is
    # read as the kernel reads it (vector widths measured: none for erfcx, ndtri, log_ndtr,
    # sinc, entr, i1, i1e, polygamma, zeta, where; 256 bits for i0e, angle, lgamma, digamma,
    # erfc in float64; 512 for logit, sgn).
    "out= of kernels over the memory they read": [
        "v0 = torch.linspace(-0.9, 0.9, 82, dtype=torch.float64).view(2, 41)",
        "_ = torch.special.erfcx(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.special.log_ndtr(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.sinc(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.erfc(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.special.i0e(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.special.i1(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.special.i1e(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.sgn(v0[:, :-1] - 0.5, out=v0[:, 1:])",
        "_ = torch.sgn(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.angle(v0[:, :-1], out=v0[:, 1:])",
        "_ = torch.where(v0[:, :-1] > 0.5, v0[:, :-1], -0.5, out=v0[:, 1:])",
        "_ = torch.where(v0[:, :-1] > 0.5, v0[:, :-1], v0[0, :-1] * 0, out=v0[:, 1:])",
        "v1 = torch.linspace(0.1, 0.9, 82, dtype=torch.float64).view(2, 41)",
        "_ = torch.logit(v1[:, :-1], out=v1[:, 1:])",
        "v1 = torch.linspace(0.1, 0.9, 82, dtype=torch.float64).view(2, 41)",
        "_ = torch.special.ndtri(v1[:, :-1], out=v1[:, 1:])",
        "v2 = torch.linspace(0.1, 0.9, 82, dtype=torch.float64).view(2, 41)",
        "_ = torch.special.entr(v2[:, :-1], out=v2[:, 1:])",
        "_ = torch.lgamma(v2[:, :-1], out=v2[:, 1:])",
        "_ = torch.digamma(v2[:, :-1], out=v2[:, 1:])",
        "_ = torch.polygamma(1, v2[:, :-1], out=v2[:, 1:])",
        "v3 = torch.linspace(0.1, 0.9, 82, dtype=torch.float64).view(2, 41)",
        "_ = torch.igamma(v3[:, :-1], v3[:, 1:] * 2, out=v3[:, 1:])",
        "_ = torch.xlogy(v3[:, :-1], 2.0, out=v3[:, 1:])",
        "_ = torch.special.zeta(v3[:, :-1] + 2, 1.5, out=v3[:, 1:])",
        "v4 = torch.linspace(0.1, 0.9, 6, dtype=torch.float64)",
        "_ = torch.special.erfcx(v4[:4], out=v4[2:])",
        "_ = torch.where(v4[:4] > 0.5, v4[:4], v4[:4] * 0, out=v4[2:])",
        "_ = torch.sinc(v4[:3], out=torch.zeros(1, dtype=torch.float64).expand(3))",
        "_ = torch.special.i1(v4, out=v4)",
    ],
    # index_fill(_) and index_copy(_) are kernels of their own (IndexFillBackward0/1,
    # IndexCopyBackward0): of a repeated index_copy index the last slice stays (glassgrad
    # added them), index_fill_ into an expanded tensor only warns, PyTorch's argument errors.
    "index_fill and index_copy": [
        "v0 = " + _row(6),
        "v1 = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)",
        "v2 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64, requires_grad=True)",
        "v3 = v0.view(2, 3).index_copy(1, torch.tensor([2, 2]), v2 * 2)",
        "v4 = v0.view(2, 3).index_fill(1, torch.tensor([0, 0, -1]), v1)",
        "v5 = v0.view(3, 2).index_fill(0, torch.tensor([1]), 2.5)",
        "v6 = v3 * 1",
        "v6.index_copy_(0, torch.tensor([1]), v2[:1, :1].expand(1, 3) * v1)",
        "v6.index_fill_(1, torch.tensor([1]), v1 * 3)",
        "v7 = torch.zeros(1, dtype=torch.float64).expand(3)",
        "v7.index_fill_(0, torch.tensor([1]), 2.0)",
        "v7.index_copy_(0, torch.tensor([1]), torch.ones(1, dtype=torch.float64))",
        "v8 = torch.zeros(3, dtype=torch.float64)",
        "v8.index_copy_(0, torch.tensor([-1]), torch.ones(1, dtype=torch.float64))",
        "v8.index_copy_(0, torch.tensor([1, 2]), torch.ones(3, dtype=torch.float64))",
        "v8.index_copy_(0, torch.tensor([1]), torch.ones(1, 3, dtype=torch.float64))",
        "v8.index_fill_(0, torch.tensor([[1]]), 1.0)",
        "v8.index_fill_(0, torch.tensor([7]), 1.0)",
        "v8.index_fill_(0, torch.tensor([1], dtype=torch.int32), 1.0)",
        "v8.index_copy_(0, torch.tensor([0, 0, 2]), torch.tensor([2.0, 5.0, 1.0], dtype=torch.float64))",
    ],
    # PyTorch's scan kernels (cpu_cum_base_kernel: cumsum, cumprod, logcumsumexp) scan one
    # line after the other in TensorIterator's order, each element read as the writes
    # before it left the memory, in PyTorch's accumulator; cummax/cummin's out= is not
    # checked at all (tensor_dim_apply3, the first dim fastest); renorm_ takes its factor
    # from the whole tensor, then writes mul_out(self, factor) in mul's kernel order.
    "scans and renorm_ written over the memory they read": [
        "v0 = " + _row(12),
        "v1 = v0 * 1",
        "v2 = v1.unfold(0, 4, 2)",
        "v2.cumsum_(1)",
        "v2.cumprod_(0)",
        "v3 = v1.as_strided((4, 3), (2, 3))",
        "v3.t().cumsum_(0)",
        "v2.renorm_(2, 0, 1.5)",
        "v2.renorm_(1, 1, 0.5)",
        "v4 = torch.arange(1.0, 13.0, dtype=torch.float32)",
        "v5 = v4.unfold(0, 4, 2)",
        "_ = torch.logcumsumexp(v5, 1, out=v5)",
        "_ = torch.cumsum(v5, 0, out=v5)",
        "_ = torch.cumprod(v4.view(3, 4)[:, :3], 1, out=v4.view(3, 4)[:, 1:])",
        "_ = torch.cumsum(v4[:6], 0, out=v4[3:9])",
        "_ = torch.cummax(v5, 1, out=(v5, torch.zeros(5, 4, dtype=torch.int64)))",
        "_ = torch.cummin(v4[:6], 0, out=(v4[3:9], torch.zeros(6, dtype=torch.int64)))",
        "v6 = (torch.arange(12) % 5 - 2).unfold(0, 3, 1)",
        "v6.cumsum_(1)",
        "_ = torch.cummin(v6, 0, out=(v6, torch.zeros(10, 3, dtype=torch.int64)))",
        "v7 = torch.ones(3, dtype=torch.float64).expand(2, 3)",
        "v7.cumsum_(1)",
        "v7.renorm_(2, 0, 1.0)",
        "v8 = torch.arange(4).view(2, 2).renorm(2, 0, 1.0)",
    ],
    # An index out of bounds is found by PyTorch's index kernels inside their loops: the
    # elements before it, in the kernel's order, are written, the version stays (it is bumped
    # after the kernel). index_add_ refuses negative indices; its scatter_add path (dim first
    # or last, alpha 1) raises scatter's RuntimeError, its slice loop an IndexError.
    "indexed writes stopped by an index out of bounds": [
        "v0 = torch.zeros(4, 5, dtype=torch.float64)",
        "v0[torch.tensor([0, 1, 7, 2])] = torch.arange(20.0, dtype=torch.float64).view(4, 5)",
        "v0[:, torch.tensor([0, 7])] = 1.5",
        "v0[torch.tensor([[0], [1], [5]]), torch.tensor([1, 2])] = 2.5",
        "v0.index_put_((torch.tensor([1, 3, -9]),), torch.ones(5, dtype=torch.float64), True)",
        "v0.index_copy_(1, torch.tensor([0, 9]), torch.full((4, 2), 3.0, dtype=torch.float64))",
        "v0.index_fill_(1, torch.tensor([2, -1, 5]), 4.0)",
        "v0.t().index_fill_(0, torch.tensor([3, 6]), 4.5)",
        "v0.scatter_(0, torch.tensor([[1, 2, 3], [0, 4, 1]]), 5.0)",
        "v0.scatter_(1, torch.tensor([[1, 2], [0, -1]]), torch.full((2, 2), 6.0, dtype=torch.float64))",
        "v0.scatter_add_(0, torch.tensor([[1, 2], [9, 0]]), torch.ones(2, 2, dtype=torch.float64))",
        "v0.scatter_reduce_(1, torch.tensor([[1, 5]]), torch.ones(1, 2, dtype=torch.float64), "
        "'amax', include_self=False)",
        "v0.index_add_(0, torch.tensor([2, -1]), torch.ones(2, 5, dtype=torch.float64))",
        "v0.index_add_(1, torch.tensor([2, 8]), torch.ones(4, 2, dtype=torch.float64), alpha=2)",
        "v0.view(-1).index_add_(0, torch.tensor([3, 40]), torch.ones(2, dtype=torch.float64))",
        "v0.index_reduce_(0, torch.tensor([1, 6]), torch.ones(2, 5, dtype=torch.float64), "
        "'prod', include_self=False)",
        "v0.index_reduce_(1, torch.tensor([1, -1]), torch.ones(4, 2, dtype=torch.float64), 'amin')",
        "v0.put_(torch.tensor([3, -2, 25]), torch.tensor([7.0, 8.0, 9.0], dtype=torch.float64))",
        "v0.masked_scatter_(torch.tensor([True, False, True, True, False]), "
        "torch.arange(10.0, dtype=torch.float64))",
        "v1 = torch.take(v0, torch.tensor([1, 99]))",
        "v2 = torch.zeros(0, 3, dtype=torch.float64).index_add_(1, torch.tensor([9]), "
        "torch.ones(0, 1, dtype=torch.float64))",
        "v3 = torch.arange(10.0, dtype=torch.float64).unfold(0, 4, 2)",
        "v3.scatter_(1, torch.tensor([[3, 0, 8]]), -1.0)",
        "v3.put_(torch.tensor([-1, 5, 30]), torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64))",
        "v4 = " + ROW.format("0.5, -1.25, 2.0, 0.75", "float64"),
        "v5 = v4 * 1",
        "v5[torch.tensor([1, 6])] = v4[:2] * 3",
        "v5.index_add_(0, torch.tensor([0, 4]), v4[:2])",
        "v6 = torch.zeros(3, dtype=torch.float64, requires_grad=True)",
        "v6.scatter_(0, torch.tensor([5]), 1.0)",
        "v6.put_(torch.tensor([5]), torch.ones(1, dtype=torch.float64))",
        "v6.index_add_(0, torch.tensor([5]), torch.ones(1, dtype=torch.float64))",
        "v6.masked_scatter_(torch.tensor([True, True, False]), torch.ones(1, dtype=torch.float64))",
        # the overlap checks come first: an expanded target, a source in the target's memory
        "v7 = torch.zeros(1, 3, dtype=torch.float64)",
        "v7.expand(4, 3).scatter_(0, torch.tensor([[1, 2, 9]]), 5.0)",
        "v7.expand(4, 3).index_add_(0, torch.tensor([0, 9]), torch.ones(2, 3, dtype=torch.float64))",
        "v7.expand(4, 3).put_(torch.tensor([0, 99]), torch.ones(2, dtype=torch.float64))",
        "v7.view(-1).scatter_(0, torch.tensor([1, 9]), v7.view(-1)[:2])",
        "v7.view(-1).put_(torch.tensor([1, 9]), v7.view(-1)[:2])",
    ],
}


def test_index_fill_and_copy_record_pytorchs_nodes() -> None:
    names = []
    for lib in (torch, glassgrad):
        x = lib.zeros(2, 3, requires_grad=True) * 1
        value = lib.tensor(1.0, requires_grad=True)
        source = lib.ones(2, 1, requires_grad=True)
        index = lib.tensor([0])
        results = [
            x.index_fill(1, index, 1.0),
            x.index_fill(1, index, value),
            x.index_copy(1, index, source),
            (x * 1).index_fill_(1, index, 1.0),
            (x * 1).index_copy_(1, index, source),
            (x * 1).put_(index, lib.ones(1)),
            (x.double() * 1).float_power_(2),
        ]
        names.append([r.grad_fn.name() for r in results])
    assert names[0] == names[1]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_overlap_program_agrees_with_pytorch(name: str) -> None:
    assert check(PROGRAMS[name], seed=0) is None


def test_setitem_value_error_names_the_type_as_pytorch() -> None:
    for value in ([1.0], (1.0,), np.zeros(2), np.float32(1.0), np.bool_(True), "a"):
        messages = []
        for lib in (torch, glassgrad):
            x = lib.zeros(2, dtype=lib.float64)
            with pytest.raises(TypeError) as info:
                x[:] = value
            messages.append(str(info.value))
        assert messages[0] == messages[1]
