"""Write examples/debugging_a_model.ipynb from the cells below (run once after editing them;
the notebook is committed without outputs, and tests/viz/test_viz_notebook.py executes it)."""

from __future__ import annotations

import pathlib

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

CELLS = [
    (
        "md",
        """# Debugging a broken model with glassgrad's glass box

A small classifier trains, but its loss will not go down as it should. We find out why with
`glassgrad.viz`: a gradient report, the graph grouped by module, and the interactive explorer,
all displayed inline in this notebook.""",
    ),
    (
        "code",
        """import warnings
import numpy as np
import glassgrad as torch
from glassgrad import nn
from glassgrad import viz
from glassgrad.autograd import detect_anomaly

rng = np.random.default_rng(0)
x = torch.tensor(rng.standard_normal((64, 8)).astype(np.float32))
y = torch.tensor(rng.integers(0, 3, 64))
warnings.filterwarnings("ignore", "Anomaly Detection has been enabled")""",
    ),
    (
        "md",
        """## The model

An encoder, a gated residual block and a head. It has two bugs that do not raise: the gate's
output is detached (a leftover from an experiment), and the "pretrained" encoder was meant to be
frozen but is not.""",
    ),
    (
        "code",
        """class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, dim)
        self.gate = nn.Linear(dim, dim)

    def forward(self, h):
        gate = torch.sigmoid(self.gate(h)).detach()   # bug 1: cuts the gate's gradient
        return h + gate * torch.relu(self.linear(h))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 16)                # meant to stay frozen: bug 2
        self.blocks = nn.ModuleList([Block(16) for _ in range(3)])
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        h = torch.tanh(self.encoder(x))
        for block in self.blocks:
            h = block(h)
        return self.head(h)


model = Classifier()""",
    ),
    (
        "md",
        """## 1. One report: which parameters get a useful gradient?

`record_forward` watches the modules run (so reasons are exact) and `detect_anomaly` records
the line of code behind each node (so nodes get variable names). `grad_report` runs backward
and shows one row per parameter and one per module; `expected_frozen=` states our intent.""",
    ),
    (
        "code",
        """with detect_anomaly(check_nan=False), viz.record_forward(model) as log:
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)

report = viz.grad_report(loss, model.named_parameters(), forward_log=log,
                         expected_frozen=["encoder"], show=False)
report""",
    ),
    (
        "code",
        """[(row.name, row.status) for row in report.problems()]""",
    ),
    (
        "md",
        """The gates get no gradient and the encoder, which should be frozen, is training. The
module rows say the same per module:""",
    ),
    (
        "code",
        """[(m.label, m.status, m.grad_norm) for m in report.modules]""",
    ),
    (
        "md",
        """## 2. Where is the gradient cut? The graph by module

`print_graph` with the forward log prints an outline indented by module, and the three
identical blocks are folded into one line `×3`. `make_dot` draws the same grouping as clusters;
`depth=1` keeps one box per top-level module.""",
    ),
    (
        "code",
        """text = viz.print_graph(loss, dict(model.named_parameters()), forward_log=log, depth=2)""",
    ),
    (
        "code",
        """viz.make_dot(loss, dict(model.named_parameters()), forward_log=log, fold=False)""",
    ),
    (
        "md",
        """## 3. Explore it

`explore` writes one self-contained page and shows it inline: click a module box to open it,
a parameter to light its paths to the loss, a node for its shapes, saved tensors and the line
of code that created it.""",
    ),
    (
        "code",
        """page = viz.explore(loss, dict(model.named_parameters()), "debugging_graph.html",
                   forward_log=log, title="the broken classifier")
page""",
    ),
    (
        "md",
        """## 4. Fix and check again

Drop the `.detach()` and freeze the encoder; the report is clean.""",
    ),
    (
        "code",
        """def fixed_forward(self, h):
    gate = torch.sigmoid(self.gate(h))
    return h + gate * torch.relu(self.linear(h))

Block.forward = fixed_forward
model.encoder.requires_grad_(False)
model.zero_grad()
with viz.record_forward(model) as log:
    loss = nn.functional.cross_entropy(model(x), y)
report = viz.grad_report(loss, model.named_parameters(), forward_log=log,
                         expected_frozen=["encoder"], show=False)
assert report.problems() == []
report""",
    ),
    (
        "md",
        """## 5. More checks

One verdict for the whole model: NaN/Inf origins, dead parameters with the reason, and
gradients growing or shrinking across depth (relative rules, not one absolute threshold).

<!-- glassbox-scale: per-loss-term attribution (expect_no_grad) and diffing two backward
passes go below. -->""",
    ),
    (
        "code",
        """trainable = [(name, p) for name, p in model.named_parameters() if p.requires_grad]
health = viz.check_health(loss, trainable, forward_log=log)   # the frozen encoder left out
print(health)""",
    ),
]


def build() -> nbformat.NotebookNode:
    notebook = new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    for kind, text in CELLS:
        notebook.cells.append(new_markdown_cell(text) if kind == "md" else new_code_cell(text))
    return notebook


if __name__ == "__main__":
    path = pathlib.Path(__file__).resolve().parent.parent / "examples" / "debugging_a_model.ipynb"
    nbformat.write(build(), path)
    print(f"wrote {path}")
