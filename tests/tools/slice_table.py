#!/usr/bin/env python3
"""Perfetto's slice table for a Chrome trace-event JSON file, computed in Python.

An independent model of what trace_processor's JSON importer makes of a trace, written
from Perfetto's rules (json_trace_tokenizer.cc, json_trace_parser.cc, trace_sorter.h,
slice_tracker.cc, track_compressor.cc: read for their rules; nothing is copied), with
one switch per deliberate difference of stepscope's (docs/perfetto.md). With every
switch on the Perfetto side it must reproduce trace_processor's table and stats
exactly; with every switch on stepscope's side it must reproduce `stepscope slices
--csv --track` exactly. Then every difference between the two real programs is one of
the switches, by construction. Python stdlib only.

  slice_table.py perfetto TRACE   the table and stats as trace_processor makes them
  slice_table.py stepscope TRACE  the table and counts as stepscope makes them

Both print JSON: {"rows": [[pid, tid, track, ts, dur, depth, name], ...], "stats": {...}}.
The switches (Mode fields):
  exact_times    decimal text to ns exactly (Perfetto: through a double, llround)
  tolerance      an overrun of at most the resolution is clamped, not spilled
  contain        every child inside its parent (cut, or moved up to the ancestor
                 holding its start); Perfetto's table can break this
  keep_negative  events before ts 0 kept (Perfetto drops them)
  bad_dur_stops  an unreadable "dur" ends the import there (Perfetto), else only
                 that event is refused
  max_depth      slices beyond depth 512 dropped (Perfetto), else kept
  ids_as_written pid/tid labels as written (Perfetto folds numbers to uint32, with
                 negatives and larger values becoming 0)
"""
import decimal
import gzip
import json
import math
import sys

D = decimal.Decimal
INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)
PENDING = None  # the end of an open B


class Mode:
    def __init__(self, stepscope):
        self.exact_times = stepscope
        self.tolerance = stepscope
        self.contain = stepscope
        self.keep_negative = stepscope
        self.bad_dur_stops = not stepscope
        self.max_depth = None if stepscope else 512
        self.ids_as_written = stepscope


# ---- reading JSON with numbers kept as text ----------------------------------------

class Num:
    """A JSON number as written."""
    __slots__ = ('text',)

    def __init__(self, text):
        self.text = text

    def is_int(self):
        return not any(c in self.text for c in '.eE')

    def __str__(self):
        return self.text


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    text = raw.decode('utf-8', errors='surrogateescape')
    if text.startswith('\ufeff'):
        text = text[1:]
    # Both programs take control characters inside strings and args nested thousands
    # deep.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 30000))
    try:
        doc = json.loads(text, parse_float=Num, parse_int=Num, strict=False)
    except ValueError:
        doc = truncated(text)
    if isinstance(doc, dict):
        doc = doc.get('traceEvents', [])
    return doc if isinstance(doc, list) else []


def truncated(text):
    """The complete events of a file cut short (both programs import them)."""
    dec = json.JSONDecoder(parse_float=Num, parse_int=Num, strict=False)
    i = text.find('[')
    out = []
    if i < 0:
        return out
    i += 1
    while True:
        while i < len(text) and text[i] in ' \t\r\n,':
            i += 1
        if i >= len(text) or text[i] == ']':
            return out
        try:
            v, i = dec.raw_decode(text, i)
        except ValueError:
            return out
        out.append(v)


# ---- numbers ------------------------------------------------------------------------

def wrap64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


NUMBER_PARTS = None


def perfetto_double(text):
    """Perfetto's json_parser StringToDouble: int part + fraction / 10^digits, then the
    exponent through pow, with its int64 and uint64 arithmetic wrapping. Not correctly
    rounded, on purpose of copying it."""
    import re
    global NUMBER_PARTS
    if NUMBER_PARTS is None:
        NUMBER_PARTS = re.compile(r'(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]*))?$')
    m = NUMBER_PARTS.match(text)
    if not m:
        return None
    neg, ip_s, frac_s, esign, exp_s = m.groups()
    ip = wrap64(int(ip_s)) if ip_s else 0
    frac = 0.0
    if frac_s is not None and frac_s:
        frac = float(wrap64(int(frac_s))) / float(pow(10, len(frac_s), 1 << 64))
    out = float(ip) + frac
    exp = int(exp_s) if exp_s else 0
    try:
        if esign == '-':
            out /= math.pow(10, exp)
        elif exp > 0:
            out *= math.pow(10, exp)
    except OverflowError:
        return None
    if math.isinf(out) or math.isnan(out):
        return None
    return -out if neg else out


