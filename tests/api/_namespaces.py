"""The namespaces compared with PyTorch, and which of PyTorch's public names count.

PyTorch's public names are those it exports (``__all__`` where it has one, else the names
without a leading underscore) that are functions, classes or methods, less the families out
of glassgrad's scope (the issue's list): complex-only, sparse, quantized, CUDA/MPS/XPU and
other accelerators, distributed, JIT/TorchScript/compile internals, storages, and the typing
names a module merely imports. ``EXCLUDED`` holds each pattern with its reason.
"""

from __future__ import annotations

import importlib
import inspect
import re
from typing import Any

import torch

import glassgrad as gg

NAMESPACES = (
    "",
    "Tensor",
    "nn.functional",
    "nn",
    "linalg",
    "special",
    "fft",
    "autograd",
    "optim",
    "optim.lr_scheduler",
    "utils.data",
)

# reason -> pattern over names
EXCLUDED = {
    "complex numbers": r"^(complex\w*|view_as_(real|complex)\w*|polar|angle|conj\w*|resolve_\w+|"
    r"is_conj|is_neg|(c|chalf|cfloat|cdouble)$|real|imag|_?is_complex|isreal|sgn_?)$",
    "sparse layouts": r"sparse|^(coalesce|is_coalesced|indices|values|crow_indices|"
    r"col_indices|ccol_indices|row_indices|dense_dim|to_dense|smm|hsmm|sspaddmm|dsmm|"
    r"hspmm|spmm|saddmm|sparse_\w+|_nnz|nnz)",
    "quantization": r"quantiz|^(q_|qscheme|int_repr|per_channel|per_tensor|fbgemm|"
    r"choose_qparams|fake_|Q[A-Z]\w*Storage|qint|quint|dequantize)",
    "accelerators (CUDA, MPS, XPU, ...)": r"cuda|cudnn|miopen|mps|xpu|mtia|hip|vulkan|mkldnn|"
    r"ipu|xla|hpu|^(is_pinned|pin_memory|ipu|accelerator|Stream|Event|stream|record_stream)",
    "distributed": r"distributed|^(DistributedSampler|rpc)",
    "JIT, TorchScript, compile, export": r"^(jit|script|trace|Script\w*|compile\w*|export|fx|"
    r"Graph|Node|Value|Block|Code|IODescriptor|TracingState|AliasDb|Argument\w*|FunctionSchema|"
    r"Future|Gradient|ExecutionPlan|CompilationUnit|ConcreteModuleType\w*|ErrorReport|"
    r"FileCheck|LiteScriptModule|StaticModule|ThroughputBenchmark|BenchmarkConfig|"
    r"BenchmarkExecutionStats|parse_ir|parse_schema|parse_type_comment|import_ir_module\w*|"
    r"merge_type_from_type_comment|unify_type_list|\w+Type|Capsule|DeserializationStorageContext|"
    r"SerializationStorageContext|PyTorchFile\w*|CallStack|InferredType|DeepCopyMemoTable|"
    r"OperatorInfo|Use|fork|wait|while_loop|cond|vmap|func|library|Tag|DispatchKey\w*|"
    r"ExcludeDispatchKeyGuard|DisableTorchFunction\w*|LockingLogger|LoggerBase|NoopLogger|"
    r"AggregationType|set_vital|vitals_enabled|read_vitals|classproperty|sym_\w+|Sym\w+|"
    r"is_vulkan_available|AVG|SUM|CompleteArgumentSpec|GraphExecutorState|Type|"
    r"assert_int_or_pair|boolean_dispatch|handle_torch_function|has_torch_function\w*|"
    r"factory_kwargs|argument_validation|functional_datapipe|guaranteed_datapipes_determinism|"
    r"non_deterministic|runtime_validation\w*|swap_in_optimizer_params_and_state|"
    r"enforce_grad_layout_policy|PRIVATE_OPS|compiled_with_cxx11_abi|get_file_path|"
    r"prepare_multiprocessing_environment|thread_safe_generator|unsafe_\w+|"
    r"autocast\w*|\w*_autocast_\w*|set_autocast\w*|is_autocast\w*|get_autocast\w*|"
    r"clear_autocast_cache|is_warn_always_enabled|set_warn_always|"
    r"NestedIOFunction|set_multithreading_enabled|nonzero_static|hash_tensor|"
    r"slice_inverse|segment_reduce|from_file|from_dlpack|to_dlpack|__dlpack\w*|"
    r"share_memory_|is_shared|untyped_storage|storage\w*|module_load|"
    r"GradScaler|OutOfMemoryError|AcceleratorError|FatalError|JITException|"
    r"BFloat16\w*|\w+Storage|StorageBase|TypedStorage|UntypedStorage|"
    r"BufferDict|ModuleDict|ParameterDict|DataChunk|\w*DataPipe|"
    r"float8\w*|float4\w*|uint(16|32|64)|bfloat16|"
    r"_\w+)$",
    "copy variants of views (the views themselves are counted)": r"^\w+_copy$",
    # Not in PyTorch's documentation (torch.rst, tensors.rst): the documented functions that
    # share these modules (stft, gradient, as_strided, lobpcg ...) are counted.
    "ATen internals exported at the top level, undocumented": r"^(native_\w+|\w+_backward\w*|"
    r"batch_norm_\w+|(rnn_relu|rnn_tanh|gru|lstm)(_cell)?|conv_tbc|convolution|"
    r"constant_pad_nd|embedding_renorm_|grid_sampler\w*|affine_grid_generator|norm_except_dim|"
    r"frobenius_norm|fused_\w+|max_pool1d_with_indices|is_same_size|cudnn_\w+|"
    r"get_device_module|init_num_threads|is_storage|"
    r"is_anomaly_check_nan_enabled|set_anomaly_enabled|is_anomaly_enabled|"
    r"resize_as_sparse_|split_with_sizes)$",
    "nested and masked tensors": r"^(nested|masked|jagged|is_nested|to_padded_tensor)",
    "named tensors": r"^(name|names|rename\w*|refine_names|align_to|align_as|unflatten_dense)$",
    "removed from PyTorch (the methods only raise)": r"^(symeig|eig|lstsq|solve|reinforce|"
    r"matrix_rank|chain_matmul_)$",
    "other accelerators and wrappers": r"^(SyncBatchNorm|scaled_mm|"
    r"scaled_grouped_mm|grouped_mm|is_maia|is_meta|is_ipu|is_vulkan)$",
    # torch.bit is uint1 under another name: NumPy has no dtype under a byte, and a byte per
    # element would not be what PyTorch's packed sub-byte types are (PyTorch itself has no
    # operators on them but copies).
    "sub-byte dtypes (bit, bits*, int1-int7, uint1-uint7): no NumPy representation": (
        r"^(bit|bits\w+|int[1-7]|uint[1-7])$"
    ),
    # Tensor.index binds a tensor's dims to functorch.dim Dim objects, making a first-class
    # dimension tensor: a separate tensor model (Dim objects, level-indexed tensors) that
    # glassgrad does not have.
    "first-class dimensions (functorch.dim: Tensor.index)": r"^index$",
    "typing and module plumbing": r"^(TYPE_CHECKING|BroadcastingList\d|DType|ScalingType|"
    r"SwizzleType|GRID_SAMPLE_\w+)$",
}
_EXCLUDED = re.compile("|".join(f"(?:{p})" for p in EXCLUDED.values()))


