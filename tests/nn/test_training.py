"""A few training steps of a small CNN, written once and run in both libraries with the same
initial weights and batches (manual SGD, so only nn is exercised): the same losses, and a
checkpoint that moves between the two libraries."""

from __future__ import annotations

import numpy as np
import torch

import glassgrad as gg

from .conftest import copy_state


def cnn(nn):
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3),
        nn.GELU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.0),
        nn.Linear(8, 5),
    )


def train(lib, model, images, targets, steps=6, lr=0.1):
    losses = []
    loss_fn = lib.nn.CrossEntropyLoss(label_smoothing=0.05)
    for step in range(steps):
        batch = slice(4 * (step % 3), 4 * (step % 3) + 4)
        model.zero_grad()
        loss = loss_fn(model(lib.tensor(images[batch])), lib.tensor(targets[batch]))
        loss.backward()
        lib.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        with lib.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        losses.append(loss.item())
    return losses


def test_training_steps_match_torch():
    rng = np.random.default_rng(0)
    images = rng.standard_normal((12, 1, 8, 8))
    targets = rng.integers(0, 5, 12)
    theirs, ours = cnn(torch.nn).double(), cnn(gg.nn).double()
    copy_state(ours, theirs)
    losses_theirs = train(torch, theirs, images, targets)
    losses_ours = train(gg, ours, images, targets)
    np.testing.assert_allclose(losses_ours, losses_theirs, rtol=1e-9)
    assert losses_ours[-1] != losses_ours[0]
    for (name, a), b in zip(ours.state_dict().items(), theirs.state_dict().values()):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-8, atol=1e-12, err_msg=name)
    ours.eval(), theirs.eval()
    x = images[:3]
    np.testing.assert_allclose(
        ours(gg.tensor(x)).detach().numpy(), theirs(torch.tensor(x)).detach().numpy(), rtol=1e-9
    )


def test_checkpoint_moves_between_libraries(tmp_path):
    from safetensors.torch import load_file

    model = cnn(gg.nn)
    model(gg.randn(4, 1, 8, 8))  # running statistics move away from their initial values
    path = tmp_path / "model.safetensors"
    gg.save(model.state_dict(), str(path))
    restored = cnn(gg.nn)
    assert repr(restored.load_state_dict(gg.load(str(path)))) == "<All keys matched successfully>"
    reference = cnn(torch.nn)
    reference.load_state_dict(load_file(str(path)))
    restored.eval(), reference.eval(), model.eval()
    x = np.random.default_rng(1).standard_normal((2, 1, 8, 8)).astype(np.float32)
    ours = model(gg.tensor(x)).detach().numpy()
    np.testing.assert_array_equal(restored(gg.tensor(x)).detach().numpy(), ours)
    np.testing.assert_allclose(
        reference(torch.tensor(x)).detach().numpy(), ours, rtol=1e-4, atol=1e-5
    )
