"""The examples in the nn docstrings run and show what they say."""

from __future__ import annotations

import doctest
import importlib

import pytest

import glassgrad
from glassgrad import nn

MODULES = [
    "glassgrad.nn",
    "glassgrad.nn.parameter",
    "glassgrad.nn.functional",
    "glassgrad.nn.init",
    "glassgrad.nn._attention",
    "glassgrad.nn.utils.clip_grad",
    "glassgrad.nn.utils.convert_parameters",
    "glassgrad.nn.modules.module",
    "glassgrad.nn.modules.container",
    "glassgrad.nn.modules.linear",
    "glassgrad.nn.modules.conv",
    "glassgrad.nn.modules.pooling",
    "glassgrad.nn.modules.batchnorm",
    "glassgrad.nn.modules.normalization",
    "glassgrad.nn.modules.dropout",
    "glassgrad.nn.modules.sparse",
    "glassgrad.nn.modules.flatten",
    "glassgrad.nn.modules.activation",
    "glassgrad.nn.modules.loss",
    "glassgrad.nn.modules.rnn",
    "glassgrad.nn.modules.attention",
    "glassgrad.nn.modules.instancenorm",
    "glassgrad.nn.modules.pixelshuffle",
    "glassgrad.nn.modules.upsampling",
    "glassgrad.nn.modules.transformer",
    "glassgrad.nn.modules.activation_piecewise",
    "glassgrad.nn.modules.distance",
    "glassgrad.nn.modules.fold",
    "glassgrad.nn.modules.padding",
    "glassgrad.ops.nn_loss_margin",
    "glassgrad.ops.nn_loss_multiclass",
    "glassgrad.ops.nn_embedding_bag",
    "glassgrad.ops.distances",
    "glassgrad.nn.modules.lazy",
    "glassgrad.nn.modules.adaptive",
    "glassgrad.nn.modules.pooling_fractional",
    "glassgrad.ops.nn_pool_fractional",
    "glassgrad.ops.nn_loss_ctc",
    "glassgrad.nn.modules.loss_multiclass",
    "glassgrad.nn.modules.linear_cross_entropy_options",
    "glassgrad.ops.nn_pool_unpool",
    "glassgrad.ops.nn_grid_sample",
    "glassgrad.ops.nn_affine_grid",
    "glassgrad.ops.nn_activation_piecewise",
    "glassgrad.ops.nn_dropout_feature",
    "glassgrad.nn.utils.rnn",
    "glassgrad.nn.utils.parametrize",
    "glassgrad.nn.utils.parametrizations",
    "glassgrad.nn.utils._orthogonal",
    "glassgrad.nn.utils.weight_norm",
    "glassgrad.nn.utils.spectral_norm",
    "glassgrad.nn.utils.fusion",
    "glassgrad.nn.utils.init",
    "glassgrad.nn.utils.stateless",
    "glassgrad.ops.nn_pool",
    "glassgrad.ops.nn_pool_avg",
    "glassgrad.ops.nn_pool_adaptive",
    "glassgrad.ops.nn_upsample",
    "glassgrad.ops.nn_norm_composite",
    "glassgrad.ops.nn_shuffle",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    glassgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    model(glassgrad.randn(3, 4)).sum().backward()
    globs = {"glassgrad": glassgrad, "nn": nn, "F": nn.functional, "model": model}
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    examples = 0
    for test in finder.find(module, name, globs=globs):
        examples += len(test.examples)
        runner.run(test)
    assert examples > 0, f"{name} has no examples"
    assert runner.failures == 0, f"{runner.failures} failing example(s) in {name}"
