"""Host syncs recorded from Python, as the C API records them (sts_ledger_read,
sts_ledger_wait, sts_ledger_scalar in stepscope/spec.h): each call does the read or the
wait, times the host's wait, and records it with a label and a scope; at the end of the
block the records become a ledger's host-sync section (docs/ledger.md)."""
import time

from ._ledger import Ledger, _parse


def _wait_on(x):
    """Waits for x (an array or a pytree of them) the way its library says to."""
    try:
        import jax

        return jax.block_until_ready(x)
    except ImportError:
        pass
    if hasattr(x, "block_until_ready"):
        return x.block_until_ready()
    return x


def _scalar(x):
    """float() of a one-element array, as sts_ledger_scalar takes any one-element shape."""
    try:
        return float(x)
    except TypeError:
        import numpy as np

        a = np.asarray(x)
        if a.size != 1:
            raise ValueError("a scalar conversion needs a one-element array, got shape %s" % (a.shape,)) from None
        return float(a.reshape(()))


class sync_log(Ledger):
    """Records the host syncs of a block of code and becomes their ledger:

        with stepscope.jax.sync_log() as log:
            loss = log.scalar(loss_dev, "loss", scope="train step")   # float(), timed
            host = log.read(metrics_dev, "metrics")                   # np.asarray(), timed
            log.wait(state, "end of step")                            # block_until_ready
        log["host_syncs"], log["host_sync_scopes"]

    Each call returns what the plain call would and records its wait (clock before the
    call to clock after; the wait includes the device work still queued before it, which
    is the point). `records` lists (label, scope, kind, wait_ns) as recorded."""

    def __init__(self):
        dict.__init__(self)
        self.__dict__.update(text="", records=0, lines=0, warnings=[], syncs=[])

    def _record(self, label, scope, kind, fn, x):
        t0 = time.perf_counter_ns()
        out = fn(x)
        self.syncs.append((str(label), None if scope is None else str(scope), kind, time.perf_counter_ns() - t0))
        return out

    def scalar(self, x, label="scalar", scope=None):
        """float(x) of a one-element device array, its wait recorded (kind "scalar")."""
        return self._record(label, scope, "scalar", _scalar, x)

    def read(self, x, label="read", scope=None):
        """np.asarray(x): the array copied to the host, its wait recorded (kind "read")."""
        import numpy as np

        return self._record(label, scope, "read", np.asarray, x)

    def wait(self, x, label="wait", scope=None):
        """Waits until x (an array or pytree) is computed, its wait recorded (kind "wait")."""
        return self._record(label, scope, "wait", _wait_on, x)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        parsed = _parse([], allow_empty=True, syncs=self.syncs)
        dict.clear(self)
        dict.update(self, parsed)
        self.__dict__.update(text=parsed.text, records=parsed.records, lines=parsed.lines, warnings=parsed.warnings)
        return False
