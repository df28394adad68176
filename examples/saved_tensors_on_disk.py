"""Keep the activations a backward needs on disk instead of in memory, with saved-tensor hooks
(PyTorch's ``torch.autograd.graph.saved_tensors_hooks``), and compare with checkpointing.

Every tensor an op saves for backward goes through ``pack`` (here: written to a temporary
directory, a file name kept) and comes back through ``unpack`` (read again) when backward needs
it. The gradients are the same as without hooks.

Run: ``python examples/saved_tensors_on_disk.py``
"""

from __future__ import annotations

import os
import tempfile
import uuid

import numpy as np

import glassgrad as torch
from glassgrad.utils.checkpoint import checkpoint


class SaveOnDisk(torch.autograd.graph.saved_tensors_hooks):
    """Saved tensors go to ``directory`` as .npy files while the graph waits for backward."""

    def __init__(self, directory: str) -> None:
        self.written = 0

        def pack(tensor: torch.Tensor) -> str:
            path = os.path.join(directory, f"{uuid.uuid4().hex}.npy")
            np.save(path, tensor.detach().numpy())
            self.written += 1
            return path

        def unpack(path: str) -> torch.Tensor:
            return torch.from_numpy(np.load(path))

        super().__init__(pack, unpack)


def main() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.Tanh(), torch.nn.Linear(256, 256), torch.nn.Tanh(),
        torch.nn.Linear(256, 1),
    )  # fmt: skip
    x = torch.randn(32, 64)

    model(x).sum().backward()
    reference = [p.grad.clone() for p in model.parameters()]

    model.zero_grad()
    with tempfile.TemporaryDirectory() as directory:
        hooks = SaveOnDisk(directory)
        with hooks:
            loss = model(x).sum()
        loss.backward()
    on_disk = [p.grad.clone() for p in model.parameters()]
    print(f"saved tensors written to disk: {hooks.written}")

    model.zero_grad()
    checkpoint(model, x, use_reentrant=False).sum().backward()
    recomputed = [p.grad.clone() for p in model.parameters()]

    for name, grads in (("on disk", on_disk), ("checkpointed", recomputed)):
        same = all(torch.allclose(a, b) for a, b in zip(grads, reference))
        print(f"gradients {name} match the plain backward: {same}")


if __name__ == "__main__":
    main()
