"""``add_embedding``'s files for TensorBoard's Projector: per embedding a folder
``<step:05d>/<tag>`` holding ``tensors.tsv`` (one row per point), ``metadata.tsv`` (labels)
and ``sprite.png`` (the points' images tiled in a square), and ``projector_config.pbtxt`` in
the run's directory listing every embedding, as PyTorch writes them."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

from ._convert import make_grid, make_np

__all__ = ["encode_tag", "write_metadata", "write_sprite", "write_matrix", "embedding_info"]


def encode_tag(tag: str) -> str:
    """``tag`` as one folder name: ``%``, ``/`` and ``\\`` percent-encoded."""
    return tag.replace("%", "%25").replace("/", "%2f").replace("\\", "%5c")


def write_metadata(metadata: Sequence[Any], folder: str, header: Sequence[str] | None) -> None:
    """``metadata.tsv``: one label a line, or with ``header`` a header row and one tab-separated
    row per point."""
    if not header:
        lines = [str(label) for label in metadata]
    else:
        if len(header) != len(metadata[0]):
            raise ValueError(
                f"add_embedding: metadata_header has {len(header)} columns, the metadata rows "
                f"{len(metadata[0])}"
            )
        lines = ["\t".join(str(cell) for cell in row) for row in [header, *metadata]]
    _write(folder, "metadata.tsv", ("\n".join(lines) + "\n").encode("utf-8"))


def write_sprite(images: np.ndarray, folder: str) -> None:
    """``sprite.png``: the ``NCHW`` images in [0, 1] tiled into a square grid."""
    from PIL import Image

    per_row = math.ceil(images.shape[0] ** 0.5)
    grid = make_grid(images, ncols=per_row)
    side = grid.shape[2]  # a square as wide as the grid, empty rows below
    square = np.zeros((side, side, 3))
    square[: grid.shape[1]] = grid.transpose(1, 2, 0)
    picture = Image.fromarray(np.uint8((square * 255).clip(0, 255)))
    import io

    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    _write(folder, "sprite.png", buffer.getvalue())


def write_matrix(matrix: np.ndarray, folder: str) -> None:
    """``tensors.tsv``: one tab-separated row of values per point."""
    rows = ["\t".join(str(value) for value in row.tolist()) + "\n" for row in matrix]
    _write(folder, "tensors.tsv", "".join(rows).encode("utf-8"))


def embedding_info(
    tag: str, step: int, subdir: str, has_metadata: bool, label_img: Any
) -> EmbeddingInfo:
    """The projector's entry for one embedding."""
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}")
    info.tensor_path = os.path.join(subdir, "tensors.tsv")
    if has_metadata:
        info.metadata_path = os.path.join(subdir, "metadata.tsv")
    if label_img is not None:
        info.sprite.image_path = os.path.join(subdir, "sprite.png")
        info.sprite.single_image_dim.extend([label_img.shape[3], label_img.shape[2]])
    return info


def label_images(label_img: Any) -> np.ndarray:
    """``label_img`` as an ``NCHW`` array with 1 or 3 channels."""
    images = make_np(label_img, "add_embedding")
    if images.ndim != 4 or images.shape[1] not in (1, 3):
        raise ValueError(
            f"add_embedding: label_img must be images of shape (N, 1 or 3, H, W), got "
            f"{tuple(images.shape)}"
        )
    return images


def _write(folder: str, name: str, data: bytes) -> None:
    with open(os.path.join(folder, name), "wb") as file:
        file.write(data)
