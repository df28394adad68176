"""The classic two-layer network of PyTorch's tutorial "Learning PyTorch with examples",
written with raw tensors and autograd, on scikit-learn's diabetes data.

A fully connected ReLU network with one hidden layer and no biases, trained to predict a
disease-progression score from ten measurements of 442 patients, by gradient descent on the
sum of squared errors:

    y_pred = relu(x @ w1) @ w2,    loss = sum((y_pred - y)^2)

Autograd computes ``w1.grad`` and ``w2.grad``; the update goes through ``.data`` so that it is
not recorded, and the gradients are reset with ``.grad.zero_()``. The script only uses
PyTorch's API: change its import line to ``import torch`` and it runs unchanged (the initial
weights come from NumPy with a seed, so both runs start from the same point and print the same
losses).

    $ python examples/two_layer_net.py --iterations 500
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
from sklearn.datasets import load_diabetes

import glassgrad as torch  # the only line to change to run this with PyTorch


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Train the tutorial's two-layer network with raw tensors on the diabetes data.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--iterations", type=int, default=500, help="gradient-descent steps")
    parser.add_argument("--hidden", type=int, default=100, help="width of the hidden layer")
    parser.add_argument("--learning-rate", type=float, default=1e-3, help="step size")
    parser.add_argument("--seed", type=int, default=0, help="seed of the initial weights")
    parser.add_argument("--print-every", type=int, default=50, help="print the loss this often")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> list[float]:
    """Train and print the loss as it goes down; return the loss of every iteration."""
    args = parse_args(argv)
    dtype = torch.float
    device = torch.device("cpu")

    # 442 patients, 10 measurements each (centred by scikit-learn, each column of norm 1);
    # the target, a disease-progression score, is standardized to mean 0 and variance 1.
    features, target = load_diabetes(return_X_y=True)
    target = ((target - target.mean()) / target.std())[:, None]
    N, D_in, H, D_out = features.shape[0], features.shape[1], args.hidden, 1

    x = torch.tensor(features, device=device, dtype=dtype)
    y = torch.tensor(target, device=device, dtype=dtype)

    # Random initial weights, drawn by NumPy so any library starts from the same ones.
    rng = np.random.default_rng(args.seed)
    w1 = torch.tensor(rng.standard_normal((D_in, H)), device=device, dtype=dtype,
                      requires_grad=True)  # fmt: skip
    w2 = torch.tensor(rng.standard_normal((H, D_out)), device=device, dtype=dtype,
                      requires_grad=True)  # fmt: skip

    print(f"two-layer network {D_in} -> {H} -> {D_out} on {N} patients, "
          f"learning rate {args.learning_rate:g}")  # fmt: skip
    losses = []
    for t in range(args.iterations):
        # Forward pass: the hidden layer is clamp(min=0), i.e. ReLU.
        y_pred = x.mm(w1).clamp(min=0).mm(w2)

        # Sum of squared errors, a tensor of shape () whose .item() is a Python number.
        loss = (y_pred - y).pow(2).sum()
        losses.append(loss.item())
        if t % args.print_every == 0 or t == args.iterations - 1:
            print(f"{t:5d}  loss {loss.item():12.4f}  (mean squared error {loss.item() / N:.4f})")

        # Backward pass: w1.grad and w2.grad get d(loss)/d(w1) and d(loss)/d(w2).
        loss.backward()

        # Gradient descent on the values behind the weights (.data: not recorded by autograd),
        # then reset the gradients, which backward would otherwise accumulate.
        w1.data -= args.learning_rate * w1.grad
        w2.data -= args.learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()
    return losses


if __name__ == "__main__":
    main()
