"""The examples in the optim docstrings run and show what they say."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pytest

import glassgrad
from glassgrad.optim import lr_scheduler

MODULES = [
    "glassgrad.optim",
    "glassgrad.optim._elementwise",
    "glassgrad.optim.optimizer",
    "glassgrad.optim.sgd",
    "glassgrad.optim.adam",
    "glassgrad.optim.adamw",
    "glassgrad.optim.rmsprop",
    "glassgrad.optim.adagrad",
    "glassgrad.optim.adadelta",
    "glassgrad.optim.adafactor",
    "glassgrad.optim.adamax",
    "glassgrad.optim.asgd",
    "glassgrad.optim.lbfgs",
    "glassgrad.optim.muon",
    "glassgrad.optim.nadam",
    "glassgrad.optim.radam",
    "glassgrad.optim.rprop",
    "glassgrad.optim.sparse_adam",
    "glassgrad.optim.lr_scheduler",
    "glassgrad.optim._lr_composite",
    "glassgrad.optim._lr_cyclic",
]


def _context() -> dict:
    """What the short examples refer to: a parameter ``w``, an optimizer ``opt`` over it,
    a ``model``, and the scheduler classes by name (fresh for every docstring)."""
    w = glassgrad.tensor([1.0, 2.0], requires_grad=True)
    return {
        "glassgrad": glassgrad,
        "np": np,
        "w": w,
        "opt": glassgrad.optim.SGD([w], lr=0.1),
        "model": glassgrad.nn.Linear(3, 1),
        **{name: getattr(lr_scheduler, name) for name in lr_scheduler.__all__},
    }


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in finder.find(module, name, globs=vars(module)):
        test.globs.update(_context())
        examples += len(test.examples)
        runner.run(test)
    assert examples > 0, f"{name} has no examples"
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {name}"
