"""Benchmarks of glassgrad against PyTorch and peer libraries (issue 6): ``python -m bench``."""
