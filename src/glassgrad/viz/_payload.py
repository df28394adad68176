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
        self.short_stats: list[TensorStats] = []
        self._short_index: dict[TensorStats, int] = {}

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

    def stats(self, stats: TensorStats | None) -> int | None:
        """The details table position of a statistics entry, numbers in full."""
        if stats is None:
            return None
        table = self.detail_table
        position = table.find(("stats", stats))
        if position is not None:
            return position
        entry = [self._meta_position(stats)]
        entry += [json_number(v) for v in (stats.norm, stats.min, stats.max, stats.mean)]
        entry += [stats.num_nan, stats.num_inf, stats.num_zero]
        return table.add(entry, ("stats", stats))

    def short_stats_position(self, stats: TensorStats | None) -> int | None:
        """The position of a statistics entry in the short table (saved tensors and gradients
        of every node: most of a big graph's numbers), which keeps 4 significant digits, what
        the page shows; equal entries are stored once (in a chain the gradient one node sent
        is the one the next received)."""
        if stats is None:
            return None
        position = self._short_index.get(stats)
        if position is None:
            position = self._short_index[stats] = len(self.short_stats)
            self.short_stats.append(stats)
        return position

    def _meta_position(self, stats: TensorStats) -> int:
        return self.detail_table.add(
            [list(stats.shape), stats.dtype, stats.numel], (stats.shape, stats.dtype, stats.numel)
        )

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
            "details": {
                "values": self.detail_table.values,
                "rows": self.details,
                "short": self._short_columns(),
            },
        }

    def _short_columns(self) -> dict[str, np.ndarray]:
        # Each number as a decimal m * 10**(e - 3), m of 4 digits: two int16 per number
        # instead of JSON text (vectorized: no formatting of each number in Python).
        entries = self.short_stats
        numbers = np.array([s[3:7] for s in entries], dtype=np.float64).reshape(-1, 4)
        absent = np.zeros(numbers.shape, dtype=bool)  # None reads as NaN: tell them apart
        for row in np.flatnonzero(np.isnan(numbers).any(axis=1)).tolist():
            absent[row] = [value is None for value in entries[row][3:7]]
        mantissa, exponent = decimal4(numbers, absent)
        return {
            "meta": np.array([self._meta_position(s) for s in entries], dtype=np.int64),
            "mantissa": mantissa,
            "exponent": exponent,
            "counts": np.array([s[7:10] for s in entries], dtype=np.int64).reshape(-1, 3),
        }


_DETAIL_POSITION = {name: position for position, name in enumerate(DETAIL_FIELDS)}


# Exponents that stand for what has no decimal form.
EXPONENT_NAN, EXPONENT_INF, EXPONENT_MINUS_INF, EXPONENT_NONE = 32767, 32766, 32765, -32768
_SPECIAL = {EXPONENT_NAN: "nan", EXPONENT_INF: "inf", EXPONENT_MINUS_INF: "-inf"}
_SPECIAL[EXPONENT_NONE] = None


