"""Traces: opened, nested and analyzed by the C library; read here as NumPy columns and
as the documents the CLI prints with --json."""
import json
import os
import warnings as _warnings

import numpy as np

from . import _stepscope
from ._errors import TraceWarning
from ._json_doc import Document

_ARGS = {
    "known": _stepscope.ARGS_KNOWN,
    "none": _stepscope.ARGS_NONE,
    "all": _stepscope.ARGS_ALL,
    "analysis": _stepscope.ARGS_ANALYSIS,
    "memory": _stepscope.ARGS_ANALYSIS | _stepscope.ARGS_WITH_MEMORY,  # analysis + what memory() reads
}
_SHOWN_WARNINGS = 10
_GROUPS = ("name", "hlo_op", "hlo_module", "scope")
_GROUP_CODES = {"hlo_op": 1, "hlo_module": 2, "scope": 4}  # sts_group; "name" is 3 (numbered names grouped) or 0 (no_group)


def _mode(args, flows):
    if args not in _ARGS:
        raise ValueError("args must be one of %s, not %r" % (", ".join(sorted(_ARGS)), args))
    return _ARGS[args] | (_stepscope.ARGS_WITH_STREAMS if flows else 0)


def open(path, run=None, args="analysis", flows=False):  # noqa: A001 (the module's verb, as in stepscope's CLI)
    """Reads a trace: Chrome trace-event JSON (.json, .json.gz), an XSpace .xplane.pb,
    or a JAX profile directory (`run` picks a run; the latest by default). `args`
    keeps only the event arguments the analyses read ("analysis", the default, as
    the CLI's analyze: step_num, hlo_op, hlo_module), those stepscope uses ("known"),
    all of them ("all") or none, or "memory" (analysis and the memory events' sizes,
    addresses and totals Trace.memory() reads); info["args_kept"] counts them. Flow events are
    counted in info["flows"], not kept, as the CLI's analyze does; flows=True keeps them
    and the stream arguments the critical path reads, as `steps --critical-path` does
    (steps(critical_path=True) reads the file again that way when they were not kept).
    Raises stepscope.Error (NotFoundError, FormatError, ...) with the reader's message.
    The reader's warnings become TraceWarning warnings and Trace.warnings."""
    mode = _mode(args, flows)
    raw = os.fsencode(os.fspath(path))
    t = _warned(Trace(_stepscope.open(raw, run, mode, bool(flows))))
    t._source = (raw, run, mode)
    t._flows = bool(flows)
    t._args_mode = args
    return t


def open_bytes(data, name="<bytes>", args="analysis", flows=False):
    """Reads a trace already in memory (bytes, bytearray or memoryview): Chrome JSON,
    gzip-compressed or not, or an XSpace protobuf, told apart by content. `name` stands
    for it in messages and Trace.path. flows as in open(); without it, the critical path
    of steps() follows no flow between threads and no stream's wait."""
    t = _warned(Trace(_stepscope.open_bytes(bytes(data), name, _mode(args, flows), bool(flows))))
    t._flows = bool(flows)
    t._args_mode = args  # so slices(args=...) can tell a key the trace lacks from one the reader dropped
    return t


def _warned(t):
    """The reader's warnings as TraceWarnings (the first few, then a count), as the CLI
    prints them."""
    shown = t.warnings[:_SHOWN_WARNINGS]
    for w in shown:
        _warnings.warn(w, TraceWarning, stacklevel=3)
    if t.warnings_total > len(shown):
        more = t.warnings_total - len(shown)
        _warnings.warn("... and %d more warning%s" % (more, "" if more == 1 else "s"), TraceWarning, stacklevel=3)
    return t


