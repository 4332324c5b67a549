#!/usr/bin/env python3
"""An independent reading of Chrome trace JSON, to check stepscope's analyzer against.

Written from the interval model in DESIGN.md, not from the C code: Python stdlib only
(json, gzip, decimal). Times are exact: a microsecond value is parsed as a Decimal and
rounded half away from zero to whole nanoseconds.

  trace_facts.py facts TRACE            print the facts as JSON
  trace_facts.py check TRACE [--analyze A.json] [--steps S.json --steps-rc RC]
                 [--csv SLICES.csv] [--top N]
      compare stepscope's outputs with the facts; prints "ok NAME" / "FAIL NAME" lines
      and exits 1 on any failure.

The rules reproduced:
  * events: a top-level array, or the "traceEvents" array of a top-level object;
  * 'X' needs ts and a dur >= 0, 'B' and 'E' need ts (else the event is rejected);
    name and cat must be strings when present; pid/tid numbers or strings;
  * lanes are (pid as written, tid as written); a missing or zero tid with a non-zero
    pid is the pid; a missing pid is "0";
  * B/E: per lane, in (ts, file position) order, E closes the most recent open B;
    unmatched E counted; an unclosed B runs to the last timestamp on its lane (ends of
    slices, B and E timestamps, instants);
  * nesting per lane: ts ascending, dur descending, file position; half-open; an
    overrun of the parent's end by at most the resolution (1000 ns when every stored
    ts/dur is a whole microsecond, else 1 ns) is clamped, a bigger one is an overlap
    (a sibling of the slice it overran: it nests in the innermost open slice holding it
    whole, or is a root, and may be a parent itself);
  * containment: per lane, order slices by ts ascending, end descending, then nesting
    order; o lies inside s when s comes first, s.ts <= o.ts < s.end and o.end <= s.end
    (parent links play no part);
  * self = dur minus the length of the union of the slices inside it; median = middle
    value, or floor of the mean of the two middle values;
  * steps: ProfilerStep#N names, else slices with a step_num arg, else the outermost
    name (inside no other slice) repeated (>= 2) on one lane, holding slices inside,
    never inside another instance of itself, with the most total time; matches inside
    another match dropped; the lane with most matches (ties: earliest). A step's
    children are the slices inside it and inside no other slice inside it;
    unattributed = dur - the union of the children; naive = dur + their durations.
"""
import argparse
import csv
import decimal
import gzip
import io
import json
import re
import sys

D = decimal.Decimal
NONE = -1
ABSENT = object()
# Phases stored with a timestamp (the rest are metadata or skipped).
STORED = set('XBEiIRCbenSTFpstf')


def load_events(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode('utf-8', errors='replace'), parse_float=D)
    if isinstance(doc, dict):
        doc = doc.get('traceEvents', [])
    return doc if isinstance(doc, list) else []


NUMBER = re.compile(r'-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?')


def to_ns(v):
    """Microseconds (a number, or a string holding one) -> (ns, whole_us), or None."""
    if type(v) is int:
        return v * 1000, True
    if type(v) is str:
        if not NUMBER.fullmatch(v):
            return None
        v = D(v)
    elif type(v) is not D:
        return None
    ns = int((v * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))
    return ns, ns % 1000 == 0


def label_text(v):
    """A pid or tid as written: JSON integers and decimals print back as their text."""
    return v if type(v) is str else str(v)


def is_number(v):
    return type(v) in (int, D)


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


