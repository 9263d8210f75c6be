"""Scenario functions, one module per group. Each takes a :class:`~infralens.verify.context.ScenarioContext`.

A scenario builds tiny random-weight models (:mod:`infralens.tiny`), runs real upstream code on
``ctx.device`` and checks, with ``ctx.check``, the facts that make the run meaningful (an oracle
denoiser recovers x0, slicing equals the plain path, ...). The tracer around it checks the
annotations' own ``expect`` claims.
"""
