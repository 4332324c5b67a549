#!/usr/bin/env python3
"""XProf's own converters against stepscope on one .xplane.pb (called by test_xprof.sh).

    xprof_check.py XPLANE STEPS_JSON SLICES_CSV

Runs xprof.convert.raw_to_tool_data.xspace_to_tool_data on XPLANE with the tools
'trace_viewer' (the legacy JSON trace), 'trace_viewer@' (the streaming one the UI
uses) and 'overview_page', then compares what XProf reports with `stepscope steps
--json` (STEPS_JSON) and `stepscope slices --csv` (SLICES_CSV) on the same run:
  - every timed event on each (pid, tid) lane, as (name, ts, dur) to the nanosecond;
    XProf writes ts/dur in microseconds with three decimals, and a zero-duration
    event as an instant ('i', legacy) or with dur 1e-06 (streaming);
  - the steps: XProf names a step slice "<name> <step_num>" and its overview page
    lists one row per step with the step time in ms to six decimals (nanoseconds).
XProf writes caches next to the file it converts (*.SSTABLE, *.op_stats_v2.pb), so
the caller passes a copy in a scratch folder.
Prints ok/FAIL/SKIP lines; exit 1 when any check failed, 0 otherwise (also on SKIP).
"""
import collections
import csv
import decimal
import json
import math
import re
import sys

failures = 0


def ok(name):
    print(f"ok   xprof {name}")


def fail(name, why):
    global failures
    failures += 1
    print(f"FAIL xprof {name}")
    for line in str(why).splitlines()[:12]:
        print(f"  {line}")


def check(name, cond, why=''):
    if cond:
        ok(name)
    else:
        fail(name, why)
    return cond


