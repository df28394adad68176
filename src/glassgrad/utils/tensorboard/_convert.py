"""Values handed to the writer as NumPy arrays, and images as the ``HWC`` arrays TensorBoard
encodes."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._tensor import Tensor

__all__ = ["make_np", "convert_to_HWC", "make_grid", "figure_to_image"]


def make_np(value: Any, what: str = "value") -> np.ndarray:
    """``value`` (a glassgrad tensor, a NumPy array or a number) as a NumPy array.

    A number becomes a one-element array, as in PyTorch; a tensor is detached (its array is
    shared, not copied).

    Examples
    --------
    >>> make_np(glassgrad.tensor([1.0, 2.0], requires_grad=True))
    array([1., 2.], dtype=float32)
    """
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, Tensor):
        return value.detach().numpy()
    if np.isscalar(value) and not isinstance(value, (str, bytes)):
        return np.array([value])
    raise TypeError(
        f"{what}: expected a glassgrad tensor, a NumPy array or a Python number, "
        f"got {type(value).__name__}"
    )


def make_grid(images: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tile ``N1HW`` or ``N3HW`` images into one ``3HW`` image, ``ncols`` per row."""
    if images.shape[1] == 1:
        images = np.concatenate([images, images, images], 1)
    if images.ndim != 4 or images.shape[1] != 3:
        raise ValueError(
            f"make_grid: expected images of shape (N, 1 or 3, H, W), got {tuple(images.shape)}"
        )
    count, _, height, width = images.shape
    ncols = min(count, ncols)
    nrows = -(-count // ncols)
    canvas = np.zeros((3, height * nrows, width * ncols), dtype=images.dtype)
    for index in range(count):
        row, col = divmod(index, ncols)
        canvas[:, row * height : (row + 1) * height, col * width : (col + 1) * width] = images[
            index
        ]
    return canvas


def convert_to_HWC(array: np.ndarray, dataformats: str, what: str = "add_image") -> np.ndarray:  # noqa: N802 - PyTorch's name
    """``array`` laid out as ``dataformats`` (``NCHW``, ``CHW``, ``HWC``, ``HW`` ...) as ``HWC``
    with three channels; a batch is tiled into a grid."""
    layout = dataformats.upper()
    if len(set(layout)) != len(layout) or not set(layout) <= set("NCHW") or len(layout) < 2:
        raise ValueError(
            f"{what}: dataformats must use each of N, C, H, W at most once and include H and W, "
            f"got {dataformats!r}"
        )
    if "H" not in layout or "W" not in layout:
        raise ValueError(f"{what}: dataformats must include H and W, got {dataformats!r}")
    if array.ndim != len(layout):
        raise AssertionError(
            f"{what}: size of input tensor and input format are different: an image of "
            f"dataformats {dataformats!r} has {len(layout)} dimensions, got tensor shape "
            f"{tuple(array.shape)} ({array.ndim} dimensions)"
        )
    if len(layout) == 4:
        if "C" not in layout or "N" not in layout:
            raise ValueError(
                f"{what}: 4-d dataformats must be a permutation of NCHW, got {dataformats!r}"
            )
        nchw = array.transpose([layout.find(c) for c in "NCHW"])
        return make_grid(nchw).transpose(1, 2, 0)
    if len(layout) == 3:
        if "C" not in layout:
            raise ValueError(
                f"{what}: 3-d dataformats must be a permutation of CHW, got {dataformats!r}"
            )
        hwc = array.transpose([layout.find(c) for c in "HWC"])
        _check_channels(hwc.shape[2], what)
        if hwc.shape[2] == 1:
            hwc = np.concatenate([hwc, hwc, hwc], 2)
        return hwc
    hw = array.transpose([layout.find(c) for c in "HW"])
    return np.stack([hw, hw, hw], 2)


def _check_channels(channels: int, what: str) -> None:
    if channels not in (1, 3, 4):
        raise ValueError(f"{what}: an image has 1, 3 or 4 channels, got {channels}")


def figure_to_image(figures: Any, close: bool = True) -> np.ndarray:
    """Render a matplotlib figure (``CHW`` uint8) or a list of them (``NCHW``)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def render(figure: Any) -> np.ndarray:
        canvas = FigureCanvasAgg(figure)
        canvas.draw()
        rgba = np.asarray(canvas.buffer_rgba())
        chw = np.moveaxis(rgba[:, :, :3], 2, 0).copy()
        if close:
            import matplotlib.pyplot as plt

            plt.close(figure)
        return chw

    if isinstance(figures, list):
        return np.stack([render(figure) for figure in figures])
    return render(figures)
