"""Utilities around the core: ``utils.data`` (datasets, samplers, ``DataLoader``) and
``utils.checkpoint`` (activation checkpointing)."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