def decimal4(numbers: np.ndarray, absent: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``numbers`` rounded to 4 significant digits as ``m * 10**(e - 3)`` (int16 ``m``, ``|m|``
    in 1000..9999 or 0; int16 ``e``); NaN, infinities and the ``absent`` entries (None) as
    special exponents. :func:`decimal4_value` reads one back."""
    finite = np.isfinite(numbers) & (numbers != 0)
    magnitude = np.where(finite, np.abs(numbers), 1.0)
    exponent = np.floor(np.log10(magnitude))
    mantissa = np.rint(np.where(finite, numbers, 0.0) / 10.0 ** (exponent - 3))
    # log10 a hair off near a power of ten, or rounding up to 10000: move one digit.
    up = np.abs(mantissa) >= 10000
    exponent[up] += 1
    down = finite & (np.abs(mantissa) < 1000)
    exponent[down] -= 1
    moved = up | down
    mantissa[moved] = np.rint(numbers[moved] / 10.0 ** (exponent[moved] - 3))
    exponent = np.where(finite, exponent, 0)
    exponent[np.isnan(numbers)] = EXPONENT_NAN
    exponent[numbers == np.inf] = EXPONENT_INF
    exponent[numbers == -np.inf] = EXPONENT_MINUS_INF
    exponent[absent] = EXPONENT_NONE
    return mantissa.astype(np.int16), exponent.astype(np.int16)


def decimal4_value(mantissa: int, exponent: int) -> float | str | None:
    """The number :func:`decimal4` stored (JSON's form: ``"nan"``, ``"inf"``, ``"-inf"``, None
    for the special ones)."""
    if exponent in _SPECIAL:
        return _SPECIAL[exponent]
    return float(f"{mantissa}e{exponent - 3}")


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
    four gzip + base64 parts: ``core`` (JSON: all but the columns and the details),
    ``columns`` (the node and edge columns as one block of int32, positions in tenths of a
    pixel; ``core["columns"]`` gives each one's type, byte offset and length: the page reads
    them as typed arrays, nothing to parse), ``details`` (JSON, its ``short`` table's numbers
    laid out in ``detailNumbers`` the same way)."""
    core = {k: v for k, v in data.items() if k not in ("details", "nodeColumns", "edgeColumns")}
    columns: dict[str, np.ndarray] = {}
    for group in ("nodeColumns", "edgeColumns"):
        for name, values in data[group].items():
            array = np.asarray(values, dtype=np.float64)
            columns[f"{group}.{name}"] = np.rint(array * 10) if name in TENTHS_FIELDS else array
    block, core["columns"] = _block(columns, "<i4")
    details = dict(data["details"])
    numbers, details["short"] = _block(details["short"])
    return json.dumps(
        {
            "encoding": "gzip-base64",
            "core": _pack(core),
            "columns": _pack_bytes(block),
            "details": _pack(details),
            "detailNumbers": _pack_bytes(numbers),
        },
        separators=(",", ":"),
    )


_TYPES = {"<i2": "int16", "<i4": "int32", "<f8": "float64"}


def _block(arrays: dict[str, np.ndarray], kind: str | None = None) -> tuple[bytes, dict]:
    # Arrays as one little-endian block, each at an offset aligned to 8 bytes; the layout
    # gives each one's type, offset, length and (for a table) row width.
    block = bytearray()
    layout = {}
    for name, array in arrays.items():
        array = np.asarray(array)
        code = kind or ("<i2" if array.dtype == np.int16 else "<i4")
        if code == "<i4" and array.size and not -(2**31) <= array.min() <= array.max() < 2**31:
            code = "<f8"
        block += bytes(-len(block) % 8)
        width = array.shape[1] if array.ndim == 2 else 1
        layout[name] = [_TYPES[code], len(block), int(array.size), width]
        block += array.astype(code).tobytes()
    return bytes(block), layout


def _unblock(block: bytes, layout: dict) -> dict[str, list[Any]]:
    out = {}
    for name, (type_name, offset, length, width) in layout.items():
        array = np.frombuffer(block, np.dtype(type_name).newbyteorder("<"), length, offset)
        out[name] = (array.reshape(-1, width) if width > 1 else array).tolist()
    return out


def _pack(value: Any) -> str:
    return _pack_bytes(json.dumps(value, separators=(",", ":"), allow_nan=False).encode("utf-8"))


def _pack_bytes(raw: bytes) -> str:
    return base64.b64encode(gzip.compress(raw, 3, mtime=0)).decode("ascii")


def decode_payload(payload: str) -> dict[str, Any]:
    """The readable data (one dict per node and edge) from :func:`encode_payload`'s text."""
    raw = json.loads(payload)
    unpack = lambda text: gzip.decompress(base64.b64decode(text))  # noqa: E731
    data = json.loads(unpack(raw["core"]))
    for name, values in _unblock(unpack(raw["columns"]), data.pop("columns")).items():
        group, field = name.split(".")
        tenths = field in TENTHS_FIELDS
        data.setdefault(group, {})[field] = [v / 10 for v in values] if tenths else values
    data["details"] = json.loads(unpack(raw["details"]))
    short = data["details"]["short"]
    data["details"]["short"] = _unblock(unpack(raw["detailNumbers"]), short)
    return expand_page(data)


def expand_page(data: dict[str, Any]) -> dict[str, Any]:
    """The page's form as readable data: ``nodes`` and ``edges`` as one dict each (a node's
    ``key`` is its position), statistics as dicts."""
    out = {k: v for k, v in data.items() if k not in ("nodeColumns", "edgeColumns", "values")}
    del out["details"]
    table = data["values"]
    nodes = _rows(data["nodeColumns"], table)
    details = data["details"]
    short = _short_reader(details["short"], details["values"])
    for key, (node, row) in enumerate(zip(nodes, details["rows"], strict=True)):
        node["key"] = key
        node.update(_expand_details(row, details["values"], short))
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


def _short_reader(columns: dict[str, Any], table: list[Any]) -> Any:
    # A short-table position -> the statistics as a dict (None -> None).
    meta, mantissa, exponent, counts = (
        value.tolist() if isinstance(value, np.ndarray) else value
        for value in (columns[k] for k in ("meta", "mantissa", "exponent", "counts"))
    )

    def read(position: int | None) -> dict[str, Any] | None:
        if position is None:
            return None
        shape, dtype, numel = table[meta[position]]
        numbers = [decimal4_value(*pair) for pair in zip(mantissa[position], exponent[position])]
        stats = {"shape": shape, "dtype": dtype, "numel": numel}
        stats.update(zip(_STAT_NAMES, [*numbers, *counts[position]], strict=True))
        return stats

    return read


def _expand_details(row: list[Any], table: list[Any], short: Any) -> dict[str, Any]:
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
            value = [{"name": n, "stats": short(s), "value": v} for n, s, v in value]
        elif name == "backward" and value is not None:
            step, received, sent = value
            value = {
                "step": step,
                "received": [short(s) for s in received],
                "sent": [short(s) for s in sent],
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
