"""cuDNN switches (no cuDNN here: ``is_available()`` is False; the flags do nothing)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    return False


def version() -> None:
    return None
