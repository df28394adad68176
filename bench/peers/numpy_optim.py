"""PyTorch's SGD and Adam updates on NumPy arrays, in place, for peers that have no optimizer.

Same arithmetic as ``torch.optim.Adam`` (defaults: betas 0.9/0.999, eps 1e-8, bias correction),
so a peer's losses after several steps can be compared with PyTorch's.
"""

from __future__ import annotations

import math

import numpy as np


def sgd(parameters: list[np.ndarray], gradients: list[np.ndarray], lr: float) -> None:
    """``p -= lr * g`` for each pair, in place."""
    for parameter, gradient in zip(parameters, gradients, strict=True):
        parameter -= lr * gradient


class Adam:
    """``torch.optim.Adam`` on NumPy arrays.

    Example
    -------
    >>> p = np.ones(3, np.float32)
    >>> Adam([p], lr=0.1).step([np.ones(3, np.float32)])
    >>> bool(np.allclose(p, 0.9))
    True
    """

    def __init__(self, parameters: list[np.ndarray], lr: float) -> None:
        self.parameters, self.lr, self.steps = parameters, lr, 0
        self.beta1, self.beta2, self.eps = 0.9, 0.999, 1e-8
        self.first = [np.zeros_like(p) for p in parameters]
        self.second = [np.zeros_like(p) for p in parameters]

    def step(self, gradients: list[np.ndarray]) -> None:
        self.steps += 1
        correction1 = 1 - self.beta1**self.steps
        correction2 = 1 - self.beta2**self.steps
        step_size = self.lr / correction1
        for p, g, m, v in zip(self.parameters, gradients, self.first, self.second, strict=True):
            m *= self.beta1
            m += (1 - self.beta1) * g
            v *= self.beta2
            v += (1 - self.beta2) * g * g
            denominator = np.sqrt(v) / math.sqrt(correction2) + self.eps
            p -= step_size * m / denominator
