"""``nn.Module``: the base class of every layer and model.

A Module registers what is assigned to its attributes: a ``Parameter`` goes to
``_parameters``, a ``Module`` to ``_modules``, a tensor named by ``register_buffer`` to
``_buffers``. Everything else (``parameters()``, ``state_dict()``, ``to()``, ``repr``) walks
these three dicts, recursively, in registration order — exactly as PyTorch does, so the
names, the order and the printed form of a model are the same in both libraries.
"""

from __future__ import annotations

import itertools
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from ... import _dtype
from ..._tensor import Tensor, check_device, device
from ...autograd.grad_mode import no_grad
from ..parameter import Buffer, Parameter
from ._backward_hooks import BackwardHook, attach_non_full_hooks

__all__ = ["Module", "RemovableHandle"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class RemovableHandle:
    """Returned by the ``register_*_hook`` methods: ``remove()`` takes the hook out again.

    Also a context manager, so a hook can live for the length of a ``with`` block.

    Example::

        >>> handle = model.register_forward_hook(lambda m, args, out: print(out.shape))
        >>> handle.remove()
    """

    _next_id = itertools.count()
    hooks_dict_ref: weakref.ReferenceType[Any]
    id: int
    extra_dict_ref: tuple[weakref.ReferenceType[Any], ...]

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)
        extras = extra_dict if isinstance(extra_dict, list) else [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extras if d is not None)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None:
            hooks_dict.pop(self.id, None)
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None:
                extra.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class _IncompatibleKeys(
    NamedTuple("IncompatibleKeys", [("missing_keys", list[str]), ("unexpected_keys", list[str])])
):
    """What ``load_state_dict`` found: keys the module expected but did not get, and keys
    it got but did not expect."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _HookDict(OrderedDict):
    """An ordered hook table (weak-referenceable, so handles do not keep modules alive)."""


def typename(obj: Any) -> str:
    """PyTorch's ``torch.typename``: ``'torch.FloatTensor'`` for tensors, else the qualified
    type name (``'int'``, ``'collections.OrderedDict'``)."""
    if isinstance(obj, Tensor):
        return obj.type()
    if hasattr(obj, "__qualname__"):
        module, qualname = getattr(obj, "__module__", "") or "", obj.__qualname__
    else:
        module, qualname = type(obj).__module__, type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(text: str, spaces: int) -> str:
    """Indent every line but the first (blank lines stay empty)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first, rest = lines[0], lines[1:]
    rest = [(" " * spaces) + line if line.strip() else "" for line in rest]
    return first + "\n" + "\n".join(rest)


