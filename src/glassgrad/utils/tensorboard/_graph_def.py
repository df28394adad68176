"""Pieces shared by the two graph writers: TensorBoard ``NodeDef`` protos and node names
scoped by module path as PyTorch scopes them (``Net/Sequential[features]/Conv2d[0]/...``), so
TensorBoard's Graphs tab folds each module into one group node."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from tensorboard.compat.proto.attr_value_pb2 import AttrValue
from tensorboard.compat.proto.config_pb2 import RunMetadata
from tensorboard.compat.proto.graph_pb2 import GraphDef
from tensorboard.compat.proto.node_def_pb2 import NodeDef
from tensorboard.compat.proto.step_stats_pb2 import DeviceStepStats, StepStats
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.compat.proto.versions_pb2 import VersionDef

__all__ = ["module_scopes", "ScopedNames", "node_def", "graph_profile", "forward_op_name"]


def module_scopes(module_types: dict[str, str]) -> dict[str, str]:
    """Module path -> TensorBoard scope: ``""`` -> ``"Net"``, ``"features.0"`` ->
    ``"Net/Sequential[features]/Conv2d[0]"``. ``module_types`` maps every module path (parents
    included, as ``named_modules`` lists them) to its class name."""
    scopes: dict[str, str] = {}
    for path in sorted(module_types, key=lambda p: (p.count("."), p) if p else (-1, p)):
        if path == "":
            scopes[path] = module_types[path]
            continue
        parent, _, attribute = path.rpartition(".")
        scopes[path] = f"{scopes[parent]}/{module_types[path]}[{attribute}]"
    return scopes


class ScopedNames:
    """Unique node names: the first ``scope/base`` as is, later ones ``scope/base_1``, ... ."""

    def __init__(self) -> None:
        self._used: dict[str, int] = {}

    def make(self, scope: str, base: str) -> str:
        base = _clean(base)
        name = f"{scope}/{base}" if scope else base
        count = self._used.get(name, 0)
        self._used[name] = count + 1
        if count:
            name = f"{name}_{count}"
            self._used[name] = 1
        return name


def _clean(part: str) -> str:
    # "/" would open a scope and ":" name an output slot: neither belongs in one name part.
    return re.sub(r"[/:]", "_", part) or "_"


def forward_op_name(node_name: str) -> str:
    """``"ConvolutionBackward0"`` -> ``"Convolution"``: the forward op a backward node records."""
    return re.sub(r"Backward\d*$", "", node_name) or node_name


def node_def(
    name: str,
    op: str,
    inputs: Iterable[str] = (),
    shapes: Sequence[Sequence[int] | None] = (),
    dtypes: Sequence[str | None] = (),
    **attributes: Any,
) -> NodeDef:
    """A ``NodeDef`` with ``_output_shapes`` (what TensorBoard labels edges with), ``dtype``
    (comma-separated, one per output) and further attributes (str, float, int or a list of
    floats)."""
    attr: dict[str, AttrValue] = {}
    if shapes:
        attr["_output_shapes"] = AttrValue(
            list=AttrValue.ListValue(shape=[_shape_proto(shape) for shape in shapes])
        )
    if dtypes:
        attr["dtype"] = AttrValue(s=",".join(d or "?" for d in dtypes).encode())
    for key, value in attributes.items():
        if isinstance(value, str):
            attr[key] = AttrValue(s=value.encode())
        elif isinstance(value, bool | int):
            attr[key] = AttrValue(i=int(value))
        elif isinstance(value, float):
            attr[key] = AttrValue(f=value)
        else:
            attr[key] = AttrValue(list=AttrValue.ListValue(f=[float(v) for v in value]))
    return NodeDef(name=name, op=op, input=list(inputs), attr=attr)


def _shape_proto(shape: Sequence[int] | None) -> TensorShapeProto:
    if shape is None:
        return TensorShapeProto(unknown_rank=True)
    return TensorShapeProto(dim=[TensorShapeProto.Dim(size=int(d)) for d in shape])


def graph_profile(nodes: list[NodeDef]) -> tuple[GraphDef, RunMetadata]:
    """The ``GraphDef`` and the (empty, CPU) run metadata PyTorch writes beside it."""
    run_metadata = RunMetadata(
        step_stats=StepStats(dev_stats=[DeviceStepStats(device="/device:CPU:0")])
    )
    return GraphDef(node=nodes, versions=VersionDef(producer=22)), run_metadata
