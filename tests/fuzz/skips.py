"""What the fuzzer leaves out on purpose, by name, with the reason (also in docs/fuzzing.md).

Each entry is something PyTorch does that glassgrad deliberately does not, or a row of the
registry that a random program cannot call meaningfully. ``python -m tests.fuzz`` prints
this list with every run, so nothing is left out silently.
"""

from __future__ import annotations

from typing import Any

SKIPPED_OPS = {
    "nn.functional.dropout": "random: glassgrad's random stream differs from PyTorch's",
    "_div_rounded": "private row of div(rounding_mode=...), which the fuzzer calls instead",
    "_rnn_layer": "private row of the RNN modules (a fused layer), not a public function",
    "_clamp_tensor_bounds": "private row of clamp with tensor bounds, which the fuzzer calls",
    "bernoulli": "random: glassgrad's stream is not PyTorch's (also bernoulli_)",
    "multinomial": "random: glassgrad's stream is not PyTorch's",
    "poisson": "random: glassgrad's stream is not PyTorch's",
    "binomial": "random: glassgrad's stream is not PyTorch's",
    "normal": "random: glassgrad's stream is not PyTorch's (also normal_)",
    "svd_lowrank": "random: glassgrad's stream is not PyTorch's; singular vectors up to sign",
    "pca_lowrank": "random: glassgrad's stream is not PyTorch's; singular vectors up to sign",
    "lobpcg": (
        "iterative, eigenvectors up to sign and a random start without X; test_registry "
        "compares its sign-free results from given starts, tests/ops/test_lobpcg.py the rest"
    ),
    "svd": "singular vectors are defined up to sign (as linalg.eigh); linalg.svdvals is fuzzed",
    "linalg.svd": "singular vectors are defined up to sign (as linalg.eigh)",
    "vander": "PyTorch's own backward of vander fails ('modified by an inplace operation', "
    "its composite writes into a tensor it saved); test_registry checks glassgrad's",
    "linalg.eigh": (
        "eigenvectors are defined up to sign and NumPy's LAPACK picks other signs than "
        "PyTorch's; linalg.eigvalsh is fuzzed, and test_registry compares eigh's "
        "sign-independent results"
    ),
    "as_strided": (
        "reads the tensor's storage layout, which differs from PyTorch's for the ops listed "
        "in tests/ops/test_result_strides.py; test_registry and tests/ops/test_strided_views.py "
        "compare it"
    ),
    "as_strided_scatter": (
        "PyTorch 2.13's backward of it is wrong for the input (its gradcheck fails); "
        "test_registry compares it with PyTorch's clone + as_strided + copy_"
    ),
    "linalg.eig": (
        "eigenvectors are defined up to a complex phase and NumPy's LAPACK build picks other "
        "phases than PyTorch's now and then; linalg.eigvals is fuzzed, and test_registry "
        "compares eig's phase-independent results"
    ),
}

# Derivatives PyTorch raises "derivative for ... is not implemented" for, which glassgrad
# computes (by the same formula differentiated once more); gradgradcheck covers them in
# tests/fuzz/test_fuzz.py. Where PyTorch raises this for one of them, no difference is
# counted if glassgrad gives a value.
PYTORCH_LACKS = {
    "hardsigmoid_backward": "hardsigmoid's second derivative (zero almost everywhere)",
    "asinh": "the derivative of asinh_ (in place); PyTorch has the out-of-place one only",
    "acosh": "the derivative of acosh_ (in place); PyTorch has the out-of-place one only",
    "atanh": "the derivative of atanh_ (in place); PyTorch has the out-of-place one only",
}

# Ops whose PyTorch 2.13 CPU kernel returns undefined values for a NaN argument: its
# recurrence (`for (k = 2; k <= n && !isnan(q); k++) r = ...; return r;`, ATen's Math.h) stops
# before the first step and returns the uninitialised `r` (values such as -3.1e13, 1.4e-45 or
# 0.0, changing from run to run), where glassgrad returns NaN. The fuzzer does not call them on a
# tensor holding NaN (the candidate statement is passed over); other values are fuzzed.
# Linear algebra whose result on a matrix holding a NaN or inf is whatever MKL's blocked or
# iterative LAPACK routines leave (docs/fuzzing.md, "Known differences"): the SVD's U and Vh
# of a matrix holding an inf (NumPy's gesdd never returns there; glassgrad gives NaN), and
# what is built on them; eigh (MKL's syevd, not replayed); eigvals without grad (MKL's geev
# after "Parameter 3 was incorrect on entry to DGEBAL", or a crash for float32 and complex; with
# grad both raise linalg.eig's error); ormqr (MKL's order of reflectors
# is not the unblocked one in about 1 in 20 cases). The fuzzer does not call them on a tensor
# holding NaN or inf; the LU and QR families are fuzzed with them
# (tests/ops/test_linalg_nonfinite.py compares them position by position).
MKL_NONFINITE = {
    name: "PyTorch's result on NaN or inf is MKL's internal order, not reproduced"
    for name in (
        "linalg.svd",
        "svd",
        "linalg.pinv",
        "pinverse",
        "linalg.matrix_norm",
        "linalg.norm",
        "nuclear_norm",
        "linalg.cond",
        "linalg.eigh",
        "linalg.eigvalsh",
        "linalg.eigvals",
        "ormqr",
        "linalg.lstsq",
    )
}

