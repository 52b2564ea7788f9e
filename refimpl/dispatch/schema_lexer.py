"""Tokens of PyTorch's schema language, and torch's error messages that underline a token.

Torch: the TorchScript Lexer (torch/csrc/jit/frontend/lexer.h) that torch's schema parser uses,
Lexer::expected, ErrorReport (error_report.cpp) and SourceRange::highlight (source_range.cpp).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# Note [Schema lexer]
# Schemas go through TorchScript's lexer, whose rules show in errors: keywords such as `if` or
# `in` are not identifiers, a newline outside brackets is a token (`newline`, `indent`), `#`
# starts a comment, and an unlexable character is reported as the character where lexing
# started (often the blank before it). Tokens are made eagerly here; an unlexable position ends
# the token list and its error is raised when the parser moves onto it, which is when torch's
# lazy lexer reports it.

_BLANKS: Final = " \t\r\v\f"
_TOKEN_PATTERN: Final = (
    r"(?P<number>(?:0[xX](?:[0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)j?)"
    r"|(?P<ident>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<operator><<=|>>=|\*\*=|<=>|\.\.\.|->|!=|==|<=|>=|//|<<|>>|\+=|-=|\*=|/=|%=|\|=|&=|\^="
    r"|\*\*|[-+*/%@()\[\]:,={}><.?!&^|~])"
)
_TOKEN_RE: Final = re.compile(_TOKEN_PATTERN)
# Blanks, then a number, name or operator: what `_match` finds for all but newlines, comments,
# strings, the end and errors, which take the full path.
_PLAIN_TOKEN_RE: Final = re.compile(f"[ \t\r\v\f]*(?:{_TOKEN_PATTERN})")
# torch: TC_FORALL_TOKEN_KINDS in lexer.h; these keywords' kind names are their own text.
_KEYWORDS: Final = frozenset(
    (
        "def", "if", "else", "elif", "while", "return", "is", "True", "False", "None", "and",
        "or", "not", "global", "for", "in", "raise", "assert", "break", "continue", "del",
        "pass", "class", "import", "with", "as", "Ellipsis", "NoneType",
    )
)  # fmt: skip
_OPERATOR_KINDS: Final = {
    "->": "arrow", "...": "dots", "**": "pow operator", "<=>": "equivalent", "!=": "ne",
    "==": "eq", "<=": "le", ">=": "ge", "//": "floordiv",
}  # fmt: skip
_OPENERS: Final = frozenset("([{")
_CLOSERS: Final = frozenset(")]}")
_CONTEXT_LINES: Final = 3


def highlight(source: str, start: int, end: int) -> str:
    """The lines around source[start:end] with the range underlined by `~` and ` <--- HERE`.

    Torch: SourceRange::highlight (print_with_context) in torch/csrc/jit/frontend/source_range.cpp.
    """
    size = len(source)
    if end - start == size:
        return source
    if start > size:
        return ""
    range_end = min(end, size)

    def char(index: int) -> str:
        return source[index] if index < size else "\0"

    line_begin = source.rfind("\n", 0, start) + 1
    context_begin = line_begin
    for _ in range(_CONTEXT_LINES - 1):
        if context_begin == 0:
            break
        context_begin = source.rfind("\n", 0, context_begin - 1) + 1
    line_end = source.find("\n", range_end)
    context_end = size if line_end < 0 else line_end
    for _ in range(_CONTEXT_LINES - 1):
        if context_end >= size:
            break
        following = source.find("\n", context_end + 1)
        context_end = size if following < 0 else following
    text = [source[context_begin:start]]
    line_start = line_end = start
    while line_start < range_end:
        line_end = source.find("\n", line_start)
        line_end = size if line_end < 0 else line_end
        line = source[line_start : line_end + 1]
        text.append(line if line.endswith("\n") else line + "\n")
        highlight_begin = source.rfind("\n", 0, line_start) + 1
        highlight_end = line_start
        while highlight_end < range_end and source[highlight_end] != "\n":
            highlight_end += 1
        blank = 0
        for index in range(highlight_begin, highlight_end):
            if source[index] != " " and index >= start:
                break
            blank += 1
        marked = highlight_end - highlight_begin - blank
        if marked > 0:
            more_lines = any(char(i) not in "\n " for i in range(line_end, range_end + 1))
            ending = "\n" if more_lines and line_end != range_end else " <--- HERE\n"
            text.append(" " * blank + "~" * marked + ending)
        line_end += 1
        line_start = line_end
    if line_end <= size:
        tail = source[line_end:context_end]
        text.append(tail + "\n" if tail and not tail.endswith("\n") else tail)
    return "".join(text)


def expected_error(what: str, found: str, source: str, start: int, end: int) -> RuntimeError:
    """`expected X but found 'Y' here:` and the highlighted source. Torch: Lexer::expected."""
    return RuntimeError(
        f"expected {what} but found '{found}' here:\n{highlight(source, start, end)}"
    )


def report_error(message: str, source: str, start: int, end: int) -> RuntimeError:
    """A message and the highlighted source. Torch: ErrorReport::what (error_report.cpp)."""
    return RuntimeError(f"\n{message}:\n{highlight(source, start, end)}")


def _string_end(source: str, start: int) -> int | None:
    """End of the string literal at `start`, or None. Torch: SharedParserData::isString."""
    quote = source[start]
    quote_len = 3 if source.startswith(quote * 3, start) else 1
    closing = quote * quote_len
    end = start + quote_len
    while end < len(source) and not source.startswith(closing, end):
        if source[end] == "\n" and quote_len != 3:
            return None
        if source[end] == "\\":
            end += 1
        end += 1
    return end + quote_len if end < len(source) else None


def _classify(source: str, found: re.Match[str]) -> tuple[str, int, int]:
    """Kind and range of a number, name or operator token."""
    group = found.lastgroup or ""
    start, end = found.start(group), found.end()
    if group == "number":
        return "number", start, end
    text = source[start:end]
    if group == "operator":
        return _OPERATOR_KINDS.get(text, text), start, end
    if text not in _KEYWORDS:
        return "ident", start, end
    if text == "is" and source.startswith(" not", end):
        return "is not", start, end + 4
    if text == "not" and source.startswith(" in", end):
        return "not in", start, end + 3
    return text, start, end


def _match(
    source: str, pos: int, whitespace_token: bool, continuation: bool
) -> tuple[str, int, int]:
    """The raw token at `pos`: (kind, start, end). Torch: SharedParserData::match."""
    size, origin, start = len(source), pos, pos
    while True:
        while pos < size and source[pos] in _BLANKS:
            pos += 1
        if pos < size:
            char = source[pos]
            if char == "#" and not source.startswith("# type:", pos):
                pos = source.find("\n", pos)
                pos = size if pos < 0 else pos
                start = pos
                continue
            if char == "\\" and not whitespace_token and source.startswith("\n", pos + 1):
                pos += 2
                start = pos
                continue
            if char == "\n":
                pos += 1
                start = pos
                whitespace_token = not continuation
                continue
        break
    if whitespace_token:
        return ("whitespace_eof" if pos >= size else "whitespace"), start, pos
    if pos >= size:
        return "eof", pos, pos
    found = _TOKEN_RE.match(source, pos)
    if found is not None:
        return _classify(source, found)
    if source[pos] in "\"'":
        end_of_string = _string_end(source, pos)
        if end_of_string is not None:
            return "string_literal", pos, end_of_string
    if source.startswith("# type:", pos):
        return "type comment", pos, pos + 7
    raise expected_error("a valid token", source[origin], source, pos, pos + 1)


@dataclass(slots=True)
class Tokens:
    """Token kinds and source ranges; `error` is raised on moving past the last token."""

    kinds: list[str]
    starts: list[int]
    ends: list[int]
    error: RuntimeError | None


def tokenize(source: str) -> Tokens:
    """All tokens of `source`. Torch: Lexer (lex, lexRaw) in torch/csrc/jit/frontend/lexer.h."""
    kinds: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    _, start, pos = _match(source, 0, whitespace_token=True, continuation=False)
    indents = [pos - start]
    nesting = 0
    plain_token = _PLAIN_TOKEN_RE.match
    try:
        while True:
            found = plain_token(source, pos)
            if found is not None:
                kind, start, pos = _classify(source, found)
            else:
                # torch counts brackets in a size_t: an unbalanced `)` makes every later
                # newline a continuation, hence `!= 0` rather than `> 0`.
                kind, start, pos = _match(source, pos, False, nesting != 0)
            if kind in _OPENERS:
                nesting += 1
            elif kind in _CLOSERS:
                nesting -= 1
            elif kind in ("whitespace", "whitespace_eof"):
                depth = indents[0] if kind == "whitespace_eof" else pos - start
                if depth > indents[-1]:
                    indents.append(depth)
                    kind = "indent"
                elif depth == indents[-1]:
                    kind = "newline"
                else:
                    if depth not in indents:
                        message = f"invalid indent level {depth}:\n"
                        raise RuntimeError(message + highlight(source, start, pos))
                    kinds.append("newline")
                    starts.append(start)
                    ends.append(pos)
                    while indents[-1] != depth:
                        indents.pop()
                        kinds.append("dedent")
                        starts.append(start)
                        ends.append(pos)
                    continue
            kinds.append(kind)
            starts.append(start)
            ends.append(pos)
            if kind == "eof":
                return Tokens(kinds, starts, ends, None)
    except RuntimeError as error:
        return Tokens(kinds, starts, ends, error)
