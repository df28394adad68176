"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad``, hooks and state dicts.

An optimizer holds ``param_groups``, a list of dicts: each has ``"params"`` (a list of leaf
tensors) and the group's options (``lr``, ``momentum``...), filled in from ``defaults`` where
the group does not set them. ``state`` maps each parameter (the tensor itself) to a dict of
what the algorithm remembers about it (``exp_avg``, ``step``...), as glassgrad tensors.

``state_dict()`` replaces the tensors by integers, in PyTorch's layout::

    {"state": {0: {"step": tensor(3.), "exp_avg": tensor(...), ...}, 1: {...}},
     "param_groups": [{"lr": 0.001, ..., "params": [0, 1]}]}

so it can be saved with ``glassgrad.save`` and loaded into an optimizer built over the same
parameters in the same order.

A subclass defines ``step(closure=None)``. It is wrapped once, when the class is created,
so that every step runs the step pre- and post-hooks and runs under ``no_grad``: updates
write the parameters' NumPy arrays in place and record nothing in the graph.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from itertools import chain
from typing import Any

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import RemovableHandle
from ..autograd.inplace_record import note_write
from ..autograd.mutation import before_write, write_hooks

__all__ = [
    "Optimizer",
    "required",
    "register_optimizer_step_pre_hook",
    "register_optimizer_step_post_hook",
]

StateDict = dict[str, Any]