# Factorizations of a rank-deficient matrix (a tensor of tied values makes one: the
# generator repeats values): the columns of Q beyond the rank, and the order in which
# repeated or zero eigenvalues deflate, are what the LAPACK implementation's rounding leaves
# (MKL in PyTorch, OpenBLAS in NumPy), O(1) apart though the input agrees exactly (seeds
# 771199, 741586: Q of a constant matrix; 723854: eigvals of one); so is whether an exactly
# singular matrix's LU has a zero pivot (MKL) or a tiny one (OpenBLAS), which makes
# slogdet/logdet and their gradients -inf/NaN or finite (seed 801688); so are the singular
# vectors of the zero singular values, which the gradients of the singular values read
# (U diag(gS) V^H: seed 850457, nuclear_norm of a constant matrix, 1.79 apart), and whether
# a singular positive semi-definite matrix's Cholesky pivot comes out +1e-16 (a factor) or
# -1e-16 (an error, or cholesky_ex's partial factor: seed 851820); so is the inverse of a
# singular matrix whose LU pivot comes out tiny, not zero (+-1e16 entries, 6e16 apart: seed
# 838736, tensorinv of a tied (2, 3, 6) tensor, a 6x6 matrix of rank 5). The fuzzer does not
# call them on a matrix whose rank is below its smaller dimension (tensorinv: the square
# matrix it reshapes its input into), nor on one with a column that depends on the columns
# before it (QR without pivoting reflects what is left of it: 0 in MKL, 1e-17 in OpenBLAS,
# and the factors are O(1) apart: seed 862170, geqrf of a full-rank 3x5 matrix whose first two
# columns are proportional); so is whether gels finds R's diagonal exactly zero (MKL: the
# "does not have full rank" error) or 1e-17 (a solution): seed 921664, lstsq of a constant
# matrix.
MKL_RANK_DEFICIENT = {
    name: "a rank-deficient matrix's factors beyond the rank are LAPACK's rounding"
    for name in (
        "qr",
        "linalg.qr",
        "geqrf",
        "linalg.eigvals",
        "slogdet",
        "linalg.slogdet",
        "logdet",
        "svd",
        "linalg.svd",
        "linalg.svdvals",
        "nuclear_norm",
        "linalg.matrix_norm",
        "linalg.norm",
        "linalg.cond",
        "cholesky",
        "linalg.cholesky",
        "linalg.cholesky_ex",
        "linalg.inv",
        "linalg.inv_ex",
        "inverse",
        "linalg.tensorinv",
        "linalg.lstsq",
    )
}

# The eigenvalues of a symmetric matrix with a repeated eigenvalue (a constant matrix from
# the generator's tied values: c * ones has n - 1 zero eigenvalues): their gradient is
# V diag(g) V^H, and within a repeated eigenvalue's eigenspace V is any orthonormal basis,
# the one LAPACK's rounding leaves (MKL's syevd in PyTorch, OpenBLAS's in NumPy), so where
# the weights g differ on it the gradients are O(1) apart though the inputs agree bit for bit
# (seed 804723: 0.017 on a 3x3 constant matrix). Eigenvalues themselves are not
# differentiable there. The fuzzer does not call it on a matrix (either triangle) with two
# eigenvalues closer than sqrt(eps) of the largest magnitude; NaN or inf as MKL_NONFINITE.
LAPACK_REPEATED_EIGENVALUES = {
    "linalg.eigvalsh": "a repeated eigenvalue's eigenvectors, which its gradient reads, are "
    "any basis of its eigenspace: LAPACK's rounding",
}

# The discrete Fourier transforms of a signal holding a NaN or inf (docs/fuzzing.md, "Known
# differences"): which outputs are NaN and which infinite depends on the transform's algorithm
# (its butterflies multiply the bad value by twiddle factors with a zero part), and PyTorch's
# CPU transforms are MKL's, glassgrad's NumPy's pocketfft. Measured over one NaN or inf in
# every position of 1-d signals of lengths 2-12: fft/rfft differ at mixed-radix lengths (6,
# 10, 12), irfft/hfft at most lengths from 4, 2-d transforms at a third to a half of the
# positions. The fuzzer does not call them on a tensor holding NaN or inf (real or complex);
# a non-finite gradient reaching a transform's backward is not left out.
FFT_NONFINITE = {
    name: "PyTorch's transform of NaN or inf is MKL's algorithm, not pocketfft's"
    for name in (
        *(
            f"fft.{kind}{suffix}"
            for kind in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
            for suffix in ("", "2", "n")
        ),
        "stft",
        "istft",
    )
}

