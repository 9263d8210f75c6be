"""Lab 03 starter: read a scheduler's config as the time axis of inference.

Run:  .venv/bin/python labs/lab-03-scheduler-reading/starter.py [--device cpu|cuda|auto] [--steps N] [--check] [--reveal]
Fill in ANSWERS below first (it ships with every answer None); --check exits 1 while one is wrong or empty.
The values the exercises ask for print as [--reveal] until you run with --reveal.

Prints, for N inference steps (default 4): the timesteps DDIM visits under each
``timestep_spacing``; Euler's sigmas, ``init_noise_sigma`` and input scale factor; the
flow-matching sigma grid with and without a shift; DiffSynth's FlowMatchScheduler templates
(and what an unknown template name gives); DiffSynth's DDIM grid. Also shows which spacing
``from_config`` carries across a scheduler swap (only one that was passed explicitly).
``--check`` recomputes the answers to the exercises in index.md (always for 4 steps); exit 1 if wrong.
"""

from __future__ import annotations

import sys

from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

# Your answers to the exercises in index.md: replace each None, then run with --check,
# which recomputes every answer from the real code (exit 1 while one is wrong or empty).
ANSWERS = {
    "ddim_linspace_4": None,
    "ddim_leading_offset1_4": None,
    "ddim_trailing_4": None,
    "euler_init_noise_sigma_linspace": None,  # 3 decimals
    "euler_init_noise_sigma_leading": None,  # sqrt(sigma_751^2 + 1): leading starts at t=751
    "euler_first_input_scale_linspace": None,  # 1 / sqrt(sigma_max^2 + 1), 4 decimals
    "diffsynth_flux_sigmas_4": None,  # 4 decimals
    "diffsynth_unknown_template_uses": None,
    "diffsynth_ddim_4": None,
    "euler_from_ddim_config_spacing": None,  # DDIM's spacing was a default: Euler's own default wins
    "euler_from_explicit_leading_config_spacing": None,  # passed explicitly: carried over
}

# How --check compares each float answer: the precision its question in index.md states in words.
PRECISION = {
    "euler_init_noise_sigma_linspace": Decimals(3),
    "euler_init_noise_sigma_leading": Decimals(3),
    "euler_first_input_scale_linspace": Decimals(4),
    "diffsynth_flux_sigmas_4": Decimals(4),
}

SD_SCHEDULE = dict(beta_schedule="scaled_linear", beta_start=0.00085, beta_end=0.012)


def ddim_grid(spacing: str, steps: int, device: str) -> list[int]:
    from diffusers import DDIMScheduler

    scheduler = DDIMScheduler(**SD_SCHEDULE, timestep_spacing=spacing, steps_offset=1 if spacing == "leading" else 0)
    scheduler.set_timesteps(steps, device=device)
    return [int(t) for t in scheduler.timesteps]


def euler_facts(spacing: str, steps: int, device: str) -> dict:
    import torch
    from diffusers import EulerDiscreteScheduler

    scheduler = EulerDiscreteScheduler(**SD_SCHEDULE, timestep_spacing=spacing, steps_offset=1)
    scheduler.set_timesteps(steps, device=device)
    ones = torch.ones(1, 4, 8, 8, device=device)
    factor = float(scheduler.scale_model_input(ones, scheduler.timesteps[0]).flatten()[0])
    return {
        "timesteps": [round(float(t), 1) for t in scheduler.timesteps],
        "sigmas": [round(float(s), 4) for s in scheduler.sigmas],
        "init_noise_sigma": float(scheduler.init_noise_sigma),
        "first_input_scale": factor,
    }


def flow_sigmas(shift: float, steps: int, device: str) -> list[float]:
    from diffusers import FlowMatchEulerDiscreteScheduler

    scheduler = FlowMatchEulerDiscreteScheduler(shift=shift)
    scheduler.set_timesteps(steps, device=device)
    return [round(float(s), 4) for s in scheduler.sigmas]


def diffsynth_facts(steps: int) -> dict:
    from infralens.tiny import load_diffsynth_module

    flow = load_diffsynth_module("diffsynth.diffusion.flow_match")
    ddim = load_diffsynth_module("diffsynth.diffusion.ddim_scheduler").DDIMScheduler()
    ddim.set_timesteps(steps)
    facts = {"ddim": [int(t) for t in ddim.timesteps]}
    for template in ("FLUX.1", "Wan", "flux"):  # "flux": a typo, not a template
        scheduler = flow.FlowMatchScheduler(template)
        scheduler.set_timesteps(steps)
        facts[template] = {
            "fn": scheduler.set_timesteps_fn.__name__,
            "sigmas": [round(float(s), 4) for s in scheduler.sigmas],
            "timesteps": [round(float(t), 1) for t in scheduler.timesteps],
        }
    return facts


