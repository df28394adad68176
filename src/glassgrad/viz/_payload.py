"""The explorer page's data as it travels: columns, rows of positions, tables of distinct values.

:func:`~glassgrad.viz.explore` builds a page's nodes straight into this form
(:class:`PageNodes`), so a 100,000-node graph costs a few list appends per node, not a dict per
node and per statistic, and its JSON stays small enough to write, compress and parse quickly.

* **core** (what the first frame needs): one column per field of ``CORE_FIELDS``; numeric
  columns hold the numbers, the others positions in the table ``values``. On the page, the
  node and edge columns travel as one block of int32 (positions in tenths of a pixel) that the
  script reads as typed arrays, and a node's fields are read from them when asked.
* **details** (per node: inputs, saved tensors, gradients received and sent, creation stack):
  one row per node, one entry per field of ``DETAIL_FIELDS`` (``-1``: the node has no such
  field). Repeated values (output shapes, stacks, source lines) are positions in the details
  table; statistics are ``[meta, norm, min, max, mean, nan, inf, zero]`` with ``meta`` the
  position of ``[shape, dtype, numel]``.

:func:`expand_page` turns it into one readable dict per node (what ``explorer_data`` returns
and ``read_page_data`` reads back); ``explorer.js`` does the same for the node it shows.
"""

from __future__ import annotations

import base64
import gzip
import json
import math
from typing import Any

import numpy as np

from ._stats import TensorStats, json_number

__all__ = [
    "CORE_FIELDS",
    "DETAIL_FIELDS",
    "PageNodes",
    "ValueTable",
    "decode_payload",
    "encode_payload",
    "expand_page",
]

# Node fields the page needs for its first frame, as columns.
CORE_FIELDS = ("kind", "label", "lines", "x", "y", "w", "h", "shape", "dtype", "module")
CORE_FIELDS += ("nanOrigin", "badGrad", "stale", "group", "appeared")
NUMERIC_FIELDS = frozenset({"x", "y", "w", "h", "src", "dst", "slot"})
TENTHS_FIELDS = frozenset({"x", "y", "w", "h"})  # rounded to 0.1 px, sent as tenths
EDGE_FIELDS = ("src", "dst", "slot", "kind")
ABSENT = "\u0000absent"  # a core table entry: the row does not have the field
# Detail fields, in the order of a row; read after the first frame, one node at a time.
DETAIL_FIELDS = ("inputs", "outputs", "saved", "savedError", "code", "traceback", "variable")
DETAIL_FIELDS += ("backward", "function", "diff", "terms", "requiresGrad", "value", "grad")
MISSING = -1  # a detail row's entry: the node does not have the field
# Detail fields held as positions in the details table (values many nodes share).
SHARED_DETAILS = frozenset({"outputs", "savedError", "code", "traceback", "function"})


class ValueTable:
    """Distinct values, each stored once; :meth:`add` gives a value's position."""

    __slots__ = ("values", "_index")

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[Any, int] = {}

    def find(self, key: Any) -> int | None:
        """The position of the value added with ``key``, or None."""
        return self._index.get(key)

    def add(self, value: Any, key: Any) -> int:
        """The position of ``value``, found by ``key`` (hashable, equal for equal values)."""
        position = self._index.get(key)
        if position is None:
            position = self._index[key] = len(self.values)
            self.values.append(value)
        return position


class PageNodes:
    """The nodes of a page: core columns set one at a time, detail rows added one per node."""

    def __init__(self) -> None:
        self.core_table = ValueTable()
        self.detail_table = ValueTable()
        self.columns: dict[str, list[Any]] = {}
        self.details: list[list[Any]] = []

    def column(self, name: str, values: list[Any]) -> None:
        """The core column ``name`` from one value per node (``ABSENT``: the node has none)."""
        if name in NUMERIC_FIELDS:
            self.columns[name] = values
            return
        # A column holds one type besides None and ABSENT, so a value is its own key (a list
        # as a tuple); the table is shared by all columns.
        table = self.core_table.values
        index: dict[Any, int] = {}
        positions = []
        for value in values:
            key = tuple(value) if type(value) is list else value
            position = index.get(key)
            if position is None:
                position = index[key] = len(table)
                table.append(value)
            positions.append(position)
        self.columns[name] = positions

    def detail_row(self, **fields: Any) -> None:
        """Add the next node's details from the fields it has (``MISSING`` for the others);
        shared fields are given as ``(value, key)`` and stored in the table."""
        row = [MISSING] * len(DETAIL_FIELDS)
        for name, value in fields.items():
            if name in SHARED_DETAILS:
                value = self.detail_table.add(*value)
            row[_DETAIL_POSITION[name]] = value
        self.details.append(row)

    def stats(self, stats: TensorStats | None, short: bool = False) -> int | None:
        """The table position of a statistics entry (equal ones are stored once: in a chain
        the gradient one node sent is the one the next received); ``short`` rounds the
        numbers to the 4 digits the page shows (17 random digits per number would be most
        of a big graph's page)."""
        if stats is None:
            return None
        table = self.detail_table
        position = table.find((short, stats))
        if position is not None:
            return position
        meta = table.add(
            [list(stats.shape), stats.dtype, stats.numel], (stats.shape, stats.dtype, stats.numel)
        )
        number = _short_number if short else json_number
        entry = [
            meta,
            number(stats.norm),
            number(stats.min),
            number(stats.max),
            number(stats.mean),
            stats.num_nan,
            stats.num_inf,
            stats.num_zero,
        ]
        return table.add(entry, (short, stats))

    def meta(self, meta: tuple[tuple[int, ...], str] | None) -> int:
        """The table position of an input's or output's ``(shape, dtype)`` as JSON."""
        return self.detail_table.add(
            None if meta is None else {"shape": list(meta[0]), "dtype": meta[1]}, ("meta", meta)
        )

    def as_json(self) -> dict[str, Any]:
        """``nodeColumns`` and ``values`` (core), ``details`` (table and rows)."""
        return {
            "nodeColumns": {name: self.columns[name] for name in CORE_FIELDS},
            "values": self.core_table.values,
            "details": {"values": self.detail_table.values, "rows": self.details},
        }


