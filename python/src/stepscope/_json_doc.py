"""Documents the C library wrote as JSON: a dict with attribute access, the exact text
kept for saving."""
import json
import os

from . import _stepscope


class Document(dict):
    """A JSON document from the C library: a dict (r["warm_median_seconds"]) with
    attribute access (r.warm_median_seconds). `text` is the library's text, written as
    it is by save()."""

    def __init__(self, text):
        super().__init__(json.loads(text))
        self.__dict__["text"] = text

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def save(self, path):
        """Writes the document for `stepscope report` and `stepscope diff`, whole or not
        at all (the library's atomic output: a reader never sees half a file, and a
        failure leaves an older file as it was). Returns the path."""
        path = os.fspath(path)
        _stepscope.write_file(os.fsencode(path), self.text.encode("utf-8"))
        return path
