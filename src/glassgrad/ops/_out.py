"""PyTorch's ``out=`` rules, in one place: a function computes its result as usual, then
``out_result`` writes it into the caller's tensor(s).

- Under grad mode, an input or an ``out`` tensor that requires grad is refused (PyTorch:
  out= functions do not support automatic differentiation), except for ops PyTorch records
  with a ``NotImplemented`` node: ``out`` then takes that node as its history.
- The result must cast to ``out``'s dtype in the same kind (float into double, not float
  into long); it is cast.
- An ``out`` of another shape is resized (with PyTorch's deprecation warning when it held
  elements); its history and ``requires_grad`` stay as they were.
"""

from __future__ import annotations

import functools
import inspect
import types
import warnings
from typing import Any

import numpy as np

from .._dtype import (
    c_type_name,
    can_cast,
    default_numpy_float,
    scalar_type_name,
    to_numpy_dtype,
)
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from ..autograd.grad_mode import state as grad_state
from ..autograd.graph import data_replaced
from ..autograd.inplace_record import note_write
from ..autograd.kernel_order import reads_written_memory, write_in_kernel_order
from ..autograd.mutation import before_write, write_hooks
from ..autograd.op import check_source_overlap
from ..autograd.views import OVERLAP_WRITE_ERROR, internal_overlap, rebase_history
from ._common import check_tensor
from ._not_implemented import _not_implemented_node, computed_result
from ._registry import REGISTRY
from ._signed import signed_wrapper

__all__ = [
    "WITHOUT_OUT",
    "check_out_dtypes",
    "kernel_out",
    "out_result",
    "pointwise_out",
    "recorded_as_not_implemented",
    "takes_out",
    "with_out",
    "without_out",
    "write_into",
]

# The registry's public functions that PyTorch 2.13 gives no ``out=`` (views, composites
# written in Python, most of nn.functional), by namespace: each refuses the keyword as
# PyTorch does (TypeError: unexpected keyword argument 'out'). Read from PyTorch by calling
# each function with ``out=``; tests/api/test_out_parity.py keeps the table true.
WITHOUT_OUT: dict[str, frozenset[str]] = {
    "": frozenset(
        """
        adjoint allclose alpha_dropout argwhere as_strided as_strided_scatter atleast_1d
        atleast_2d atleast_3d bincount binomial block_diag broadcast_tensors broadcast_to
        cartesian_prod cdist chunk clone combinations conj contiguous corrcoef count_nonzero
        cov cumulative_trapezoid det diag_embed diagflat diagonal diagonal_scatter dist
        dropout dsplit einsum expand expand_as feature_alpha_dropout feature_dropout flatten
        flip fliplr flipud gradient histogramdd hsplit imag index_fill index_put isclose
        isfinite isinf isnan istft lobpcg logdet masked_fill masked_scatter matrix_exp
        meshgrid moveaxis movedim narrow pca_lowrank permute pinverse poisson positive put
        ravel real relu repeat repeat_interleave reshape reshape_as resize roll rot90 rsub
        select select_scatter split split_with_sizes squeeze std_mean stft sum_to_size
        svd_lowrank swapaxes swapdims t tensor_split tile to trace transpose trapezoid trapz
        unbind unflatten unfold unique unique_consecutive unsafe_chunk unsafe_split
        unsafe_split_with_sizes unsqueeze vander var_mean view view_as view_as_complex
        view_as_real vsplit
        """.split()
    ),
    "nn.functional": frozenset(
        """
        adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d adaptive_max_pool1d
        adaptive_max_pool1d_with_indices adaptive_max_pool2d
        adaptive_max_pool2d_with_indices adaptive_max_pool3d
        adaptive_max_pool3d_with_indices affine_grid alpha_dropout avg_pool1d batch_norm
        bilinear binary_cross_entropy binary_cross_entropy_with_logits celu channel_shuffle
        conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
        cosine_embedding_loss cosine_similarity cross_entropy ctc_loss dropout dropout1d
        dropout2d dropout3d elu embedding embedding_bag feature_alpha_dropout fold
        fractional_max_pool2d fractional_max_pool2d_with_indices fractional_max_pool3d
        fractional_max_pool3d_with_indices gaussian_nll_loss glu grid_sample group_norm
        gumbel_softmax hardsigmoid hardswish hardtanh hinge_embedding_loss huber_loss
        instance_norm interpolate kl_div l1_loss layer_norm leaky_relu linear_cross_entropy
        local_response_norm log_softmax lp_pool1d lp_pool2d lp_pool3d margin_ranking_loss
        max_pool1d max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d
        max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d mish mse_loss
        multi_margin_loss multilabel_margin_loss multilabel_soft_margin_loss
        native_channel_shuffle nll_loss one_hot pad pairwise_distance pdist pixel_shuffle
        pixel_unshuffle poisson_nll_loss prelu relu relu6 rms_norm rrelu selu sigmoid silu
        smooth_l1_loss soft_margin_loss softmax softmin softsign tanh tanhshrink threshold
        triplet_margin_loss triplet_margin_with_distance_loss unfold upsample
        upsample_bilinear upsample_nearest
        """.split()
    ),
    "linalg": frozenset(
        """
        diagonal matrix_exp vander
        """.split()
    ),
    "special": frozenset(
        """
        log_softmax softmax
        """.split()
    ),
    "fft": frozenset(
        """
        fftshift ifftshift
        """.split()
    ),
}