# A transform's exact cancellations (the zero frequencies of a constant or periodic signal,
# which the generator's tied values make) come out 0, +-0 or +-1e-16 by the algorithm's
# rounding, MKL's in PyTorch and pocketfft's in glassgrad: an op not differentiable at 0 after
# it (abs, sgn, angle, a power) turns that into O(1) apart gradients though the inputs agree
# bit for bit (seed 836063: abs of fft2 of a constant tensor, sgn(-8.9e-16) = -1 against
# sgn(0) = 0). The fuzzer does not call them on a signal whose transform along one of its
# dims, its last two or all of them has an entry below sqrt(eps) * n of its largest input
# magnitude (a tensor of zeros has no rounding: it is fuzzed).
FFT_CANCELLATION = {
    name: "a transform's exact cancellations are 0 or +-1e-16 by MKL's or pocketfft's rounding"
    for name in FFT_NONFINITE
}

# Backward kernels whose scalar and vectorized loops branch differently on a NaN input
# (docs/fuzzing.md, "Known differences": the scalar loop's `x <= 0 ? a : b` sends a NaN one
# way, the vectorized blend the other; which loop an element gets depends on its position,
# the tensor's size and the machine's SIMD width). glassgrad follows the scalar loop; from
# one vectorized block (8 float64 elements on AVX2) PyTorch's first elements follow the other
# (seed 903393: hardtanh_ of 12 NaN elements, the first 8 with zero gradients). The fuzzer
# does not call them on a tensor holding NaN; other values are fuzzed.
PYTORCH_VECTORIZED_NAN_BRANCH = {
    name: "PyTorch's vectorized loop branches otherwise than its scalar loop on NaN"
    for name in (
        "nn.functional.elu",
        "nn.functional.elu_",
        "nn.functional.celu",
        "nn.functional.celu_",
        "celu_",
        "nn.functional.selu",
        "nn.functional.selu_",
        "selu_",
        "nn.functional.hardswish",
        "nn.functional.hardtanh",
        "nn.functional.hardtanh_",
        "nn.functional.relu6",
        "nn.functional.hardshrink",
        "nn.functional.softshrink",
    )
}

PYTORCH_UNDEFINED_FOR_NAN = {
    f"special.{name}": "PyTorch reads an uninitialised result for a NaN argument"
    for name in (
        "chebyshev_polynomial_u",
        "chebyshev_polynomial_w",
        "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u",
        "shifted_chebyshev_polynomial_w",
        "laguerre_polynomial_l",
        "legendre_polynomial_p",
    )
}


def _between(low: float, high: float, two_sided: bool) -> Any:
    """A test of a call's arguments: a float tensor with a value x (|x| if ``two_sided``)
    strictly between ``low`` and ``high``."""

    def holds(value: Any) -> bool:
        import torch

        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            return False
        x = value.detach().abs() if two_sided else value.detach()
        return bool(((x > low) & (x < high)).any())

    return holds


# Special functions whose PyTorch 2.13 kernels are off there (ops/special_bessel.py's
# docstring): ATen's ports of Cephes' j0/j1/y0/y1 lose up to ~1e-8 between 2.5 and 15.3,
# its airy_ai sums the asymptotic form's denominators below -2.09 without Cephes' leading 1
# (1.6e-5 relative at -2.19, fuzz seed 720089). glassgrad gives the exact values
# (tests/ops/test_special.py compares them with mpmath there, with PyTorch elsewhere). The
# generator passes over a call with an argument in that range; other arguments are fuzzed.
PYTORCH_INACCURATE = {
    "special.bessel_j0": ("|x| in (2.5, 15.3)", _between(2.5, 15.3, True)),
    "special.bessel_j1": ("|x| in (2.5, 15.3)", _between(2.5, 15.3, True)),
    "special.bessel_y0": ("x in (2.5, 15.3)", _between(2.5, 15.3, False)),
    "special.bessel_y1": ("x in (2.5, 15.3)", _between(2.5, 15.3, False)),
    "special.airy_ai": ("x below -2.09", _between(-float("inf"), -2.09, False)),
}

# Ops whose PyTorch result can be a lazy conjugate view (the conj bit: conj and adjoint of a
# complex tensor, ifft/ihfft of a real one, a conjugated forward transform): writing into it
# writes into the input there. glassgrad has no conj bit and computes the conjugate as a new
# tensor (docs/views_and_inplace.md; tests/ops/test_result_aliasing.py lists the same ops).
# The fuzzer calls them with `.clone()` after the call: their values and gradients are
# fuzzed, their aliasing is not.
PYTORCH_LAZY_CONJ = {
    name: "PyTorch's result is a lazy conjugate view; glassgrad's conjugate is a new tensor"
    for name in ("conj", "adjoint", "fft.ifft", "fft.ihfft")
}

