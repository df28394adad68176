"""The main job: train a small CNN on scikit-learn's handwritten digits, with glassgrad only.

Run it with ``python -m glassgrad.demo`` (or ``bash scripts/demo.sh``); ``--help`` lists the
options. It loads the 1,797 8x8 digit images that ship inside scikit-learn (no download), splits
them into a stratified train and test set, trains a two-convolution network with
``glassgrad.nn``, ``glassgrad.optim`` and ``glassgrad.utils.data.DataLoader`` behind a ``tqdm``
progress bar, prints the test accuracy and writes into the output folder:

* ``curves.png`` -- loss and accuracy per epoch (matplotlib, Agg backend);
* ``training_step.svg`` -- the autograd graph of one training step (``glassgrad.viz.make_dot``
  rendered by Graphviz's ``dot``), and ``training_step.html``, the same graph in the
  self-contained interactive explorer (``glassgrad.viz.explore``) with the gradients that
  flowed through each node;
* ``model.safetensors`` -- the trained weights (``glassgrad.save(model.state_dict(), path)``),
  loadable by ``glassgrad.load`` and by ``safetensors.torch.load_file``;
* ``tensorboard/`` -- TensorBoard logs (``glassgrad.utils.tensorboard.SummaryWriter``): the loss
  of every step, loss, accuracy and learning rate per epoch, weight histograms per epoch, the
  model's forward graph (``add_graph``) and, in the run ``tensorboard/backward``, the autograd
  graph of the first step grouped by module with its gradient norms
  (``add_backward_graph``). ``tensorboard --logdir out/tensorboard`` shows them.

Example::

    $ python -m glassgrad.demo --epochs 10 --out out
    >>> from glassgrad.demo import main
    >>> result = main(["--epochs", "1", "--limit", "200", "--out", "/tmp/demo"])  # doctest: +SKIP
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import glassgrad
from glassgrad import nn, optim, viz
from glassgrad.nn import functional as F
from glassgrad.utils.data import DataLoader, TensorDataset
from glassgrad.utils.tensorboard import SummaryWriter

__all__ = ["main", "parse_args", "build_model", "load_digit_split", "DigitSplit", "DemoResult"]

TARGET_ACCURACY = 0.97
CURVES_FILE = "curves.png"
GRAPH_SVG_FILE = "training_step.svg"
GRAPH_HTML_FILE = "training_step.html"
CHECKPOINT_FILE = "model.safetensors"
TENSORBOARD_DIR = "tensorboard"
NUM_CLASSES = 10


# ----------------------------------------------------------------------------- command line


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Read the demo's options from ``argv`` (default: ``sys.argv[1:]``).

    Examples
    --------
    >>> parse_args(["--epochs", "3"]).epochs
    3
    """
    parser = argparse.ArgumentParser(
        prog="python -m glassgrad.demo",
        description=(
            "Train a small CNN on scikit-learn's handwritten digits (1,797 8x8 images, no "
            "download) with glassgrad, print the test accuracy, and write into the output "
            f"folder: {CURVES_FILE} (loss and accuracy curves), {GRAPH_SVG_FILE} (the autograd "
            f"graph of one training step, drawn by Graphviz), {GRAPH_HTML_FILE} (the same graph "
            "in glassgrad's self-contained interactive explorer: open it in any browser) and "
            f"{CHECKPOINT_FILE} (the trained weights, safetensors format) and {TENSORBOARD_DIR}/ "
            "(TensorBoard logs: loss and accuracy, weight histograms, the forward graph and the "
            f"backward graph by module; tensorboard --logdir OUT/{TENSORBOARD_DIR})."
        ),
        epilog="example: python -m glassgrad.demo --epochs 5 --out results",
        formatter_class=_DefaultsHelpFormatter,
    )
    parser.add_argument("--epochs", type=_positive_int, default=10, help="passes over the data")
    parser.add_argument(
        "--batch-size", type=_positive_int, default=32, help="images per optimizer step"
    )
    parser.add_argument(
        "--lr",
        type=_positive_float,
        default=0.01,
        help="peak learning rate of Adam's one-cycle schedule",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("out"), help="output folder (created if missing)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the split, the initial weights and shuffling"
    )
    parser.add_argument(
        "--limit",
        type=_positive_int,
        default=None,
        metavar="N",
        help="use only the first N training and N test images (a quick trial)",
    )
    parser.add_argument(
        "--threads",
        type=_positive_int,
        default=1,
        help="BLAS threads; one is fastest for matrices this small",
    )
    return parser.parse_args(argv)


