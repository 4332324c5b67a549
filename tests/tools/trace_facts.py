#!/usr/bin/env python3
"""An independent reading of Chrome trace JSON, to check stepscope's analyzer against.

Written from the interval model in DESIGN.md, not from the C code: Python stdlib only.
The slice table comes from slice_table.py in stepscope mode (Perfetto's importer with
stepscope's deliberate differences: exact decimal times, the rounding tolerance,
children kept inside parents), which the Perfetto tier (tests/cli/test_perfetto.sh)
checks against trace_processor itself.

  trace_facts.py facts TRACE            print the facts as JSON
  trace_facts.py check TRACE [--analyze A.json] [--steps S.json --steps-rc RC]
                 [--csv SLICES.csv] [--top N]
      compare stepscope's outputs with the facts; prints "ok NAME" / "FAIL NAME" lines
      and exits 1 on any failure.

The rules reproduced on top of the slice table:
  * containment: per lane, order slices by ts ascending, end descending, then nesting
    order; o lies inside s when s comes first, s.ts <= o.ts < s.end and o.end <= s.end
    (parent links play no part);
  * self = dur minus the length of the union of the slices inside it; median = middle
    value, or floor of the mean of the two middle values;
  * steps: ProfilerStep#N names, else slices with a step_num arg, else the outermost
    name (inside no other slice) repeated (>= 2) on one lane, holding slices inside,
    never inside another instance of itself, with the most total time; matches inside
    another match dropped; the lane with most matches (ties: earliest). A step's
    children are the slices inside it and inside no other slice inside it, instants
    (marks, not intervals) left out;
    unattributed = dur - the union of the children; naive = dur + their durations.
"""
import argparse
import csv
import decimal
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import slice_table  # noqa: E402

D = decimal.Decimal
NONE = -1


class Trace:
    """The slice table as stepscope makes it (slice_table.py in stepscope mode), in
    stepscope's order (lane, then ts, then creation), as dicts: ts, dur (clamped or cut,
    an unclosed B running to its lane's last timestamp), csv_dur (-1 for an unclosed
    B), name, lane, depth, parent (an index), args."""

    def __init__(self, path):
        self.path = path
        mode = slice_table.Mode(True)
        rd = slice_table.Reader(path, mode)
        tb = slice_table.Table(rd, mode)
        self.events = rd.nevents
        self.rejected = rd.rejected
        self.resolution = tb.res
        for k in ('clamped', 'overlaps', 'unmatched_end', 'unclosed_begin', 'misplaced_end', 'repaired'):
            setattr(self, k, tb.counts[k])
        self.lanes = {}
        self.lane_keys = []
        for sl in tb.slices:
            key = tb.lane_of(sl)
            if key not in self.lanes:
                self.lanes[key] = len(self.lane_keys)
                self.lane_keys.append(key[:2])
        order = sorted(tb.slices, key=lambda sl: (self.lanes[tb.lane_of(sl)], sl.ts, sl.id))
        index = {id(sl): k for k, sl in enumerate(order)}
        self.slices = [{'ts': sl.ts, 'dur': sl.dur, 'csv_dur': -1 if sl.open else sl.dur, 'name': sl.name or '',
                        'lane': self.lanes[tb.lane_of(sl)], 'depth': sl.depth,
                        'parent': NONE if sl.parent is None else index[id(sl.parent)], 'args': sl.args,
                        'instant': bool(sl.flags & slice_table.INSTANT)}
                       for sl in order]

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
        """The slices inside order[i] that lie inside no other slice inside it, instants
        left out (a mark, not an interval)."""
        sl = self.slices
        kids, reach = [], None
        for j in self.inside(order, i):
            o = sl[order[j]]
            if o['instant']:
                continue
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
        'unclosed_begin': tr.unclosed_begin, 'misplaced_end': tr.misplaced_end, 'repaired': tr.repaired,
        'resolution_ns': tr.resolution, 'lanes': len(tr.lane_keys),
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
    for k in ('slices', 'clamped', 'overlaps', 'unmatched_end', 'unclosed_begin', 'misplaced_end', 'repaired',
              'resolution_ns', 'events', 'rejected'):
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
    want = [(tr.lane_keys[s['lane']][0], tr.lane_keys[s['lane']][1], s['ts'], s['csv_dur'], s['depth'], s['name'])
            for s in tr.slices]
    c.ok('slices csv rows (pid, tid, ts, dur, depth, name)', sorted(got) == sorted(want),
         f'{len(got)} rows vs {len(want)}')
    seen, prev, order_ok = set(), None, True
    for r in got:
        lane = (r[0], r[1])
        if prev is None or lane != prev[:2]:
            order_ok = order_ok and lane not in seen
            seen.add(lane)
        elif r[2] < prev[2]:
            order_ok = False
        prev = r
    c.ok('slices csv: lanes contiguous, rows by ts', order_ok)


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
