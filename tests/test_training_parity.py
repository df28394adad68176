"""End to end against PyTorch: a small CNN trained for 50 steps in float32 by glassgrad and by
PyTorch, from the same initial weights (copied through NumPy) on the same batches (a fixed
order), gives the same loss at every step within 1e-4 relative, and nearly the same weights.

The training program is written once and run with either library as ``lib``.

Float32 training can be chaotic: where Adam divides a gradient of the size of its ``eps`` by its
own root mean square, or a max-pooling window holds a near tie, a rounding-level difference
(another summation order) grows into a different trajectory. Then no two implementations agree,
PyTorch not even with itself. So each case first checks that PyTorch's losses do not move when
only its summation order changes (the same batches in another memory layout, which selects
another convolution kernel): the comparison with glassgrad is meaningful only then. Both
libraries run single-threaded for the same reason (and because it is much faster on a busy
2-core machine).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.datasets import load_digits

import glassgrad

STEPS = 50
BATCH_SIZE = 32
LOSS_RTOL = 1e-4
REFERENCE_STABILITY_RTOL = 1e-5


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """One BLAS/OpenMP thread for both libraries, restored afterwards."""
    from threadpoolctl import threadpool_limits

    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with threadpool_limits(limits=1, user_api="blas"):
        yield
    torch.set_num_threads(torch_threads)


def small_cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, kernel_size=3, padding=1),  # 8x8 -> 8x8
        nn.ReLU(),
        nn.MaxPool2d(2),  # -> 4x4
        nn.Conv2d(8, 16, kernel_size=3),  # -> 2x2
        nn.ReLU(),
        nn.Flatten(),
        nn.Linear(16 * 2 * 2, 10),
    )


def sgd_momentum(lib, params):
    return lib.optim.SGD(params, lr=0.05, momentum=0.9), None


def adam(lib, params):
    return lib.optim.Adam(params, lr=0.01), None


def adam_one_cycle(lib, params):
    """The demo's recipe: Adam under a one-cycle schedule (which also cycles beta1)."""
    optimizer = lib.optim.Adam(params, lr=0.01)
    return optimizer, lib.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.01, total_steps=STEPS)


def fixed_batches() -> list[tuple[np.ndarray, np.ndarray]]:
    """``STEPS`` batches of digits in one seeded order (50 x 32 = 1,600 of the 1,797 images)."""
    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    order = np.random.default_rng(0).permutation(len(labels))
    chunks = [order[step * BATCH_SIZE : (step + 1) * BATCH_SIZE] for step in range(STEPS)]
    return [(images[chunk], labels[chunk]) for chunk in chunks]


def in_other_layout(batches):
    """The same values, with other strides on the size-1 channel axis."""
    return [(images.copy(), labels) for images, labels in batches]


def train(lib, model, make_optimizer, batches) -> list[float]:
    optimizer, scheduler = make_optimizer(lib, model.parameters())
    losses = []
    for images, labels in batches:
        logits = model(lib.from_numpy(images))
        loss = lib.nn.functional.cross_entropy(logits, lib.from_numpy(labels))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        losses.append(loss.item())
    return losses


def torch_model(seed: int):
    """PyTorch's CNN with its default initialisation drawn from ``seed``."""
    torch.manual_seed(seed)
    return small_cnn(torch)


def glassgrad_copy(reference):
    """glassgrad's CNN holding the same weights as ``reference``, copied through NumPy."""
    model = small_cnn(glassgrad)
    weights = {
        name: value.detach().numpy().copy() for name, value in reference.state_dict().items()
    }
    model.load_state_dict(
        {name: glassgrad.from_numpy(a) for name, a in weights.items()}, strict=True
    )
    return model


@pytest.mark.parametrize(
    ("make_optimizer", "seed"),
    [(sgd_momentum, 0), (adam, 0), (adam_one_cycle, 1)],
    ids=["sgd-momentum", "adam", "adam-one-cycle"],
)
def test_fifty_steps_give_pytorchs_losses(make_optimizer, seed):
    batches = fixed_batches()
    theirs = torch_model(seed)
    ours = glassgrad_copy(theirs)
    assert all(param.dtype == glassgrad.float32 for param in ours.parameters())

    losses_ours = train(glassgrad, ours, make_optimizer, batches)
    losses_theirs = train(torch, theirs, make_optimizer, batches)
    losses_theirs_reordered = train(
        torch, torch_model(seed), make_optimizer, in_other_layout(batches)
    )

    np.testing.assert_allclose(
        losses_theirs_reordered,
        losses_theirs,
        rtol=REFERENCE_STABILITY_RTOL,
        err_msg="this float32 run is chaotic: PyTorch disagrees with itself; change the case",
    )
    np.testing.assert_allclose(losses_ours, losses_theirs, rtol=LOSS_RTOL, atol=0)
    # It did learn: the last ten losses average well below the first ten.
    assert np.mean(losses_ours[-10:]) < 0.6 * np.mean(losses_ours[:10])
    for (name, mine), reference in zip(ours.state_dict().items(), theirs.state_dict().values()):
        np.testing.assert_allclose(
            mine.numpy(), reference.numpy(), rtol=1e-3, atol=1e-5, err_msg=name
        )
