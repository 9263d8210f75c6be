"""Run one lab starter's ``--check`` report for several ``ANSWERS`` dicts, computing the answers once.

Usage::

    python tests/labs/_check_rounds.py STARTER ROUNDS [starter arguments...]

*ROUNDS* is a file holding a Python literal: a list of ``ANSWERS`` dicts. The starter is imported, its
``ANSWERS`` set to the first round (so ``--check`` starts), and its ``main`` runs with ``--check`` and the
given arguments exactly as a learner's run does, up to the call of ``finish``. There the right answers are
computed once; then the ``--reveal`` list is printed and the real ``labkit.finish`` reports each round in
turn, between ``== round N`` and ``== round N exit CODE`` lines. A starter run takes seconds to tens of
seconds, so checking the trap rounds of a lab this way costs one run instead of one per round.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    starter, rounds_file, *starter_args = argv
    rounds = ast.literal_eval(Path(rounds_file).read_text("utf-8"))
    from infralens.tiny import labkit

    spec = importlib.util.spec_from_file_location("lab_starter_under_check", starter)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class body runs
    spec.loader.exec_module(module)

    def finish_rounds(args: Any, answers: dict, computed: Any, **options: Any) -> int:
        right = computed() if callable(computed) else computed
        labkit.print_right_answers({key: right[key] for key in answers if key in right})
        for number, round_answers in enumerate(rounds):
            print(f"== round {number}")
            print(f"== round {number} exit {labkit.finish(args, round_answers, right, **options)}")
        return 0

    module.ANSWERS = rounds[0]
    module.finish = finish_rounds
    return module.main(["--check", *starter_args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
