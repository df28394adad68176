"""The examples in the TensorBoard docstrings run (in a temporary folder) and write what they
say."""

from __future__ import annotations

import doctest
import importlib

import pytest
from tb_helpers import accumulate

import glassgrad
from glassgrad.utils.tensorboard import SummaryWriter

MODULES = [
    "glassgrad.utils.tensorboard",
    "glassgrad.utils.tensorboard._convert",
    "glassgrad.utils.tensorboard._event_file",
    "glassgrad.utils.tensorboard.summary",
    "glassgrad.utils.tensorboard.writer",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    module = importlib.import_module(name)
    writer = SummaryWriter("runs/doc")
    globs = {**vars(module), "glassgrad": glassgrad, "writer": writer,
             "model": glassgrad.nn.Linear(4, 2)}  # fmt: skip
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in doctest.DocTestFinder().find(module, name, globs=globs):
        examples += len(test.examples)
        runner.run(test)
    writer.close()
    assert examples > 0, f"{name} has no examples"
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {name}"
    if name.endswith(".writer"):
        tags = accumulate(tmp_path / "runs" / "doc").Tags()
        assert tags["scalars"] == ["loss"] and tags["histograms"] == ["fc.weight"]
        assert tags["images"] == ["noise"] and tags["graph"]
        assert accumulate(tmp_path / "runs" / "doc" / "backward").Tags()["graph"]
