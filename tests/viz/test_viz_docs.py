"""The examples in the viz docstrings run and show what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

import glassgrad
from glassgrad import viz

MODULES = [
    "glassgrad.viz._graph",
    "glassgrad.viz._stats",
    "glassgrad.viz.attribution",
    "glassgrad.viz.health",
    "glassgrad.viz.diagnose",
    "glassgrad.viz.diff",
    "glassgrad.viz.dot",
    "glassgrad.viz.explore",
    "glassgrad.viz.forward",
    "glassgrad.viz.report",
    "glassgrad.viz.trace",
    "glassgrad.viz.tree",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write a file write it here
    module = importlib.import_module(name)
    globs = {**vars(module), "glassgrad": glassgrad, **{n: getattr(viz, n) for n in viz.__all__}}
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in finder.find(module, name, globs=globs):
        examples += len(test.examples)
        runner.run(test)
    assert examples > 0, f"{name} has no examples"
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {name}"