class _DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text}")
    return value


# ----------------------------------------------------------------------------- data and model


@dataclass
class DigitSplit:
    """The digits as float32 images ``(N, 1, 8, 8)`` scaled to [0, 1] and int64 labels."""

    train_images: np.ndarray
    train_labels: np.ndarray
    test_images: np.ndarray
    test_labels: np.ndarray
    total: int


def load_digit_split(seed: int, test_fraction: float = 0.2, limit: int | None = None) -> DigitSplit:
    """Load scikit-learn's digits and split them, stratified by label, with ``seed``.

    Parameters
    ----------
    seed : int
        Seed of the (shuffled, stratified) split.
    test_fraction : float
        Share of the images held out for testing.
    limit : int, optional
        Keep only the first ``limit`` images of each part.

    Examples
    --------
    >>> split = load_digit_split(seed=0)
    >>> split.train_images.shape, split.test_images.shape
    ((1437, 1, 8, 8), (360, 1, 8, 8))
    """
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    train_x, test_x, train_y, test_y = train_test_split(
        images, labels, test_size=test_fraction, stratify=labels, random_state=seed
    )
    if limit is not None:
        train_x, train_y, test_x, test_y = (a[:limit] for a in (train_x, train_y, test_x, test_y))
    return DigitSplit(train_x, train_y, test_x, test_y, total=len(images))


def build_model(channels: tuple[int, int] = (32, 64)) -> nn.Sequential:
    """The demo's CNN: two 3x3 convolutions with ReLU and 2x2 max pooling, then a linear layer.

    An 8x8 image becomes 32 maps of 4x4, then 64 maps of 2x2, then ten class scores.

    Examples
    --------
    >>> build_model()(glassgrad.zeros(5, 1, 8, 8)).shape
    glassgrad.Size([5, 10])
    """
    first, second = channels
    layers = OrderedDict(
        conv1=nn.Conv2d(1, first, kernel_size=3, padding=1),
        relu1=nn.ReLU(),
        pool1=nn.MaxPool2d(2),
        conv2=nn.Conv2d(first, second, kernel_size=3, padding=1),
        relu2=nn.ReLU(),
        pool2=nn.MaxPool2d(2),
        flatten=nn.Flatten(),
        classifier=nn.Linear(second * 2 * 2, NUM_CLASSES),
    )
    return nn.Sequential(layers)


# ----------------------------------------------------------------------------- training


@dataclass
class History:
    """What training measured: the loss of every step and per-epoch averages."""

    steps_per_epoch: int = 0
    step_loss: list[float] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    train_accuracy: list[float] = field(default_factory=list)
    test_loss: list[float] = field(default_factory=list)
    test_accuracy: list[float] = field(default_factory=list)


@dataclass
class DemoResult:
    """The outcome of :func:`main`: the trained model, its test accuracy, the history, times and
    the files written."""

    model: nn.Sequential
    test_accuracy: float
    test_correct: int
    test_total: int
    history: History
    wall_seconds: float
    cpu_seconds: float
    paths: dict[str, Path]


def evaluate(model: nn.Module, images: np.ndarray, labels: np.ndarray) -> tuple[float, int]:
    """Mean cross-entropy and number of correct predictions of ``model`` on a data set.

    Examples
    --------
    >>> loss, correct = evaluate(build_model(), np.zeros((4, 1, 8, 8), np.float32), np.zeros(4))
    """
    was_training = model.training
    model.eval()
    with glassgrad.no_grad():
        logits = model(glassgrad.from_numpy(images))
        loss = F.cross_entropy(logits, glassgrad.from_numpy(labels.astype(np.int64)))
        predicted = logits.argmax(dim=1).numpy()
    model.train(was_training)
    return loss.item(), int((predicted == labels).sum())


