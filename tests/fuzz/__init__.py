"""Differential fuzzing of glassgrad against PyTorch.

A *program* is a list of one-line Python statements over the name ``torch`` (views,
in-place ops, ``x[i] = v``, registry ops, operators, hooks, ``retain_grad``, ``detach``,
``no_grad``...). ``generate`` writes seeded random programs, guided by PyTorch so most
statements are valid; ``execute`` runs one program under a library and records a trace
(every variable's value, dtype, shape and autograd flags after every statement, the errors
raised, then first derivatives by ``backward`` and by ``autograd.grad`` and second
derivatives); ``compare`` lists where the two traces differ; ``shrink`` cuts a failing
program down to the statements that still show the difference.

Short fixed-seed runs and the saved regressions (``regressions/``) are part of the test
suite (``test_fuzz.py``); long runs are ``python -m tests.fuzz --seed S --budget-s T``.
What the fuzzer deliberately leaves out is listed, with the reason, in ``skips.py``.
"""
