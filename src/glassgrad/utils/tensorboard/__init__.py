"""TensorBoard logging with PyTorch's API: ``SummaryWriter`` and its ``add_*`` methods.

Needs the ``tensorboard`` package (``pip install 'glassgrad[tensorboard]'``); ``import
glassgrad`` does not import it.

Examples
--------
>>> from glassgrad.utils.tensorboard import SummaryWriter
>>> writer = SummaryWriter("runs/demo")
>>> writer.add_scalar("loss", 0.5, global_step=1)
>>> writer.close()
"""

try:
    import tensorboard as _tensorboard
except ImportError as _error:  # pragma: no cover - exercised in a subprocess by the tests
    raise ModuleNotFoundError(
        "glassgrad.utils.tensorboard needs the 'tensorboard' package, which is not installed: "
        "pip install 'glassgrad[tensorboard]' (or pip install tensorboard)",
        name="tensorboard",
    ) from _error

del _tensorboard

from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from .writer import FileWriter, SummaryWriter  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]