def us_to_ns(v):
    """Microseconds (a Decimal, int or float from the JSON) to whole nanoseconds."""
    d = v if isinstance(v, decimal.Decimal) else decimal.Decimal(repr(v))
    return int((d * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def as_text(data):
    return data.decode('utf-8') if isinstance(data, bytes) else data


def convert(rtd, path, tool):
    """The tool's output text, or None after printing a FAIL line."""
    try:
        data, ctype = rtd.xspace_to_tool_data([path], tool, {'use_saved_result': False})
    except Exception as e:  # XProf raises on some tools' errors
        fail(f"{tool} converts our xplane", f"{type(e).__name__}: {e}")
        return None
    if not check(f"{tool} converts our xplane", data is not None and ctype == 'application/json',
                 f"data {'None' if data is None else len(data)} bytes, content type {ctype}"):
        return None
    return as_text(data)


def load_ours(steps_path, slices_path):
    with open(steps_path) as f:
        steps = json.load(f)
    lanes = collections.defaultdict(list)
    with open(slices_path, newline='') as f:
        for row in csv.DictReader(f):
            lanes[(row['pid'], row['tid'])].append((row['name'], int(row['ts_ns']), int(row['dur_ns'])))
    return steps, lanes


def names_match(ours, theirs, is_step):
    """XProf's name for our slice: the same, or "<name> <n>" for a step slice."""
    return theirs == ours or (is_step and re.fullmatch(re.escape(ours) + r' \d+', theirs) is not None)


def compare_lanes(tool, theirs, ours, step_keys, tol_ns):
    """theirs/ours: {(pid, tid): [(name, ts_ns, dur_ns)]}; pids already mapped to ours."""
    counts_t = {k: len(v) for k, v in sorted(theirs.items())}
    counts_o = {k: len(v) for k, v in sorted(ours.items())}
    check(f"{tool}: timed events per (pid, tid) lane match stepscope slices", counts_t == counts_o,
          f"xprof {counts_t}\nstepscope {counts_o}")
    bad = []
    for lane in sorted(set(theirs) & set(ours)):
        a = sorted(theirs[lane], key=lambda e: (e[1], -e[2]))
        b = sorted(ours[lane], key=lambda e: (e[1], -e[2]))
        for (tn, tts, tdur), (on, ots, odur) in zip(a, b):
            if (abs(tts - ots) > tol_ns(tts) or abs(tdur - odur) > tol_ns(tdur)
                    or not names_match(on, tn, (ots, odur) in step_keys)):
                bad.append(f"{lane}: xprof {tn!r} ts {tts} dur {tdur} vs ours {on!r} ts {ots} dur {odur}")
    n = sum(counts_o.values())
    check(f"{tool}: all {n} events have our name, ts and dur (to {'the ns' if tol_ns(0) == 0 else 'double precision'})",
          not bad and counts_t == counts_o, '\n'.join(bad[:10]) or 'counts differ')


def legacy_trace_viewer(text, steps, ours):
    """Returns pid -> process name from its metadata, for mapping the streaming view."""
    trace = json.loads(text, parse_float=decimal.Decimal)
    events = trace.get('traceEvents', [])
    names = {}
    theirs = collections.defaultdict(list)
    step_rows = []
    for e in events:
        ph = e.get('ph')
        if ph == 'M':
            if e.get('name') == 'process_name':
                names[str(e['pid'])] = e['args']['name']
            continue
        if ph not in ('X', 'i'):
            continue
        dur = us_to_ns(e['dur']) if ph == 'X' else 0
        ev = (e['name'], us_to_ns(e['ts']), dur)
        theirs[(str(e['pid']), str(e['tid']))].append(ev)
        if 'step_num' in e.get('args', {}):
            step_rows.append((int(e['args']['step_num']), ev))
    step_keys = {(s['ts_ns'], s['dur_ns']) for s in steps['steps']}
    compare_lanes('trace_viewer', theirs, ours, step_keys, lambda v: 0)
    want = [(s['index'], s['ts_ns'], s['dur_ns']) for s in steps['steps']]
    got = sorted((n, ts, dur) for n, (_, ts, dur) in step_rows)
    check(f"trace_viewer: the {len(want)} {steps['steps'][0]['name'] if want else ''} steps (step_num, ts, dur) match stepscope steps",
          got == want and len(want) == 4, f"xprof {got}\nstepscope {want}")
    return names


def streaming_trace_viewer(text, steps, ours, legacy_names):
    trace = json.loads(text, parse_float=decimal.Decimal)
    events = trace.get('traceEvents', [])
    # This view renumbers pids per host (701 -> 1701) and prefixes the host name to the
    # process name; map back through the legacy view's names.
    stream_names = {str(e['pid']): e['args']['name'] for e in events
                    if e.get('ph') == 'M' and e.get('name') == 'process_name'}
    pid_map = {}
    for sp, sname in stream_names.items():
        hits = [lp for lp, lname in legacy_names.items() if sname == lname or sname.endswith(' ' + lname)]
        if len(hits) == 1:
            pid_map[sp] = hits[0]
    check("trace_viewer@: every process maps to one of ours by name", len(pid_map) == len(stream_names) > 0,
          f"streaming {stream_names}\nlegacy {legacy_names}")
    theirs = collections.defaultdict(list)
    for e in events:
        if e.get('ph') != 'X':
            continue
        dur = us_to_ns(e['dur'])
        theirs[(pid_map.get(str(e['pid']), 'unmapped ' + str(e['pid'])), str(e['tid']))].append(
            (e['name'], us_to_ns(e['ts']), dur))
    check("trace_viewer@: returnedEventsSize is the number of events",
          trace.get('returnedEventsSize') == sum(len(v) for v in theirs.values()),
          f"{trace.get('returnedEventsSize')} vs {sum(len(v) for v in theirs.values())}")
    step_keys = {(s['ts_ns'], s['dur_ns']) for s in steps['steps']}
    # Its numbers go through doubles (5120415838.9560003): exact to the ns while ts in
    # ns stays below 2^53, otherwise within the doubles' spacing.
    compare_lanes('trace_viewer@', theirs, ours, step_keys,
                  lambda ns: 0 if abs(ns) < 2 ** 53 else math.ceil(math.ulp(ns / 1000.0) * 1000))


def overview_page(text, steps):
    page = json.loads(text)
    table = next((t for t in page if isinstance(t, dict)
                  and any(c.get('id') == 'stepTimeMs' for c in t.get('cols', []))), None)
    if not check("overview_page has the step-time table", table is not None,
                 f"tables: {[[c.get('id') for c in t.get('cols', [])][:3] for t in page if isinstance(t, dict)]}"):
        return
    ids = [c['id'] for c in table['cols']]
    rows = [{ids[i]: cell.get('v') for i, cell in enumerate(r['c'])} for r in table['rows']]
    got = [(r['stepnum'], round(decimal.Decimal(repr(r['stepTimeMs'])) * 1000000)) for r in rows]
    want = [(f"{s['name']} {s['index']}", s['dur_ns']) for s in steps['steps']]
    check(f"overview_page: {len(want)} steps, names and step times (ms to 6 decimals) match stepscope steps",
          got == want and len(want) == 4, f"xprof {got}\nstepscope {want}")
    p = table.get('p', {})
    mean_ms = sum(s['dur_ns'] for s in steps['steps']) / len(steps['steps']) / 1e6 if steps['steps'] else 0
    check("overview_page: average step time agrees with ours (to its 0.1 ms rounding)",
          abs(float(p.get('steptime_ms_average', 'nan')) - mean_ms) <= 0.05 + 1e-9,
          f"xprof {p.get('steptime_ms_average')} ms, ours {mean_ms:.6f} ms")


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    xplane, steps_path, slices_path = argv[1:]
    try:
        from xprof.convert import raw_to_tool_data as rtd
    except ImportError as e:
        print(f"SKIP xprof: cannot import xprof.convert ({e}); scripts/interop/setup.sh installs it")
        return 0
    steps, ours = load_ours(steps_path, slices_path)
    try:
        tools = rtd.xspace_to_tool_names([xplane])
    except Exception as e:
        tools = []
        print(f"  (tool_names failed: {e})")
    check("lists trace_viewer@ and overview_page among its tools for our xplane",
          'trace_viewer@' in tools and 'overview_page' in tools, f"tools: {tools}")
    legacy_names = {}
    text = convert(rtd, xplane, 'trace_viewer')
    if text is not None:
        legacy_names = legacy_trace_viewer(text, steps, ours)
    text = convert(rtd, xplane, 'trace_viewer@')
    if text is not None:
        streaming_trace_viewer(text, steps, ours, legacy_names)
    text = convert(rtd, xplane, 'overview_page')
    if text is not None:
        overview_page(text, steps)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
