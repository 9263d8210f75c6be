"""This project's scenarios: tiny runs of the annotated upstream code, which ``infralens verify`` traces.

Each module declares its scenarios with ``@scenario("name", "summary")`` (``infralens verify --list`` shows
them); each takes a :class:`~infralens.verify.ScenarioContext`, builds tiny random-weight models
(:mod:`infralens.tiny`), runs real upstream code on ``ctx.device`` and checks, with ``ctx.check``, the facts
that make the run meaningful (an oracle denoiser recovers x0, slicing equals the plain path, ...). The
tracer around it checks the annotations' own ``expect`` claims. ``PROCESS`` names the worker group of a
module's scenarios (DiffSynth's two loading modes each need their own); ``IMPORTS`` are imported before
a scenario is timed. ``verify`` reads this folder without importing it; this file lets type checkers and
the modules' relative imports see it as one package.
"""
