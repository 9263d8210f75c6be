"""verify, part three: from annotations to a plan, and the plan run in worker processes and judged.

:mod:`.registry` (the project's scenarios), :mod:`.plan` (annotations → probes per scenario, each step resolved on
its own), :mod:`.against` (another release, installed on its own), :mod:`.protocol` (the worker↔runner messages),
:mod:`.worker` (one scenario group in its own process), :mod:`.isolate` (a forked child for mutants),
:mod:`.timings` (last CPU times, to balance work) and :mod:`.runner` (orchestrates the workers, judges the steps).
Imports :mod:`infralens.verify.trace` and :mod:`infralens.verify.mutate`; nothing at the top of :mod:`infralens.verify`.
"""
