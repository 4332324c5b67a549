"""The specialization ledger of compile logs, built by the C library's parsers."""
import os

from . import _stepscope
from ._errors import FormatError
from ._json_doc import Document


class Ledger(Document):
    """`stepscope ledger --json` (schema stepscope.ledger/1, docs/ledger.md) as a dict.
    `warnings` lists the records that looked known but did not parse (FILE:LINE: what
    was expected); `records` and `lines` count what was read."""

    def __init__(self, text, records=0, lines=0, warnings=()):
        super().__init__(text)
        self.__dict__.update(records=records, lines=lines, warnings=list(warnings))

    def function(self, name):
        """The entry of function `name`: its exact name, or its name with a definition
        site ("score (train.py:12)"). Raises KeyError when absent, and when the name
        alone matches several functions."""
        fns = self.get("functions") or []
        exact = [f for f in fns if f.get("name") == name]
        if exact:
            return exact[0]
        sited = [f for f in fns if str(f.get("name", "")).startswith(name + " (")]
        if len(sited) == 1:
            return sited[0]
        if not sited:
            raise KeyError("no function %r in the ledger (functions: %s)"
                           % (name, ", ".join(str(f.get("name")) for f in fns) or "none"))
        raise KeyError("%r names %d functions: %s" % (name, len(sited), ", ".join(f["name"] for f in sited)))


def _source(s, i):
    if isinstance(s, (bytes, bytearray)):
        return ("text", "<text %d>" % i, bytes(s))
    if isinstance(s, str) and "\n" in s:
        return ("text", "<text %d>" % i, s.encode("utf-8"))
    return ("path", os.fsencode(os.fspath(s)))


def _parse(sources, allow_empty=False, syncs=None):
    text, records, lines, warns = _stepscope.ledger_json(sources, syncs)
    if records == 0 and not allow_empty:
        names = [s[1].decode("utf-8", "replace") if isinstance(s[1], bytes) else s[1] for s in sources]
        raise FormatError(
            "no JAX or PyTorch compile records in %s (%d lines, %d malformed); expected JAX_LOG_COMPILES=1, "
            "jax_explain_cache_misses or TORCH_LOGS=recompiles output, which JAX and PyTorch write to standard "
            "error (stepscope.jax.compile_log() captures it for a block of code), or a TORCH_TRACE directory"
            % (", ".join(names), lines, len(warns)), "STS_ERR_FORMAT")
    return Ledger(text, records, lines, warns)


def ledger(*sources):
    """The ledger of compile logs: each source is a path (str or os.PathLike; gzip is
    read as such), or the log's text (bytes, or a str holding a newline). Understands
    JAX_LOG_COMPILES / jax_log_compiles, jax_explain_cache_misses and
    TORCH_LOGS=recompiles output, and TORCH_TRACE directories (their
    dedicated_log_torch_trace_*.log files) or files: every compile with its times,
    graph breaks, recompile-limit refusals. Raises NotFoundError / InputOutputError for a file
    that cannot be read, FormatError when no source holds a known record."""
    if not sources:
        raise TypeError("ledger() needs at least one log path or text")
    return _parse([_source(s, i) for i, s in enumerate(sources)])