class Trace:
    def __init__(self, path):
        self.path = path
        self.slices = []  # dicts: ts, dur, name, lane, seq, be, args
        self.ends = []  # (ts, lane, seq)
        self.instant_ts = []  # (ts, lane)
        self.lanes = {}  # (pid label, tid label) -> index
        self.lane_keys = []
        self.lane_cache = {}
        self.whole = True
        self.rejected = 0
        self.events = 0
        self.unmatched_end = 0
        self.unclosed_begin = 0
        self.clamped = 0
        self.overlaps = 0
        self.read(load_events(path))
        self.resolution = 1000 if self.whole else 1
        self.match()
        self.nest()

    # ---- reading ----
    def lane_of(self, ev):
        """The lane index, or None when pid or tid is neither a number nor a string."""
        pid = ev.get('pid', ABSENT)
        tid = ev.get('tid', ABSENT)
        ck = (pid, type(pid), tid, type(tid))
        hit = self.lane_cache.get(ck, ABSENT)
        if hit is ABSENT:
            hit = self.lane_cache[ck] = self.lane_uncached(pid, tid)
        return hit

    def lane_uncached(self, pid, tid):
        for v in (pid, tid):
            if v is not ABSENT and not (type(v) is str or is_number(v)):
                return None
        if pid is ABSENT:
            pl, pv = '0', 0
        else:
            pl = label_text(pid)
            pv = numeric_id(pl)
        tv = numeric_id(label_text(tid)) if tid is not ABSENT else None
        if (tid is ABSENT or tv == 0) and pv != 0:
            tl = pl
        elif tid is ABSENT:
            tl = '0'
        else:
            tl = label_text(tid)
        key = (pl, tl)
        if key not in self.lanes:
            self.lanes[key] = len(self.lane_keys)
            self.lane_keys.append(key)
        return self.lanes[key]

    def read(self, events):
        for seq, ev in enumerate(events):
            if ev == {}:  # JAX ends its arrays with an empty object: not an event
                continue
            self.events += 1
            if not isinstance(ev, dict):
                continue
            ph = ev.get('ph')
            if 'ph' in ev and type(ph) is not str:
                self.rejected += 1
                continue
            if ph not in STORED:
                continue
            t = to_ns(ev.get('ts')) if 'ts' in ev else None
            if t is None:
                self.rejected += 1
                continue
            if ph == 'E':
                lane = self.lane_of(ev)
                if lane is None:
                    self.rejected += 1
                    continue
                self.ends.append((t[0], lane, seq))
                self.whole = self.whole and t[1]
                continue
            if not self.valid_head(ev):
                self.rejected += 1
                continue
            lane = self.lane_of(ev)
            if ph not in ('X', 'B'):
                if ph in ('i', 'I', 'R'):
                    self.instant_ts.append((t[0], lane))
                self.whole = self.whole and t[1]
                continue
            dur, dwhole = -1, True
            if ph == 'X':
                d = to_ns(ev.get('dur')) if 'dur' in ev else None
                if d is None or d[0] < 0:
                    self.rejected += 1
                    continue
                dur, dwhole = d
            args = ev.get('args') if isinstance(ev.get('args'), dict) else {}
            self.slices.append({'ts': t[0], 'dur': dur, 'name': ev.get('name', ''), 'lane': lane, 'seq': seq,
                                'be': ph == 'B', 'args': args, 'flags': set()})
            self.whole = self.whole and t[1] and dwhole

    @staticmethod
    def valid_head(ev):
        for k in ('name', 'cat'):
            if k in ev and type(ev[k]) is not str:
                return False
        for k in ('pid', 'tid'):
            if k in ev and not (type(ev[k]) is str or is_number(ev[k])):
                return False
        return True

    # ---- B/E ----
    def match(self):
        per_lane = {}
        for i, s in enumerate(self.slices):
            if s['be']:
                per_lane.setdefault(s['lane'], []).append((s['ts'], s['seq'], 'B', i))
        for ts, lane, seq in self.ends:
            per_lane.setdefault(lane, []).append((ts, seq, 'E', None))
        unclosed = []
        for lane, toks in per_lane.items():
            toks.sort(key=lambda t: (t[0], t[1]))
            stack = []
            for ts, _seq, kind, i in toks:
                if kind == 'B':
                    stack.append(i)
                elif stack:
                    b = self.slices[stack.pop()]
                    b['dur'] = ts - b['ts']
                else:
                    self.unmatched_end += 1
            unclosed.extend(stack)
        last = {}
        for s in self.slices:
            e = s['ts'] + s['dur'] if s['dur'] >= 0 else s['ts']
            last[s['lane']] = max(last.get(s['lane'], e), e)
        for ts, lane, _ in self.ends:
            last[lane] = max(last.get(lane, ts), ts)
        for ts, lane in self.instant_ts:
            last[lane] = max(last.get(lane, ts), ts)
        for i in unclosed:
            s = self.slices[i]
            s['dur'] = last[s['lane']] - s['ts']
            s['flags'].add('unclosed')
        self.unclosed_begin = len(unclosed)

    # ---- nesting ----
    def nest(self):
        order = sorted(range(len(self.slices)),
                       key=lambda i: (self.slices[i]['lane'], self.slices[i]['ts'], -self.slices[i]['dur'],
                                      self.slices[i]['seq']))
        self.slices = [self.slices[i] for i in order]
        stack = []  # (end, index, depth)
        lane = None
        for k, s in enumerate(self.slices):
            if s['lane'] != lane:
                lane, stack = s['lane'], []
            while stack and stack[-1][0] <= s['ts']:
                stack.pop()
            parent, depth = NONE, 0
            end = s['ts'] + s['dur']
            if stack:
                pend, parent, pdepth = stack[-1]
                depth = pdepth + 1
                if end > pend and end - pend <= self.resolution:
                    s['dur'] = pend - s['ts']
                    end = pend
                    s['flags'].add('clamped')
                    self.clamped += 1
                elif end > pend:
                    # An overlap becomes a sibling of the slice it overran: it nests in
                    # the innermost open slice that holds it whole, if any.
                    s['flags'].add('overlap')
                    self.overlaps += 1
                    holders = [e for e in stack if e[0] > s['ts'] and e[0] >= end]
                    parent, depth = (holders[-1][1], holders[-1][2] + 1) if holders else (NONE, 0)
            s['parent'] = parent
            s['depth'] = min(depth, 65535)
            stack.append((end, k, depth))

    # ---- derived ----
    def by_lane(self):
        """Per lane, slice indices in containment order."""
        lanes = {}
        for k, s in enumerate(self.slices):
            lanes.setdefault(s['lane'], []).append(k)
        for ks in lanes.values():
            ks.sort(key=lambda k: (self.slices[k]['ts'], -(self.slices[k]['ts'] + self.slices[k]['dur']), k))
        return lanes

    def inside(self, order, i):
        """Positions in `order` after i that lie inside order[i], in order."""
        sl = self.slices
        s = sl[order[i]]
        end = s['ts'] + s['dur']
        j = i + 1
        while j < len(order) and sl[order[j]]['ts'] < end:
            o = sl[order[j]]
            if o['ts'] + o['dur'] <= end:
                yield j
            j += 1

    def self_times(self):
        sl = self.slices
        self_ns = [s['dur'] for s in sl]
        for order in self.by_lane().values():
            for i, k in enumerate(order):
                self_ns[k] -= union([(sl[order[j]]['ts'], sl[order[j]]['ts'] + sl[order[j]]['dur'])
                                     for j in self.inside(order, i)])
        return self_ns

    def children_of(self, order, i):
        """The slices inside order[i] that lie inside no other slice inside it."""
        sl = self.slices
        kids, reach = [], None
        for j in self.inside(order, i):
            o = sl[order[j]]
            ts, end = o['ts'], o['ts'] + o['dur']
            if reach is not None and ts < reach and end <= reach:
                continue
            kids.append(order[j])
            reach = end if reach is None else max(reach, end)
        return kids

    def names(self):
        self_ns = self.self_times()
        by = {}
        for s, sf in zip(self.slices, self_ns):
            x = by.setdefault(s['name'], {'count': 0, 'total_ns': 0, 'self_ns': 0, 'durs': []})
            x['count'] += 1
            x['total_ns'] += s['dur']
            x['self_ns'] += sf
            x['durs'].append(s['dur'])
        for x in by.values():
            d = sorted(x.pop('durs'))
            x['min_ns'], x['max_ns'], x['median_ns'] = d[0], d[-1], median(d)
        return by

    def lane_busy(self):
        out = {}
        for s in self.slices:
            out.setdefault(s['lane'], []).append((s['ts'], s['ts'] + s['dur']))
        res = {}
        for lane, iv in out.items():
            res[lane] = {'slices': len(iv), 'union_ns': union(iv),
                         'span_ns': max(e for _, e in iv) - min(t for t, _ in iv)}
        return res

    # ---- steps ----
    def steps(self, given=None):
        sl = self.slices
        rule = None
        if given:
            found = [k for k, s in enumerate(sl) if s['name'] == given]
            rule = 'given-name'
            if not found:
                try:
                    rx = re.compile(given)
                    found = [k for k, s in enumerate(sl) if rx.search(s['name'])]
                    rule = 'given-regex'
                except re.error:
                    found = []
        else:
            found = [k for k, s in enumerate(sl) if re.fullmatch(r'ProfilerStep#[0-9]+', s['name'])]
            rule = 'profiler-step'
            if not found:
                found = [k for k, s in enumerate(sl) if 'step_num' in s['args']]
                rule = 'step-num'
            if not found:
                found = self.repeated()
                rule = 'repeated-name'
        if not found:
            return 'none', []
        lanes = self.by_lane()
        pos = {k: (lane, i) for lane, order in lanes.items() for i, k in enumerate(order)}

        def end(k):
            return sl[k]['ts'] + sl[k]['dur']

        # A match inside another match (which comes first in containment order, holds
        # its start and ends no earlier) is not a separate step.
        by_pos = sorted(found, key=lambda k: pos[k])

        def outer(k):
            return not any(pos[m][0] == pos[k][0] and pos[m][1] < pos[k][1] and end(m) > sl[k]['ts']
                           and end(m) >= end(k) for m in by_pos)

        found = sorted((k for k in found if outer(k)), key=lambda k: pos[k])
        by_lane = {}
        for k in found:
            by_lane.setdefault(sl[k]['lane'], []).append(k)
        best = max(by_lane.values(), key=lambda ks: (len(ks), -sl[ks[0]]['ts']))
        out = []
        explicit = True
        for ordinal, k in enumerate(best):
            s = sl[k]
            lane, i = pos[k]
            kids = {}
            kid_list = self.children_of(lanes[lane], i)
            for c in kid_list:
                kids[sl[c]['name']] = kids.get(sl[c]['name'], 0) + sl[c]['dur']
            idx = step_index(s)
            explicit = explicit and idx is not None
            covered = union([(sl[c]['ts'], sl[c]['ts'] + sl[c]['dur']) for c in kid_list])
            out.append({'name': s['name'], 'index': idx, 'ts_ns': s['ts'], 'dur_ns': s['dur'], 'children': kids,
                        'unattributed_ns': s['dur'] - covered, 'naive_ns': s['dur'] + sum(kids.values())})
        for ordinal, st in enumerate(out):
            if not explicit:
                st['index'] = ordinal
        return rule, out

    def repeated(self):
        sl = self.slices
        groups = {}
        nests = set()
        for lane, order in self.by_lane().items():
            covered = []  # the slices seen so far (all start at or before the current one)
            for i, k in enumerate(order):
                s = sl[k]
                holders = [sl[h] for h in covered if sl[h]['ts'] + sl[h]['dur'] > s['ts']
                           and sl[h]['ts'] + sl[h]['dur'] >= s['ts'] + s['dur']]
                if any(h['name'] == s['name'] for h in holders):
                    nests.add((lane, s['name']))
                covered = [h for h in covered if sl[h]['ts'] + sl[h]['dur'] > s['ts']] + [k]
                if holders:
                    continue
                g = groups.setdefault((lane, s['name']), {'count': 0, 'total': 0, 'kids': False, 'ks': []})
                g['count'] += 1
                g['total'] += s['dur']
                g['ks'].append(k)
                if next(self.inside(order, i), None) is not None:
                    g['kids'] = True
        for (lane, name), g in sorted(groups.items(), key=lambda kv: (-kv[1]['total'], kv[0][0])):
            if g['count'] >= 2 and g['kids'] and (lane, name) not in nests:
                return g['ks']
        return []


