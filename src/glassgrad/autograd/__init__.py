"""Reverse-mode automatic differentiation: ``backward``, ``grad``, custom ``Function``,
grad modes, ``functional`` (jacobian, hessian, vjp, jvp, hvp), ``gradcheck``, anomaly mode.
"""

from __future__ import annotations

from . import functional, graph, profiler
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .api import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_multithreading_enabled,
    no_grad,
    set_grad_enabled,
    set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck
from .profiler import _profiler_enabled, kineto_available  # noqa: F401 (PyTorch's names)
from .variable import Variable

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "once_differentiable",
    "Variable",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "inference_mode",
    "set_multithreading_enabled",
    "is_multithreading_enabled",
    "gradcheck",
    "gradgradcheck",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "functional",
    "graph",
    "profiler",
    "kineto_available",
]
