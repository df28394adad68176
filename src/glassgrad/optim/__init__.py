"""Optimizers and learning-rate schedulers, as ``torch.optim``.

Every optimizer follows the arithmetic of PyTorch's single-tensor (``foreach=False``)
implementation operation by operation, in the parameters' dtype, so a glassgrad training run
follows the same trajectory as PyTorch's from the same start. Updates write the parameters'
NumPy arrays in place, chunk by chunk and on several threads for large parameters (see
``_elementwise``), and record nothing in the autograd graph.

Example::

    >>> model = glassgrad.nn.Linear(3, 1)
    >>> opt = glassgrad.optim.Adam(model.parameters(), lr=1e-2)
    >>> scheduler = glassgrad.optim.lr_scheduler.StepLR(opt, step_size=10, gamma=0.5)
    >>> for _ in range(3):
    ...     opt.zero_grad()
    ...     model(glassgrad.ones(4, 3)).pow(2).mean().backward()
    ...     opt.step()
    ...     scheduler.step()
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .muon import Muon
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "RMSprop",
    "Adagrad",
    "Adadelta",
    "Adafactor",
    "Adamax",
    "ASGD",
    "LBFGS",
    "Muon",
    "NAdam",
    "RAdam",
    "Rprop",
    "SparseAdam",
    "lr_scheduler",
]