def swapped_spacing(explicit: bool = False) -> str:
    """timestep_spacing of an Euler scheduler built from a DDIM config (spacing defaulted, or passed explicitly)."""
    from diffusers import EulerDiscreteScheduler

    from infralens.tiny import tiny_ddim_scheduler

    ddim = tiny_ddim_scheduler(timestep_spacing="leading") if explicit else tiny_ddim_scheduler()
    return EulerDiscreteScheduler.from_config(ddim.config).config.timestep_spacing


def show(device: str, steps: int) -> None:
    asked = steps == 4  # the exercises ask about 4-step grids: those print with --reveal only

    def grid(values) -> str:
        return reveal(values) if asked else str(values)

    print(f"== 1. DDIM timestep_spacing, {steps} steps (SD schedule; leading uses steps_offset=1)")
    for spacing in ("linspace", "leading", "trailing"):
        print(f"  {spacing:<9} {grid(ddim_grid(spacing, steps, device))}")
    print(f"== 2. Euler: timesteps become sigmas = sqrt((1-abar)/abar); {steps} steps")
    for spacing in ("linspace", "leading", "trailing"):
        facts = euler_facts(spacing, steps, device)
        print(f"  {spacing:<9} timesteps {facts['timesteps']}")
        print(
            f"  {'':<9} sigmas {facts['sigmas']}  init_noise_sigma {reveal(facts['init_noise_sigma'], '.3f')}  "
            f"first input x{reveal(facts['first_input_scale'], '.4f')}"
        )
    print(f"== 3. Flow matching (diffusers), {steps} steps: sigma grid (N+1 entries, terminal 0)")
    for shift in (1.0, 3.0):
        print(f"  shift {shift}: {flow_sigmas(shift, steps, device)}")
    print(f"== 4. DiffSynth: the template name picks the schedule; {steps} steps")
    facts = diffsynth_facts(steps)
    for template in ("FLUX.1", "Wan", "flux"):
        entry = facts[template]
        name = reveal(entry["fn"])  # which function the lowercase "flux" typo gets is an exercise
        print(f"  FlowMatchScheduler({template!r:<8}) -> {name:<20} sigmas {grid(entry['sigmas']) if template == 'FLUX.1' else entry['sigmas']}")
    print(f"  DiffSynth DDIMScheduler grid {grid(facts['ddim'])} (no timestep_spacing option)")
    print("== 5. Swapping schedulers: EulerDiscreteScheduler.from_config(ddim.config)")
    print(f"  DDIM spacing left at its default 'leading' -> Euler gets {reveal(swapped_spacing())} (listed in config._use_default_values)")
    print(f"  DDIM built with timestep_spacing='leading' -> Euler gets {reveal(swapped_spacing(explicit=True))}")


def compute_answers(device: str) -> dict:
    facts = diffsynth_facts(4)
    linspace, leading = euler_facts("linspace", 4, device), euler_facts("leading", 4, device)
    return {
        "ddim_linspace_4": ddim_grid("linspace", 4, device),
        "ddim_leading_offset1_4": ddim_grid("leading", 4, device),
        "ddim_trailing_4": ddim_grid("trailing", 4, device),
        "euler_init_noise_sigma_linspace": round(linspace["init_noise_sigma"], 3),
        "euler_init_noise_sigma_leading": round(leading["init_noise_sigma"], 3),
        "euler_first_input_scale_linspace": round(linspace["first_input_scale"], 4),
        "diffsynth_flux_sigmas_4": facts["FLUX.1"]["sigmas"],
        "diffsynth_unknown_template_uses": facts["flux"]["fn"],
        "diffsynth_ddim_4": facts["ddim"],
        "euler_from_ddim_config_spacing": swapped_spacing(),
        "euler_from_explicit_leading_config_spacing": swapped_spacing(explicit=True),
    }


def main(argv: list[str] | None = None) -> int:
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="number of inference steps").parse_args(argv)
    device = setup_torch(args.device)
    print(f"lab 03 scheduler reading on {device}")
    show(device, args.steps)
    return finish(args, ANSWERS, lambda: compute_answers(device), tolerances=PRECISION)


if __name__ == "__main__":
    sys.exit(main())
