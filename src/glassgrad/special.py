"""``glassgrad.special``: PyTorch's ``torch.special`` (special functions, with PyTorch's
derivatives where it has them).

The error-function family needs nothing beyond NumPy; the gamma and Bessel families use
SciPy (``pip install 'glassgrad[special]'``), imported on first use only.

Example::

    >>> import glassgrad
    >>> glassgrad.special.ndtr(glassgrad.tensor([0.0]))
    tensor([0.5000])
"""

from .ops._out import with_out as _with_out
from .ops.pointwise import sigmoid as expit
from .ops.reduction_math import logsumexp
from .ops.rounding import round
from .ops.special import entr, erfc, erfcx, log_ndtr, log_softmax, logit, ndtr, ndtri, sinc, softmax
from .ops.special_bessel import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    i0,
    i0e,
    i1,
    i1e,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    spherical_bessel_j0,
)
from .ops.special_gamma import digamma, gammainc, gammaincc, multigammaln, polygamma, zeta
from .ops.special_gamma import digamma as psi
from .ops.special_gamma import lgamma as gammaln
from .ops.special_polynomials import (
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
)
from .ops.special_xlogy import xlog1py, xlogy
from .ops.unary_math import erf, erfinv, exp2, expm1, log1p

__all__ = [
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfcx",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "sinc",
    "softmax",
    "spherical_bessel_j0",
    "xlog1py",
    "xlogy",
    "zeta",
]

# PyTorch's keyword-only out= where it has one (the functions also serve as Tensor
# methods, without it).
globals().update({_name: _with_out(globals()[_name], _name, "special") for _name in __all__})