def _train_step(
    model: nn.Module,
    optimizer: optim.Optimizer,
    scheduler: optim.lr_scheduler.LRScheduler,
    images: glassgrad.Tensor,
    labels: glassgrad.Tensor,
    graph_paths: tuple[Path, Path] | None = None,
    writer: SummaryWriter | None = None,
) -> tuple[float, int]:
    """One optimizer step; returns (loss, correct). With ``graph_paths`` also draw its graph
    (SVG, explorer HTML) between forward and backward, recording what backward does, and write
    it to ``writer`` as a TensorBoard backward graph."""
    if graph_paths is None:
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        loss.backward()
    else:
        with viz.record_forward(model) as forward_log:
            logits = model(images)
            loss = F.cross_entropy(logits, labels)
        optimizer.zero_grad()
        params = dict(model.named_parameters())
        drawing = viz.make_dot(loss, params=params)
        trace = viz.trace_backward(loss)  # runs loss.backward() and records what flowed
        svg_path, html_path = graph_paths
        svg_path.write_bytes(drawing.pipe(format="svg"))
        viz.explore(
            loss,
            params,
            html_path,
            trace=trace,
            forward_log=forward_log,
            title="glassgrad demo: one training step of the digits CNN",
        )
        if writer is not None:
            writer.add_backward_graph(loss, forward_log=forward_log, trace=trace)
    optimizer.step()
    scheduler.step()
    correct = int((logits.detach().argmax(dim=1) == labels).sum().item())
    return loss.item(), correct


def train(
    model: nn.Module,
    split: DigitSplit,
    args: argparse.Namespace,
    graph_paths: tuple[Path, Path],
    writer: SummaryWriter,
) -> History:
    """Train ``model`` with Adam and a one-cycle schedule; draw the first step's graph; log the
    loss of every step and the epochs' figures and weight histograms to ``writer``."""
    from tqdm import tqdm

    dataset = TensorDataset(
        glassgrad.from_numpy(split.train_images), glassgrad.from_numpy(split.train_labels)
    )
    shuffle_generator = glassgrad.Generator().manual_seed(args.seed)
    loader = DataLoader(
        dataset, batch_size=args.batch_size, shuffle=True, generator=shuffle_generator
    )
    optimizer = optim.Adam(model.parameters(), lr=args.lr)
    scheduler = optim.lr_scheduler.OneCycleLR(
        optimizer, max_lr=args.lr, total_steps=args.epochs * len(loader)
    )
    history = History(steps_per_epoch=len(loader))
    model.train()
    progress = tqdm(
        total=args.epochs * len(loader), unit="step", dynamic_ncols=True, file=sys.stderr
    )
    with progress:
        for epoch in range(1, args.epochs + 1):
            progress.set_description(f"epoch {epoch}/{args.epochs}")
            loss_sum, correct_sum = 0.0, 0
            for images, labels in loader:
                first_step = not history.step_loss
                loss, correct = _train_step(
                    model,
                    optimizer,
                    scheduler,
                    images,
                    labels,
                    graph_paths if first_step else None,
                    writer,
                )
                writer.add_scalar("loss/train_step", loss, len(history.step_loss))
                history.step_loss.append(loss)
                loss_sum += loss * len(labels)
                correct_sum += correct
                progress.update(1)
                progress.set_postfix(loss=f"{loss:.3f}", refresh=False)
            seen = len(split.train_labels)
            test_loss, test_correct = evaluate(model, split.test_images, split.test_labels)
            history.train_loss.append(loss_sum / seen)
            history.train_accuracy.append(correct_sum / seen)
            history.test_loss.append(test_loss)
            history.test_accuracy.append(test_correct / len(split.test_labels))
            _log_epoch(writer, model, history, epoch, optimizer.param_groups[0]["lr"])
            progress.set_postfix(
                loss=f"{history.train_loss[-1]:.3f}", test_acc=f"{history.test_accuracy[-1]:.1%}"
            )
    return history