class Trace:
    """A trace held by the C library. Its memory is freed by close(), at the end of a
    `with` block, or when the object goes."""

    def __init__(self, capsule):
        self._cap = capsule
        self._args_mode = None
        self.warnings, self.warnings_total = _stepscope.warnings(capsule)
        self._info = None
        self._source = None  # (path, run, args mode) when read from a file
        self._flows = False  # read keeping flows and the stream args
        self._cp_cap = None  # the same file read that way, for the critical path
        self._closed = False

    def close(self):
        """Frees the C timeline now; columns already taken stay valid."""
        _stepscope.close(self._cap)
        self._closed = True
        if self._cp_cap is not None:
            _stepscope.close(self._cp_cap)

    def _critpath_capsule(self):
        """A timeline with the flows and stream args the critical path follows, as the
        CLI reads it for --critical-path: this one, or the file read again that way."""
        if self._flows or self._source is None or self._closed:
            return self._cap  # a closed one raises as every other call does
        if self._cp_cap is None:
            raw, run, mode = self._source
            self._cp_cap = _stepscope.open(raw, run, mode | _stepscope.ARGS_WITH_STREAMS, True)
        return self._cp_cap

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def info(self):
        """What the file held: `stepscope analyze --json`'s "trace" object."""
        if self._info is None:
            self._info = json.loads(_stepscope.info_json(self._cap))
        return self._info

    @property
    def path(self):
        return self.info["path"]

    def slices(self, args=None):
        """The slice table as columns (see Slices), in the order `stepscope slices --csv`
        writes it: lanes in display order, then by ts, then by depth. `args`, a list of
        arg keys (["Input Dims", "step_num", "hlo_op"]), adds a column per key, named by
        it, as `stepscope slices --csv --args KEY,KEY` does: a Dictionary of the values
        as that writes them (integers in decimal, strings as written, JSON on one line),
        None where the slice has no such arg. A key no slice holds is a column of None in
        a Trace opened with args="all"; opened otherwise, the reader may have dropped it,
        so that is a ValueError saying to open with args="all"."""
        s = Slices(_stepscope.slices(self._cap))
        if args is None:
            return s
        keys = _arg_keys(args)
        cols = [_stepscope.slice_args(self._cap, k) for k in keys]
        for key, (_, _, found) in zip(keys, cols):
            if not found and self._args_mode != "all":
                raise ValueError("slices: no slice holds arg %r, and this Trace was opened with args=%r, which "
                                 "keeps only some keys: open it with args=\"all\" to keep every arg"
                                 % (key, self._args_mode))
        s._add_args(keys, cols)
        return s

    def analyze(self, lane=None, name=None, window=None, group="name", top=0, overlaps=False, jobs=0,
                no_group=False):
        """What `stepscope analyze --json` prints, as a Document (a dict; .text holds the
        CLI's bytes): "trace", "scope", "names", "lanes", "processes" and the overlaps.
        As its options: `lane` keeps the lanes a pattern names (thread or process name,
        pid, tid, "PID:TID", else an extended regex over the names), `name` the slices
        of a name (else a regex), `window` = (start_ns, end_ns) on the trace's clock cuts
        every slice to it, `group` = "hlo_op" or "hlo_module" counts XLA ops by those
        args, "scope" by their named scope (jax.named_scope: the HLO op_name's path, from
        an XSpace's /host:metadata plane; docs/xplane.md), `top` keeps the first names (0: all), `overlaps` lists every overlap (else
        the first 100), `jobs` the threads (0: one per core; the same result). By name,
        numbered names (ProfilerStep#3, ProfilerStep#4: a last '#' and digits, two or more
        sharing the prefix) are one row "ProfilerStep#N" ("by": "numbered"), as the CLI
        ranks them; no_group=True (--no-group) ranks every exact name."""
        if group not in _GROUPS:
            raise ValueError("group must be one of %s, not %r" % (", ".join(_GROUPS), group))
        if no_group and group != "name":
            raise ValueError("no_group=True ranks exact slice names; it does not go with group=%r" % group)
        code = _GROUP_CODES.get(group, 0 if no_group else 3)
        if window is not None:
            # A list of one, a str or a number gave IndexError or passed a character on.
            if isinstance(window, (str, bytes)) or not hasattr(window, "__len__") or len(window) != 2:
                raise TypeError("window must be (start_ns, end_ns), not %r" % (window,))
            window = (int(window[0]), int(window[1]))
        return Document(_stepscope.analyze_json(self._cap, lane, name, window, code, int(top), bool(overlaps),
                                                int(jobs)))

    def names(self, lane=None, name=None, window=None, group="name", no_group=False):
        """Every slice name ranked by self time: `stepscope analyze --json`'s "names"
        (options as in analyze())."""
        return self.analyze(lane, name, window, group, no_group=no_group)["names"]

    def lanes(self, lane=None, name=None, window=None):
        """Every lane with its busy time, in display order: `analyze --json`'s "lanes"
        (options as in analyze())."""
        return self.analyze(lane, name, window)["lanes"]

    def processes(self, lane=None, name=None, window=None):
        """Every process with its busy time: `analyze --json`'s "processes"."""
        return self.analyze(lane, name, window)["processes"]

    def steps(self, step=None, lanes=None, names=5, xprof=False, device=False, categories=None,
              critical_path=False, what_if=None):
        """The steps, their breakdown, and what the other lanes did during each:
        `stepscope steps --json` as a Document (a dict; .text holds the CLI's bytes),
        with its --step (a slice name, else an extended regex
        over names), --lanes (the other lanes to report), --names (names kept per
        lane and step; 0 = all) and --xprof (XProf's overview view). device=True is
        --device: each step gains "devices" (per device: busy time by category, overlap,
        idle time by cause, launches and queue) and the document a "device" summary;
        categories is --categories, a rule file's path (docs/device.md; the args its
        arg:KEY fields read must be kept: open(..., args="all")). Raises NoStepsFound,
        listing what was tried, when there are none. critical_path=True (or a what_if,
        a list of "NAME=FACTOR" or "top=N" strings) is --critical-path and --what-if:
        each step gains "critical_path" and the document a "critical_path" summary with
        the predictions (docs/critical-path.md; with the default lanes, names and
        categories only). It follows the flows between threads and the streams' waits as
        the CLI does: a Trace opened without flows=True reads its file again keeping them
        (once; one from open_bytes without flows=True follows none)."""
        if critical_path or what_if:
            if lanes is not None or int(names) != 5 or categories is not None:
                raise ValueError("critical_path= takes step=, xprof=, device= and what_if= only")
            changes = list(what_if or [])
            if any("\n" in c for c in changes):
                raise ValueError("what_if: a change holds a newline")
            text = _stepscope.steps_critpath_json(self._critpath_capsule(), step, bool(xprof), bool(device),
                                                  "\n".join(changes))
            if text is not None:
                return Document(text)
        if device:
            text = _stepscope.steps_device_json(self._cap, step, lanes, int(names), bool(xprof), categories)
            if text is not None:
                return Document(text)
        elif categories is not None:
            raise ValueError("categories= needs device=True")
        return Document(_stepscope.steps_json(self._cap, step, lanes, int(names), bool(xprof)))

    def device(self, categories=None):
        """The device view over the whole trace: `analyze --device --json`'s "device"
        object (devices, how launches were linked, the rules and their hits, warnings,
        and each device's span window). categories as in steps()."""
        return json.loads(_stepscope.device_json(self._cap, categories))

    def device_launches(self, categories=None):
        """Every device op with the host launch that launched it, as columns
        (DeviceLaunches): what the device view's delays and idle causes are made of."""
        return DeviceLaunches(_stepscope.device_launches(self._cap, categories))

    def memory(self, steps=False, step=None):
        """Device memory over time: `stepscope analyze --memory --json` as a Document,
        or with steps=True `steps --memory --json` (per step; `step` as in steps()).
        Open the trace with args="memory" (or "all") so the events' sizes are kept.
        Raises when the trace holds no memory events (docs/memory.md)."""
        return Document(_stepscope.memory_json(self._cap, bool(steps), step))

    def __repr__(self):
        i = self.info
        return "<stepscope.Trace %s: %s, %d slices on %d lanes>" % (i["path"], i["format"], i["slices"], i["lanes"])


