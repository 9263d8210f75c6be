"""Plumbing the lab starters share: arguments, torch setup, the ``--check`` report, a tiny DiffSynth pipeline.

The lab-specific computation stays in each ``labs/lab-*/starter.py``; only what all starters do
the same way lives here, so a learner reading a starter sees the lab, not the boilerplate.
Importing this module is cheap: torch is imported inside :func:`setup_torch` only.

Usage (in a starter)::

    from infralens.tiny.labkit import lab_arguments, report_answers, setup_torch

    ANSWERS = {"steps_taken": None}  # the learner fills these in; None = not answered yet
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="number of inference steps").parse_args(argv)
    device = setup_torch(args.device)          # "cpu" or "cuda", torch on one CPU thread
    ...
    wrong = report_answers(ANSWERS, computed)  # prints one [ok]/[WRONG]/[EMPTY] line per answer
    return 1 if wrong else 0

Bad arguments end in one line and exit 2, never a traceback: ``--steps`` below 1 is an
argparse error, and ``--device cuda`` without CUDA is reported by :func:`setup_torch`.
"""

from __future__ import annotations

import argparse
import numbers
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

ReportStyle = Literal["count", "verdict"]


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer ≥ 1 (``--steps 0`` is an error, not a ZeroDivisionError later)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def empty_answers(answers: dict) -> list[str]:
    """The keys of *answers* whose value is still ``None`` (not answered yet)."""
    return [key for key, value in answers.items() if value is None]


class _CheckAction(argparse.Action):
    """``--check``: set the flag, but stop at once (exit 1) when no answer is filled in yet."""

    def __init__(self, option_strings: Sequence[str], dest: str, answers: dict | None = None, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=False, **kwargs)
        self.answers = answers

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        empty = empty_answers(self.answers or {})
        if self.answers and len(empty) == len(self.answers):
            parser.exit(1, f"check: all {len(empty)} answers are still empty ({', '.join(empty)}): fill in ANSWERS at the top of the starter\n")
        setattr(namespace, self.dest, True)


def lab_arguments(doc: str, answers: dict | None = None, *, steps: int, steps_help: str) -> argparse.ArgumentParser:
    """The parser every starter uses: ``--device cpu|cuda|auto``, ``--steps N`` (N ≥ 1), ``--check``.

    *doc* is the starter's module docstring (its first line is the description); *steps_help*
    says what ``--steps`` counts in this lab, and the default is appended to it. With the
    starter's *answers*, ``--check`` exits 1 at once while every answer is still ``None``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    parser.add_argument("--steps", type=positive_int, default=steps, help=f"{steps_help}, at least 1 (default %(default)s)")
    parser.add_argument("--check", action=_CheckAction, answers=answers, help="verify your ANSWERS; exit 1 if one is wrong or empty")
    return parser


def setup_torch(device: str) -> str:
    """Resolve *device* (``cpu``, ``cuda`` or ``auto``) and run torch on one CPU thread.

    The starters' name for :func:`infralens.tiny.device.pick_device`, the one device chooser.
    Returns ``"cpu"`` or ``"cuda"``. When CUDA is asked for but absent (or torch is missing)
    it prints one line to stderr and exits 2, like an argparse error.
    """
    from infralens.tiny.device import pick_device

    try:
        return pick_device(device)
    except ValueError as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def answer_matches(expected, computed, tolerance: float = 0.0) -> bool:
    """``computed == expected``, or within *tolerance* when both are (non-bool) real numbers."""
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (expected, computed))
    if numeric and tolerance:
        return abs(computed - expected) <= tolerance
    return computed == expected


def report_answers(expected: dict, computed: dict, *, style: ReportStyle = "count", tolerance: float = 0.0) -> int:
    """Compare *computed* with the answer key *expected*, print the report, return how many are wrong.

    One line per key of *expected*, in its order. ``style="count"`` (labs 01-05) prints::

          [ok] key: answer 0.276, computed 0.276
        check: 6/6 answers correct

    ``style="verdict"`` (labs 06-11) prints::

        == exercise answers
          [WRONG] key: expected 8, computed 2
        1 answer(s) wrong          (or: all answers correct)

    A key missing from *computed* counts as wrong (computed shows as ``<missing>``). An answer
    still ``None`` counts as wrong too: its line says ``[EMPTY]`` without the computed value
    (that would give the answer away), and a last line lists the empty keys.
    """
    if style not in ("count", "verdict"):
        raise ValueError(f"unknown report style {style!r}: use 'count' or 'verdict'")
    label = "answer" if style == "count" else "expected"
    if style == "verdict":
        print("== exercise answers")
    wrong = 0
    for key, answer in expected.items():
        if answer is None:
            print(f"  [EMPTY] {key}: not answered yet")
            wrong += 1
            continue
        got = computed.get(key, "<missing>")
        ok = key in computed and answer_matches(answer, got, tolerance)
        print(f"  [{'ok' if ok else 'WRONG'}] {key}: {label} {answer}, computed {got}")
        wrong += not ok
    if style == "count":
        print(f"check: {len(expected) - wrong}/{len(expected)} answers correct")
    else:
        print("all answers correct" if not wrong else f"{wrong} answer(s) wrong")
    if empty := empty_answers(expected):
        print(f"still empty: {', '.join(empty)} (fill them in ANSWERS at the top of the starter)")
    return wrong


def diffsynth_sd_pipeline(device: str):
    """DiffSynth's own ``StableDiffusionPipeline`` on *device* with tiny random-weight models (seed 0).

    Loads the full DiffSynth package with stubs (:func:`infralens.tiny.import_full_diffsynth`), so
    use it only in a process that does not also load DiffSynth modules path-based. The VAE has 4
    levels (latents are 1/8 of the image size, as the pipeline assumes).
    """
    import torch

    from infralens.tiny.diffsynth_loader import import_full_diffsynth
    from infralens.tiny.diffsynth_models import ds_tiny_text_encoder, ds_tiny_unet, ds_tiny_vae
    from infralens.tiny.tokenizer import tiny_clip_tokenizer

    import_full_diffsynth()
    from diffsynth.models import stable_diffusion_text_encoder, stable_diffusion_unet, stable_diffusion_vae
    from diffsynth.pipelines.stable_diffusion import StableDiffusionPipeline

    pipe = StableDiffusionPipeline(device=device, torch_dtype=torch.float32)
    pipe.unet = ds_tiny_unet(stable_diffusion_unet).to(device)
    pipe.vae = ds_tiny_vae(stable_diffusion_vae, levels=4).to(device)
    pipe.text_encoder = ds_tiny_text_encoder(stable_diffusion_text_encoder).to(device)
    pipe.tokenizer = tiny_clip_tokenizer()
    return pipe
