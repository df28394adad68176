"""Implementations of the workloads for libraries whose API is not PyTorch's.

Each module here has ``load()`` (imports the library, raising ImportError when it is missing) and
``IMPLEMENTATIONS``: workload name -> ``fn(library, inputs, size) -> Prepared``, with the same
inputs and the same summary as the PyTorch version in :mod:`bench.workloads`.
"""