class Dictionary:
    """A dictionary-encoded text column: `codes` (int32, one per row) index `values`
    (the distinct texts, in order of first appearance). No Python object per row."""

    __slots__ = ("codes", "values")

    def __init__(self, codes, values):
        self.codes = codes
        self.values = values

    def __len__(self):
        return len(self.codes)

    def __getitem__(self, i):
        if isinstance(i, (int, np.integer)):
            c = self.codes[i]
            return self.values[c] if c >= 0 else None  # -1: no value (an arg the slice lacks)
        return Dictionary(self.codes[i], self.values)

    def decode(self):
        """The texts as a NumPy object array (one Python str per row, None for code -1:
        for small tables)."""
        table = np.asarray(list(self.values) + [None], dtype=object)
        return table[np.where(self.codes >= 0, self.codes, len(self.values))]

    def to_pandas(self):
        import pandas as pd

        return pd.Categorical.from_codes(self.codes, categories=self.values)

    def to_arrow(self):
        import pyarrow as pa

        missing = self.codes < 0
        codes = pa.array(self.codes, type=pa.int32(), mask=missing if missing.any() else None)
        return pa.DictionaryArray.from_arrays(codes, pa.array(self.values, pa.string()))

    def __repr__(self):
        return "<stepscope.Dictionary %d rows, %d values>" % (len(self.codes), len(self.values))


