"""Error messages that echo input safely: what a file holds is shown escaped and shortened.

A value read from a file can hold newlines, terminal escape sequences (ANSI colours, OSC titles)
or megabytes of text. Echoed raw into an error it could forge terminal output (a fake ``OK``
line) or make a 10 MB message. :func:`shown` renders one echoed value: ``repr``-style escaping,
so every control character is visible (``\\n``, ``\\x1b``), and at most :data:`MAX_SHOWN_CHARS`
characters, with an ellipsis and the full length when cut; :func:`shown_name` the same unquoted,
for a key or name the message reads as a name. :func:`one_line` is the last guard of
whole messages (the CLI prints every error through it). The Rust core does the same
(``railx_core::error::shown`` and ``one_line``), with the same limits.
"""

from __future__ import annotations

__all__ = ["MAX_MESSAGE_CHARS", "MAX_SHOWN_CHARS", "one_line", "shown", "shown_name"]

MAX_SHOWN_CHARS = 80
"""Characters of one echoed value an error message shows before cutting it."""

MAX_MESSAGE_CHARS = 2000
"""Characters of a whole error message before cutting it."""


def shown(value: object, max_chars: int = MAX_SHOWN_CHARS) -> str:
    """`value` as an error message echoes it: ``repr`` (quotes, escapes), cut to `max_chars`
    characters with ``…`` and the full length when longer: ``'AAAA…' (10,000,000 chars)``."""
    if isinstance(value, str):
        length = len(value)
        text = repr(value[: max_chars + 1])
    else:
        text = repr(value)
        length = len(text)
    if len(text) <= max_chars and length <= max_chars:
        return text
    return f"{text[:max_chars]}… ({length:,} chars)"


def shown_name(name: object, max_chars: int = MAX_SHOWN_CHARS) -> str:
    """A key or name read from a file (a dotted key, a job's name) as a message shows it where it
    reads as a name, unquoted: control characters escaped and cut to `max_chars` like
    :func:`shown`'s value, so a crafted key cannot forge output or lengthen the message."""
    return one_line(str(name), max_chars)


def one_line(message: str, max_chars: int = MAX_MESSAGE_CHARS) -> str:
    """A whole message as one printable line: control characters escaped (``\\n``, ``\\x1b``),
    cut to `max_chars` with ``…`` and the full length when longer."""
    if len(message) > max_chars:
        message = f"{message[:max_chars]}… ({len(message):,} chars)"
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)