def _autograd_error(op: str) -> RuntimeError:
    return RuntimeError(
        f"{op}(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad."
    )


def refuse_autograd(op: str, out: Any, inputs: tuple) -> None:
    """PyTorch's autograd refusal of ``out=`` (its VariableType check, before the kernel),
    for an op whose results are differentiable: under grad mode, no input and no ``out``
    tensor may require grad."""
    if not grad_state.enabled:
        return
    outs = out if isinstance(out, (tuple, list)) else (out,)
    tensors = (*outs, *inputs)
    if any(isinstance(x, Tensor) and x.requires_grad for x in tensors):
        raise _autograd_error(op)


def check_out_dtypes(op: str, out: Any, inputs: tuple, dtypes: tuple) -> None:
    """PyTorch's ``check_scalar_type_device_layout_equal``, which some out= kernels
    (logcumsumexp, cummax, cummin) make before they compute, after the autograd refusal:
    each ``out`` tensor has exactly its dtype of ``dtypes`` (no casting)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if not all(isinstance(o, Tensor) for o in outs):
        return  # the parser's TypeError, raised by out_result
    refuse_autograd(op, outs, inputs)
    for o, dtype in zip(outs, dtypes):
        if o._data.dtype != dtype:
            raise RuntimeError(
                f"expected scalar_type {scalar_type_name(dtype)} but found "
                f"{scalar_type_name(o._data.dtype)}"
            )


def write_into(
    op: str,
    out: Any,
    values: np.ndarray,
    exact: bool = False,
    warn: bool = True,
    casting: str = "same_kind",
) -> Tensor:
    """Write ``values`` into the Tensor ``out`` with PyTorch's dtype and resize rules
    (``exact``: ``out`` must have the result's dtype, as sort's or max's; ``warn``: False
    for the kernels that resize a non-empty ``out`` without PyTorch's deprecation warning;
    ``casting``: "unsafe" for the kernels that write any dtype, as bernoulli's)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    values = np.asarray(values)
    target = out._data
    if exact and target.dtype != values.dtype:
        raise RuntimeError(
            f"Expected out tensor to have dtype {c_type_name(values.dtype)}, but got "
            f"{c_type_name(target.dtype)} instead"
        )
    if (
        target.dtype != values.dtype
        and casting != "unsafe"
        and not can_cast(values.dtype, target.dtype)
    ):
        raise RuntimeError(
            f"result type {scalar_type_name(values.dtype)} can't be cast to the desired output "
            f"type {scalar_type_name(target.dtype)}"
        )
    if write_hooks:
        before_write(out)
    if target.shape != values.shape:
        if target.size and warn:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(target.shape)}, which does not match the required output shape "
                f"{list(values.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                "with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out._data = np.empty_like(values, dtype=target.dtype)  # the result's layout, as PyTorch
        if out._node is not None or out._grad_acc is not None:
            data_replaced(out, target)  # its node keeps the shape it recorded
    elif not target.flags.writeable:
        raise RuntimeError(f"{op}(): the 'out' tensor's memory is read-only")
    np.copyto(out._data, values, casting="unsafe")
    out._vc[0] += 1
    note_write(out._vc, f"{op}(..., out=...)")
    return out