def _forward_unimplemented(self: Module, *args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


class Module:
    """Base class for all neural network modules; models subclass it.

    Assign parameters and submodules as attributes in ``__init__`` and write ``forward``;
    call the module (``model(x)``) to run the forward hooks around ``forward``.

    Example::

        >>> class TwoLayer(nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.hidden = nn.Linear(4, 8)
        ...         self.out = nn.Linear(8, 1)
        ...     def forward(self, x):
        ...         return self.out(self.hidden(x).relu())
        >>> [name for name, _ in TwoLayer().named_parameters()]
        ['hidden.weight', 'hidden.bias', 'out.weight', 'out.bias']
    """

    _version: int = 1
    training: bool
    dump_patches: bool = False
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        setattr_("_modules", {})
        setattr_("_forward_hooks", _HookDict())
        setattr_("_forward_hooks_with_kwargs", _HookDict())
        setattr_("_forward_hooks_always_called", _HookDict())
        setattr_("_forward_pre_hooks", _HookDict())
        setattr_("_forward_pre_hooks_with_kwargs", _HookDict())
        setattr_("_backward_hooks", _HookDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_backward_pre_hooks", _HookDict())
        setattr_("_state_dict_hooks", _HookDict())
        setattr_("_state_dict_pre_hooks", _HookDict())
        setattr_("_load_state_dict_pre_hooks", _HookDict())
        setattr_("_load_state_dict_post_hooks", _HookDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # --- registration ----------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (e.g. BatchNorm's running mean).

        Parameters
        ----------
        name : str
            The attribute name.
        tensor : Tensor or None
            The buffer (``None``: registered but left out of ``state_dict`` and ``buffers()``).
        persistent : bool
            Whether the buffer is part of the ``state_dict``.

        Example::

            >>> m = nn.Module()
            >>> m.register_buffer("steps", glassgrad.zeros(()))
            >>> list(m.state_dict())
            ['steps']
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        if isinstance(tensor, Buffer):
            tensor = _plain_tensor(tensor)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or ``None``, a registered empty slot such as a missing bias).

        Example::

            >>> m = nn.Module()
            >>> m.register_parameter("scale", nn.Parameter(glassgrad.ones(1)))
            >>> [n for n, _ in m.named_parameters()]
            ['scale']
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                f"be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as attribute ``name``.

        Example::

            >>> m = nn.Module()
            >>> m.add_module("fc", nn.Linear(2, 2))
            >>> m.fc
            Linear(in_features=2, out_features=2, bias=True)
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` (``""``: this module).

        Example::

            >>> nn.Sequential(nn.Linear(2, 2)).get_submodule("0")
            Linear(in_features=2, out_features=2, bias=True)
        """
        if target == "":
            return self
        module = self
        for item in target.split("."):
            if not hasattr(module, item):
                raise AttributeError(f"{module._get_name()} has no attribute `{item}`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target`` (``"layer.0.weight"``)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target`` (``"bn.running_mean"``)."""
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    # --- attribute access ------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        # Only reached when normal lookup fails: parameters, buffers and modules live in
        # their dicts, not in the instance __dict__.
        d = self.__dict__
        if "_parameters" in d and name in d["_parameters"]:
            return d["_parameters"][name]
        if "_buffers" in d and name in d["_buffers"]:
            return d["_buffers"][name]
        if "_modules" in d and name in d["_modules"]:
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*holders: Any) -> None:
            for holder in holders:
                if name in holder:
                    if isinstance(holder, dict):
                        del holder[name]
                    else:
                        holder.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(
                self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set
            )
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(
                self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set
            )
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            if isinstance(value, Buffer):
                persistent = value.persistent
            else:
                persistent = name not in self._non_persistent_buffers_set
            remove_from(self.__dict__, self._parameters, self._modules)
            self.register_buffer(name, value, persistent)
            return
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    def __dir__(self) -> list[str]:
        attrs = dir(self.__class__) + list(self.__dict__)
        keys = attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(key for key in set(keys) if not key[0].isdigit())

    # --- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (
            self._forward_hooks
            or self._forward_pre_hooks
            or self._backward_hooks
            or self._backward_pre_hooks
        ):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                replaced = hook(self, args, kwargs)
                if replaced is not None:
                    if isinstance(replaced, tuple) and len(replaced) == 2:
                        args, kwargs = replaced
                    else:
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {replaced}."
                        )
            else:
                replaced = hook(self, args)
                if replaced is not None:
                    args = replaced if isinstance(replaced, tuple) else (replaced,)
        backward_hook = None
        full = self._is_full_backward_hook is not False
        full_hooks = list(self._backward_hooks.values()) if full else []
        if full_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, full_hooks, list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        called: set = set()
        result = None
        try:
            result = self.forward(*args, **kwargs)
            for hook_id, hook in list(self._forward_hooks.items()):
                called.add(hook_id)
                if hook_id in self._forward_hooks_with_kwargs:
                    replaced = hook(self, args, kwargs, result)
                else:
                    replaced = hook(self, args, result)
                if replaced is not None:
                    result = replaced
            if backward_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn(
                        "For backward hooks to be called, module output should be a Tensor or a "
                        f"tuple of Tensors but received {type(result)}",
                        stacklevel=3,
                    )
                else:
                    result = backward_hook.setup_output_hook(result)
            if not full and self._backward_hooks:
                attach_non_full_hooks(self, list(self._backward_hooks.values()), args, result)
            return result
        except Exception:
            # Hooks registered with always_call=True still run when forward raised.
            for hook_id, hook in list(self._forward_hooks.items()):
                if hook_id in self._forward_hooks_always_called and hook_id not in called:
                    try:
                        if hook_id in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, result)
                        else:
                            hook(self, args, result)
                    except Exception:  # noqa: BLE001 - the forward error is the one to raise
                        pass
            raise

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before each ``forward``; a returned value (a tuple, or
        one value that is wrapped in a tuple) replaces the positional arguments. With
        ``with_kwargs=True`` the hook is ``hook(module, args, kwargs)`` and may return
        ``(args, kwargs)``.

        Example::

            >>> h = model.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
            >>> h.remove()
        """
        handle = RemovableHandle(
            self._forward_pre_hooks, extra_dict=self._forward_pre_hooks_with_kwargs
        )
        self._forward_pre_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(
        self,
        hook: Callable[..., Any],
        *,
        prepend: bool = False,
        with_kwargs: bool = False,
        always_call: bool = False,
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after each ``forward``; a returned value
        replaces the output. With ``with_kwargs=True`` the hook is
        ``hook(module, args, kwargs, output)``; with ``always_call=True`` it also runs when
        ``forward`` raised.

        Example::

            >>> shapes = []
            >>> h = model.register_forward_hook(lambda m, args, out: shapes.append(out.shape))
            >>> h.remove()
        """
        handle = RemovableHandle(
            self._forward_hooks,
            extra_dict=[self._forward_hooks_with_kwargs, self._forward_hooks_always_called],
        )
        self._forward_hooks[handle.id] = hook
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_full_backward_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients with respect to
        the module's positional tensor inputs are computed (``None`` for inputs that need
        none); a returned tuple replaces ``grad_input``. The hook must not modify its
        arguments in place.

        Example::

            >>> seen = []
            >>> layer = nn.Linear(2, 1)
            >>> h = layer.register_full_backward_hook(
            ...     lambda m, grad_input, grad_output: seen.append(grad_output[0].shape))
            >>> layer(glassgrad.ones(3, 2, requires_grad=True)).sum().backward()
            >>> seen
            [glassgrad.Size([3, 1])]
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Deprecated (use ``register_full_backward_hook``): call ``hook(module, grad_input,
        grad_output)`` when the grad_fn of the module's (first) output runs, with that node's
        gradients, which are those of the module only when its forward is a single node;
        otherwise PyTorch's FutureWarning says what is missing.

        Example::

            >>> seen = []
            >>> layer = nn.Linear(2, 1)
            >>> h = layer.register_backward_hook(lambda m, gi, go: seen.append(go[0].shape))
            >>> layer(glassgrad.ones(3, 2)).sum().backward()
            >>> seen
            [glassgrad.Size([3, 1])]
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError(
                "Cannot use both regular backward hooks and full backward hooks on a single "
                "Module. Please use only one of them."
            )
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients with respect to the module's
        outputs are known, before the module's own backward; a returned tuple replaces
        ``grad_output``.

        Example::

            >>> layer = nn.Linear(2, 1)
            >>> h = layer.register_full_backward_pre_hook(lambda m, go: (go[0] * 0,))
            >>> layer(glassgrad.ones(3, 2)).sum().backward()
            >>> layer.weight.grad
            tensor([[0., 0.]])
        """
        handle = RemovableHandle(self._backward_pre_hooks)
        self._backward_pre_hooks[handle.id] = hook
        if prepend:
            self._backward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``
        collected this module's entries (it edits the dict in place and returns None)."""
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, prefix, keep_vars)`` before ``state_dict`` collects entries."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(module, incompatible_keys)`` after ``load_state_dict`` (it may edit
        the key lists in place)."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    # --- traversal -------------------------------------------------------------------------
    def _named_members(
        self,
        get_members: Callable[[Module], Any],
        prefix: str = "",
        recurse: bool = True,
        remove_duplicate: bool = True,
    ) -> Iterator[tuple[str, Any]]:
        seen: set = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for key, value in get_members(module):
                if value is None or id(value) in seen:
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + ("." if module_prefix else "") + key, value)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """The parameters of this module (and, with ``recurse``, of all submodules), each
        once, in registration order.

        Example::

            >>> sum(p.numel() for p in nn.Linear(3, 2).parameters())
            8
        """
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs; a shared parameter appears once unless
        ``remove_duplicate=False``.

        Example::

            >>> [n for n, _ in nn.Linear(3, 2).named_parameters()]
            ['weight', 'bias']
        """
        return self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """The buffers of this module (and of its submodules with ``recurse``)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs.

        Example::

            >>> [n for n, _ in nn.BatchNorm1d(3).named_buffers()]
            ['running_mean', 'running_var', 'num_batches_tracked']
        """
        return self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix,
            recurse=recurse,
            remove_duplicate=remove_duplicate,
        )

    def children(self) -> Iterator[Module]:
        """The immediate submodules (each once)."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """``(name, module)`` for the immediate submodules (each once)."""
        seen: set = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def modules(self) -> Iterator[Module]:
        """This module and all its descendants, depth first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module (name ``prefix``) and all descendants.

        Example::

            >>> [n for n, _ in nn.Sequential(nn.Linear(2, 2), nn.ReLU()).named_modules()]
            ['', '0', '1']
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # --- modes and gradients ---------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (dropout active, batch norm uses batch statistics) on this
        module and all descendants; returns ``self``."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``: evaluation mode; returns ``self``.

        Example::

            >>> nn.Dropout().eval().training
            False
        """
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter (freeze with ``False``); returns ``self``.

        Example::

            >>> layer = nn.Linear(2, 2).requires_grad_(False)
            >>> layer.weight.requires_grad
            False
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to ``None`` (default), or to zeros.

        Example::

            >>> model.zero_grad()
        """
        for p in self.parameters():
            if p._grad is None:
                continue
            if set_to_none:
                p._grad = None
                continue
            grad = p._grad
            if grad.grad_fn is not None:
                grad.detach_()
            else:
                grad.requires_grad_(False)
            grad.zero_()

    def share_memory(self) -> Module:
        """No-op (kept for API compatibility): NumPy arrays live in process memory."""
        return self

    # --- conversion ------------------------------------------------------------------------
    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and on ``self``; returns ``self``.

        Example::

            >>> def init(m):
            ...     if isinstance(m, nn.Linear):
            ...         nn.init.zeros_(m.bias)
            >>> model.apply(init)[0].bias.abs().sum().item()
            0.0
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Replace the values of every parameter, gradient and buffer by ``fn(tensor)``;
        parameters keep their identity (their storage changes)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with no_grad():
                applied = fn(param)
            param._data = applied._data
            grad = param._grad
            if grad is not None:
                with no_grad():
                    grad._data = fn(grad)._data
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        """Cast floating-point parameters and buffers to a dtype (``to(glassgrad.float64)``,
        ``to(dtype=...)``, ``to(tensor)``); ``to("cpu")`` is accepted. Integer buffers
        (``num_batches_tracked``) keep their dtype. Returns ``self``.

        Example::

            >>> nn.Linear(2, 2).to(glassgrad.float64).weight.dtype
            glassgrad.float64
        """
        target = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() received an invalid combination of arguments: {kwargs}")
        for a in args:
            if isinstance(a, _dtype.dtype):
                target = a
            elif isinstance(a, Tensor):
                target = a.dtype
            elif isinstance(a, (str, device)):
                dev = a
            elif isinstance(a, bool):
                continue  # non_blocking given positionally
            elif a is not None:
                raise TypeError(f"to() received an invalid combination of arguments: {a!r}")
        if dev is not None:
            check_device(dev)  # only the CPU exists
        if target is None:
            return self
        if not target.is_floating_point:
            raise TypeError(
                "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={target}"
            )
        return self._apply(lambda t: t.to(target) if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64; returns ``self``."""
        return self._apply(lambda t: t.to(_dtype.float64) if t.is_floating_point() else t)

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32; returns ``self``."""
        return self._apply(lambda t: t.to(_dtype.float32) if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16; returns ``self``."""
        return self._apply(lambda t: t.to(_dtype.float16) if t.is_floating_point() else t)

    def type(self, dst_type: Any) -> Module:
        """Cast all parameters and buffers to ``dst_type``; returns ``self``."""
        return self._apply(lambda t: t.to(dst_type))

    def cpu(self) -> Module:
        """Returns ``self`` (glassgrad runs on the CPU)."""
        return self

    def cuda(self, device: Any = None) -> Module:
        """Raises: glassgrad has no CUDA device (see ``glassgrad.cuda.is_available``)."""
        check_device("cuda" if device is None else device)
        return self

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Give every parameter and buffer new, uninitialised storage of the same shape and
        dtype on ``device`` (only the CPU exists); returns ``self``.

        Example::

            >>> nn.Linear(2, 3).to_empty(device="cpu").weight.shape
            glassgrad.Size([3, 2])
        """
        check_device(device)  # only the CPU exists
        return self._apply(lambda t: Tensor._from_array(np.empty_like(t._data)), recurse=recurse)

    # --- state dict ------------------------------------------------------------------------
    def get_extra_state(self) -> Any:
        """Extra (non-tensor) state for the ``state_dict``; override with
        ``set_extra_state``."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called."
        )

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned; override with ``get_extra_state``."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called."
        )

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(
        self,
        *args: Any,
        destination: dict[str, Any] | None = None,
        prefix: str = "",
        keep_vars: bool = False,
    ) -> dict[str, Any]:
        """An ordered dict of every parameter and persistent buffer, by dotted name. Values
        share storage with the module (detached unless ``keep_vars``).

        Example::

            >>> list(nn.Linear(2, 3).state_dict())
            ['weight', 'bias']
        """
        if args:
            destination = args[0] if destination is None else destination
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(
                    destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
                )
        for hook in self._state_dict_hooks.values():
            if hook(self, destination, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _load_from_state_dict(
        self,
        state_dict: dict,
        prefix: str,
        local_metadata: dict,
        strict: bool,
        missing_keys: list,
        unexpected_keys: list,
        error_msgs: list,
    ) -> None:
        """Copy this module's own entries (not its children's) from ``state_dict``."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(
                self,
                state_dict,
                prefix,
                local_metadata,
                strict,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
        persistent = {
            k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
        }
        local_state = {
            k: v
            for k, v in itertools.chain(self._parameters.items(), persistent.items())
            if v is not None
        }
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(value)}"
                )
                continue
            if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                value = value[0]  # 0.3-era checkpoints stored scalars as 1-element vectors
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if isinstance(param, Parameter) and not isinstance(value, Parameter):
                            value = Parameter(value, requires_grad=param.requires_grad)
                        elif isinstance(param, Parameter):
                            value.requires_grad_(param.requires_grad)
                        setattr(self, name, value)
                    else:
                        param.copy_(value)
            except Exception as ex:  # noqa: BLE001 - reported with the other errors
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{value.size()}, an exception occurred : {ex.args}."
                )
        extra_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if type(self).set_extra_state is not Module.set_extra_state:
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head = key[len(prefix) :].split(".", 1)
                    if len(head) > 1:
                        if head[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif head[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` into this module and its
        descendants.

        With ``strict=True`` (default) the keys must match ``self.state_dict()`` exactly;
        otherwise a RuntimeError lists the missing and unexpected keys. Shape mismatches are
        errors either way. Returns ``(missing_keys, unexpected_keys)``.

        Example::

            >>> a, b = nn.Linear(2, 2), nn.Linear(2, 2)
            >>> b.load_state_dict(a.state_dict())
            <All keys matched successfully>
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]

        def load(module: Module, local_state: dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(
                local_state,
                prefix,
                local_metadata,
                True,
                missing_keys,
                unexpected_keys,
                error_msgs,
            )
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state = {
                        k: v for k, v in local_state.items() if k.startswith(child_prefix)
                    }
                    load(child, child_state, child_prefix)
            incompatible = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not "
                        "expected to return new values, if incompatible_keys need to be "
                        "modified, it should be done inplace."
                    )

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                listed = ", ".join(f'"{k}"' for k in unexpected_keys)
                error_msgs.insert(0, f"Unexpected key(s) in state_dict: {listed}. ")
            if missing_keys:
                listed = ", ".join(f'"{k}"' for k in missing_keys)
                error_msgs.insert(0, f"Missing key(s) in state_dict: {listed}. ")
        if error_msgs:
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(error_msgs)
            )
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # --- printing --------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The module's own settings for its ``repr`` (one line, or several); override it.

        Example::

            >>> nn.Linear(2, 3).extra_repr()
            'in_features=2, out_features=3, bias=True'
        """
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [
            "(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()
        ]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    # --- copying ---------------------------------------------------------------------------
    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __getstate__(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _plain_tensor(t: Tensor) -> Tensor:
    """A plain Tensor on ``t``'s storage (a module stores buffers as Tensors)."""
    plain = Tensor._from_array(t._data)
    plain._vc = t._vc
    if isinstance(t._data, np.ndarray) and t._requires_grad:
        plain._requires_grad = True
    return plain
