"""Verification: tiny scenarios run real upstream code while a tracer checks the annotated statements.

Layers: :mod:`.tracer` (counts runs and evaluates expects in real frames), :mod:`.registry`
(scenario names → functions, no imports of torch), :mod:`.scenarios` (one module per scenario
group), :mod:`.plan` (annotations → probes per scenario), :mod:`.worker` (runs one scenario group
in its own process), :mod:`.runner` (orchestrates workers, judges steps), :mod:`.report` (JSON),
:mod:`.cli` (``infralens verify``).
"""