def _log_epoch(
    writer: SummaryWriter, model: nn.Module, history: History, epoch: int, lr: float
) -> None:
    """The epoch's loss, accuracy and learning rate, and a histogram of every parameter."""
    writer.add_scalar("loss/train", history.train_loss[-1], epoch)
    writer.add_scalar("loss/test", history.test_loss[-1], epoch)
    writer.add_scalar("accuracy/train", history.train_accuracy[-1], epoch)
    writer.add_scalar("accuracy/test", history.test_accuracy[-1], epoch)
    writer.add_scalar("learning_rate", lr, epoch)
    for name, param in model.named_parameters():
        writer.add_histogram(name, param, epoch)


# ----------------------------------------------------------------------------- outputs


def plot_curves(history: History, path: Path) -> None:
    """Draw loss (per step and per epoch) and accuracy (per epoch) side by side into a PNG."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(11, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    loss_axes, accuracy_axes = figure.subplots(1, 2)
    epochs = np.arange(1, len(history.train_loss) + 1)
    step_epochs = (np.arange(len(history.step_loss)) + 1) / history.steps_per_epoch

    loss_axes.plot(step_epochs, history.step_loss, color="tab:blue", alpha=0.3, lw=0.8,
                   label="train, each step")  # fmt: skip
    loss_axes.plot(epochs, history.train_loss, "o-", color="tab:blue", label="train, epoch mean")
    loss_axes.plot(epochs, history.test_loss, "s-", color="tab:orange", label="test")
    loss_axes.set_yscale("log")
    loss_axes.set_xlabel("epoch")
    loss_axes.set_ylabel("cross-entropy loss (log scale)")
    loss_axes.set_title("Loss")

    accuracy_axes.plot(epochs, 100 * np.array(history.train_accuracy), "o-", color="tab:blue",
                       label="train")  # fmt: skip
    accuracy_axes.plot(epochs, 100 * np.array(history.test_accuracy), "s-", color="tab:orange",
                       label="test")  # fmt: skip
    accuracy_axes.axhline(100 * TARGET_ACCURACY, color="gray", ls="--", lw=1, label="97% target")
    final = 100 * history.test_accuracy[-1]
    accuracy_axes.annotate(f"{final:.1f}%", (epochs[-1], final), textcoords="offset points",
                           xytext=(-8, -16), ha="right", color="tab:orange")  # fmt: skip
    low = min(80.0, 100 * min(history.train_accuracy + history.test_accuracy) - 2)
    accuracy_axes.set_ylim(max(low, 0.0), 100.5)
    accuracy_axes.set_xlabel("epoch")
    accuracy_axes.set_ylabel("accuracy (%)")
    accuracy_axes.set_title("Accuracy")

    for axes in (loss_axes, accuracy_axes):
        axes.grid(True, which="major", alpha=0.3)
        axes.legend(loc="best", fontsize="small")
        if len(epochs) <= 20:
            axes.set_xticks(epochs)
    figure.suptitle("glassgrad: a small CNN on scikit-learn's digits")
    figure.savefig(path, dpi=110)


def _count_parameters(model: nn.Module) -> int:
    return sum(param.numel() for param in model.parameters())


def _describe_model(model: nn.Sequential) -> str:
    parts = []
    for layer in model:
        if isinstance(layer, nn.Conv2d):
            parts.append(f"Conv{layer.kernel_size[0]}x{layer.kernel_size[1]}"
                         f"({layer.in_channels}->{layer.out_channels})")  # fmt: skip
        elif isinstance(layer, nn.Linear):
            parts.append(f"Linear({layer.in_features}->{layer.out_features})")
        elif not isinstance(layer, nn.Flatten):
            parts.append(type(layer).__name__)
    return " ".join(parts)


def _limit_blas_threads(threads: int):
    """Cap the BLAS thread pool (small matrices run slower with more threads on a busy machine)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        from contextlib import nullcontext

        return nullcontext()
    return threadpool_limits(limits=threads, user_api="blas")


