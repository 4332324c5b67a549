#!/usr/bin/env python3
"""stepscope's slice table against Perfetto's trace_processor, on one trace.

  compare.py TRACE_PROCESSOR STEPSCOPE TRACE [--label NAME]

Four checks, printed as "ok NAME" / "FAIL NAME" lines (exit 1 on any failure):
  1. trace_processor's slice table (ts, dur, depth, name, track) and its import stats
     equal tests/tools/slice_table.py in Perfetto mode;
  2. `stepscope slices --csv --track` equals slice_table.py in stepscope mode, row for
     row, pid and tid included, and `stepscope analyze --json` has its counts;
  3. so every difference between the two programs is one of slice_table.py's
     switches, the deliberate differences listed in docs/perfetto.md: the line
     "differences" says how many rows each switch accounts for, found by turning the
     switches from Perfetto's side to stepscope's one at a time.
Tracks are matched by what they are (thread, overflow N, async N and name, instants)
and what they hold, since the two programs number them differently.
"""
import collections
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tools'))
import slice_table  # noqa: E402

# One query, so the trace is loaded once: the slices (kind "slice"), then the stats
# (kind "stat", with name and value in the name and ts columns).
SQL = '''with d as (select t.id, t.type, t.name as tname,
 (select int_value from args a where a.arg_set_id = t.dimension_arg_set_id and a.key = 'track_compressor_idx') as idx,
 (select string_value from args a where a.arg_set_id = t.dimension_arg_set_id and a.key = 'name') as setname
 from track t)
select * from (select 'slice' as kind, s.id as sid, s.ts as ts, s.dur as dur, s.depth as depth, s.name as name,
 d.type as type, d.idx as idx, d.tname as tname, d.setname as setname, s.track_id as track_id
 from slice s join d on s.track_id = d.id
 union all
 select 'stat', 0, value, 0, 0, name, '', 0, '', '', 0 from stats where value > 0)
order by kind, sid;
'''
# The stats that describe how events became slices; the rest (flows, timing, info)
# are about parts stepscope does not model or are not counts of events.
COMPARED_STATS = ('misplaced_end_event', 'slice_spill_overlapping_complete_event',
                  'slice_drop_overlapping_complete_event', 'slice_negative_duration', 'slice_max_depth_exceeded',
                  'trace_sorter_negative_timestamp_dropped', 'json_tokenizer_failure', 'json_parser_failure')
KIND = {'thread_execution': 'thread', 'thread_overlapping_slice': 'overflow', 'legacy_async_process_slice': 'async',
        'legacy_async_global_slice': 'global async', 'chrome_process_instant': 'instants',
        'legacy_chrome_global_instants': 'global instants'}


class Refused(Exception):
    pass


def rss_bytes(pid):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_tp(tp, trace, sql, tmp):
    fd, q = tempfile.mkstemp(suffix='.sql', dir=tmp)
    with os.fdopen(fd, 'w') as f:
        f.write(sql)
    # Some inputs make trace_processor take memory without end (a counter of 1e400 in
    # the fuzz corpus took 17 GB): it gets 4 GiB of memory and a minute. The memory it
    # uses is watched, not its address space, which it reserves by the tens of GiB.
    out, err = tempfile.TemporaryFile(dir=tmp), tempfile.TemporaryFile(dir=tmp)
    try:
        p = subprocess.Popen([tp, '-q', q, trace], stdout=out, stderr=err)
        why, start = None, time.monotonic()
        while p.poll() is None:
            if rss_bytes(p.pid) > 4 << 30:
                why = 'it took more than 4 GiB of memory'
            elif time.monotonic() - start > 60:
                why = 'it did not finish in a minute'
            if why:
                p.kill()
                p.wait()
                raise Refused(why)
            time.sleep(0.02)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read().decode('utf-8', 'replace')
    finally:
        out.close()
        err.close()
        os.unlink(q)
    if p.returncode != 0:
        raise Refused(stderr[stderr.find('failed'):].strip()[:300] if 'failed' in stderr else stderr.strip()[-300:])
    return list(csv.DictReader(io.StringIO(stdout.decode('utf-8', 'surrogateescape'))))


def tp_tracks(rows):
    """trace_processor's rows grouped into tracks: {track id: (descriptor, [rows])}."""
    out = {}
    for r in rows:
        if r['kind'] != 'slice':
            continue
        kind = KIND.get(r['type'], r['type'])
        idx = int(r['idx']) if r['idx'] not in ('', '[NULL]') else 0
        if kind == 'overflow':
            desc = 'overflow %d' % (idx + 1)
        elif kind.endswith('async'):
            desc = '%s %d %s' % (kind, idx, '' if r['setname'] == '[NULL]' else r['setname'])
        else:
            desc = kind
        name = '' if r['name'] == '[NULL]' else r['name']
        out.setdefault(r['track_id'], (desc, []))[1].append((int(r['ts']), int(r['dur']), int(r['depth']), name))
    return out


def model_tracks(rows):
    out = {}
    for pid, tid, track, ts, dur, depth, name in rows:
        out.setdefault((pid, tid, track), (track, []))[1].append((ts, dur, depth, name))
    return out


def canon(tracks):
    return collections.Counter((desc, tuple(sorted(rs))) for desc, rs in tracks.values())