def _arg_keys(args):
    """The keys of slices(args=...): a list of distinct non-empty strings that are not
    already columns."""
    if isinstance(args, (str, bytes)) or not hasattr(args, "__iter__"):
        raise TypeError("slices: args must be a list of arg keys, such as [%r], not %s"
                        % (args if isinstance(args, str) else "step_num", type(args).__name__))
    keys = list(args)
    for k in keys:
        if not isinstance(k, str) or not k:
            raise TypeError("slices: each arg key must be a non-empty str, not %r" % (k,))
        if k in Slices.columns or k in Slices._table_columns:
            raise ValueError("slices: arg key %r is the name of a column of the slice table" % k)
    if len(set(keys)) != len(keys):
        raise ValueError("slices: arg keys given twice: %r" % sorted({k for k in keys if keys.count(k) > 1}))
    return keys


def _column(buf, dtype):
    return np.frombuffer(buf, dtype=dtype)


class Slices:
    """Perfetto's slice table of a trace as columns, one row per slice:

    pid, tid   Dictionary: as written in the trace (strings, as the CLI prints them);
               to_pandas() and to_arrow() give them as int64 when every value is an integer
    process, thread
               Dictionary: the lane's process and thread names ("" when the trace names none)
    ts_ns      int64: start, ns on the trace's clock
    dur_ns     int64: duration, ns (after nesting; a clamped child's is clamped)
    depth      int32: 0 for roots
    name       Dictionary: the slice name
    track      Dictionary: the track inside the lane ("thread", "overflow 1", ...)
    lane       int32: the library's lane index (a lane's rows are contiguous, lanes in
               the display order Trace.lanes() lists them in); the "lane" key of
               Trace.lanes() entries holds the same index, to join on
    KEY        with Trace.slices(args=[KEY, ...]): Dictionary, the arg's value as
               `stepscope slices --args KEY` writes it, None (code -1) where absent;
               arg_keys lists them, after the columns above in rows(), to_pandas()
               and to_arrow()

    The arrays wrap memory the C code filled, without a copy and without a Python
    object per row."""

    columns = ("pid", "tid", "ts_ns", "dur_ns", "depth", "name", "track")

    def __init__(self, raw):
        self.arg_keys = ()
        self._args = {}
        self._rows = raw["rows"]
        self.lane = _column(raw["lane"], np.int32)
        self.ts_ns = _column(raw["ts_ns"], np.int64)
        self.dur_ns = _column(raw["dur_ns"], np.int64)
        self.depth = _column(raw["depth"], np.int32)
        self.name = Dictionary(_column(raw["name"], np.int32), raw["name_table"])
        self.track = Dictionary(_column(raw["track"], np.int32), raw["track_table"])
        lane_pid, lane_tid = raw["lane_pid_tid"]
        self.pid = Dictionary(_column(lane_pid, np.int32)[self.lane], raw["pid_table"])
        self.tid = Dictionary(_column(lane_tid, np.int32)[self.lane], raw["tid_table"])
        lane_proc, lane_thread = raw["lane_names"]
        self.process = Dictionary(_column(lane_proc, np.int32)[self.lane], raw["process_table"])
        self.thread = Dictionary(_column(lane_thread, np.int32)[self.lane], raw["thread_table"])

    def __len__(self):
        return self._rows

    def __getitem__(self, column):
        if column in self._args:
            return self._args[column]
        if column not in self.columns and column not in ("lane", "process", "thread"):
            raise KeyError(column)
        return getattr(self, column)

    def _add_args(self, keys, cols):
        for key, (codes, values, _) in zip(keys, cols):
            self._args[key] = Dictionary(_column(codes, np.int32), values)
        self.arg_keys = tuple(keys)

    @property
    def names(self):
        """The name table: the distinct slice names, codes index it."""
        return self.name.values

    def rows(self):
        """Each row as a tuple of Python values, in `stepscope slices --csv` column order
        (pid, tid, ts_ns, dur_ns, depth, name, track, then the arg keys' values, None
        where absent). One object per row: for small
        traces and tests; use the columns for anything large."""
        cols = [self.pid, self.tid, self.ts_ns, self.dur_ns, self.depth, self.name, self.track]
        cols += [self._args[k] for k in self.arg_keys]
        for i in range(self._rows):
            yield tuple(c[i] if isinstance(c, Dictionary) else int(c[i]) for c in cols)

    _table_columns = ("lane", "process", "thread")

    def _ids(self, column):
        """pid or tid as int64 when every value of its table is an integer, else None."""
        d = getattr(self, column)
        try:
            values = np.array([int(v) for v in d.values], dtype=np.int64)
        except ValueError:
            return None
        return values[d.codes] if len(values) else np.empty(0, dtype=np.int64)

    def to_pandas(self):
        """A pandas DataFrame; text columns are Categoricals (codes plus the table); pid and
        tid are int64 when every one is an integer (df.pid == 701 then works)."""
        import pandas as pd

        data = {}
        for c in self.columns + self._table_columns:
            v = self._ids(c) if c in ("pid", "tid") else None
            if v is None:
                v = getattr(self, c)
            data[c] = v.to_pandas() if isinstance(v, Dictionary) else v
        for k in self.arg_keys:
            data[k] = self._args[k].to_pandas()
        return pd.DataFrame(data, copy=False)

    def to_arrow(self):
        """A pyarrow Table; text columns are dictionary arrays; pid and tid as in to_pandas()."""
        import pyarrow as pa

        arrays, names = [], []
        for c in self.columns + self._table_columns:
            v = self._ids(c) if c in ("pid", "tid") else None
            if v is None:
                v = getattr(self, c)
            arrays.append(v.to_arrow() if isinstance(v, Dictionary) else pa.array(v))
            names.append(c)
        for k in self.arg_keys:
            arrays.append(self._args[k].to_arrow())
            names.append(k)
        return pa.Table.from_arrays(arrays, names=names)

    def __repr__(self):
        return "<stepscope.Slices %d rows, %d names>" % (self._rows, len(self.name.values))


