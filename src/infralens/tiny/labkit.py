"""Plumbing the lab starters share: arguments, a quiet torch setup, hidden answers, the ``--check`` report.

The lab-specific computation stays in each ``labs/lab-*/starter.py``; only what all starters do
the same way lives here, so a learner reading a starter sees the lab, not the boilerplate.
Importing this module is cheap: torch is imported inside :func:`setup_torch` only.

Usage (in a starter)::

    from infralens.tiny.labkit import Decimals, finish, lab_arguments, reveal, setup_torch

    ANSWERS = {"steps_taken": None, "final_scale": None}  # the learner fills these in; None = not answered yet
    PRECISION = {"final_scale": Decimals(3)}   # each float answer: the precision its question states in words
    args = lab_arguments(__doc__, ANSWERS, steps=3, steps_help="number of inference steps").parse_args(argv)
    device = setup_torch(args.device)          # "cpu" or "cuda", torch on one CPU thread, no library noise
    print(f"steps taken: {reveal(taken)}")     # an exercise's answer shows only with --reveal
    return finish(args, ANSWERS, {"steps_taken": taken, "final_scale": scale}, tolerances=PRECISION)  # the exit code

Integers, booleans and strings are compared exactly; a float answer at the precision of its key in
``tolerances`` (:class:`Decimals`, :class:`Significant` or :class:`Tolerance`), which the exercise's
question states in the same words (:func:`precision_words`).

Answers stay hidden until asked: a value an exercise asks for prints as :data:`HIDDEN` unless the
starter runs with ``--reveal``, and the ``--check`` report shows the right answer only then too.
Bad arguments end in one line and exit 2, never a traceback: ``--steps`` below 1 is an
argparse error, and ``--device cuda`` without CUDA is reported by :func:`setup_torch`.
"""

from __future__ import annotations

import argparse
import math
import numbers
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from infralens.tiny.labquiet import quiet_third_party

HIDDEN = "[--reveal]"
"""What :func:`reveal` prints in place of an exercise's answer when the starter runs without ``--reveal``."""
_STATE = {"reveal": False}


class Tolerance(NamedTuple):
    """How close a float answer must be: ``math.isclose(yours, right, rel_tol=rel, abs_tol=abs)``."""

    rel: float = 1e-3
    abs: float = 1e-6


DEFAULT_TOLERANCE = Tolerance()
"""rel 1e-3, abs 1e-6: how a float answer is compared when its starter states no precision for it.

Every lab exercise states its precision (a starter's ``PRECISION``); this default remains for answers that do
not, and for :func:`answer_matches` called without one."""


class Decimals(NamedTuple):
    """A float answer asked "to N decimals": it matches when it equals the right value rounded to *places*.

    ``Decimals(5)`` takes 0.99915 for 0.999149 and rejects 1.0 (off by 0.00085, far more than half a unit
    of the fifth decimal). With *share*, the question asks for a fraction and a percentage string as a page
    prints it (``"49%"``, ``"49.1 %"``) is read as that fraction first, at the precision the string has.
    """

    places: int
    share: bool = False


class Significant(NamedTuple):
    """A float answer asked "to N significant figures": it matches the right value rounded to *digits*."""

    digits: int


Precision = Tolerance | Decimals | Significant
"""How one numeric answer is compared: per key, passed to :func:`finish` as ``tolerances={key: ...}``."""

_NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(number: int, unit: str) -> str:
    """``_count(5, "decimal")`` is "five decimals", ``_count(1, "decimal")`` "one decimal", 12 stays "12 decimals"."""
    word = _NUMBER_WORDS[number] if 0 <= number < len(_NUMBER_WORDS) else str(number)
    return f"{word} {unit}" + ("" if number == 1 else "s")


def precision_words(precision: Precision) -> str:
    """*precision* in the words a question uses: "to five decimals", "to three significant figures".

    A share reads "as a share to two decimals" (a percentage such as "49%" is accepted for it); a
    :class:`Tolerance` reads "within a relative 0.001 (absolute 1e-06)".
    """
    if isinstance(precision, Decimals):
        return ("as a share " if precision.share else "") + f"to {_count(precision.places, 'decimal')}"
    if isinstance(precision, Significant):
        return f"to {_count(precision.digits, 'significant figure')}"
    return f"within a relative {precision.rel:g} (absolute {precision.abs:g})"


def holds_float(value: Any) -> bool:
    """Whether *value* is a float or a container holding one (such an answer needs a stated precision)."""
    if isinstance(value, Mapping):
        return any(holds_float(item) for item in value.values())
    if isinstance(value, list | tuple):
        return any(holds_float(item) for item in value)
    return isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral) and not _is_bool(value)


_HALF_UNIT = 0.5 + 1e-9  # a value written with a rounding of the last digit is inside half a unit (float noise aside)


