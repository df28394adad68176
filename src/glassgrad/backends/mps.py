"""Apple MPS (not available: glassgrad computes on the CPU)."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
