"""verify, part two (``--mutate``): wrong versions of a statement, swapped into the live function, run and classified.

:mod:`.mutants` (the wrong versions, libcst), :mod:`.perturb` (value mutants at run time), :mod:`.codeswap`
(compile one in memory and swap it into the live function) and :mod:`.trials` (run each in the worker and give it
a verdict). Imports :mod:`infralens.verify.trace` only.
"""