class DeviceLaunches:
    """Every device op of a trace with its launch, one row per op, by device then start
    (sts_devview_launches()):

    device         int32: index into .devices (their names: "GPU 0", "/device:GPU:0")
    name           Dictionary: the op's name
    category       Dictionary: compute, communication, memcpy, memset or other
    direction      Dictionary: a memcpy's htod, dtoh, dtod or other ("" for the rest)
    device_ts_ns   int64: the op's start; device_dur_ns its duration
    linked         bool: its launch is known (by correlation id, or by_flow)
    host_name      Dictionary: the launching call (cudaLaunchKernel, ...; "" unlinked)
    host_ts_ns     int64: the launch's start; host_dur_ns its duration (0 unlinked)
    delay_ns       int64: device_ts_ns - host_ts_ns (0 unlinked)"""

    columns = ("device", "name", "category", "direction", "device_ts_ns", "device_dur_ns", "linked", "by_flow",
               "host_name", "host_ts_ns", "host_dur_ns", "delay_ns")
    _CATEGORIES = ["compute", "communication", "memcpy", "memset", "other"]
    _DIRECTIONS = ["htod", "dtoh", "dtod", "other", ""]

    def __init__(self, raw):
        self.arg_keys = ()
        self._args = {}
        self._rows = raw["rows"]
        self.devices = raw["devices"]
        self.device = _column(raw["device"], np.int32)
        self.name = Dictionary(_column(raw["name"], np.int32), raw["name_table"])
        cat = _column(raw["category"], np.int32)
        self.category = Dictionary(cat, self._CATEGORIES)
        d = _column(raw["direction"], np.int32).copy()
        d[cat != 2] = 4
        self.direction = Dictionary(d, self._DIRECTIONS)
        self.device_ts_ns = _column(raw["device_ts_ns"], np.int64)
        self.device_dur_ns = _column(raw["device_dur_ns"], np.int64)
        self.linked = _column(raw["linked"], np.int32).astype(bool)
        self.by_flow = _column(raw["by_flow"], np.int32).astype(bool)
        h = _column(raw["host_name"], np.int32).copy()
        table = list(raw["host_name_table"]) + [""]
        h[h < 0] = len(table) - 1
        self.host_name = Dictionary(h, table)
        self.host_ts_ns = _column(raw["host_ts_ns"], np.int64)
        self.host_dur_ns = _column(raw["host_dur_ns"], np.int64)
        self.delay_ns = _column(raw["delay_ns"], np.int64)

    def __len__(self):
        return self._rows

    def __getitem__(self, column):
        if column not in self.columns:
            raise KeyError(column)
        return getattr(self, column)

    def to_pandas(self):
        """A pandas DataFrame; text columns are Categoricals."""
        import pandas as pd

        data = {}
        for c in self.columns:
            v = getattr(self, c)
            data[c] = v.to_pandas() if isinstance(v, Dictionary) else v
        for k in self.arg_keys:
            data[k] = self._args[k].to_pandas()
        return pd.DataFrame(data, copy=False)

    def __repr__(self):
        return "<stepscope.DeviceLaunches %d ops on %d devices>" % (self._rows, len(self.devices))
