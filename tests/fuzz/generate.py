"""Seeded random programs over views, in-place ops, indexing, registry ops, operators and
autograd calls, written as one-line statements over the name ``torch``.

Generation is guided by PyTorch: each candidate statement runs in PyTorch as it is made, so
the generator knows every variable's shape and dtype and keeps mostly statements that run;
a statement that raises is kept now and then, to compare errors too.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import torch

import glassgrad
from glassgrad.ops import REGISTRY
from glassgrad.ops._registry import NoGrad

from .skips import (
    FFT_CANCELLATION,
    FFT_NONFINITE,
    LAPACK_REPEATED_EIGENVALUES,
    MKL_NONFINITE,
    MKL_RANK_DEFICIENT,
    PYTORCH_INACCURATE,
    PYTORCH_LAZY_CONJ,
    PYTORCH_UNDEFINED_FOR_NAN,
    PYTORCH_VECTORIZED_NAN_BRANCH,
    SKIPPED_OPS,
)

_SHAPES = [(), (1,), (3,), (4,), (2, 3), (3, 4), (4, 3), (2, 3, 4), (0,), (2, 0), (3, 1), (1, 4)]
_ERROR_RATE = 0.2  # how often a statement that raises in PyTorch is kept
# How often a new float leaf holds tied values (outside the fixed-seed run): sort, topk, mode,
# unique ... then return the indices of equal values in the order of PyTorch's algorithms.
_TIE_RATE = 0.15
_KINDS = {
    "op": 0.3,
    "operator": 0.14,
    "view": 0.2,
    "inplace": 0.14,
    "setitem": 0.08,
    "autograd": 0.08,
    "no_grad": 0.04,
    "leaf": 0.02,
}
_BINARY = ["+", "-", "*", "/", "**", "//", "%", "<", ">=", "==", "@"]
_INPLACE_BINARY = ["add_", "sub_", "mul_", "div_", "pow_", "copy_", "atan2_", "lerp_"]
# In-place kernels drawn too outside the fixed-seed run (whose programs stay as they were):
# an operand that overlaps the target is read as PyTorch's kernel reads it.
_INPLACE_KERNELS = [
    "float_power_", "heaviside_", "gcd_", "lcm_", "bitwise_left_shift_",
    "bitwise_right_shift_", "xlogy_", "ldexp_", "hypot_", "copysign_", "fmod_",
]  # fmt: skip


def _ignore(name: str) -> Any:
    return lambda value: None


def _public_ops() -> list[str]:
    return sorted(k for k in REGISTRY if k not in SKIPPED_OPS and REGISTRY[k].samples)


def _unary_inplace_methods() -> list[str]:
    """In-place methods both libraries have whose op takes the tensor alone."""
    names = []
    for name in dir(glassgrad.Tensor):
        base = name[:-1]
        if (
            name.endswith("_")
            and not name.startswith("_")
            and hasattr(torch.Tensor, name)
            and base in REGISTRY
            and base not in SKIPPED_OPS
            and name[:-1] not in ("requires_grad", "detach")
        ):
            names.append(name)
    return sorted(names)


_OPS = _public_ops()
_INPLACE_METHODS = _unary_inplace_methods()


def _float(x: float) -> str:
    value = float(f"{float(x):.6g}")
    return repr(value) if np.isfinite(value) else f"float('{value}')"


def _nested(array: np.ndarray) -> str:
    if array.ndim == 0:
        value = array.item()
        return _float(value) if isinstance(value, float) else repr(value)
    return "[" + ", ".join(_nested(a) for a in array) + "]"


class Unrepresentable(Exception):
    """A sample argument the program text cannot spell (the sample is passed over)."""


class ProgramGenerator:
    """Writes one program from ``seed``: ``ProgramGenerator(seed).generate()``."""

    def __init__(
        self, seed: int, max_statements: int = 12, ops: tuple[list, list] | None = None
    ) -> None:
        # ops: the registry ops and in-place methods to draw from (default: all of them);
        # a fixed list keeps a seed's program the same while the registry grows.
        self.ops, self.inplace_methods = (_OPS, _INPLACE_METHODS) if ops is None else ops
        self.inplace_binary = _INPLACE_BINARY + _INPLACE_KERNELS if ops is None else _INPLACE_BINARY
        self.ties = ops is None
        self.rng = np.random.default_rng(seed)
        self.max_statements = max_statements
        self.statements: list[str] = []
        self.namespace = self._fresh_namespace()
        self.next_var = 0
        self.pending: list[str] = []

    # --- the loop --------------------------------------------------------------------------
    def generate(self) -> list[str]:
        target = int(self.rng.integers(1, self.max_statements + 1))
        kinds, weights = zip(*_KINDS.items())
        probabilities = np.array(weights) / sum(weights)
        made = attempts = 0
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            while made < target and attempts < 30 * target:
                attempts += 1
                kind = str(self.rng.choice(kinds, p=probabilities))
                if not self._tensors() and kind != "op":
                    kind = "leaf"
                self.pending = []
                try:
                    candidate = getattr(self, f"_{kind}")()
                except Unrepresentable:
                    continue
                if candidate is not None and self._try(candidate):
                    made += 1
        return self.statements

    def _fresh_namespace(self) -> dict:
        return {"torch": torch, "hook": _ignore, "grad_hook": _ignore}

    def _try(self, candidate: tuple) -> bool:
        """Run the pending leaf lines and the candidate in PyTorch; keep them if they ran
        (or, now and then, if the candidate raised)."""
        kind, code, *free = candidate  # free: (arguments, the test they must pass)
        ns = self.namespace
        for line in self.pending:
            exec(line, ns)
        if free and any(_passes_over(free[1], a, ns) for a in free[0]):
            self._replay()
            return False
        try:
            if kind == "expr":
                line = self._bind(code, eval(code, ns))
            else:
                exec(code, ns)
                line = code
        except Exception:
            if self.rng.random() < _ERROR_RATE:
                line = f"{self._name()} = {code}" if kind == "expr" else code
                self.statements.extend([*self.pending, line])
                return True
            self._replay()
            return False
        self.statements.extend([*self.pending, line])
        return True

    def _bind(self, code: str, result: Any) -> str:
        """Name the value(s) of expression ``code`` in the namespace; the statement."""
        if isinstance(result, (tuple, list)) and 0 < len(result) <= 8:
            names = [self._name() for _ in result]
            for n, r in zip(names, result):
                self.namespace[n] = r
            return f"{', '.join(names)} = {code}"
        name = self._name()
        self.namespace[name] = result
        return f"{name} = {code}"

    def _replay(self) -> None:
        self.namespace = self._fresh_namespace()
        for line in self.statements:
            try:
                exec(line, self.namespace)
            except Exception:
                pass

    def _name(self) -> str:
        self.next_var += 1
        return f"v{self.next_var - 1}"

    # --- variables -------------------------------------------------------------------------
    def _tensors(self, predicate: Any = None) -> list[str]:
        names = [
            n
            for n, t in self.namespace.items()
            if n[:1] == "v" and n[1:].isdigit() and isinstance(t, torch.Tensor)
        ]
        if predicate is not None:
            names = [n for n in names if predicate(self.namespace[n])]
        return sorted(names, key=lambda n: int(n[1:]))

    def _pick(self, predicate: Any = None) -> str | None:
        """A variable, favouring recent ones (programs then chain their statements)."""
        names = self._tensors(predicate)
        if not names:
            return None
        weights = np.arange(1, len(names) + 1, dtype=float)
        return str(self.rng.choice(names, p=weights / weights.sum()))

    def _leaf_line(self, array: np.ndarray, dtype: str, requires_grad: bool) -> str:
        name = self._name()
        grad = ", requires_grad=True" if requires_grad else ""
        if array.size == 0:
            shape = ", ".join(str(s) for s in array.shape)
            self.pending.append(f"{name} = torch.zeros(({shape},), dtype=torch.{dtype}{grad})")
        else:
            self.pending.append(
                f"{name} = torch.tensor({_nested(array)}, dtype=torch.{dtype}{grad})"
            )
        return name

    def _new_leaf(self, array: np.ndarray | None = None, requires_grad: bool | None = None) -> str:
        if array is None:
            shape = _SHAPES[int(self.rng.integers(len(_SHAPES)))]
            array = self.rng.standard_normal(shape)
        roll = self.rng.random()
        if array.dtype.kind == "f":
            dtype = "float64" if roll < 0.75 else "float32"
            if self.ties and array.size > 1 and self.rng.random() < _TIE_RATE:
                array = self._tied(array)
            if requires_grad is None:
                requires_grad = self.rng.random() < 0.8
            return self._leaf_line(array, dtype, requires_grad)
        dtype = {"b": "bool", "u": "uint8"}.get(array.dtype.kind, "int64")
        return self._leaf_line(array, dtype, False)

    def _tied(self, array: np.ndarray) -> np.ndarray:
        """The array with one or two of its own values (a zero's sign flipped, now and then)
        repeated over all its elements."""
        pool = self.rng.choice(array.reshape(-1), size=int(self.rng.integers(1, 3)))
        if self.rng.random() < 0.2:
            pool = np.array([0.0, -0.0])
        return self.rng.choice(pool, size=array.shape)

    def _float_arg(self, array: np.ndarray, requires_grad: bool | None) -> str:
        """An existing float variable of the array's shape, now and then, else a new leaf."""
        shape = tuple(array.shape)
        if self.rng.random() < 0.6:
            same = self._pick(lambda t: tuple(t.shape) == shape and t.dtype.is_floating_point)
            if same is not None:
                return same
            numel = int(np.prod(shape))
            similar = self._pick(lambda t: t.numel() == numel and t.dtype.is_floating_point)
            if similar is not None and numel and self.rng.random() < 0.5:
                return f"{similar}.reshape({shape!r})"
        return self._new_leaf(np.asarray(array, dtype=np.float64), requires_grad)

    def _arg(self, value: Any) -> str:
        """Program text for a registry sample's argument."""
        if isinstance(value, NoGrad):
            return self._float_arg(value.array, False)
        if isinstance(value, np.generic) and value.dtype.kind == "f":
            value = np.asarray(value)
        if isinstance(value, np.ndarray):
            if value.dtype.kind == "f":
                return self._float_arg(value, None)
            if value.dtype.kind == "c":  # complex values: built from two float ones
                real = self._float_arg(np.ascontiguousarray(value.real), None)
                imag = self._float_arg(np.ascontiguousarray(value.imag), None)
                return f"({real} + 1j * {imag})"
            dtype = {"b": "bool", "u": "uint8", "i": "int64"}[value.dtype.kind]
            if value.size == 0:
                return f"torch.zeros({tuple(value.shape)!r}, dtype=torch.{dtype})"
            return f"torch.tensor({_nested(value)}, dtype=torch.{dtype})"
        if isinstance(value, list):
            return "[" + ", ".join(self._arg(v) for v in value) + "]"
        if isinstance(value, tuple):
            items = [self._arg(v) for v in value]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        if isinstance(value, glassgrad.dtype):
            return f"torch.{value.name}" if hasattr(value, "name") else f"torch.{value}"
        if isinstance(value, slice):
            return f"slice({value.start!r}, {value.stop!r}, {value.step!r})"
        if value is Ellipsis:
            return "..."
        if isinstance(value, float):
            return _float(value)
        if isinstance(value, complex):
            return f"complex({_float(value.real)}, {_float(value.imag)})"
        if isinstance(value, (int, bool, str, type(None), np.integer)):
            return repr(value.item() if isinstance(value, np.integer) else value)
        raise Unrepresentable(repr(value))

    # --- statement kinds -------------------------------------------------------------------
    def _leaf(self) -> tuple:
        self._new_leaf()
        return ("stmt", self.pending.pop())

    def _op(self) -> tuple | None:
        key = self.ops[int(self.rng.integers(len(self.ops)))]
        info = REGISTRY[key]
        samples = list(info.samples(self.rng))
        if not samples:
            return None
        sample = samples[int(self.rng.integers(len(samples)))]
        args = [self._arg(a) for a in sample.args]
        keywords = {k: self._arg(v) for k, v in sample.kwargs.items()}
        kwargs = [f"{k}={text}" for k, text in keywords.items()]
        code = self._call(info, args, kwargs)
        # The tests below read keyword arguments too (stft's window: seed 846293)
        checked = [*args, *keywords.values()]
        if key in PYTORCH_LAZY_CONJ:
            code = f"{code}.clone()"
        if key in PYTORCH_UNDEFINED_FOR_NAN or key in PYTORCH_VECTORIZED_NAN_BRANCH:
            return ("expr", code, checked, _holds_nan)  # passed over if an argument holds NaN
        if key in PYTORCH_INACCURATE:
            return ("expr", code, checked, PYTORCH_INACCURATE[key][1])  # passed over in range
        if key == "linalg.tensorinv":  # MKL_RANK_DEFICIENT, of the matrix it reshapes into
            return ("expr", code, checked, _square_reshape_rank_deficient_or_nonfinite)
        if key in MKL_RANK_DEFICIENT:  # NaN or inf too for eigvals (MKL_NONFINITE)
            return ("expr", code, checked, _rank_deficient_or_nonfinite)
        if key in LAPACK_REPEATED_EIGENVALUES:  # NaN or inf too (MKL_NONFINITE)
            return ("expr", code, checked, _repeated_eigenvalues_or_nonfinite)
        if key in FFT_CANCELLATION:  # NaN or inf too (FFT_NONFINITE)
            return ("expr", code, checked, _cancelling_or_nonfinite)
        if key in MKL_NONFINITE or key in FFT_NONFINITE:
            return ("expr", code, checked, _holds_nonfinite)  # or a NaN or inf (_try)
        return ("expr", code)

    def _call(self, info: Any, args: list[str], kwargs: list[str]) -> str:
        name = info.name
        special = {
            "rtruediv": lambda: f"{args[1]} / {args[0]}",
            "rpow": lambda: f"{args[1]} ** {args[0]}",
            "rmatmul": lambda: f"{args[1]} @ {args[0]}",
            "getitem": lambda: f"{args[0]}[{args[1]}]",
            "index_put": lambda: f"{args[0]}.index_put({', '.join(args[1:] + kwargs)})",
        }
        if name in special:
            return special[name]()
        module = f"torch.{info.namespace}" if info.namespace else "torch"
        holder = torch
        for part in info.namespace.split(".") if info.namespace else ():
            holder = getattr(holder, part)
        # Drawn for every call, so that a method added to the registry changes how this call
        # is spelled but not the random stream (the fixed seeds keep their programs).
        as_method = self.rng.random() < 0.5
        method = (
            name in info.methods
            and hasattr(torch.Tensor, name)
            and args
            and args[0][:1] == "v"
            and as_method
        )
        if hasattr(holder, name) and not method:
            return f"{module}.{name}({', '.join(args + kwargs)})"
        if not args or not hasattr(torch.Tensor, name):
            raise Unrepresentable(name)
        receiver = args[0] if args[0][:1] == "v" else f"({args[0]})"
        return f"{receiver}.{name}({', '.join(args[1:] + kwargs)})"

    def _operand(self, shape: tuple) -> str:
        """A right-hand operand for a tensor of ``shape``: a scalar or a broadcastable tensor."""
        roll = self.rng.random()
        if roll < 0.3:
            return str(self.rng.choice(["2", "0.5", "-1.5", "True", "3"]))
        if roll < 0.6:
            other = self._pick(lambda t: _broadcastable(tuple(t.shape), shape))
            if other is not None:
                return other
        suffix = shape[int(self.rng.integers(len(shape) + 1)) :] if shape else ()
        return self._new_leaf(self.rng.standard_normal(suffix))

    def _operator(self) -> tuple | None:
        a = self._pick()
        if a is None:
            return None
        shape = tuple(self.namespace[a].shape)
        op = str(self.rng.choice(_BINARY))
        if self.rng.random() < 0.15:
            return ("expr", str(self.rng.choice([f"-{a}", f"abs({a})", f"~({a} > 0)"])))
        if op == "@":
            inner = shape[-1] if shape else 1
            b = self._new_leaf(self.rng.standard_normal((inner, 2) if shape else ()))
            return ("expr", f"{a} @ {b}")
        b = self._operand(shape)
        if b[:1] != "v" and b[:1] != "(" and self.rng.random() < 0.4:
            return ("expr", f"{b} {op} {a}")
        return ("expr", f"{a} {op} {b}")

    def _view(self) -> tuple | None:
        a = self._pick()
        if a is None:
            return None
        options = _views(a, tuple(self.namespace[a].shape), self.rng)
        code = options[int(self.rng.integers(len(options)))]
        if self.rng.random() < 0.15:
            code += ".view(-1)" if self.rng.random() < 0.5 else ".reshape(-1)"
        return ("expr", code)

    def _inplace(self) -> tuple | None:
        a = self._pick()
        if a is None:
            return None
        shape = tuple(self.namespace[a].shape)
        roll = self.rng.random()
        if roll < 0.45:
            method = str(self.rng.choice(self.inplace_binary))
            b = self._operand(shape)
            if method == "lerp_":
                return ("expr", f"{a}.lerp_({b}, 0.3)")
            return ("expr", f"{a}.{method}({b})")
        if roll < 0.55:
            return ("expr", str(self.rng.choice(
                [f"{a}.zero_()", f"{a}.fill_(1.5)", f"{a}.clamp_(min=-0.5)",
                 f"{a}.clamp_(-1.0, 1.0)", f"torch.nn.functional.relu({a}, inplace=True)",
                 f"{a}.masked_fill_({a} > 0, 0.0)"]
            )))  # fmt: skip
        return ("expr", f"{a}.{self.rng.choice(self.inplace_methods)}()")

    def _setitem(self) -> tuple | None:
        a = self._pick(lambda t: t.dim() > 0)
        if a is None:
            return None
        target = self.namespace[a]
        keys = _keys(tuple(target.shape), self.rng)
        key = keys[int(self.rng.integers(len(keys)))]
        try:
            shape = tuple(eval(f"{a}[{key}]", self.namespace).shape)
        except Exception:
            shape = ()
        value = self._operand(shape)
        op = str(self.rng.choice(["=", "=", "+=", "*="]))
        return ("stmt", f"{a}[{key}] {op} {value}")

    def _autograd(self) -> tuple | None:
        a = self._pick()
        if a is None:
            return None
        t = self.namespace[a]
        try:
            requires_grad, is_leaf = t.requires_grad, t.is_leaf
        except RuntimeError:  # a stale view PyTorch refuses to read (made in no_grad mode)
            return None
        hook = f"h{self.next_var}"
        options = [f"{a}.retain_grad()", f"{a}.detach_()", f"{a}.requires_grad_()"]
        expressions = [f"{a}.detach()", f"{a}.clone()", f"{a}.data"]
        if requires_grad:
            options += [
                f"_ = {a}.register_hook(hook('{hook}'))",
                f"_ = {a}.register_hook(lambda g: g * 2)",
            ]
            if is_leaf:
                options.append(f"_ = {a}.register_post_accumulate_grad_hook(grad_hook('{hook}'))")
        choice = int(self.rng.integers(len(options) + len(expressions)))
        if choice < len(options):
            return ("stmt", options[choice])
        return ("expr", expressions[choice - len(options)])

    def _no_grad(self) -> tuple | None:
        inner = getattr(self, f"_{self.rng.choice(['op', 'view', 'inplace', 'operator'])}")()
        if inner is None:
            return None
        kind, code, *nan_free = inner
        if kind == "expr":
            code = f"{self._name()} = {code}"
        return ("stmt", f"with torch.no_grad(): {code}", *nan_free)


def _holds_nan(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and bool(torch.isnan(value.detach()).any())


def _holds_nonfinite(value: Any) -> bool:
    return (
        isinstance(value, torch.Tensor)
        and (value.dtype.is_floating_point or value.dtype.is_complex)
        and not bool(torch.isfinite(value.detach()).all())
    )


def _passes_over(test: Any, argument: str, namespace: dict) -> bool:
    """``test`` of an argument's value; an argument whose expression raises (a view of a
    multi-output op changed in place, seed 905007) is left to the call, which raises too."""
    try:
        value = eval(argument, namespace)
    except Exception:
        return False
    return test(value)


def _inexact_tensor(value: Any, dims: int) -> bool:
    """A float or complex tensor with elements and at least ``dims`` dimensions."""
    return (
        isinstance(value, torch.Tensor)
        and value.ndim >= dims
        and value.numel() > 0
        and (value.dtype.is_floating_point or value.dtype.is_complex)
    )


def _cancelling_or_nonfinite(value: Any) -> bool:
    """A tensor holding NaN or inf, or a signal whose discrete Fourier transform along one
    of its dims, its last two or all of them has an entry below sqrt(eps) * n of its largest
    magnitude (FFT_CANCELLATION)."""
    if _holds_nonfinite(value):
        return True
    if not _inexact_tensor(value, 1):
        return False
    x = value.detach().to(torch.complex128)
    scale = float(x.abs().max())
    if scale == 0:
        return False
    tolerance = torch.finfo(value.real.dtype).eps ** 0.5 * scale
    every = tuple(range(value.ndim))
    for dims in {*((d,) for d in every), every[-2:], every}:
        spectrum = torch.fft.fftn(x, dim=dims)
        if bool((spectrum.abs() < tolerance * math.prod(x.shape[d] for d in dims)).any()):
            return True
    return False


def _rank_deficient_or_nonfinite(value: Any) -> bool:
    """A matrix (or batch) holding NaN or inf, or whose first j columns have a rank below j
    for some j up to its smaller dimension (the whole matrix's rank below that dimension, or
    a column that depends on the ones before it: QR without pivoting then reflects a column
    that is 0 in MKL and 1e-17 in OpenBLAS, seed 862170)."""
    if _holds_nonfinite(value):
        return True
    if not _inexact_tensor(value, 2):
        return False
    matrices = value.detach()
    if matrices.dtype in (torch.float16, torch.bfloat16):
        matrices = matrices.float()
    for columns in range(1, min(value.shape[-2:]) + 1):
        rank = torch.linalg.matrix_rank(matrices[..., :columns])
        if bool((rank < columns).any()):
            return True
    return False


def _square_reshape_rank_deficient_or_nonfinite(value: Any) -> bool:
    """A tensor holding NaN or inf, or one that some split of its dims (the first i against
    the rest, of equal products) reshapes into a rank-deficient square matrix."""
    if _holds_nonfinite(value):
        return True
    if not _inexact_tensor(value, 0):
        return False
    for i in range(1, value.ndim):
        rows = math.prod(value.shape[:i])
        if rows * rows == value.numel():
            matrix = value.detach().reshape(rows, rows)
            if int(torch.linalg.matrix_rank(matrix)) < rows:
                return True
    return False


def _repeated_eigenvalues_or_nonfinite(value: Any) -> bool:
    """A tensor holding NaN or inf, or square matrices of which the symmetric (Hermitian)
    matrix of either triangle has two eigenvalues within sqrt(eps) of the largest one's
    magnitude."""
    if _holds_nonfinite(value):
        return True
    if not _inexact_tensor(value, 2):
        return False
    if value.shape[-1] != value.shape[-2] or value.shape[-1] < 2:
        return False
    matrices = value.detach().to(torch.complex128 if value.dtype.is_complex else torch.float64)
    tolerance = torch.finfo(value.dtype).eps ** 0.5
    for triangle in ("L", "U"):
        w = torch.linalg.eigvalsh(matrices, UPLO=triangle)
        scale = w.abs().amax(-1, keepdim=True)
        if bool((w[..., 1:] - w[..., :-1] <= tolerance * scale).any()):
            return True
    return False


def _broadcastable(shape: tuple, target: tuple) -> bool:
    if len(shape) > len(target):
        return False
    return all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def _views(a: str, shape: tuple, rng: np.random.Generator) -> list[str]:
    """View (and a few copying indexing) expressions that fit a tensor of ``shape``."""
    n = len(shape)
    out = [f"{a}.view(-1)", f"{a}.reshape(-1)", f"{a}[...]", f"{a}[None]", f"{a}.unsqueeze(0)"]
    out += [f"{a}.detach()", f"{a}.view({shape!r})", f"{a}.expand(2, *{a}.shape)"]
    if n == 0:
        return out + [f"{a}.expand(3)", f"{a}.view(1, 1)", f"{a}.squeeze()"]
    d = int(rng.integers(n))
    size = shape[d]
    out += [f"{a}.squeeze()", f"{a}.flatten()", f"{a}.unsqueeze(-1)", f"{a}.unbind({d})"]
    out += [f"{a}.split(1, {d})", f"{a}.chunk(2, {d})", f"{a}.movedim({d}, 0)"]
    out += [f"{a}[1:]", f"{a}[::2]", f"{a}[:, None]", f"{a}[..., :1]"]
    if size:
        i = int(rng.integers(size))
        out += [f"{a}.select({d}, {i})", f"{a}.narrow({d}, {i}, {size - i})", f"{a}[{i}]"]
        out += [f"{a}.unfold({d}, 1, 1)", f"{a}[{a} > 0]"]
    if n >= 2:
        e = int(rng.integers(n))
        out += [f"{a}.transpose({d}, {e})", f"{a}.permute({tuple(rng.permutation(n).tolist())!r})"]
        out += [f"{a}.mT", f"{a}.diagonal()", f"{a}.swapaxes(0, 1)", f"{a}[:, [0, 0]]"]
        out += [f"{a}[:, 1:]", f"{a}.diagonal(0, {d}, {e})" if d != e else f"{a}.diagonal(1)"]
    if n == 2:
        out += [f"{a}.t()", f"{a}.T"]
    if 1 in shape:
        k = shape.index(1)
        grown = list(shape)
        grown[k] = 3
        out += [f"{a}.expand({tuple(grown)!r})", f"{a}.squeeze({k})"]
    if size:
        out += [f"{a}[torch.tensor([0, 0])]", f"{a}[[{size - 1}, 0]]"]
    return out


def _keys(shape: tuple, rng: np.random.Generator) -> list[str]:
    """Index keys for ``x[key] = value`` on a tensor of ``shape``."""
    size = shape[0]
    keys = ["...", ":", "1:", "::2", "None"]
    if size:
        i = int(rng.integers(size))
        keys += [str(i), f"[{i}, 0]", f"torch.tensor([{i}])", "[0, 0]"]
    if len(shape) >= 2 and shape[1]:
        keys += [":, 0", "0, 1:" if size else ":, 0", ":, [0, 0]", "..., -1"]
    keys.append("torch.zeros(" + repr(shape) + ", dtype=torch.bool)")
    return keys
