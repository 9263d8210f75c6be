"""What a verification run observed, made to read as values under each claim.

A report stores an expect's observations as ``name=value; name=value`` (see
:mod:`infralens.verify.trace.observe`). Reports written before the verify side skipped them also name
methods, functions, modules and classes (``module.parameters=<method Module.parameters>``) and
attribute chains that raised (``self.bias.to=<AttributeError>``), and cut long values mid-token.
:func:`format_observed` reads any such report: it drops what is not a value, writes tensors as
shape, dtype and their few values, straightens curly quotes and cuts only between tokens.
:func:`observed_line` is the paragraph shown under a claim, kept away from Sphinx's smart quotes.
"""

from __future__ import annotations

import re

from docutils import nodes

from infralens.verify import TOKEN_SEPARATORS

OBSERVED_CHARS = 240
"""How much of what the verification run observed is shown under an expect."""

_PART = re.compile(r"; (?=[A-Za-z_][\w.]*=)")
"""Between two ``name=value`` parts (a value's own ``; `` is not followed by a name and ``=``)."""
_NAMED = re.compile(r"([A-Za-z_][\w.]*)=(.*)", re.DOTALL)

_CALLABLE = r"(?:bound |built-in )?[\w-]*(?:function|method|partial|wrapper|descriptor)[\w-]*"
"""The lower-case type names of callables: ``function``, ``method``, ``builtin_function_or_method``, ``partial``…"""
_NOT_A_VALUE = re.compile(
    rf"<{_CALLABLE} [^<>]*(?:<[^<>]*>[^<>]*)*>"  # <function f>, <method Module.parameters>, <bound method A.f of <A>>
    r"|<module '[^']*'[^<>]*>"  # <module 'torch' from '…'>
    r"|<\w+ '[^']*'>"  # a class: <class 'a.B'>, <enum 'Kind'>
    r"|<\w*(?:Error|Exception)>"  # an attribute chain that raised
    r"|<[\w.]+: repr failed \(\w+\)>"
)
_NESTED_CALLABLE = re.compile(rf"<{_CALLABLE} ([\w.<>]+?)(?: of [^<>]*(?:<[^<>]*>[^<>]*)*)?>")
_NESTED_CLASS = re.compile(r"<(?:class|enum|module) '([^']*)'[^<>]*>")

_TENSOR = re.compile(r"Tensor\(shape=\(([^()]*)\), dtype=(\w+), device=([\w:]+)(?:, values=\[([^\[\]]*)\])?\)")
_SCALAR = re.compile(r"tensor\(([^(),]+)(?:, dtype=(\w+))?\)")
_CUT_TENSOR = re.compile(r"Tensor\(shape=\(([^()…]*)(\))?(?:, dtype=(\w+))?[^()…]*…$")
_ARRAY = re.compile(r"ndarray\(shape=\(([^()]*)\), dtype=(\w+)\)")

_WHITESPACE = re.compile(r"\s+")
_CURLY = str.maketrans({"‘": "'", "’": "'", "“": '"', "”": '"'})


def format_observed(text: str, limit: int = OBSERVED_CHARS, *, device: str | None = "cpu") -> str | None:
    """*text* (an expect's ``observed``) as values, at most *limit* characters; None when no value is left.

    Names bound to functions, methods, modules or classes and chains that raised are left out;
    tensors read ``tensor[1, 4, 8, 8] float32`` (``on <device>`` only when it is not the report's
    *device*); curly quotes become straight; a value or the whole line is cut after a token, with ``…``.
    """
    kept: list[str] = []
    for part in _PART.split(text.translate(_CURLY).strip()):
        named = _NAMED.fullmatch(part)
        name, value = (named.group(1), named.group(2)) if named else ("", part)
        if not value.strip() or _NOT_A_VALUE.fullmatch(value.strip()):
            continue
        value = _readable(value.strip(), device)
        kept.append(f"{name}={value}" if name else value)
    return _clip("; ".join(kept), limit) if kept else None


def observed_line(device: str, observed: str | None, limit: int = OBSERVED_CHARS) -> nodes.paragraph | None:
    """The ``<device>: <values>`` paragraph under a claim: ``not run`` without an evaluation, None when no value is left.

    Sphinx's smart quotes stay off it, so a string reads ``'torchao'``, never ``‘torchao’``.
    """
    if observed is None:
        seen: str | None = "not run"
    else:
        seen = format_observed(observed, limit, device=device)
    if seen is None:
        return None
    return nodes.paragraph("", f"{device}: {seen}", classes=["il-observed"], support_smartquotes=False)


def _readable(value: str, device: str | None) -> str:
    value = _WHITESPACE.sub(" ", value)
    value = _NESTED_CALLABLE.sub(lambda found: found.group(1), value)
    value = _NESTED_CLASS.sub(lambda found: found.group(1), value)
    value = _mend_cut(value)
    value = _TENSOR.sub(lambda found: _tensor(found, device), value)
    value = _SCALAR.sub(lambda found: f"tensor({found.group(1)}" + (f", {found.group(2)})" if found.group(2) else ")"), value)
    value = _ARRAY.sub(lambda found: f"ndarray[{_dims(found.group(1))}] {found.group(2)}", value)
    return value


def _tensor(found: re.Match[str], device: str | None) -> str:
    shape, dtype, where, values = found.groups()
    text = f"tensor[{_dims(shape)}] {dtype}"
    if device is None or where.split(":")[0] != device.split(":")[0]:
        text += f" on {where}"
    return text + (f" [{values}]" if values else "")


def _dims(shape: str) -> str:
    return shape.strip().rstrip(",")


def _mend_cut(value: str) -> str:
    """A value the verify side cut mid-token (``'flas…``) cut back to the token before."""
    if not value.endswith("…"):
        return value
    if len(value) > 1 and value[-2] not in TOKEN_SEPARATORS:
        value = _cut_back(value[:-1]) or value
    return _CUT_TENSOR.sub(_cut_tensor, value)


def _cut_tensor(found: re.Match[str]) -> str:
    shape, closed, dtype = found.groups()
    if not closed:  # cut inside the shape
        return f"tensor[{shape}…"
    return f"tensor[{_dims(shape)}]" + (f" {dtype}" if dtype else "") + " …"


def _clip(text: str, limit: int) -> str:
    """*text* in at most *limit* characters, cut just after a separator (a token is never split) and ended with ``…``."""
    if len(text) <= limit:
        return text
    return _cut_back(text[: limit - 1]) or text[: limit - 1] + "…"


def _cut_back(text: str) -> str | None:
    """*text* up to its last separator, without an unclosed ``<…``, then ``…``; None when it is one token."""
    cut = max(text.rfind(mark) for mark in TOKEN_SEPARATORS)
    if cut <= 0:
        return None
    text = text[: cut + 1]
    opened = text.rfind("<")
    if opened > text.rfind(">"):
        text = text[:opened]
    return text + "…"
