"""Documents the C library wrote as JSON: a dict with attribute access, the exact text
kept for saving."""
import json
import os
import tempfile


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
        """Writes the document (atomically: a reader never sees half a file), for
        `stepscope report` and `stepscope diff`. Returns the path."""
        path = os.fspath(path)
        folder = os.path.dirname(os.path.abspath(path))
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".stepscope-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self.text)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as open() would have made it, not mkstemp's 0600
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        return path