def step_index(s):
    v = s['args'].get('step_num')
    if v is not None:
        try:
            return int(D(str(v)))
        except (decimal.InvalidOperation, ValueError):
            pass
    m = re.search(r'#([0-9]+)$', s['name'])
    return int(m.group(1)) if m else None


def median(sorted_vals):
    n = len(sorted_vals)
    if n % 2:
        return sorted_vals[n // 2]
    return (sorted_vals[n // 2 - 1] + sorted_vals[n // 2]) // 2


def union(iv):
    total, cs, ce = 0, None, None
    for s, e in sorted(i for i in iv if i[1] > i[0]):
        if cs is None or s > ce:
            if cs is not None:
                total += ce - cs
            cs, ce = s, e
        else:
            ce = max(ce, e)
    if cs is not None:
        total += ce - cs
    return total


def facts(tr, step=None):
    rule, steps = tr.steps(step)
    return {
        'path': tr.path, 'events': tr.events, 'slices': len(tr.slices), 'rejected': tr.rejected,
        'clamped': tr.clamped, 'overlaps': tr.overlaps, 'unmatched_end': tr.unmatched_end,
        'unclosed_begin': tr.unclosed_begin, 'resolution_ns': tr.resolution, 'lanes': len(tr.lane_keys),
        'names': tr.names(), 'steps_rule': rule, 'steps': steps,
    }


# ---- checking stepscope's outputs ----

class Checker:
    def __init__(self, label):
        self.label = label
        self.failed = 0

    def ok(self, name, cond, detail=''):
        if cond:
            print(f'ok   {self.label}: {name}')
        else:
            print(f'FAIL {self.label}: {name} {detail}')
            self.failed += 1


def check_analyze(c, tr, f, a, top):
    t = a['trace']
    for k in ('slices', 'clamped', 'overlaps', 'unmatched_end', 'unclosed_begin', 'resolution_ns', 'events',
              'rejected'):
        c.ok(f'analyze {k}', t[k] == f[k], f'stepscope {t[k]} vs facts {f[k]}')
    c.ok('analyze names complete', len(a['names']) == len(f['names']),
         f"{len(a['names'])} vs {len(f['names'])}")
    ranked = sorted(f['names'].items(), key=lambda kv: (-kv[1]['self_ns'], -kv[1]['total_ns'], kv[0].encode()))
    got = {n['name']: n for n in a['names']}
    bad = []
    for name, want in ranked[:top]:
        g = got.get(name)
        if g is None or any(g[k] != want[k] for k in want):
            bad.append((name, want, g))
    c.ok(f'analyze top {min(top, len(ranked))} names: count/total/self/min/median/max', not bad,
         str(bad[:2]))
    c.ok('analyze names ranked by self time',
         [n['name'] for n in a['names'][:top]] == [n for n, _ in ranked[:top]])
    busy = tr.lane_busy()
    want_union = sorted(b['union_ns'] for b in busy.values())
    got_union = sorted(l['union_ns'] for l in a['lanes'] if l['slices'])
    c.ok('analyze per-lane busy time (union)', want_union == got_union, f'{got_union[:5]} vs {want_union[:5]}')


def check_steps(c, f, s, rc):
    if not f['steps']:
        c.ok('steps: none found, exit 1', rc == 1, f'exit {rc}')
        return
    c.ok('steps exit 0', rc == 0, f'exit {rc}')
    if s is None:
        return
    c.ok('steps rule', s['rule'] == f['steps_rule'], f"{s['rule']} vs {f['steps_rule']}")
    c.ok('steps count', len(s['steps']) == len(f['steps']), f"{len(s['steps'])} vs {len(f['steps'])}")
    bad = []
    for g, w in zip(s['steps'], f['steps']):
        for k in ('name', 'index', 'ts_ns', 'dur_ns', 'children', 'unattributed_ns', 'naive_ns'):
            if g[k] != w[k]:
                bad.append((k, g[k], w[k]))
        if list(g['children']) != list(w['children']):
            bad.append(('children order', list(g['children']), list(w['children'])))
    c.ok('steps: ts, dur, index, children by name, unattributed, naive', not bad, str(bad[:3]))


def check_csv(c, tr, path):
    with open(path, newline='', encoding='utf-8', errors='replace') as fh:
        rows = list(csv.reader(fh))
    c.ok('slices csv header', rows and rows[0] == ['pid', 'tid', 'ts_ns', 'dur_ns', 'depth', 'name'],
         str(rows[:1]))
    got = [(r[0], r[1], int(r[2]), int(r[3]), int(r[4]), r[5]) for r in rows[1:]]
    want = [(tr.lane_keys[s['lane']][0], tr.lane_keys[s['lane']][1], s['ts'], s['dur'], s['depth'], s['name'])
            for s in tr.slices]
    c.ok('slices csv rows (pid, tid, ts, dur, depth, name)', sorted(got) == sorted(want),
         f'{len(got)} rows vs {len(want)}')
    seen, prev, order_ok = set(), None, True
    for r in got:
        lane = (r[0], r[1])
        if prev is None or lane != prev[:2]:
            order_ok = order_ok and lane not in seen
            seen.add(lane)
        elif (r[2], r[4]) < (prev[2], prev[4]):
            order_ok = False
        prev = r
    c.ok('slices csv: lanes contiguous, rows by ts then depth', order_ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('mode', choices=['facts', 'check'])
    ap.add_argument('trace')
    ap.add_argument('--step')
    ap.add_argument('--analyze')
    ap.add_argument('--steps')
    ap.add_argument('--steps-rc', type=int)
    ap.add_argument('--csv')
    ap.add_argument('--top', type=int, default=10)
    ap.add_argument('--label')
    o = ap.parse_args()
    tr = Trace(o.trace)
    f = facts(tr, o.step)
    if o.mode == 'facts':
        json.dump(f, sys.stdout, indent=1)
        print()
        return 0
    c = Checker(o.label or o.trace)
    if o.analyze:
        try:
            with open(o.analyze) as fh:
                a = json.load(fh)
        except ValueError as e:
            a = None
            c.ok('analyze --json output is JSON', False, str(e))
        if a is not None:
            check_analyze(c, tr, f, a, o.top)
    if o.steps_rc is not None:
        s = None
        if o.steps:
            try:
                with open(o.steps) as fh:
                    s = json.load(fh)
            except ValueError:
                s = None
        check_steps(c, f, s, o.steps_rc)
    if o.csv:
        check_csv(c, tr, o.csv)
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