# ----------------------------------------------------------------------------- entry point


def main(argv: Sequence[str] | None = None) -> DemoResult:
    """Run the demo with command-line arguments ``argv``; print a summary and return it.

    Examples
    --------
    >>> result = main(["--epochs", "1", "--limit", "200", "--out", "/tmp/demo"])  # doctest: +SKIP
    >>> sorted(result.paths)  # doctest: +SKIP
    ['checkpoint', 'curves', 'graph_html', 'graph_svg', 'tensorboard']
    """
    args = parse_args(argv)
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    args.out.mkdir(parents=True, exist_ok=True)
    paths = {
        "curves": args.out / CURVES_FILE,
        "graph_svg": args.out / GRAPH_SVG_FILE,
        "graph_html": args.out / GRAPH_HTML_FILE,
        "checkpoint": args.out / CHECKPOINT_FILE,
        "tensorboard": args.out / TENSORBOARD_DIR,
    }

    split = load_digit_split(args.seed, limit=args.limit)
    glassgrad.manual_seed(args.seed)
    model = build_model()
    steps_per_epoch = -(-len(split.train_labels) // args.batch_size)
    print("glassgrad demo: a small CNN on scikit-learn's handwritten digits")
    print(f"  data   {split.total:,} images of 8x8 pixels; {len(split.train_labels):,} train, "
          f"{len(split.test_labels):,} test (stratified split, seed {args.seed})")  # fmt: skip
    print(f"  model  {_describe_model(model)}: {_count_parameters(model):,} parameters")
    print(f"  train  {args.epochs} epochs x {steps_per_epoch} steps of {args.batch_size} images, "
          f"Adam with a one-cycle learning rate (peak {args.lr:g})")  # fmt: skip
    sys.stdout.flush()

    # purge_step=0: TensorBoard hides what an earlier run left in the same folder.
    with (
        _limit_blas_threads(args.threads),
        SummaryWriter(paths["tensorboard"], purge_step=0) as writer,
    ):
        writer.add_graph(model, glassgrad.from_numpy(split.train_images[:1]))
        history = train(model, split, args, (paths["graph_svg"], paths["graph_html"]), writer)
        _, test_correct = evaluate(model, split.test_images, split.test_labels)
    glassgrad.save(model.state_dict(), paths["checkpoint"])
    plot_curves(history, paths["curves"])
    wall, cpu = time.perf_counter() - wall_start, time.process_time() - cpu_start

    test_total = len(split.test_labels)
    accuracy = test_correct / test_total
    verdict = "meets" if accuracy >= TARGET_ACCURACY else "BELOW"
    print()
    print(f"test accuracy  {accuracy:.2%} ({test_correct}/{test_total}), "
          f"{verdict} the {TARGET_ACCURACY:.0%} target")  # fmt: skip
    print(f"time           {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"({args.epochs} epochs, {len(history.step_loss)} steps)")  # fmt: skip
    descriptions = {
        "curves": "loss and accuracy per epoch",
        "graph_svg": "autograd graph of one training step (Graphviz)",
        "graph_html": "the same graph, interactive: open it in a browser",
        "checkpoint": "trained weights (glassgrad.load, safetensors.torch.load_file)",
        "tensorboard": "TensorBoard logs: tensorboard --logdir " + os.fspath(paths["tensorboard"]),
    }
    width = max(len(os.fspath(path)) for path in paths.values())
    for index, (key, path) in enumerate(paths.items()):
        label = "wrote" if index == 0 else ""
        print(f"{label:<14} {os.fspath(path):<{width}}  {descriptions[key]}")
    return DemoResult(model, accuracy, test_correct, test_total, history, wall, cpu, paths)


if __name__ == "__main__":
    main()