def out_result(
    op: str,
    out: Any,
    result: Any,
    inputs: tuple = (),
    exact: bool = False,
    autograd_op: str | None = None,
    differentiable: bool = True,
    resize_warning: bool = True,
    casting: str = "same_kind",
    pointwise: Any = None,
) -> Any:
    """``result`` itself when ``out`` is None; else ``result`` written into ``out`` (a Tensor,
    or a tuple of Tensors for an op with several results), which is returned. ``exact``:
    the dtypes must match (no casting), as for PyTorch's sort and max. ``autograd_op``: the
    ATen op PyTorch's autograd error names, where it is not ``op`` (``_linalg_svd`` for
    ``linalg_svdvals``). ``differentiable``: False for an op PyTorch has no derivative for
    (``special.airy_ai``, ``histc``), whose out= may require grad, as may the inputs of an
    op whose results are all integral or boolean (``eq``, ``argmax``). ``resize_warning``:
    False for the kernels that resize ``out`` without PyTorch's deprecation warning;
    ``casting``: "unsafe" for those that write into ``out`` of any dtype. ``pointwise``: for
    a TensorIterator kernel, ``pointwise(out, values)`` checks ``out``'s memory against the
    inputs and gives the values to write (``pointwise_out``)."""
    if out is None:
        return result
    several = isinstance(result, tuple)
    results = result if several else (result,)
    if several:
        if not isinstance(out, (tuple, list)) or not all(isinstance(o, Tensor) for o in out):
            raise TypeError(
                f"{op}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}"
            )
        if len(out) != len(results):
            raise TypeError(f"expected tuple of {len(results)} elements but got {len(out)}")
    elif not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    outs = tuple(out) if several else (out,)
    if op in _CAT_FAMILY:
        _check_cat_cast(result, out)
    histories = ()
    if grad_state.enabled and (differentiable and any(r._data.dtype.kind in "fc" for r in results)):
        # An op PyTorch records with a NotImplemented node passes it on to ``out`` as an
        # in-place op would (its backward raises there): only a leaf ``out`` is refused.
        recorded = [r._node for r in results if r.requires_grad]
        not_implemented = bool(recorded) and all(
            getattr(fn, "records_out", False) for fn in recorded
        )
        tensors = [x for i in inputs for x in (i if isinstance(i, (list, tuple)) else (i,))]
        if any(o.requires_grad and (o._node is None or not not_implemented) for o in outs) or (
            not not_implemented and any(isinstance(x, Tensor) and x.requires_grad for x in tensors)
        ):
            raise _autograd_error(autograd_op or op)
        histories = tuple((o, r._node) for o, r in zip(outs, results) if r.requires_grad)
    values = [r._data for r in results]
    if op in _CAT_FAMILY and out._data.shape == values[0].shape:
        for x in (x for i in inputs for x in (i if isinstance(i, (list, tuple)) else (i,))):
            if isinstance(x, Tensor):  # PyTorch's cat: assert_no_overlap with every input
                check_source_overlap(out, x)
    if pointwise is not None and not several:
        values[0] = pointwise(out, values[0])
    written = tuple(
        write_into(op, o, v, exact, resize_warning, casting) for o, v in zip(outs, values)
    )
    for target, node in histories:
        rebase_history(target, node)
    if not several:
        return written[0]
    return type(result)(*written) if hasattr(result, "_fields") else written