# PyTorch failures that are bugs of PyTorch's, not errors of the program: the name says where,
# the value is the message PyTorch raises (matched as a substring). A phase where PyTorch
# fails so ends the comparison; glassgrad computes the derivative.
PYTORCH_BUGS = {
    "layer_norm double backward without weight": (
        # native_layer_norm's double backward multiplies by the undefined weight when the
        # bias requires grad and the weight is None.
        "Expected a proper Tensor but got None (or an undefined Tensor in C++)"
    ),
    "linalg.cond backward with ord 'fro', inf, -inf, 1 or -1": (
        # _linalg_cond_helper masks the inverse of linalg_inv_ex in place (masked_fill_),
        # and LinalgInvExBackward0 saved it: every backward of these norms raises.
        "which is output 0 of LinalgInvEx,"
    ),
    "embedding double backward with no indices": (
        # embedding_dense_double_backward views its result as indices.sizes() + [-1], which
        # is ambiguous for zero elements: every second derivative through an empty lookup
        # raises (glassgrad gives the empty gradient). In a backward phase only PyTorch's
        # own formulas reshape, so the message names this bug.
        "because the unspecified dimension size -1 can be any value and is ambiguous"
    ),
}

# Second derivatives PyTorch gets wrong without an error: the name says what, the value is
# the text of a statement that makes it (matched as a substring). In a program with such a
# statement the second derivatives (phase gradgrad, and hook calls in it) are not compared.
PYTORCH_WRONG_SECOND_ORDER = {
    "embedding with scale_grad_by_freq=True": (
        # embedding_dense_double_backward gathers the gradient without dividing by each
        # index's count ("the first backward takes care of scaling"), so its double backward
        # is not the adjoint of its own first backward: gradgradcheck fails on it. glassgrad
        # gives the adjoint (the gather divided by the counts).
        "scale_grad_by_freq=True"
    ),
}


def _layer_norm_bias_without_weight(node: Any) -> bool:
    """A PyTorch ``NativeLayerNormBackward0`` without a weight whose bias requires grad."""
    return (
        type(node).__name__ == "NativeLayerNormBackward0"
        and node._saved_weight is None
        and node.next_functions[2][0] is not None
    )


def _silu_inplace_of_complex(node: Any) -> bool:
    """A PyTorch ``SiluBackward0`` of a complex input (only ``silu_`` records one)."""
    return type(node).__name__ == "SiluBackward0" and node._saved_self.dtype.is_complex


def _det_of_exactly_singular(node: Any) -> bool:
    """A PyTorch ``LinalgDetBackward0`` whose determinant is exactly 0 somewhere (a result
    changed in place since cannot be read: PyTorch's backward raises then)."""
    if type(node).__name__ != "LinalgDetBackward0":
        return False
    try:
        return bool((node._saved_result == 0).any())
    except RuntimeError:
        return False


# PyTorch bugs that give a wrong derivative without raising, recognised on PyTorch's graph of
# the loss: the name, the phase from which its results are wrong, and a test of one node of
# that graph (PyTorch's node classes). A program whose graph has such a node is compared up
# to that phase only; glassgrad computes the derivative (tests check it against PyTorch's
# composite formula).
PYTORCH_SILENT_BUGS = {
    "silu_ of a complex tensor": (
        # silu refuses complex autograd; silu_ records it with the real formula unconjugated
        # (grad * d silu/dz, not grad * conj(d silu/dz) as PyTorch's own convention has it),
        # so every derivative through it is wrong. glassgrad takes the conjugate.
        "backward",
        _silu_inplace_of_complex,
    ),
    "layer_norm double backward without weight, bias requiring grad": (
        # Without a weight, PyTorch's layer_norm_double_backward drops the bias's term: the
        # bias's gradient gets no derivative with respect to the incoming gradient (None
        # where PyTorch's own composite formula gives a value); with an input term as well
        # it raises instead (the PYTORCH_BUGS entry above).
        "gradgrad",
        _layer_norm_bias_without_weight,
    ),
    "linalg.det backward at an exactly singular matrix": (
        # Without a graph, linalg_det_backward solves A^H X = conj(det A) grad I with a zero
        # pivot of the LU nudged to eps: where det A is exactly 0 the right side is 0 and the
        # gradient 0, not the cofactor matrix (nonzero at rank n-1; finite differences and
        # PyTorch's own create_graph path give it). glassgrad gives the cofactor matrix
        # (tests/ops/test_linalg.py).
        "backward",
        _det_of_exactly_singular,
    ),
}
