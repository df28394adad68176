"""Cut a failing program down to the statements that still show the same difference."""

from __future__ import annotations

from collections.abc import Callable

from .compare import Difference


def shrink(
    statements: list[str],
    check: Callable[[list[str]], Difference | None],
    progress: Callable[[list[str], Difference], None] | None = None,
) -> tuple[list[str], Difference]:
    """Remove statements one at a time while ``check`` still finds a difference of the
    first one's category; repeat until no single statement can go (1-minimal).
    ``progress`` hears of every smaller program found."""
    found = check(statements)
    if found is None:
        raise ValueError("the program shows no difference to shrink")
    category = found.category
    current = list(statements)
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(current))):
            candidate = current[:i] + current[i + 1 :]
            result = check(candidate) if candidate else None
            if result is not None and result.category == category:
                current, found, changed = candidate, result, True
                if progress is not None:
                    progress(current, found)
    return current, found
