"""Shared helpers of the viz tests: reading DOT source back into nodes and edges."""

from __future__ import annotations

import re
from collections import Counter

NODE = re.compile(r'^\t+(\S+) \[label=("(?:[^"\\]|\\.)*"|[^\s\]]+)(.*?)\]$', re.M | re.S)
EDGE = re.compile(r"^\t+(\S+) -> (\S+)(?: \[(.*?)\])?$", re.M)


class DotGraph:
    """Nodes (id -> label, attributes) and edges (src, dst, attributes) of DOT source text."""

    def __init__(self, source: str) -> None:
        self.labels: dict[str, str] = {}
        self.attrs: dict[str, str] = {}
        for match in NODE.finditer(source):
            label = match.group(2)
            if label.startswith('"'):
                label = label[1:-1]
            self.labels[match.group(1)] = label
            self.attrs[match.group(1)] = match.group(3).strip()
        self.edges = [(m.group(1), m.group(2), m.group(3) or "") for m in EDGE.finditer(source)]

    def label_counts(self) -> Counter:
        return Counter(self.labels.values())

    def labelled_edges(self) -> Counter:
        """Edges as (source label, target label, attributes), ids forgotten."""
        return Counter((self.labels[a], self.labels[b], attrs) for a, b, attrs in self.edges)

    def signature(self) -> frozenset:
        """An id-free fingerprint of the whole structure: each node described by its label and,
        recursively, the labels of everything that feeds it (a DAG, so this terminates)."""
        feeders: dict[str, list[str]] = {node: [] for node in self.labels}
        for src, dst, _ in self.edges:
            feeders[dst].append(src)
        memo: dict[str, str] = {}

        def describe(node: str) -> str:
            if node not in memo:
                memo[node] = "(" + ",".join(sorted(describe(f) for f in feeders[node])) + ")"
                memo[node] = self.labels[node] + memo[node]
            return memo[node]

        return frozenset(Counter(describe(node) for node in self.labels).items())

    def fill(self, node_id: str) -> str | None:
        match = re.search(r"fillcolor=(\S+)", self.attrs.get(node_id, ""))
        return match.group(1) if match else None

    def ids_labelled(self, label: str) -> list[str]:
        return [node for node, text in self.labels.items() if text == label]
