"""The optim tests run PyTorch on tiny tensors, where its intra-op threads only add
synchronisation (and spin on a busy machine): one thread each, restored afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import torch


@pytest.fixture(autouse=True)
def _torch_single_thread() -> Iterator[None]:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
