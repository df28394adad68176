"""SciPy's special functions, imported on first use: ``import glassgrad`` never loads SciPy,
and an op that needs it says what to install."""

from __future__ import annotations

from typing import Any


def scipy_special(op: str) -> Any:
    """The ``scipy.special`` module, or an error naming ``op`` and how to install SciPy."""
    try:
        import scipy.special
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{op} needs SciPy's special functions, which are not installed: "
            "pip install 'glassgrad[special]' (or: pip install scipy)"
        ) from exc
    return scipy.special