_DETAIL_POSITION = {name: position for position, name in enumerate(DETAIL_FIELDS)}


def _short_number(value: float | None) -> float | str | None:
    if value is None or not math.isfinite(value):
        return json_number(value)
    return float(f"{value:.4g}")


def edge_columns(edges: list[Any], table: ValueTable) -> dict[str, list[Any]]:
    """``src``, ``dst``, ``slot`` and ``kind`` (a table position) of each drawn edge."""
    return {
        "src": [edge.src for edge in edges],
        "dst": [edge.dst for edge in edges],
        "slot": [edge.slot for edge in edges],
        "kind": [table.add(edge.kind, ("edge", edge.kind)) for edge in edges],
    }


def encode_payload(data: dict[str, Any]) -> str:
    """``data`` (the page's form: see the module docstring) as the page's payload: JSON holding
    three gzip + base64 parts: ``core`` (JSON: all but the columns and the details, with
    ``columns`` giving each column's ``[byte offset, length]``), ``columns`` (the node and edge
    columns as one block of little-endian int32, positions in tenths of a pixel: the page reads
    them as typed arrays, nothing to parse) and ``details`` (JSON)."""
    core = {k: v for k, v in data.items() if k not in ("details", "nodeColumns", "edgeColumns")}
    block = bytearray()
    core["columns"] = {}
    for group in ("nodeColumns", "edgeColumns"):
        layout = core["columns"][group] = {}
        for name, values in data[group].items():
            array = np.asarray(values, dtype=np.float64)
            if name in TENTHS_FIELDS:
                array = np.rint(array * 10)
            layout[name] = [len(block), len(array)]
            block += array.astype("<i4").tobytes()
    return json.dumps(
        {
            "encoding": "gzip-base64",
            "core": _pack(core),
            "columns": _pack_bytes(bytes(block)),
            "details": _pack(data["details"]),
        },
        separators=(",", ":"),
    )


def _pack(value: Any) -> str:
    return _pack_bytes(json.dumps(value, separators=(",", ":"), allow_nan=False).encode("utf-8"))


def _pack_bytes(raw: bytes) -> str:
    return base64.b64encode(gzip.compress(raw, 3, mtime=0)).decode("ascii")


def decode_payload(payload: str) -> dict[str, Any]:
    """The readable data (one dict per node and edge) from :func:`encode_payload`'s text."""
    raw = json.loads(payload)
    unpack = lambda text: gzip.decompress(base64.b64decode(text))  # noqa: E731
    data = json.loads(unpack(raw["core"]))
    block = unpack(raw["columns"])
    for group, layout in data.pop("columns").items():
        data[group] = {}
        for name, (offset, length) in layout.items():
            array = np.frombuffer(block, "<i4", length, offset)
            data[group][name] = (array / 10 if name in TENTHS_FIELDS else array).tolist()
    data["details"] = json.loads(unpack(raw["details"]))
    return expand_page(data)


def expand_page(data: dict[str, Any]) -> dict[str, Any]:
    """The page's form as readable data: ``nodes`` and ``edges`` as one dict each (a node's
    ``key`` is its position), statistics as dicts."""
    out = {k: v for k, v in data.items() if k not in ("nodeColumns", "edgeColumns", "values")}
    del out["details"]
    table = data["values"]
    nodes = _rows(data["nodeColumns"], table)
    details = data["details"]
    for key, (node, row) in enumerate(zip(nodes, details["rows"], strict=True)):
        node["key"] = key
        node.update(_expand_details(row, details["values"]))
    out["nodes"] = nodes
    out["edges"] = _rows(data["edgeColumns"], table)
    return out


def _rows(columns: dict[str, list[Any]], table: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [{} for _ in next(iter(columns.values()), [])]
    for name, column in columns.items():
        for row, value in zip(rows, column, strict=True):
            if name not in NUMERIC_FIELDS:
                value = table[value]
                if value == ABSENT:
                    continue
            row[name] = value
    return rows


def _expand_details(row: list[Any], table: list[Any]) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for name, value in zip(DETAIL_FIELDS, row, strict=True):
        if value == MISSING:
            continue
        if name in SHARED_DETAILS:
            value = table[value]
        elif name == "inputs":
            value = [
                {"slot": slot, "from": source, "meta": table[meta]}
                for slot, (source, meta) in enumerate(value)
            ]
        elif name == "saved":
            value = [{"name": n, "stats": _expand_stats(s, table), "value": v} for n, s, v in value]
        elif name == "backward" and value is not None:
            step, received, sent = value
            value = {
                "step": step,
                "received": [_expand_stats(s, table) for s in received],
                "sent": [_expand_stats(s, table) for s in sent],
            }
        elif name in ("value", "grad"):
            value = _expand_stats(value, table)
        node[name] = value
    return node


_STAT_NAMES = ("norm", "min", "max", "mean", "num_nan", "num_inf", "num_zero")


def _expand_stats(position: int | None, table: list[Any]) -> dict[str, Any] | None:
    if position is None:
        return None
    entry = table[position]
    shape, dtype, numel = table[entry[0]]
    stats = {"shape": shape, "dtype": dtype, "numel": numel}
    stats.update(zip(_STAT_NAMES, entry[1:], strict=True))
    return stats
