"""A layered layout for the explorer: inputs at the top, outputs at the bottom.

Sugiyama's scheme, kept small: (1) each node's layer is its longest distance from a root, so
every edge points down; (2) nodes in a layer are ordered by the mean position of their
neighbours, sweeping down and up a few times to cut crossings; (3) each node is pulled towards
its neighbours' mean x, then pushed apart so boxes in a layer do not overlap. All loops are
iterative and linear in the graph per sweep.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._graph import Graph, depths

__all__ = ["Box", "layout"]

CHAR_WIDTH = 7.2  # px per character of the 12px monospace font the explorer uses
LINE_HEIGHT = 15.0
PAD_X = 10.0
PAD_Y = 7.0
GAP_X = 24.0
GAP_Y = 42.0
SWEEPS = 6


@dataclass
class Box:
    """Position (centre) and size of a node, in px."""

    x: float
    y: float
    width: float
    height: float
    layer: int


def box_size(lines: list[str]) -> tuple[float, float]:
    longest = max((len(line) for line in lines), default=1)
    return longest * CHAR_WIDTH + 2 * PAD_X, max(len(lines), 1) * LINE_HEIGHT + 2 * PAD_Y


def layout(graph: Graph, labels: list[list[str]]) -> list[Box]:
    """Boxes for the nodes of ``graph`` (indexed by key); ``labels`` are the text lines."""
    count = len(graph.nodes)
    if count == 0:
        return []
    neighbours: list[list[int]] = [[] for _ in range(count)]
    for edge in graph.edges:
        if edge.kind == "saved":
            continue
        neighbours[edge.src].append(edge.dst)
        neighbours[edge.dst].append(edge.src)

    # 1. Layers: longest distance from a root (roots have no consumers).
    depth = depths(graph)
    deepest = max(depth)
    layer_of = [deepest - d for d in depth]  # inputs on top (layer 0)
    layers: list[list[int]] = [[] for _ in range(deepest + 1)]
    for key in range(count):  # keys are in order of discovery from the roots
        layers[layer_of[key]].append(key)

    # 2. Order within layers by the barycentre of the neighbours' positions.
    position = [0.0] * count
    for layer in layers:
        for index, key in enumerate(layer):
            position[key] = float(index)
    for sweep in range(SWEEPS):
        sequence = reversed(layers) if sweep % 2 == 0 else layers
        for layer in sequence:
            if len(layer) == 1:  # nothing to order (most layers of a long chain)
                continue
            for key in layer:
                near = neighbours[key]
                if near:
                    position[key] = sum(map(position.__getitem__, near)) / len(near)
            layer.sort(key=lambda k: position[k])
            for index, key in enumerate(layer):
                position[key] = float(index)

    # 3. Coordinates: pack each layer, then pull towards neighbours without overlapping.
    known: dict[tuple[str, ...], tuple[float, float]] = {}  # most labels repeat
    sizes = []
    for lines in labels:
        text = tuple(lines)
        size = known.get(text)
        if size is None:
            size = known[text] = box_size(lines)
        sizes.append(size)
    x = [0.0] * count
    for layer in layers:
        cursor = 0.0
        for key in layer:
            width = sizes[key][0]
            x[key] = cursor + width / 2
            cursor += width + GAP_X
        shift = cursor / 2
        for key in layer:
            x[key] -= shift
    at = x.__getitem__
    for sweep in range(SWEEPS):
        sequence = reversed(layers) if sweep % 2 == 0 else layers
        for layer in sequence:
            for key in layer:
                near = neighbours[key]
                if near:
                    x[key] = sum(map(at, near)) / len(near)
            if len(layer) > 1:
                _separate(layer, x, sizes)

    heights = [max((sizes[k][1] for k in layer), default=0.0) for layer in layers]
    y_of_layer = []
    cursor = 0.0
    for height in heights:
        y_of_layer.append(cursor + height / 2)
        cursor += height + GAP_Y
    return [
        Box(x[key], y_of_layer[layer_of[key]], sizes[key][0], sizes[key][1], layer_of[key])
        for key in range(count)
    ]


def _separate(layer: list[int], x: list[float], sizes: list[tuple[float, float]]) -> None:
    # Keep the order, push right where boxes overlap, then re-centre on the wanted mean.
    wanted_mean = sum(x[k] for k in layer) / len(layer)
    for left, right in zip(layer, layer[1:], strict=False):
        least = x[left] + (sizes[left][0] + sizes[right][0]) / 2 + GAP_X
        if x[right] < least:
            x[right] = least
    shift = wanted_mean - sum(x[k] for k in layer) / len(layer)
    for key in layer:
        x[key] += shift
