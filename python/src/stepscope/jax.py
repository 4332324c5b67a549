"""stepscope for JAX: benchmark a jitted function lesson 1's way, and capture the
compile log of a block of code as a specialization ledger.

    r = stepscope.jax.bench(jax.jit(predict), x, w, check=np.tanh(x_host @ w_host))
    with stepscope.jax.compile_log() as log:
        ...                                 # calls that trace and compile
    log.function("score")["compiles"]       # log is the ledger once the block ends
    with stepscope.jax.sync_log() as syncs:
        loss = syncs.scalar(loss_dev, "loss")  # float(loss_dev), its wait recorded
    syncs["host_syncs"]                     # the ledger's host-sync section
"""
import io
import logging
import platform

import numpy as np

from ._bench import DEFAULT_ATOL, DEFAULT_RTOL
from ._bench import bench as _bench
from ._ledger import Ledger, _parse
from ._syncs import sync_log  # noqa: F401 (stepscope.jax.sync_log)

BOUNDARY = "input already placed; call plus output synchronization"


def _jax():
    import jax  # imported when used: `import stepscope` stays cheap and JAX-free

    return jax


def _device_of(args):
    """The device of the first JAX array among the arguments, else JAX's default."""
    jax = _jax()
    for a in jax.tree_util.tree_leaves(args):
        devices = getattr(a, "devices", None)
        if callable(devices):
            ds = devices()
            if len(ds) == 1:
                return next(iter(ds))
    return jax.devices()[0]


def runtime(args=()):
    """(backend, device, versions) describing JAX and the device the arguments live on."""
    jax = _jax()
    dev = _device_of(args)
    versions = {"python": platform.python_version(), "jax": jax.__version__, "numpy": np.__version__}
    try:
        import jaxlib

        versions["jaxlib"] = jaxlib.__version__
    except ImportError:
        pass
    versions["device_kind"] = getattr(dev, "device_kind", dev.platform)
    return "JAX %s on %s" % (jax.__version__, dev.platform), str(dev), versions


def bench(f, *args, check=None, atol=DEFAULT_ATOL, rtol=DEFAULT_RTOL, repeats=7, warmup=0, **kw):
    """stepscope.bench with JAX's specifics filled in: the inputs are waited for before
    any clock (jax.block_until_ready on the arguments, as setup), each sample ends when
    jax.block_until_ready(result) returns, and the report names JAX, jaxlib, the device
    and its kind. Everything else is stepscope.bench's (see its help)."""
    jax = _jax()
    backend, device, versions = runtime(args)
    versions.update(kw.pop("versions", None) or {})
    kw.setdefault("boundary", BOUNDARY)
    kw.setdefault("setup", lambda: jax.block_until_ready(args))
    return _bench(f, *args, ready=jax.block_until_ready, check=check, atol=atol, rtol=rtol, repeats=repeats,
                  warmup=warmup, backend=kw.pop("backend", backend), device=kw.pop("device", device),
                  versions=versions, **kw)


# JAX's own log format (jax/_src/logging_config.py), which stepscope's parser reads.
_FORMAT = logging.Formatter("{levelname}:{asctime}:{name}:{lineno}: {message}", style="{")


class _Capture(logging.Handler):
    def __init__(self, sink):
        super().__init__(logging.DEBUG)
        self.setFormatter(_FORMAT)
        self.sink = sink

    def emit(self, record):
        try:
            self.sink.write(self.format(record) + "\n")
        except Exception:  # a log line must never break the user's program
            self.handleError(record)


class compile_log(Ledger):
    """Captures JAX's compile log for a block of code and becomes its ledger:

        with stepscope.jax.compile_log() as log:
            ...
        log["functions"], log.function("score")["compiles"], log.save("ledger.json")

    Inside the block jax_log_compiles (and, with explain=True,
    jax_explain_cache_misses) are on and JAX's log records go to the capture, not to
    standard error (echo=True prints them too); both settings and the logger are
    restored afterwards. At the end of the block the captured text is parsed by the C
    library into the ledger (`ledger --json`'s schema); `text` is the log itself. A
    block that compiled nothing gives an empty ledger."""

    def __init__(self, explain=True, echo=False):
        dict.__init__(self)
        self.__dict__.update(text="", records=0, lines=0, warnings=[], log="", _explain=explain, _echo=echo)

    def __enter__(self):
        jax = _jax()
        self._sink = io.StringIO()
        self._handler = _Capture(self._sink)
        logger = logging.getLogger("jax")
        self._saved = (jax.config.jax_log_compiles, jax.config.jax_explain_cache_misses, logger.level,
                       logger.propagate)
        logger.addHandler(self._handler)
        if logger.getEffectiveLevel() > logging.WARNING:
            logger.setLevel(logging.WARNING)
        if not self._echo:
            logger.propagate = False
        jax.config.update("jax_log_compiles", True)
        if self._explain:
            jax.config.update("jax_explain_cache_misses", True)
        return self

    def __exit__(self, *exc):
        jax = _jax()
        compiles, explain, level, propagate = self._saved
        jax.config.update("jax_log_compiles", compiles)
        jax.config.update("jax_explain_cache_misses", explain)
        logger = logging.getLogger("jax")
        logger.removeHandler(self._handler)
        logger.setLevel(level)
        logger.propagate = propagate
        log = self._sink.getvalue()
        parsed = _parse([("text", "<compile_log>", log.encode("utf-8"))], allow_empty=True)
        dict.clear(self)
        dict.update(self, parsed)
        self.__dict__.update(text=parsed.text, records=parsed.records, lines=parsed.lines,
                             warnings=parsed.warnings, log=log)
        return False
