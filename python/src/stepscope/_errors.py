"""Exceptions. Every failure of the C library arrives as one of these, carrying the
library's message, which names the file, the byte offset or event index, and what was
expected. Each also derives from the built-in exception a Python user would catch for
that kind of failure (FileNotFoundError, ValueError, MemoryError, ...)."""


class Error(Exception):
    """A stepscope failure. `code` is the C status name (STS_ERR_PARSE, ...);
    `byte_offset` and `event_index` are the position in the input, or None."""

    def __init__(self, message, code="STS_ERR_INTERNAL", byte_offset=None, event_index=None):
        super().__init__(message)
        self.message = message
        self.code = code
        self.byte_offset = byte_offset
        self.event_index = event_index


class FormatError(Error, ValueError):
    """The input is not what it should be: malformed, truncated, an unknown format, a
    value out of range or beyond a limit."""


class NotFoundError(Error, FileNotFoundError):
    """A file, run or object that does not exist."""

    def __str__(self):
        return self.message


class InputOutputError(Error, OSError):
    """Reading or writing failed."""

    def __str__(self):
        return self.message


class InvalidArgument(Error, ValueError):
    """An argument the library refuses (an invalid regular expression, repeats < 1)."""


class OutOfMemory(Error, MemoryError):
    pass


class NoStepsFound(Error, LookupError):
    """Trace.steps() found no steps; the message lists the rules and candidates tried."""


class CheckError(Error, AssertionError):
    """A benchmarked result did not match its reference. `result` holds the whole
    BenchResult (samples included), as `stepscope bench` still writes its report."""

    def __init__(self, message, result=None):
        super().__init__(message, code="STS_ERR_CHECK")
        self.result = result


class TraceWarning(UserWarning):
    """A warning from reading a trace (a truncated file imported in part, rejected
    events): the reader's own message."""


_BY_CODE = {
    "STS_ERR_PARSE": FormatError,
    "STS_ERR_FORMAT": FormatError,
    "STS_ERR_TRUNCATED": FormatError,
    "STS_ERR_RANGE": FormatError,
    "STS_ERR_LIMIT": FormatError,
    "STS_ERR_SHAPE": FormatError,
    "STS_ERR_NOT_FOUND": NotFoundError,
    "STS_ERR_IO": InputOutputError,
    "STS_ERR_EXISTS": InputOutputError,
    "STS_ERR_INVALID_ARG": InvalidArgument,
    "STS_ERR_NOMEM": OutOfMemory,
    "STS_ERR_CHECK": CheckError,
    "STS_NO_STEPS": NoStepsFound,
}


def _make(code, message, byte_offset, event_index):
    """Called by the C extension for every failure it reports."""
    cls = _BY_CODE.get(code, Error)
    if cls is CheckError:
        return CheckError(message)
    return cls(message, code, byte_offset if byte_offset >= 0 else None,
               event_index if event_index >= 0 else None)
