"""verify, part one: run a scenario once while the tracer watches the annotated statements.

:mod:`.probes` (what is watched, what was found), :mod:`.watch` (the lines of a code object and where a frame is
among them), :mod:`.expects` and :mod:`.observe` (claims evaluated in real frames, values shown short),
:mod:`.backends` and :mod:`.instrument` (settrace, sys.monitoring, rewritten code on 3.11), :mod:`.tracer`,
:mod:`.functions` (the one registry of live upstream functions), :mod:`.context` (what a scenario receives) and
:mod:`.execute` (one scenario run under an observer). Imports nothing else of :mod:`infralens.verify`.
"""