def _pointwise_kernel(row: Any) -> Any:
    """The node of a registry row whose nodes are all TensorIterator kernels, else None."""
    if row is None or not row.nodes or not all(getattr(n, "pointwise", False) for n in row.nodes):
        return None
    return row.nodes[0]


def _checked_out(check: Any, args: tuple, kwargs: dict, out: Any, values: Any) -> Any:
    return check(out, values, *args, **kwargs)


def kernel_out(kernel: type, fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``out_result``'s ``pointwise`` for ``fn(*args, **kwargs)``, a TensorIterator kernel
    in PyTorch whose node is ``kernel`` (its vector width): ``out``'s memory is checked
    against the inputs and read as the kernel reads it (``pointwise_out``)."""
    return functools.partial(pointwise_out, kernel, fn, args, kwargs)


def kernel_result(
    op: str,
    kernel: type,
    fn: Any,
    out: Any,
    result: Any,
    *args: Any,
    autograd_op: str | None = None,
    **kwargs: Any,
) -> Any:
    """``result`` of ``fn(*args, **kwargs)``, a TensorIterator kernel in PyTorch whose node
    is ``kernel``: itself, or written into ``out`` (``out_result`` with ``kernel_out``;
    ``autograd_op`` as there)."""
    pointwise = kernel_out(kernel, fn, *args, **kwargs)
    return out_result(op, out, result, args, autograd_op=autograd_op, pointwise=pointwise)


def unary_kernel(op: str, kernel: type, fn: Any, input: Any, out: Any, **kwargs: Any) -> Any:
    """``fn(input, **kwargs)``, a unary TensorIterator kernel in PyTorch whose node is
    ``kernel``: the node applied to ``input`` (checked as ``op``'s), written into ``out``
    when given (``kernel_result``)."""
    result = kernel.apply(check_tensor(input, op), **kwargs)
    return kernel_result(op, kernel, fn, out, result, input, **kwargs)


def pointwise_out(kernel: Any, fn: Any, args: tuple, kwargs: dict, out: Any, values: Any) -> Any:
    """PyTorch's TensorIterator with ``out``: ``out``'s elements must not share memory, an
    input sharing ``out``'s memory in part is refused, and one it cannot classify (not dense)
    is read as its kernel reads it, element after element, each reading what the elements
    before it wrote (autograd/kernel_order.py). The values to write into ``out``."""
    target = out._data
    if target.shape != np.shape(values):
        return values  # resized into fresh memory
    if internal_overlap(target):
        raise RuntimeError(OVERLAP_WRITE_ERROR)
    inputs = (*args, *kwargs.values())
    for x in inputs:
        if isinstance(x, Tensor) and x is not out:
            check_source_overlap(out, x, refuses_full=False)
    arrays = [x._data if isinstance(x, Tensor) else x for x in args]
    if any(isinstance(x, Tensor) for x in kwargs.values()) or not reads_written_memory(
        target, arrays
    ):
        return values

    def forward(self: Any, _: Any, *operands: Any) -> Any:
        tensors = [Tensor._from_array(v) if isinstance(v, np.ndarray) else v for v in operands]
        with no_grad():
            return fn(*tensors, **kwargs)._data

    segment = type(kernel.__name__, (kernel,), {"__slots__": (), "forward": forward})
    write_in_kernel_order(segment, target, arrays, {})
    return target.copy()


def composite_out(op: str, out: Any, compute: Any) -> Tensor:
    """``out=`` of an op PyTorch composes from others (``linalg.matrix_norm``, ``cond``):
    ``out`` must have the result's dtype (PyTorch's message), is resized if needed and gets
    the result by ``copy_``, which autograd records (CopyBackwards), as in PyTorch."""
    if not isinstance(out, Tensor):
        raise TypeError(
            f"{op.replace('.', '_')}(): argument 'out' must be Tensor, not {type(out).__name__}"
        )
    result = compute()
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(
            f"{op} expected out tensor dtype {scalar_type_name(result._data.dtype)} but got: "
            f"{scalar_type_name(out._data.dtype)}"
        )
    if out._data.shape != result._data.shape:
        write_into(op, out, np.zeros(result._data.shape, out._data.dtype))
    return out.copy_(result)


# How PyTorch records an out= whose inputs require grad, where it does not refuse it: ops
# whose out= kernel PyTorch composes from others, ``out`` taking the result by a recorded copy
# (CopyBackwards) ...
_OUT_BY_COPY = frozenset({"quantile", "nanquantile", "nuclear_norm", "special.ndtr"})
# ... and ops whose out= PyTorch records with a NotImplemented node (the ATen op it names).
_OUT_NOT_IMPLEMENTED = {
    "softmax": "softmax",
    "log_softmax": "log_softmax",
    "diag": "diagonal_copy",
    "slice_scatter": "slice_scatter",
    "conj_physical": "conj_physical",
}
# Functions whose out= overloads need an argument the others lack: ``sum(x, out=o)`` is refused
# by PyTorch's parser, ``sum(x, 0, out=o)`` taken (argsort's out= overload has ``stable``).
_OUT_NEEDS = {"sum": "dim", "prod": "dim", "argsort": "stable"}
# Functions whose out= overload takes tensors where the function takes numbers too: the
# arguments, in PyTorch's order, that must then be tensors (where.self_out).
_OUT_TENSORS = {"where": ("condition", "input", "other")}
# var's and std's (input, unbiased) overload has no out=: ``var(x, True, out=o)`` and
# ``var(x, unbiased=True, out=o)`` are refused by PyTorch's parser, ``var(x, 0, True, out=o)``
# and ``var(x, correction=0, out=o)`` taken.
_OUT_REFUSES_UNBIASED_WITHOUT_DIM = frozenset({"var", "std"})
# Functions whose cast check PyTorch's cat kernel makes (a TypeError, its own words).
_CAT_FAMILY = frozenset(
    {"cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack"}
    | {"row_stack"}
)
# Reductions and scans whose out= PyTorch computes in the ``dtype`` asked, which ``out`` must
# then have, else in ``out``'s own dtype, the input cast to it first (``sum(x, 0, out=long)``
# sums the truncated values): the value says whether the op checks the ``dtype`` asked before
# ``out``'s (mean refuses an integral one first); mean takes ``out``'s dtype only where it is
# floating or complex (into an integral ``out`` its in-place division is refused on writing).
_OUT_DTYPE_IS_COMPUTED_IN = {
    "sum": False,
    "prod": False,
    "cumsum": False,
    "cumprod": False,
    "mean": True,
}
# Ops whose out= kernel refuses an ``out`` that is neither floating nor complex before it
# computes (logsumexp of an integer input is a float).
_OUT_FLOATING_FIRST = frozenset({"logsumexp"})
# Kernels that resize a non-empty out= without PyTorch's deprecation warning.
_RESIZE_QUIETLY = frozenset({"nn.functional.logsigmoid"})
# Rows without derivatives (gradients not compared) that PyTorch records all the same (a
# NotImplemented node, or zeros), so that its out= refuses inputs or an out requiring grad.
# Functions PyTorch writes by another op's out= kernel: its autograd refusal names that op
# (special_gammainc, gammaincc and multigammaln name igamma, igammac and mvlgamma themselves).
_OUT_AUTOGRAD_NAMES = {"special.expit": "sigmoid"}
_RECORDED_WITHOUT_DERIVATIVE = frozenset(
    {"floor_divide", "heaviside", "geqrf", "linalg.ldl_factor", "linalg.ldl_factor_ex"}
    | {"linalg.ldl_solve"}
)


def _computed_in_out_dtype(key: str, out: Tensor, fn: Any, args: tuple, kwargs: dict) -> dict:
    """``kwargs`` with the ``dtype`` PyTorch computes a reduction with ``out=`` in (see
    ``_OUT_DTYPE_IS_COMPUTED_IN``); a ``dtype`` asked that ``out`` lacks is an error."""
    requested = kwargs.get("dtype")
    target = out._data.dtype
    if _OUT_DTYPE_IS_COMPUTED_IN[key]:
        fn(*args, **kwargs)  # the op's own checks of its dtypes come first
    if requested is None:
        if key == "mean" and target.kind not in "fc":
            # PyTorch sums into ``out``, then divides it in place by the count (a Python int):
            # the quotient, of the default dtype, does not cast into an integral ``out``
            raise RuntimeError(
                f"result type {scalar_type_name(default_numpy_float())} can't be cast to the "
                f"desired output type {scalar_type_name(target)}"
            )
        return {**kwargs, "dtype": out.dtype}
    if to_numpy_dtype(requested) != target:
        raise RuntimeError(
            f"Expected out tensor to have dtype {c_type_name(to_numpy_dtype(requested))}, but "
            f"got {c_type_name(target)} instead"
        )
    return kwargs


def takes_out(namespace: str, name: str) -> bool:
    """Whether PyTorch's ``namespace.name`` takes ``out=`` ("" is the top level): never for
    an in-place function (``torch.exp_``, ``dropout_``), else unless listed in WITHOUT_OUT."""
    return not name.endswith("_") and name not in WITHOUT_OUT.get(namespace, ())


@functools.cache
def _not_implemented_out(aten_op: str) -> Any:
    return _not_implemented_node(aten_op, computed_result)


def recorded_as_not_implemented(aten_op: str, result: Tensor, inputs: tuple) -> Tensor:
    """``result`` recorded instead by PyTorch's NotImplemented node for ``aten_op`` (what its
    out= kernel records, and passes on to ``out``), if it requires grad."""
    if not result.requires_grad:
        return result
    sources = [x for x in inputs if isinstance(x, Tensor)]
    return _not_implemented_out(aten_op).apply(*sources, after=result.detach()._data)


def _check_cat_cast(result: Tensor, out: Any) -> None:
    if isinstance(out, Tensor) and not can_cast(result._data.dtype, out._data.dtype):
        raise TypeError(
            "torch.cat(): input types can't be cast to the desired output type "
            f"{scalar_type_name(out._data.dtype)}"
        )


def _named(fn: Any, name: str) -> Any:
    """``fn``, or a copy of it named ``name``, so that Python's argument errors name the
    public function as PyTorch's do (``moveaxis() got an unexpected keyword argument 'out'``
    from the function that also serves as ``movedim``)."""
    if not isinstance(fn, types.FunctionType) or fn.__name__ == name:
        return fn
    copy = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)
    functools.update_wrapper(copy, fn)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__name__ = copy.__qualname__ = name
    return copy


def with_out(fn: Any, name: str, namespace: str = "") -> Any:
    """``fn`` taking PyTorch's keyword-only ``out=`` (written by ``out_result``) where
    PyTorch's ``namespace.name`` takes one; ``fn`` itself where it does not (its argument
    errors naming the function as PyTorch's: ``linalg_diagonal()``), or where ``fn`` already
    has an ``out`` parameter or takes ``**kwargs``."""
    aten = f"{namespace}_{name}" if namespace in ("linalg", "special", "fft") else name
    fn = _named(fn, aten)
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())
    if (
        not takes_out(namespace, name)
        or "out" in signature.parameters
        or any(p.kind is p.VAR_KEYWORD for p in params)
    ):
        return fn

    key = f"{namespace}.{name}" if namespace else name
    row = REGISTRY.get(key)
    differentiable = row is None or row.differentiable or key in _RECORDED_WITHOUT_DERIVATIVE
    aten_op = _OUT_NOT_IMPLEMENTED.get(key)
    kernel = _pointwise_kernel(row)
    check_out = getattr(row.nodes[0], "check_out", None) if row is not None and row.nodes else None

    needs = _OUT_NEEDS.get(key)
    tensors_only = _OUT_TENSORS.get(key, ())

    @functools.wraps(fn)
    def wrapper(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        if needs is not None and needs not in signature.bind(*args, **kwargs).arguments:
            raise TypeError(
                f"{name}() received an invalid combination of arguments - got out= without "
                f"'{needs}', but its out= overload is (Tensor input, ..., {needs}, ..., *, "
                "Tensor out = None)"
            )
        if tensors_only:
            bound = signature.bind(*args, **kwargs).arguments
            for position, arg in enumerate(tensors_only, 1):
                if arg in bound and not isinstance(bound[arg], Tensor):
                    raise TypeError(
                        f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(bound[arg]).__name__}"
                    )
        if key in _OUT_REFUSES_UNBIASED_WITHOUT_DIM:
            bound = signature.bind(*args, **kwargs).arguments
            if isinstance(bound.get("dim"), bool) or ("unbiased" in bound and "dim" not in bound):
                raise TypeError(
                    f"{name}() received an invalid combination of arguments - got out= with "
                    "'unbiased' but no 'dim', but its out= overloads are (Tensor input, tuple of "
                    "ints dim, bool unbiased = True, bool keepdim = False, *, Tensor out = None) "
                    "and (Tensor input, tuple of ints dim = None, *, Number correction = None, "
                    "bool keepdim = False, Tensor out = None)"
                )
        if key in _OUT_BY_COPY:
            return composite_out(name, out, lambda: fn(*args, **kwargs))
        if key in _OUT_FLOATING_FIRST and isinstance(out, Tensor):
            refuse_autograd(name, out, (*args, *kwargs.values()))
            if out._data.dtype.kind not in "fc":
                raise RuntimeError(
                    f"{name}(): Expected floating point type for result tensor, but got: "
                    f"{scalar_type_name(out._data.dtype)}"
                )
        if key in _OUT_DTYPE_IS_COMPUTED_IN and isinstance(out, Tensor):
            kwargs = _computed_in_out_dtype(key, out, fn, args, kwargs)
        result = fn(*args, **kwargs)
        inputs = (*args, *kwargs.values())
        if aten_op is not None:
            result = recorded_as_not_implemented(aten_op, result, inputs)
        pointwise = None
        if kernel is not None:
            pointwise = kernel_out(kernel, fn, *args, **kwargs)
        elif check_out is not None:
            pointwise = functools.partial(_checked_out, check_out, args, kwargs)
        return out_result(
            name,
            out,
            result,
            inputs,
            autograd_op=_OUT_AUTOGRAD_NAMES.get(key),
            differentiable=differentiable,
            resize_warning=key not in _RESIZE_QUIETLY,
            pointwise=pointwise,
        )

    out_param = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None)
    wrapper.__signature__ = signature.replace(parameters=[*params, out_param])
    unset = frozenset({needs} if needs else ())
    if key in _OUT_REFUSES_UNBIASED_WITHOUT_DIM:
        unset = frozenset({"dim", "unbiased"})
    return signed_wrapper(fn, wrapper, fn.__name__, takes_out=True, takes_extra=False, unset=unset)


def without_out(fn: Any, name: str) -> Any:
    """``fn`` as a Tensor method: PyTorch's methods take no ``out=`` (``x.max(0, out=o)`` is
    a TypeError), so a function with an ``out`` parameter is bound without it."""
    signature = inspect.signature(fn)
    if "out" not in signature.parameters:
        return fn
    positional = signature.parameters["out"].kind is not inspect.Parameter.KEYWORD_ONLY

    @functools.wraps(fn)
    def method(*args: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        return fn(*args, **kwargs)

    params = [p for p in signature.parameters.values() if p.name != "out"]
    method.__signature__ = signature.replace(parameters=params)
    if positional:  # ``x.norm(p, dim, keepdim, out)``: the count of positional arguments
        return method  # is the function's, as the general wrapper's
    # Straight to the function beneath ``fn``'s own signed wrapper (NumPy's names), if any.
    bare, _, unset = getattr(fn, "_signed", (fn, False, frozenset()))
    return signed_wrapper(
        bare, method, bare.__name__, takes_out=False, takes_extra=True, unset=unset, drop="out"
    )