def _percent(text: str) -> tuple[float, int] | None:
    """``"49%"`` as (0.49, 2), ``"49.1 %"`` as (0.491, 3): the fraction and its decimal places; None if not a percentage."""
    body = text.strip()
    if not body.endswith("%"):
        return None
    number = body[:-1].strip()
    try:
        value = float(number)
    except ValueError:
        return None
    places = len(number.split(".", 1)[1]) if "." in number else 0
    return value / 100, places + 2


def _close_at(yours: float, right: float, precision: Precision) -> bool:
    """*yours* against *right* at *precision* (the rule each :data:`Precision` kind states)."""
    if isinstance(precision, Decimals):
        return abs(yours - right) <= _HALF_UNIT * 10.0**-precision.places
    if isinstance(precision, Significant):
        if right == 0:
            return yours == 0
        unit = 10.0 ** (math.floor(math.log10(abs(right))) - precision.digits + 1)
        return abs(yours - right) <= _HALF_UNIT * unit
    return math.isclose(yours, right, rel_tol=precision.rel, abs_tol=precision.abs)


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


class _LabParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that remembers ``--reveal`` for :func:`reveal`."""

    def parse_args(self, args: Sequence[str] | None = None, namespace: Any = None) -> Any:  # type: ignore[override]
        parsed = super().parse_args(args, namespace)
        _STATE["reveal"] = bool(getattr(parsed, "reveal", False))
        return parsed


def lab_arguments(doc: str, answers: dict | None = None, *, steps: int, steps_help: str) -> argparse.ArgumentParser:
    """The parser every starter uses: ``--device cpu|cuda|auto``, ``--steps N`` (N ≥ 1), ``--check``, ``--reveal``.

    *doc* is the starter's module docstring (its first line is the description); *steps_help*
    says what ``--steps`` counts in this lab, and the default is appended to it. With the
    starter's *answers*, ``--check`` exits 1 at once while every answer is still ``None``.
    """
    parser = _LabParser(description=doc.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda", "auto"))
    parser.add_argument("--steps", type=positive_int, default=steps, help=f"{steps_help}, at least 1 (default %(default)s)")
    parser.add_argument("--check", action=_CheckAction, answers=answers, help="verify your ANSWERS; exit 1 if one is wrong or empty")
    parser.add_argument("--reveal", action="store_true", help="show the right answers (in the output, the --check report and a list at the end)")
    return parser


def reveal(value: Any, spec: str = "") -> str:
    """*value* formatted with *spec* when the starter runs with ``--reveal``; :data:`HIDDEN` otherwise."""
    return format(value, spec) if _STATE["reveal"] else HIDDEN


def setup_torch(device: str) -> str:
    """Silence known library noise, resolve *device* (``cpu``, ``cuda`` or ``auto``), run torch on one CPU thread.

    Returns ``"cpu"`` or ``"cuda"`` (:func:`infralens.tiny.device.pick_device` decides). When CUDA is
    asked for but absent (or torch is missing) it prints one line to stderr and exits 2.
    """
    quiet_third_party()
    from infralens.tiny.device import pick_device

    try:
        return pick_device(device)
    except ValueError as exc:
        print(f"{Path(sys.argv[0]).name}: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def _canonical(value: Any) -> Any:
    """*value* as a learner may spell it: a class by its name, a dtype or ``"torch.X"`` string as ``"X"``."""
    if isinstance(value, type):
        return value.__name__
    if type(value).__name__ == "dtype" and type(value).__module__ == "torch":
        value = str(value)
    if isinstance(value, str):
        return value.strip().removeprefix("torch.")
    return value


def _is_bool(value: Any) -> bool:
    return isinstance(value, bool) or type(value).__name__ == "bool_"


def answer_matches(yours: Any, right: Any, tolerance: Precision | None = None) -> bool:
    """Whether *yours* equals *right* the way a learner means it.

    Tuples equal lists, ``torch.float16``, ``"torch.float16"`` and ``"float16"`` are one dtype, an
    exception class equals its name, floats match at *tolerance* (a :data:`Precision`; integers and
    bools exactly), and containers are compared element by element with the same rules. A percentage
    string (``"49%"``) matches a fraction when *tolerance* is ``Decimals(n, share=True)``. Never raises.
    """
    tolerance = tolerance or DEFAULT_TOLERANCE
    if isinstance(tolerance, Decimals) and tolerance.share and isinstance(yours, str) and isinstance(right, numbers.Real):
        percent = _percent(yours)
        if percent is None:
            return False
        value, places = percent
        return _close_at(value, float(right), Decimals(min(places, tolerance.places)))
    yours, right = _canonical(yours), _canonical(right)
    if _is_bool(yours) or _is_bool(right):
        return _is_bool(yours) and _is_bool(right) and bool(yours) == bool(right)
    if isinstance(yours, numbers.Real) and isinstance(right, numbers.Real):
        if isinstance(yours, numbers.Integral) and isinstance(right, numbers.Integral):
            return int(yours) == int(right)
        return _close_at(float(yours), float(right), tolerance)
    if isinstance(yours, Mapping) and isinstance(right, Mapping):
        return yours.keys() == right.keys() and all(answer_matches(yours[k], right[k], tolerance) for k in right)
    if isinstance(yours, list | tuple) and isinstance(right, list | tuple):
        return len(yours) == len(right) and all(answer_matches(a, b, tolerance) for a, b in zip(yours, right, strict=True))
    try:
        return bool(yours == right)
    except Exception:  # an odd object's __eq__ is the learner's problem, not a traceback
        return False


def literal(value: Any) -> str:
    """*value* written as a Python literal a learner can paste into ``ANSWERS`` (a dtype as its string)."""
    value = _canonical(value) if isinstance(value, type) or type(value).__name__ == "dtype" else value
    if isinstance(value, list | tuple):
        items = [literal(item) for item in value]
        if isinstance(value, tuple):
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        return f"[{', '.join(items)}]"
    if _is_bool(value):
        return repr(bool(value))
    if isinstance(value, numbers.Integral):
        return repr(int(value))
    if isinstance(value, numbers.Real):
        return repr(float(value))
    return repr(value)


def report_answers(answers: dict, computed: dict, *, reveal: bool = False, tolerances: Mapping[str, Precision] | None = None) -> int:
    """Compare the learner's *answers* with the *computed* right ones, print the report, return how many are wrong.

    One line per key of *answers*, in its order::

        == check: your ANSWERS against the values the real code computes
          [ok] scale: your answer 0.18215
          [WRONG] steps: your answer 2 (the right answer: run with --reveal)
          [EMPTY] shape: not answered yet
        check: 1/3 answers correct
        still empty: shape (fill them in ANSWERS at the top of the starter)

    With *reveal*, ``[WRONG]`` and ``[EMPTY]`` lines end in ``the right answer X`` instead. A key
    missing from *computed* is wrong. *tolerances* gives a key's :data:`Precision` (the default is :data:`DEFAULT_TOLERANCE`);
    a ``[WRONG]`` line of such a key says how it was compared (``(compared to five decimals)``), never the value.
    """
    tolerances = tolerances or {}
    print("== check: your ANSWERS against the values the real code computes")
    wrong = 0
    for key, yours in answers.items():
        right = literal(computed[key]) if key in computed else "<not computed>"
        shown = f"the right answer {right}" if reveal else "(the right answer: run with --reveal)"
        if yours is None:
            print(f"  [EMPTY] {key}: not answered yet" + (f"; {shown}" if reveal else ""))
            wrong += 1
            continue
        ok = key in computed and answer_matches(yours, computed[key], tolerances.get(key, DEFAULT_TOLERANCE))
        compared = f" (compared {precision_words(tolerances[key])})" if key in tolerances else ""
        print(f"  [ok] {key}: your answer {literal(yours)}" if ok else f"  [WRONG] {key}: your answer {literal(yours)}{compared}; {shown}")
        wrong += not ok
    print(f"check: {len(answers) - wrong}/{len(answers)} answers correct")
    if empty := empty_answers(answers):
        print(f"still empty: {', '.join(empty)} (fill them in ANSWERS at the top of the starter)")
    return wrong


def print_right_answers(computed: dict) -> None:
    """The ``--reveal`` list: one ``key = literal`` line per computed answer, ready to paste into ``ANSWERS``."""
    print("== the right answers (--reveal)")
    for key, value in computed.items():
        print(f"  {key} = {literal(value)}")


def finish(args: argparse.Namespace, answers: dict, computed: dict | Callable[[], dict], *, tolerances: Mapping[str, Precision] | None = None) -> int:
    """End a starter: the ``--check`` report, else the ``--reveal`` list, else a hint; return the exit code.

    *computed* maps each exercise key to its right answer, or is a function that computes it (called
    only when ``--check`` or ``--reveal`` needs it). *tolerances* maps each float answer's key to the
    :data:`Precision` its question states (a starter's ``PRECISION``). Exit code 1 when ``--check`` finds a
    wrong or empty answer.
    """
    if not (args.check or args.reveal):
        print("(fill in ANSWERS at the top of this file and run with --check; --reveal shows the right answers)")
        return 0
    right = computed() if callable(computed) else computed
    if args.check:
        return 1 if report_answers(answers, right, reveal=args.reveal, tolerances=tolerances) else 0
    print_right_answers({key: right[key] for key in answers if key in right})
    return 0


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