def strtod_whole(s):
    """Whether C's strtod reads all of s (Perfetto's StringToDouble on counter values)."""
    import re
    t = s.lstrip(' \t\n\v\f\r')
    return bool(re.fullmatch(r'[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)'
                             r'([pP][+-]?\d+)?|inf(inity)?|nan(\([0-9A-Za-z_]*\))?)', t, re.IGNORECASE))


def llround(x):
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


NUMBER_CHARS = set('0123456789+-.eE')


def json_number_text(s):
    """Whether s is a JSON number (as Perfetto and stepscope read string times)."""
    import re
    return re.fullmatch(r'-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?', s) is not None


def perfetto_ns(v):
    """Perfetto's CoerceToTs: microseconds to ns through int64 or double; None: refused."""
    if isinstance(v, str):
        if not json_number_text(v):
            return None
        v = Num(v)
    if not isinstance(v, Num):
        return None
    t = v.text
    if v.is_int():
        x = int(t)
        if INT64_MIN <= x <= INT64_MAX:
            return wrap64(x * 1000)
    d = perfetto_double(t)
    if d is None:
        return None
    if d == math.trunc(d):
        return wrap64(int(d) * 1000)
    return llround(d * 1000.0)


def exact_ns(v):
    """stepscope's conversion: (ns, whole microsecond) or None."""
    if isinstance(v, str):
        if not json_number_text(v):
            return None
        v = Num(v)
    if not isinstance(v, Num):
        return None
    t = v.text
    if 'e' in t or 'E' in t:
        x = float(t) * 1000.0
        if not abs(x) < 9.2e18:
            return None
        ns = llround(x)
        return ns, ns % 1000 == 0
    d = D(t)
    ns = int((d * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    if not INT64_MIN <= ns <= INT64_MAX:
        return None
    return ns, ns % 1000 == 0


# ---- events -----------------------------------------------------------------------

class Ev:
    __slots__ = ('seq', 'ph', 'ts', 'dur', 'name', 'cat', 'lane', 'scope', 'cookie', 'scope_proc', 'has_pid',
                 'has_tid', 'end', 'args')


# Phases stepscope's reader stores (and so refuses when their ts cannot be read).
STORED = set('XBEiIRCbenSTFpstf')


def string_or_none(v):
    """Perfetto's GetStringValue: a string, else nothing; "" is nothing too."""
    return v if isinstance(v, str) and v != '' else None


def coerce_u32(v):
    if isinstance(v, Num):
        if v.is_int():
            x = int(v.text)
        else:
            d = perfetto_double(v.text)
            if d is None or math.isinf(d):
                return 0
            x = int(d)
        return x if 0 <= x <= 0xffffffff else 0
    return None


def label_text(v):
    return v.text if isinstance(v, Num) else v


def numeric_id(label):
    try:
        return int(label)
    except ValueError:
        pass
    try:
        d = float(label)
        if d == int(d):
            return int(d)
    except (ValueError, OverflowError):
        pass
    return None


LANE_KEYS = {}


def lane_key(mode, e):
    """(pid, tid) of the thread an event lands on, labels as shown by each program."""
    pid, tid = e.get('pid'), e.get('tid')
    memo = (mode.ids_as_written, type(pid), str(pid), type(tid), str(tid))
    k = LANE_KEYS.get(memo)
    if k is None:
        k = LANE_KEYS[memo] = lane_key_of(mode, pid, tid)
    return k


def lane_key_of(mode, pid, tid):
    if not isinstance(pid, (Num, str)):
        pid = None
    if not isinstance(tid, (Num, str)):
        tid = None
    if mode.ids_as_written:
        if pid is None:
            pl, pv = '0', 0
        else:
            pl = label_text(pid)
            pv = numeric_id(pl)
            if pv is None:
                pv = 1  # a non-numeric pid stands for a non-zero number
        tv = numeric_id(label_text(tid)) if tid is not None else None
        if (tid is None or tv == 0) and pv != 0:
            tl = pl
        elif tid is None:
            tl = '0'
        else:
            tl = label_text(tid)
        return (pl, tl)
    pk = ('s', pid) if isinstance(pid, str) else coerce_u32(pid) or 0
    tk = ('s', tid) if isinstance(tid, str) else coerce_u32(tid) or 0
    if isinstance(pid, str) and pid == '':
        pk = 0
    if isinstance(tid, str) and tid == '':
        tk = 0
    if tk == 0 and pk != 0 and not isinstance(tid, str):
        tk = pk
    show = lambda k: k[1] if isinstance(k, tuple) else str(k)
    return (show(pk), show(tk))


class Reader:
    def __init__(self, path, mode):
        """path: a trace file, or its events as load() returns them."""
        self.mode = mode
        self.stats = {}
        self.events = []
        self.whole = True
        # Perfetto's TraceSorter for the JSON queue.
        self.max_ts = 0
        self.slow = False
        self.pushed = 0
        self.first_ooo = None
        self.min_ooo = None
        self.lo, self.hi = None, None
        self.nevents = 0
        self.rejected = 0  # stepscope's count of events refused with a warning
        self.read(load(path) if isinstance(path, str) else path)

    def count(self, k):
        self.stats[k] = self.stats.get(k, 0) + 1

    def time(self, v):
        if self.mode.exact_times:
            r = exact_ns(v)
            return None if r is None else r
        r = perfetto_ns(v)
        return None if r is None else (r, True)

    def read(self, events):
        seq = -1
        for e in events:
            if not isinstance(e, dict):
                continue
            if not e:  # "{}": JAX ends its arrays with one; not an event
                continue
            seq += 1
            self.nevents += 1
            ph_v = e.get('ph')
            ph = ph_v[0] if isinstance(ph_v, str) and ph_v else ''
            if not ph:
                self.count('json_tokenizer_failure')
                self.rejected += 'ph' in e and not isinstance(ph_v, str)
                continue
            t = self.time(e['ts']) if 'ts' in e else None
            if t is None and ph != 'M':
                self.count('json_tokenizer_failure')
                self.rejected += ph in STORED
                continue
            dur, dur_ok = None, True
            if 'dur' in e:
                dur = self.time(e['dur'])
                if dur is None:
                    self.count('json_tokenizer_failure')
                    if self.mode.bad_dur_stops:
                        return
                    dur_ok = False  # stepscope refuses only an X without a dur it can read
            if ph == 'P':
                continue
            ts = t[0] if t is not None else 0
            if ts < 0 and not self.mode.keep_negative:
                self.count('trace_sorter_negative_timestamp_dropped')
                self.rejected += 1
                continue
            if dur_ok:
                self.push_sorter(ts, seq, ph == 'X')
            if ph == 'C':
                self.counter(e)
            if t is not None and not self.event(e, seq, ph, t, dur):
                self.rejected += 1

    def counter(self, e):
        """Perfetto's counter rules, for its json_parser_failure count."""
        args = e.get('args')
        if not isinstance(args, dict):
            self.count('json_parser_failure')
            return
        for v in args.values():
            if isinstance(v, Num):
                continue
            if isinstance(v, str):
                try:
                    float(v) if v.strip() == v and v else None
                    ok = v.strip() == v and v != '' and strtod_whole(v)
                except ValueError:
                    ok = False
                if ok:
                    continue
            self.count('json_parser_failure')

    def push_sorter(self, ts, seq, is_x):
        if ts < 0:
            return  # stepscope keeps it; it sorts first by ts alone
        if is_x:
            self.slow = True
        if ts > self.max_ts or (not self.slow and ts == self.max_ts):
            self.max_ts = ts
        elif self.pushed > 0:
            if self.first_ooo is None:
                self.first_ooo, self.min_ooo = seq, ts
            else:
                self.min_ooo = min(self.min_ooo, ts)
        self.pushed += 1

    def admit(self, lo, hi):
        """stepscope refuses an event that would stretch the span past int64 ns."""
        if not self.mode.exact_times:
            return True
        nlo = lo if self.lo is None else min(lo, self.lo)
        nhi = hi if self.hi is None else max(hi, self.hi)
        if nhi - nlo > INT64_MAX:
            return False
        self.lo, self.hi = nlo, nhi
        return True

    def event(self, e, seq, ph, t, dur):
        """Stores a slice-making event; False when stepscope's reader refuses it."""
        ev = Ev()
        ev.seq, ev.ph = seq, ph
        ev.ts = t[0] if t else 0
        ev.name = string_or_none(e.get('name'))
        ev.cat = string_or_none(e.get('cat'))
        ev.has_pid = isinstance(e.get('pid'), (Num, str))
        ev.has_tid = isinstance(e.get('tid'), (Num, str))
        ev.lane = lane_key(self.mode, e)
        ev.args = e.get('args') if isinstance(e.get('args'), dict) else {}
        ev.dur = None
        whole = t[1] if t else True
        if ph == 'X':
            if dur is None:
                self.count('json_parser_failure')
                return False
            if dur[0] < 0:
                self.count('slice_negative_duration')
                return False
            if self.mode.exact_times and ev.ts + dur[0] > INT64_MAX:
                return False
            ev.dur = dur[0]
            whole = whole and dur[1]
        elif ph in 'iIR':
            s = e.get('s')
            ev.scope = s if s in ('g', 'p') else 't'
            if ev.scope == 't' and not ev.has_tid or ev.scope == 'p' and not ev.has_pid:
                self.count('json_parser_failure')
                return False
        elif ph in 'ben':
            ev.cookie, ev.scope_proc = self.cookie(e)
            if not ev.has_pid or ev.cookie is None:
                self.count('json_parser_failure')
                return False
        elif ph == 'T' and dur is None:
            self.count('json_parser_failure')
        if ph not in STORED:
            return True  # metadata and unknown phases: nothing stored, nothing refused
        end = ev.ts + (ev.dur or 0)
        if not self.admit(ev.ts, end):
            return False
        self.whole = self.whole and whole
        if ph in 'XBEiIRben':
            self.events.append(ev)
        return True

    def cookie(self, e):
        """(cookie, local): Perfetto's async cookie is the category with the id; an id2
        "local" id is scoped to its process."""
        def kind(v):
            if isinstance(v, str):
                return ('s', v)
            if isinstance(v, Num) and v.is_int() and INT64_MIN <= int(v.text) <= INT64_MAX:
                return ('n', int(v.text) & ((1 << 64) - 1))
            return None
        cat = string_or_none(e.get('cat'))
        k = kind(e.get('id')) if 'id' in e else None
        if k:
            return (cat, k), False
        id2 = e.get('id2')
        if isinstance(id2, dict):
            g = kind(id2.get('global')) if 'global' in id2 else None
            if g:
                return (cat, g), False
            l_ = kind(id2.get('local')) if 'local' in id2 else None
            if l_:
                return (cat, l_), True
        return None, False

    def order_key(self, ev, tok_class):
        """Perfetto's sorter order for the event: (ts, phase class, file order)."""
        if self.first_ooo is None or (ev.seq < self.first_ooo and ev.ts < self.min_ooo) or not self.slow:
            return (ev.ts, 0, ev.seq)
        return (ev.ts, tok_class, ev.seq)


# ---- the slice tracker -------------------------------------------------------------

INSTANT = 1  # Slice.flags: made from an instant event (i, I, R)


class Slice:
    __slots__ = ('ts', 'dur', 'name', 'cat', 'depth', 'parent', 'track', 'open', 'id', 'flags', 'args')


class Track:
    def __init__(self, key, text):
        self.key = key  # (pid, tid)
        self.text = text
        self.stack = []  # Slices; end = ts + dur, or PENDING while open


class Table:
    def __init__(self, reader, mode):
        self.r = reader
        self.mode = mode
        self.res = 1000 if reader.whole else 1
        self.slices = []
        self.stats = dict(reader.stats)
        self.counts = {'clamped': 0, 'overlaps': 0, 'unmatched_end': 0, 'unclosed_begin': 0, 'misplaced_end': 0,
                       'repaired': 0}
        self.build()

    def bump(self, k, n=1):
        self.stats[k] = self.stats.get(k, 0) + n

    @staticmethod
    def end(s):
        return PENDING if s.open else s.ts + s.dur

    # Perfetto's MaybeCloseStack.
    def close_stack(self, tr, ts, dur, clamp=False):
        """Returns (ok, conflict slice or None, dur after clamping)."""
        st = tr.stack
        incomplete_below = False
        orig = dur
        i = len(st) - 1
        while i >= 0:
            s = st[i]
            if s.open:
                incomplete_below = True
                i -= 1
                continue
            end = s.ts + s.dur
            if incomplete_below:
                if ts <= end:
                    i -= 1
                    continue
                self.bump('misplaced_end_event')
                self.counts['misplaced_end'] += 1
                for j in range(len(st) - 1, i, -1):
                    st[j].dur = end - st[j].ts
                    if self.mode.contain and st[j].dur < 0:
                        st[j].dur = 0  # stepscope: no negative durations (Perfetto's can be)
                    st[j].open = False
                    st.pop()
                st.pop()
                incomplete_below = False
                i -= 1
                continue
            if end < ts or (end == ts and not (s.dur == 0 and dur == 0)):
                st.pop()  # the top, whichever slice ended: as Perfetto does
                i -= 1
                continue
            if dur is PENDING:
                i -= 1
                continue
            if ts < end and ts + dur > end:
                if clamp and self.mode.tolerance and ts + dur - end <= self.res:
                    dur = end - ts
                else:
                    return False, s, orig
            i -= 1
        if dur is not PENDING and dur != orig:
            self.counts['clamped'] += 1
        return True, None, dur

    def seen(self, tr, t):
        """The last timestamp of the lane holding track tr (a thread's tracks share one)."""
        k = tr.key if tr.text == 'thread' or tr.text.startswith('overflow') else id(tr)
        if t > self.last.get(k, INT64_MIN):
            self.last[k] = t

    def push(self, tr, ts, dur, name, cat, is_open, args=None):
        st = tr.stack
        self.seen(tr, ts if is_open else ts + dur)
        if self.mode.max_depth is not None and len(st) >= self.mode.max_depth:
            self.bump('slice_max_depth_exceeded')
            return None
        s = Slice()
        s.ts, s.dur, s.name, s.cat, s.open, s.args = ts, dur, name, cat, is_open, args or {}
        s.flags = 0
        s.depth = len(st)
        s.parent = st[-1] if st else None
        s.track = tr
        s.id = len(self.slices)
        self.slices.append(s)
        st.append(s)
        return s

    def begin(self, tr, ev, name):
        self.close_stack(tr, ev.ts, PENDING)
        self.push(tr, ev.ts, None, name, ev.cat, True, ev.args)

    def end_(self, tr, ev):
        self.close_stack(tr, ev.ts, PENDING)
        self.seen(tr, ev.ts)
        st = tr.stack
        for i in range(len(st) - 1, -1, -1):
            s = st[i]
            if not s.open:
                continue
            if ev.cat is not None and s.cat != ev.cat:
                continue
            if ev.name is not None and s.name is not None and s.name != ev.name:
                continue
            s.dur = ev.ts - s.ts
            s.open = False
            if i == len(st) - 1:
                st.pop()
            return
        self.counts['unmatched_end'] += 1

    @staticmethod
    def mark_instant(s):
        """An instant's slice: a mark, which analyses other than the table may leave out."""
        if s is not None:
            s.flags |= INSTANT

    def scoped(self, tr, ts, dur, name, cat, args=None):
        ok, _, dur = self.close_stack(tr, ts, dur)
        return self.push(tr, ts, dur, name, cat, False, args) if ok else None

    # ---- building ----
    def track(self, key, text):
        t = self.tracks.get((key, text))
        if t is None:
            t = self.tracks[(key, text)] = Track(key, text)
        return t

    def build(self):
        r = self.r
        self.tracks = {}
        self.last = {}
        no_name = '[No name]'
        # Thread tracks, then async and instant tracks, each in sorter order.
        def klass(ev):
            if ev.ph == 'E':
                return INT64_MIN
            if ev.ph == 'X':
                return INT64_MAX - ev.dur
            return INT64_MAX
        evs = sorted(r.events, key=lambda ev: r.order_key(ev, klass(ev)))
        overflow = {}  # lane -> list of open-end stacks (the compressor's view)
        roots = {}  # async cookie -> track set name
        sets = {}  # (scope, name) -> list of [cookie, nest]
        for ev in evs:
            if ev.ph in 'XBE' or (ev.ph in 'iIR' and ev.scope == 't'):
                tr = self.track(ev.lane, 'thread')
                if ev.ph == 'B':
                    self.begin(tr, ev, ev.name or no_name)
                elif ev.ph == 'E':
                    self.end_(tr, ev)
                elif ev.ph == 'X':
                    self.complete(tr, ev, ev.name or no_name, overflow)
                else:
                    self.mark_instant(self.scoped(tr, ev.ts, 0, ev.name, ev.cat, ev.args))
            elif ev.ph in 'iIR':
                if ev.scope == 'g':
                    tr = self.track(('', ''), 'global instants')
                else:
                    tr = self.track((ev.lane[0], ''), 'instants')
                self.mark_instant(self.scoped(tr, ev.ts, 0, ev.name, ev.cat, ev.args))
            else:
                self.async_event(ev, roots, sets, no_name)
        for t in self.tracks.values():
            for s in t.stack:
                if s.open:
                    self.counts['unclosed_begin'] += 1
        if self.mode.contain:
            self.contain_all()

    def complete(self, tr, ev, name, overflow):
        ok, conflict, dur = self.close_stack(tr, ev.ts, ev.dur, clamp=True)
        if ok:
            self.push(tr, ev.ts, dur, name, ev.cat, False, ev.args)
            return
        self.bump('slice_spill_overlapping_complete_event')
        self.counts['overlaps'] += 1
        end = ev.ts + ev.dur
        lanes = overflow.setdefault(ev.lane, [])
        for k, ends in enumerate(lanes):
            while ends and ends[-1] <= ev.ts:
                ends.pop()
            if not ends or end <= ends[-1]:
                ends.append(end)
                break
        else:
            lanes.append([end])
            k = len(lanes) - 1
        self.scoped(self.track(ev.lane, 'overflow %d' % (k + 1)), ev.ts, ev.dur, name, ev.cat, ev.args)

    def async_event(self, ev, roots, sets, no_name):
        proc = ev.lane[0] if ev.scope_proc else None
        ck = (proc, ev.cookie)
        if ck not in roots:
            roots[ck] = ev.name
        setname = roots[ck]
        tracks = sets.setdefault((proc, setname), [])
        k = next((i for i, t in enumerate(tracks) if t[0] == ck), None)
        if k is None:
            k = next((i for i, t in enumerate(tracks) if t[1] == 0), None)
            if k is not None:
                tracks[k][0] = ck
            else:
                tracks.append([ck, 0])
                k = len(tracks) - 1
        if ev.ph == 'b':
            tracks[k][1] += 1
        elif ev.ph == 'e' and tracks[k][1] > 0:
            tracks[k][1] -= 1
        text = '%sasync %d %s' % ('' if proc is not None else 'global ', k, setname or '')
        tr = self.track((proc if proc is not None else '', ''), text)
        if ev.ph == 'b':
            self.begin(tr, ev, ev.name or no_name)
        elif ev.ph == 'e':
            self.end_(tr, ev)
        else:
            self.scoped(tr, ev.ts, 0, ev.name, ev.cat, ev.args)

    def contain_all(self):
        """stepscope: an open B runs to its lane's last timestamp, then every child is
        kept inside its parent."""
        for s in self.slices:
            if s.open:
                k = s.track.key if s.track.text == 'thread' else id(s.track)
                s.dur = self.last[k] - s.ts
        self.slices_for_contain()

    def slices_for_contain(self):
        """Each track walked again in creation order with the chain of slices holding the
        current point: a slice keeps Perfetto's parent when it is on the chain and holds
        its start (two zero-length slices at one instant stack), else goes under the
        innermost slice of the chain that holds its start; then it is cut at its parent's
        end if it runs past it."""
        def end(s):
            return s.ts + s.dur

        cur = {}
        for s in self.slices:
            p = s.parent
            q = cur.get(id(s.track))
            while q is not None:
                if q is p and (s.ts < end(q) or (s.ts == end(q) and q.dur == 0 and s.dur == 0)):
                    break
                if s.ts < end(q):
                    break
                q = q.parent
            fixed = q is not p
            s.parent = q
            if q is None:
                s.depth = 0
            else:
                s.depth = q.depth + 1
                if end(s) > end(q):
                    s.dur = end(q) - s.ts
                    fixed = True
            if fixed:
                self.counts['repaired'] += 1
            cur[id(s.track)] = s

    @staticmethod
    def lane_of(s):
        """The lane holding a slice: a thread holds its own and its overflow tracks; every
        other track is a lane of its own."""
        t = s.track
        return t.key if t.text == 'thread' or t.text.startswith('overflow') else t.key + (t.text,)

    def rows(self):
        out = []
        for s in self.slices:
            dur = -1 if s.open else s.dur
            out.append([s.track.key[0], s.track.key[1], s.track.text, s.ts, dur, s.depth, s.name or ''])
        return out


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('perfetto', 'stepscope'):
        print(__doc__, file=sys.stderr)
        return 2
    mode = Mode(sys.argv[1] == 'stepscope')
    t = Table(Reader(sys.argv[2], mode), mode)
    json.dump({'rows': t.rows(), 'stats': t.stats, 'counts': t.counts, 'resolution_ns': t.res}, sys.stdout)
    print()
    return 0


if __name__ == '__main__':
    sys.exit(main())