def torch_object(namespace: str) -> Any:
    obj: Any = torch
    for part in [p for p in namespace.split(".") if p]:
        obj = getattr(obj, part) if part != "Tensor" else torch.Tensor
    return obj


def glassgrad_object(namespace: str) -> Any:
    obj: Any = gg
    for part in [p for p in namespace.split(".") if p]:
        if part == "Tensor":
            return gg.Tensor
        try:
            obj = getattr(obj, part)
        except AttributeError:
            obj = importlib.import_module(f"{obj.__name__}.{part}")
    return obj


def _countable(namespace: str, name: str, obj: Any) -> bool:
    if inspect.ismodule(obj) or not (callable(obj) or isinstance(obj, torch.dtype)):
        return False
    module = getattr(obj, "__module__", None) or "torch"
    if not module.startswith("torch"):
        return False  # typing helpers and the like, imported by the module
    if namespace and obj is torch.Tensor:
        return False
    if (
        namespace == ""
        and name in _FUNCTIONAL
        and name not in _TOP_LEVEL_DOCUMENTED
        and not name.endswith("_")
    ):
        return False  # nn ops PyTorch also exports at the top level: counted in nn.functional
    # In-place functions (torch.exp_, torch.relu_ ...) count at the top level as well as
    # the Tensor methods of their names: users call both.
    return True


_FUNCTIONAL = set(dir(torch.nn.functional))
# nn.functional names that PyTorch documents at the top level as well.
_TOP_LEVEL_DOCUMENTED = {"softmax", "log_softmax", "relu", "sigmoid", "tanh", "pad", "normalize"}


def torch_public_names(namespace: str) -> list[str]:
    """PyTorch's public names in ``namespace`` that count for coverage."""
    obj = torch_object(namespace)
    if namespace == "Tensor":
        names = [n for n in dir(torch.Tensor) if not n.startswith("_")]
    else:
        names = list(getattr(obj, "__all__", None) or [n for n in dir(obj) if n[:1] != "_"])
    counted = []
    for name in sorted(set(names)):
        if _EXCLUDED.search(name):
            continue
        try:
            value = (
                inspect.getattr_static(obj, name) if namespace == "Tensor" else getattr(obj, name)
            )
        except AttributeError:
            continue
        if namespace == "Tensor" or _countable(namespace, name, value):
            if namespace == "" and isinstance(value, type) and issubclass(value, torch.Tensor):
                continue  # the legacy typed tensors (FloatTensor ...) are counted apart
            counted.append(name)
    return counted


def glassgrad_has(namespace: str, name: str) -> bool:
    try:
        return hasattr(glassgrad_object(namespace), name)
    except ImportError:
        return False  # the whole namespace is missing


def glassgrad_public_names(namespace: str) -> list[str]:
    """Every public name glassgrad exports in ``namespace`` that PyTorch also has."""
    try:
        ours = glassgrad_object(namespace)
    except ImportError:
        return []
    theirs = torch_object(namespace)
    names = [n for n in dir(ours) if not n.startswith("_")]
    return sorted(n for n in names if hasattr(theirs, n) and callable(getattr(ours, n, None)))
