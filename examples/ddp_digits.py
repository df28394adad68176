"""Data-parallel training of the demo's digits CNN on several processes, over MPI.

Every process (rank) builds the same CNN (``glassgrad.demo.build_model``) and wraps it in
``DistributedDataParallel``, which copies rank 0's weights to every rank; each epoch a
``DistributedSampler`` gives every rank its own share of the shuffled training images. In
each step, every rank runs forward and backward on its share of the global batch, and DDP
averages the gradients across ranks while backward is still running, so all replicas take
the same optimizer step: the same training as one process taking the whole batch. Rank 0
alone prints, evaluates on the test images and writes the checkpoint.

One machine, two processes::

    mpiexec -n 2 .venv/bin/python examples/ddp_digits.py --epochs 5

Several machines: list them in a hostfile (one host name per line, optionally ``host:slots``),
install the same environment at the same path on each, and start the job from one of them;
MPI (MPICH's ``mpiexec``, reaching the other machines by ssh) starts the ranks and connects
them, the script is unchanged::

    mpiexec -f hosts -n 8 .venv/bin/python examples/ddp_digits.py
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import glassgrad
import glassgrad.distributed as dist
import glassgrad.nn.functional as F
from glassgrad.demo import build_model, load_digit_split
from glassgrad.nn.parallel import DistributedDataParallel
from glassgrad.utils.data import DataLoader, DistributedSampler, TensorDataset


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64, help="global batch, all ranks")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--limit", type=int, help="use only the first N images of each split")
    parser.add_argument("--out", type=Path, default=Path("out"))
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch_size % world:
        raise ValueError(f"--batch-size {args.batch_size} must divide among {world} ranks")

    split = load_digit_split(args.seed, limit=args.limit)
    train_set = TensorDataset(
        glassgrad.from_numpy(split.train_images), glassgrad.from_numpy(split.train_labels)
    )
    sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed, drop_last=True)
    loader = DataLoader(train_set, batch_size=args.batch_size // world, sampler=sampler)

    glassgrad.manual_seed(args.seed + rank)  # different on purpose: DDP copies rank 0's weights
    model = DistributedDataParallel(build_model())
    optimizer = glassgrad.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    test_images = glassgrad.from_numpy(split.test_images)
    test_labels = glassgrad.from_numpy(split.test_labels)

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle, the same on every rank
        model.train()
        total = glassgrad.zeros(2, dtype=glassgrad.float64)  # summed loss, batches
        for images, labels in loader:
            loss = F.cross_entropy(model(images), labels)
            optimizer.zero_grad()
            loss.backward()  # the gradients are averaged across ranks here
            optimizer.step()
            total += glassgrad.tensor([loss.item(), 1.0], dtype=glassgrad.float64)
        dist.all_reduce(total)  # every rank's losses, for the mean over the epoch
        if rank == 0:
            model.eval()
            with glassgrad.no_grad():
                predicted = model.module(test_images).argmax(dim=1)
            accuracy = (predicted == test_labels).float().mean().item()
            print(
                f"epoch {epoch + 1}/{args.epochs}: train loss {(total[0] / total[1]).item():.4f}, "
                f"test accuracy {accuracy:.3f} ({world} ranks)",
                flush=True,
            )

    if rank == 0:  # one writer: every replica holds the same weights
        args.out.mkdir(parents=True, exist_ok=True)
        path = args.out / "ddp_digits.safetensors"
        glassgrad.save(model.module.state_dict(), path)
        print(f"checkpoint: {path}", flush=True)
    dist.barrier()  # the others wait until it is written
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
