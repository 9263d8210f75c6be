"""An analytic denoiser for Gaussian data, and the exact end point of its probability-flow ODE.

Data: every element is independent, $x_0 \\sim N(m, c^2)$. In sigma space ($\\tilde x = x_t/\\alpha_t$,
$\\tilde\\sigma = \\sigma_t/\\alpha_t$) the optimal denoiser is $D = m + c^2/(c^2+\\tilde\\sigma^2)(\\tilde x - m)$ and the
ODE trajectory is $\\tilde x(\\tilde\\sigma) = m + z\\sqrt{c^2+\\tilde\\sigma^2}$, so starting on it at any σ the exact
sample at σ = 0 is $m + zc$. Solvers are compared by how far they land from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch


@dataclass(frozen=True)
class GaussianODE:
    """Per-element mean ``m``, std ``c`` and trajectory parameter ``z`` (all the same shape)."""

    m: torch.Tensor
    c: torch.Tensor
    z: torch.Tensor

    @classmethod
    def make(cls, shape: tuple[int, ...] = (1, 4, 8, 8), seed: int = 12, device: str = "cpu") -> GaussianODE:
        import torch

        generator = torch.Generator().manual_seed(seed)
        m = 0.5 * torch.randn(*shape, generator=generator)
        c = 0.8 + 0.4 * torch.rand(*shape, generator=generator)
        z = torch.randn(*shape, generator=generator)
        return cls(m.to(device), c.to(device), z.to(device))

    def start(self, sigma: float) -> torch.Tensor:
        """The trajectory point at sigma-space σ (the Euler/Heun sample scale, ``init_noise_sigma`` units)."""
        return self.m + self.z * (self.c**2 + sigma**2) ** 0.5

    def start_vp(self, sigma: float) -> torch.Tensor:
        """The same point in the VP scale $x_t = \\alpha_t\\tilde x$ with $\\alpha_t = 1/\\sqrt{1+\\tilde\\sigma^2}$."""
        return self.start(sigma) / (1.0 + sigma**2) ** 0.5

    def x0(self) -> torch.Tensor:
        """The exact end point of the ODE at σ = 0."""
        return self.m + self.z * self.c

    def denoise(self, x_tilde: torch.Tensor, sigma: float) -> torch.Tensor:
        """$E[x_0 \\mid \\tilde x]$ at sigma-space σ."""
        return self.m + self.c**2 / (self.c**2 + sigma**2) * (x_tilde - self.m)

    def epsilon(self, x_vp: torch.Tensor, sigma: float) -> torch.Tensor:
        """The exact ε prediction for a VP-scaled input at sigma-space σ (what a perfect ε-model returns)."""
        x_tilde = x_vp * (1.0 + sigma**2) ** 0.5
        return (x_tilde - self.denoise(x_tilde, sigma)) / sigma

    def velocity(self, x_vp: torch.Tensor, sigma: float) -> torch.Tensor:
        """The exact v prediction, v = alpha_t * eps - sigma_t * x0, for the same input."""
        alpha = (1.0 + sigma**2) ** -0.5
        x0 = self.denoise(x_vp / alpha, sigma)
        return alpha * self.epsilon(x_vp, sigma) - sigma * alpha * x0


SD_BETAS = {"beta_schedule": "scaled_linear", "beta_start": 0.00085, "beta_end": 0.012}
"""Stable Diffusion's training noise schedule, shared by every scheduler compared here."""


def _sigma_at(scheduler, index: int, timestep) -> float:
    if hasattr(scheduler, "sigmas") and type(scheduler).__name__ != "DDIMScheduler":
        return float(scheduler.sigmas[index])
    abar = float(scheduler.alphas_cumprod[int(timestep)])
    return ((1 - abar) / abar) ** 0.5


def solve(scheduler, steps: int, ode: GaussianODE) -> tuple[torch.Tensor, int]:
    """Run *scheduler* for *steps* with the exact ε-model; return the final sample and the number of model calls."""
    scheduler.set_timesteps(steps, device=ode.m.device)
    sigma_space = type(scheduler).__name__ in ("EulerDiscreteScheduler", "HeunDiscreteScheduler")
    first = _sigma_at(scheduler, 0, scheduler.timesteps[0])
    sample = ode.start(first) if sigma_space else ode.start_vp(first)
    for index, timestep in enumerate(scheduler.timesteps):
        model_input = scheduler.scale_model_input(sample, timestep)
        sigma = _sigma_at(scheduler, index, timestep)
        # Euler/Heun's scale_model_input divides by sqrt(1+σ²): the model always sees the VP-scaled sample.
        predict = ode.velocity if scheduler.config.prediction_type == "v_prediction" else ode.epsilon
        sample = scheduler.step(predict(model_input, sigma), timestep, sample).prev_sample
    return sample, len(scheduler.timesteps)


def solver_error(scheduler, steps: int, ode: GaussianODE) -> tuple[float, int]:
    """Max |final − exact x0| and the number of model calls."""
    sample, calls = solve(scheduler, steps, ode)
    return float((sample - ode.x0()).abs().max()), calls
