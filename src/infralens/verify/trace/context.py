"""What a scenario function receives: the device and a way to state checked facts."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


class ScenarioCheckError(AssertionError):
    """A scenario's own sanity check failed (the upstream code did not behave as the scenario expects)."""


@dataclass
class ScenarioContext:
    """Passed to every scenario function.

    Attributes:
        device: ``"cpu"`` or ``"cuda"``; models and inputs go there.
        facts: measured values worth keeping in the report (``name -> short text``).
    """

    device: str
    facts: dict[str, str] = field(default_factory=dict)

    def check(self, condition: object, message: str) -> None:
        """Fail the scenario with *message* unless *condition* holds."""
        if not condition:
            raise ScenarioCheckError(message)

    def fact(self, name: str, value: object) -> None:
        """Record a measured value (shown in the report's scenario entry)."""
        from infralens.verify.trace.observe import short_repr

        self.facts[name] = short_repr(value)

    def generator(self, seed: int = 0) -> torch.Generator:
        from infralens.tiny import generator

        return generator(self.device, seed)
