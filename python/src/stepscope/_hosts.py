"""Several hosts of one run (a pod's JAX profile with one .xplane.pb per host, a PyTorch
job's trace per rank): the documents `stepscope analyze --json` and `stepscope steps
--json` print for them, read, merged and written by the C library's calls the CLI
makes (docs/hosts.md)."""
import os

from . import _stepscope
from ._json_doc import Document
from ._trace import _ARGS


def _inputs(inputs):
    if isinstance(inputs, (str, bytes, os.PathLike)):
        inputs = [inputs]
    return [os.fsencode(os.fspath(p)) for p in inputs]


def _args_mode(args):
    if args not in _ARGS:
        raise ValueError("args must be one of %s, not %r" % (", ".join(sorted(_ARGS)), args))
    return _ARGS[args]


def analyze_hosts(inputs, run=None, top=0, args="analysis", jobs=0):
    """`stepscope analyze --json` on several hosts, as a Document (a dict; .text holds
    the CLI's bytes): the hosts' facts added up, each host's, the names ranked over
    every host, each host's lanes, processes and first overlaps. `inputs` are the
    hosts' files or a profile directory (at any level; `run` picks its run, the latest
    by default); `top` keeps the first names (0: all); `jobs` files are read at once
    (0: one per core; the same result)."""
    return Document(_stepscope.hosts_analyze_json(_inputs(inputs), run, _args_mode(args), int(top), int(jobs)))


def steps_hosts(inputs, run=None, step=None, xprof=False, straggler_ratio=1.1, args="analysis", jobs=0, device=False,
                memory=False, collectives=False, align=False):
    """`stepscope steps --json` on several hosts, as a Document: each host's steps
    aligned by step number, per step the spread across hosts, the slowest host and what
    it spent longer on than the median host, and the stragglers (a step whose slowest
    host took `straggler_ratio` x its median). `step` and `xprof` as in Trace.steps();
    `device=True` (`--device`) gives each host step its "devices", the device view of
    that host alone (docs/device.md); `memory=True` (`--memory`) its "memory", the
    device memory of that host alone in that step (docs/memory.md); `collectives=True`
    (`--collectives`) adds each collective matched across the ranks, the waits per step
    and the hosts' clock offsets (docs/collectives.md; an empty "collectives" where none
    matched, which the CLI exits 1 for), `align=True` (`--align`) moves every time onto
    the aligned clocks. Raises NoStepsFound when no host has steps."""
    return Document(_stepscope.hosts_steps_json(_inputs(inputs), run, _args_mode(args), step, bool(xprof),
                                                float(straggler_ratio), int(jobs), bool(device), bool(memory),
                                                bool(collectives), bool(align)))