def row_bag(tracks):
    return collections.Counter((desc,) + r for desc, rs in tracks.values() for r in rs)


LOADED = {}


def oracle(trace, **switches):
    mode = slice_table.Mode(False)
    for k, v in switches.items():
        setattr(mode, k, v)
    if trace not in LOADED:
        LOADED[trace] = slice_table.load(trace)
    return slice_table.Table(slice_table.Reader(LOADED[trace], mode), mode)


class Checker:
    def __init__(self, label):
        self.label = label
        self.failed = 0

    def ok(self, name, cond, detail=''):
        print('%s %s: %s%s' % ('ok  ' if cond else 'FAIL', self.label, name, '' if cond else ' ' + detail))
        self.failed += not cond


def diff_text(a, b, n=3):
    return 'only in trace_processor %s; only in the other %s' % (list((a - b).items())[:n], list((b - a).items())[:n])


def main():
    args = sys.argv[1:]
    label = None
    may_refuse = '--may-refuse' in args
    if may_refuse:
        args.remove('--may-refuse')
    if '--label' in args:
        i = args.index('--label')
        label = args[i + 1]
        del args[i:i + 2]
    tp, stepscope, trace = args
    c = Checker(label or trace)
    tmp = os.environ.get('TMPDIR', '/tmp')

    # 1. trace_processor against the Perfetto-mode model.
    try:
        tprows = run_tp(tp, trace, SQL, tmp)
        tpt = tp_tracks(tprows)
    except Refused as e:
        # JSON that Perfetto does not take (surrogate escapes, elements that are not
        # objects, ...): docs/perfetto.md.
        print('%s %s: trace_processor cannot read it: %s' % ('info' if may_refuse else 'FAIL', c.label, e))
        return 0 if may_refuse else 1
    pm = oracle(trace)
    pmt = model_tracks(pm.rows())
    c.ok('trace_processor slice table (%d rows, %d tracks) = the model in Perfetto mode' %
         (sum(len(v[1]) for v in tpt.values()), len(tpt)), canon(tpt) == canon(pmt),
         diff_text(row_bag(tpt), row_bag(pmt)))
    stats = {r['name']: int(r['ts']) for r in tprows if r['kind'] == 'stat' and r['name'] in COMPARED_STATS}
    want = {k: v for k, v in pm.stats.items() if k in COMPARED_STATS and v}
    c.ok('trace_processor stats %s = the model\'s' % json.dumps(stats, sort_keys=True), stats == want,
         'model %s' % json.dumps(want, sort_keys=True))

    # 2. stepscope against the stepscope-mode model.
    p = subprocess.run([stepscope, 'slices', '--csv', '--track', trace], capture_output=True)
    got = [(r['pid'], r['tid'], r['track'], int(r['ts_ns']), int(r['dur_ns']), int(r['depth']), r['name'])
           for r in csv.DictReader(io.StringIO(p.stdout.decode('utf-8', 'surrogateescape'), newline=''))]
    sm = oracle(trace, **{k: v for k, v in vars(slice_table.Mode(True)).items()})
    want_rows = [tuple(r) for r in sm.rows()]
    gb, wb = collections.Counter(got), collections.Counter(want_rows)
    c.ok('stepscope slices --csv --track (%d rows) = the model in stepscope mode' % len(got),
         p.returncode == 0 and gb == wb,
         'exit %d; only stepscope %s; only model %s' % (p.returncode, list((gb - wb).items())[:3],
                                                         list((wb - gb).items())[:3]))
    a = subprocess.run([stepscope, 'analyze', '--json', '--top', '1', trace], capture_output=True, text=True)
    try:
        t = json.loads(a.stdout)['trace']
        have = {k: t.get(k) for k in sm.counts}
        have['slices'] = t.get('slices')
    except (ValueError, KeyError):
        have = None
    want_counts = dict(sm.counts, slices=len(want_rows))
    c.ok('stepscope analyze counts %s = the model\'s' % json.dumps(want_counts, sort_keys=True), have == want_counts,
         'stepscope %s' % json.dumps(have, sort_keys=True))

    # 3. What each deliberate difference accounts for: one switch at a time from
    # Perfetto's side, counting rows that change (informative; only where rows differ,
    # and only the switches that can matter for this trace).
    total = sum((collections.Counter((r[2],) + r[3:] for r in got) - row_bag(tpt)).values())
    parts = []
    if total:
        base = row_bag(pmt)
        rare = {'keep_negative': 'trace_sorter_negative_timestamp_dropped', 'bad_dur_stops': 'json_tokenizer_failure',
                'max_depth': 'slice_max_depth_exceeded'}
        for k, v in vars(slice_table.Mode(True)).items():
            if getattr(slice_table.Mode(False), k) == v or (k in rare and not pm.stats.get(rare[k])):
                continue
            b = row_bag(model_tracks(oracle(trace, **{k: v}).rows()))
            n = sum((b - base).values())
            if n:
                parts.append('%s %d' % (k, n))
    print('info %s: differences from trace_processor: %d of %d rows%s' %
          (c.label, total, len(want_rows), (' (' + ', '.join(parts) + ')') if parts else ''))
    return 1 if c.failed else 0


if __name__ == '__main__':
    sys.exit(main())
