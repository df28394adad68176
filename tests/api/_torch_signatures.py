"""PyTorch's signatures, read from its generated ``.pyi`` stubs (every overload of the C++
functions and Tensor methods), from ``inspect.signature`` for its Python functions and
classes, and, for the few builtins with neither (``torch.linalg``, ``torch.special``,
``torch.fft``, some of ``nn.functional``), from the signature line their docstrings start
with. Not from ``torch.overrides``' testing lambdas, which misname parameters.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import re
from typing import Any

import torch

POSITIONAL_ONLY = inspect.Parameter.POSITIONAL_ONLY
POSITIONAL = inspect.Parameter.POSITIONAL_OR_KEYWORD
VAR_POSITIONAL = inspect.Parameter.VAR_POSITIONAL
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY
VAR_KEYWORD = inspect.Parameter.VAR_KEYWORD
EMPTY = inspect.Parameter.empty


class Param:
    """One parameter of one overload: name, kind, default (source text, or EMPTY) and
    annotation (source text, "" if none)."""

    __slots__ = ("name", "kind", "default", "annotation")

    def __init__(self, name: str, kind: Any, default: Any, annotation: str) -> None:
        self.name, self.kind, self.default, self.annotation = name, kind, default, annotation

    @property
    def required(self) -> bool:
        return self.default is EMPTY and self.kind not in (VAR_POSITIONAL, VAR_KEYWORD)

    def __repr__(self) -> str:
        default = "" if self.default is EMPTY else f"={self.default}"
        return f"{self.name}{default}"


Overload = list  # of Param


def _stub_path(*parts: str) -> str:
    return os.path.join(os.path.dirname(torch.__file__), *parts)


def _params_of(args: ast.arguments, drop_self: bool) -> Overload:
    params: Overload = []
    positional = list(args.posonlyargs) + list(args.args)
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        if drop_self and i == 0:
            continue
        kind = POSITIONAL_ONLY if i < len(args.posonlyargs) else POSITIONAL
        params.append(_param(arg, kind, default))
    if args.vararg is not None:
        params.append(_param(args.vararg, VAR_POSITIONAL, None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        params.append(_param(arg, KEYWORD_ONLY, default))
    if args.kwarg is not None:
        params.append(_param(args.kwarg, VAR_KEYWORD, None))
    return params


def _param(arg: ast.arg, kind: Any, default: ast.expr | None) -> Param:
    annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
    name = arg.arg
    if kind is POSITIONAL and name.startswith("__"):  # the stubs' positional-only spelling
        kind, name = POSITIONAL_ONLY, name[2:]
    return Param(name, kind, EMPTY if default is None else ast.unparse(default), annotation)


@functools.cache
def _stub(path: str, class_name: str | None = None) -> dict[str, list[Overload]]:
    """name -> overloads, from the module level of a stub, or from one class in it."""
    with open(_stub_path(*path.split("/"))) as f:
        tree = ast.parse(f.read())
    body = tree.body
    if class_name is not None:
        body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
        body = body.body
    found: dict[str, list[Overload]] = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = {ast.unparse(d) for d in node.decorator_list}
            if "property" in decorators or any(d.endswith(".setter") for d in decorators):
                continue
            static = "staticmethod" in decorators
            params = _params_of(node.args, drop_self=class_name is not None and not static)
            found.setdefault(node.name, []).append(params)
    return found


_DOC_SIGNATURE = re.compile(r"^\s*([\w.]+)\((.*?)\)\s*(->.*)?$")


def _from_docstring(obj: Any) -> list[Overload]:
    """The signature line a builtin's docstring starts with: ``erf(input, *, out=None)``."""
    lines = (obj.__doc__ or "").strip().splitlines()
    if not lines:
        return []
    match = _DOC_SIGNATURE.match(lines[0])
    if not match:
        return []
    text = match.group(2).replace(" = ", "=")
    text = re.sub(r"\s*:\s*[^,=]+", "", text)  # drop inline types, "input: Tensor"
    text = re.sub(r"\b(?:bool|int|float|str|Tensor)\s+(?=\w)", "", text)  # "bool pivot=True"
    try:
        tree = ast.parse(f"def f({text}): pass")
    except SyntaxError:
        return []
    return [_params_of(tree.body[0].args, drop_self=False)]


def _from_inspect(obj: Any, drop_self: bool = False) -> list[Overload]:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return []
    params = []
    for i, p in enumerate(signature.parameters.values()):
        if drop_self and i == 0:
            continue
        default = EMPTY if p.default is EMPTY else repr(p.default)
        annotation = "" if p.annotation is EMPTY else str(p.annotation)
        params.append(Param(p.name, p.kind, default, annotation))
    return [params]


def _python_function(obj: Any) -> bool:
    return inspect.isfunction(obj) or inspect.ismethod(obj)


def torch_overloads(namespace: str, name: str) -> list[Overload]:
    """Every signature PyTorch documents for ``name`` in ``namespace`` ("" is the top level,
    "Tensor" the methods, "nn.functional", "linalg" ... or "nn" for module constructors)."""
    if namespace == "Tensor":
        member = inspect.getattr_static(torch.Tensor, name, None)
        if isinstance(member, (staticmethod, classmethod)):
            member = member.__func__
        if _python_function(member):
            return _from_inspect(
                member,
                drop_self=not isinstance(inspect.getattr_static(torch.Tensor, name), staticmethod),
            )
        return _stub("_C/__init__.pyi", "TensorBase").get(name, [])
    obj = _resolve(namespace, name)
    if inspect.isclass(obj):
        return (
            _from_inspect(obj.__init__, drop_self=True)
            if "__init__" in vars(obj)
            else (_from_inspect(obj))
        )
    if _python_function(obj):
        return _from_inspect(obj)
    stubs = {
        "": _stub("_C/_VariableFunctions.pyi"),
        "nn.functional": {**_stub("_C/_nn.pyi"), **_stub("nn/functional.pyi")},
    }.get(namespace, {})
    return stubs.get(name) or _from_docstring(obj)


def _resolve(namespace: str, name: str) -> Any:
    obj: Any = torch
    for part in [p for p in namespace.split(".") if p] + [name]:
        obj = getattr(obj, part)
    return obj