class _RequiredParameter:
    """The default of an option every parameter group must set (SGD's ``lr`` in old PyTorch)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required: _RequiredParameter = _RequiredParameter()

_global_optimizer_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: OrderedDict[int, Callable] = OrderedDict()


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` before the step of every optimizer.

    The hook may return ``(new_args, new_kwargs)`` to replace the step's arguments.

    Example::

        >>> handle = glassgrad.optim.optimizer.register_optimizer_step_pre_hook(
        ...     lambda opt, args, kwargs: print("stepping", type(opt).__name__))
        >>> handle.remove()
    """
    return _add_hook(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Call ``hook(optimizer, args, kwargs)`` after the step of every optimizer."""
    return _add_hook(_global_optimizer_post_hooks, hook)


def _add_hook(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def _typename(obj: Any) -> str:
    if isinstance(obj, Tensor):
        return obj.type()
    return type(obj).__qualname__


def _hooked_step(step: Callable) -> Callable:
    """Wrap a subclass's ``step``: pre-hooks, the update under ``no_grad``, post-hooks."""

    @functools.wraps(step)
    def wrapper(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        if self._step_running:  # a subclass's step calling its parent's: hooks run once
            return step(self, *args, **kwargs)
        for pre_hook in chain(
            _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
        ):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
        if write_hooks:  # the step writes the parameters that have a gradient in place
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        before_write(p)
        self._step_running = True
        try:
            with no_grad():
                out = step(self, *args, **kwargs)
        finally:
            self._step_running = False
        self._opt_called = True  # read by the lr schedulers' "step order" warning
        for post_hook in chain(
            self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
        ):
            post_hook(self, args, kwargs)
        return out

    wrapper._hooked = True  # type: ignore[attr-defined]
    return wrapper


class Optimizer:
    """Base class of all optimizers: parameter groups, state, ``zero_grad``, state dicts.

    Parameters
    ----------
    params : iterable
        Tensors to optimize, or ``(name, tensor)`` pairs (``model.named_parameters()``), or
        dicts defining parameter groups: ``{"params": [...], "lr": 0.1, ...}``.
    defaults : dict
        Option values for groups that do not set them.

    Example::

        >>> w = glassgrad.zeros(3, requires_grad=True)
        >>> b = glassgrad.zeros(1, requires_grad=True)
        >>> opt = glassgrad.optim.SGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [group["lr"] for group in opt.param_groups]
        [0.1, 0.5]
    """

    _step_running = False
    _opt_called = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if step is not None and not getattr(step, "_hooked", False):
            cls.step = _hooked_step(step)  # type: ignore[method-assign]

    def __init__(self, params: Any, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict[int, Callable] = OrderedDict()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + _typename(params)
            )
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self) -> str:
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; a subclass implements it.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss (run with grad enabled).
        """
        raise NotImplementedError

    @staticmethod
    def _evaluate(closure: Callable[[], Any] | None) -> Any:
        """The loss from ``closure`` (grad enabled inside the step's ``no_grad``), or None."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # --- parameter groups ------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own options (fine-tuning a frozen part ...).

        Options the group does not set take the optimizer's defaults.

        Example::

            >>> opt = glassgrad.optim.SGD([glassgrad.zeros(2, requires_grad=True)], lr=0.1)
            >>> opt.add_param_group({"params": glassgrad.zeros(3, requires_grad=True),
            ...                      "lr": 0.01})
            >>> len(opt.param_groups)
            2
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are "
                    "missing"
                )
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param.retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)

        if len(tensors) != len(set(tensors)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for "
                "more information",
                stacklevel=3,
            )
        seen: set[Tensor] = set()
        for group in self.param_groups:
            seen.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
        if not seen.isdisjoint(tensors):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # --- gradients -------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters.

        Parameters
        ----------
        set_to_none : bool
            ``True`` (default): ``p.grad = None``, which frees the memory; an optimizer then
            skips parameters that get no new gradient. ``False``: fill ``p.grad`` with zeros
            in place (a step then still updates them, e.g. by momentum or weight decay).

        Example::

            >>> (w * w).sum().backward()
            >>> opt.zero_grad()
            >>> w.grad is None
            True
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p._grad
                if grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                if grad._data.flags.writeable:
                    grad._data[...] = 0
                else:  # a read-only (broadcast) array the user assigned: new zeros
                    grad._data = np.zeros(grad._data.shape, grad._data.dtype)
                grad._vc[0] += 1
                note_write(grad._vc, "Optimizer.zero_grad(set_to_none=False)")

    # --- state dicts -----------------------------------------------------------------
    def state_dict(self) -> StateDict:
        """The optimizer's state as ``{"state": {index: {...}}, "param_groups": [...]}``.

        Parameters are replaced by their index, counted over all groups in order; the
        state's tensors are the live ones (not copies), as in PyTorch.

        Example::

            >>> opt.state_dict()["param_groups"][0]["params"]
            [0]
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        index: dict[int, int] = {}
        start = 0
        param_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            for i, p in enumerate(group["params"], start):
                index.setdefault(id(p), i)
            packed["params"] = [index[id(p)] for p in group["params"]]
            start += len(packed["params"])
            param_groups.append(packed)
        packed_state = {
            (index[id(key)] if isinstance(key, Tensor) else key): value
            for key, value in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Load a ``state_dict()`` into this optimizer, built over the same parameters.

        Group options come from ``state_dict``; parameters stay this optimizer's own. State
        tensors are copied (cast to their parameter's dtype, except ``step``), so the loaded
        optimizer never shares memory with ``state_dict`` or with the optimizer it came from.

        Raises
        ------
        ValueError
            If the number of groups, or of parameters in a group, differs.

        Example::

            >>> fresh = glassgrad.optim.SGD([glassgrad.zeros(2, requires_grad=True)], lr=1.0)
            >>> fresh.load_state_dict(opt.state_dict())
            >>> fresh.param_groups[0]["lr"]
            0.1
        """
        state_dict = dict(state_dict)
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
            )
        )
        state: defaultdict[Any, Any] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in id_map:
                param = id_map[key]
                state[param] = _cast_state(param, value, key=None)
            else:
                state[key] = value
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
        self.state = state
        self.param_groups = saved_groups
        self._upgrade_groups()
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def _upgrade_groups(self) -> None:
        """Fill in options a state dict from an older version lacks (subclasses extend)."""
        for group in self.param_groups:
            for name, default in self.defaults.items():
                if default is not required:
                    group.setdefault(name, default)

    # --- hooks -----------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` before each ``step``; it may return
        ``(new_args, new_kwargs)``.

        Example::

            >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: None)
            >>> handle.remove()
        """
        return _add_hook(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Call ``hook(optimizer, args, kwargs)`` after each ``step``."""
        return _add_hook(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer)`` before ``state_dict()`` builds the dict."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` on the built dict; a returned dict replaces it."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer, state_dict)`` before loading; a returned dict is loaded."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(
        self, hook: Callable[..., Any], prepend: bool = False
    ) -> RemovableHandle:
        """Call ``hook(optimizer)`` after ``load_state_dict``."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)


def _cast_state(param: Tensor, value: Any, key: Any) -> Any:
    """A copy of a loaded state value; tensors cast to the parameter's dtype (not ``step``)."""
    if isinstance(value, (Tensor, np.ndarray)):
        array = value._data if isinstance(value, Tensor) else value
        if key != "step" and param._data.dtype.kind == "f":
            array = array.astype(param._data.dtype)
        return Tensor._from_array(np.array(array, copy=True))
    if isinstance(value, dict):
        return {k: _cast_state(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, key=None) for v in value)
    return value
