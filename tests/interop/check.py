#!/usr/bin/env python3
"""Checks stepscope's reading of real JAX and PyTorch traces (called by run.sh).

    check.py --cli STEPSCOPE [--jax DIR] [--torch DIR]

--jax DIR: made by scripts/interop/jax_lesson3.py (DIR/lesson3.json names the files).
--torch DIR: lesson.json and train.json from scripts/interop/torch_*.py.

Each check prints "ok NAME", "FAIL NAME" (with what differed) or "SKIP NAME: why".
The independent answers come from tests/tools/trace_facts.py (a separate Python
implementation of the reading and nesting rules) and from the numbers the lesson's own
code reads back. Exit status 1 when any check failed.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'tests', 'tools'))
try:
    import trace_facts  # noqa: E402
except ImportError:  # not there yet: the comparisons with it are skipped
    trace_facts = None

LESSON_NAMES = ('learner_step', 'input_wait', 'model_and_wait')
SLICES_HEADER = ['pid', 'tid', 'ts_ns', 'dur_ns', 'depth', 'name']
failures = 0


def ok(name):
    print(f"ok   {name}")


def fail(name, why):
    global failures
    failures += 1
    print(f"FAIL {name}")
    for line in str(why).splitlines()[:12]:
        print(f"  {line}")


def skip(name, why):
    print(f"SKIP {name}: {why}")


def check(name, cond, why=''):
    if cond:
        ok(name)
    else:
        fail(name, why)
    return cond


class Cli:
    def __init__(self, path):
        self.path = path

    def run(self, *args):
        p = subprocess.run([self.path, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def json(self, *args):
        """(document or None, error text)."""
        rc, out, err = self.run(*args)
        if rc != 0:
            return None, f"exit {rc}: {err.strip()[:400]}"
        try:
            return json.loads(out), ''
        except ValueError as e:
            return None, f"output is not JSON ({e}): {out[:200]}"

    def slices(self, path):
        rc, out, err = self.run('slices', '--csv', path)
        if rc != 0:
            return None, f"exit {rc}: {err.strip()[:400]}"
        rows = list(csv.reader(io.StringIO(out)))
        return rows, ''


def unsupported(err):
    e = err.lower()
    return any(w in e for w in ('unsupported', 'not supported', 'not built', 'unknown format',
                                'not recognized', 'not a trace', 'cannot read this format'))


# ---- the independent reading -------------------------------------------------


def facts(path, step=None):
    """trace_facts' answer as {'slices', 'clamped', 'overlaps', 'names': {name: (count,
    total_ns, self_ns)}}, or None when trace_facts.py is not available."""
    if trace_facts is None:
        return None
    f = trace_facts.facts(trace_facts.Trace(path), step)
    names = {n: (v['count'], v['total_ns'], v['self_ns']) for n, v in f['names'].items()}
    return {'slices': f['slices'], 'clamped': f['clamped'], 'overlaps': f['overlaps'], 'names': names}


def full_facts_check(tag, cli, path, step=None):
    """trace_facts.py's own comparison of every analyze/steps/slices output."""
    if trace_facts is None:
        skip(f"{tag}: trace_facts.py check", "tests/tools/trace_facts.py is not present")
        return
    with tempfile.TemporaryDirectory(prefix='interop-') as tmp:
        files = {}
        for what, argv in (('analyze', ['analyze', '--json', '--no-group', path]),
                           ('steps', ['steps', '--json', path] + (['--step', step] if step else [])),
                           ('csv', ['slices', '--csv', path])):
            rc, out, _ = cli.run(*argv)
            files[what] = os.path.join(tmp, what)
            files[what + '_rc'] = rc
            with open(files[what], 'w') as f:
                f.write(out)
        argv = [sys.executable, os.path.join(ROOT, 'tests', 'tools', 'trace_facts.py'), 'check', path,
                '--label', tag, '--analyze', files['analyze'], '--steps', files['steps'],
                '--steps-rc', str(files['steps_rc']), '--csv', files['csv'], '--top', '1000000']
        if step:
            argv += ['--step', step]
        if files['analyze_rc'] != 0:
            fail(f"{tag}: analyze --json for trace_facts.py", f"exit {files['analyze_rc']}")
            return
        p = subprocess.run(argv, capture_output=True, text=True)
        global failures
        for line in p.stdout.splitlines():
            print(line)
            if line.startswith('FAIL'):
                failures += 1
        if p.returncode != 0 and 'FAIL' not in p.stdout:
            fail(f"{tag}: trace_facts.py check", p.stderr.strip()[-400:])


def names_of(doc):
    return {n['name']: (n['count'], n['total_ns'], n['self_ns']) for n in doc['names']}


def compare_with_facts(tag, path, doc, names):
    f = facts(path)
    if f is None:
        skip(f"{tag}: agrees with trace_facts.py", "tests/tools/trace_facts.py is not present")
        return
    mine_slices = sum(l['slices'] for l in doc['lanes'])
    check(f"{tag}: slice count agrees with trace_facts.py ({f['slices']})", mine_slices == f['slices'],
          f"stepscope {mine_slices}, trace_facts {f['slices']}")
    for key in ('clamped', 'overlaps'):
        if f[key] is not None:
            check(f"{tag}: {key} agrees with trace_facts.py ({f[key]})", doc.get(key) == f[key],
                  f"stepscope {doc.get(key)}, trace_facts {f[key]}")
    got = names_of(doc)
    bad = [f"{n}: stepscope {got.get(n)}, trace_facts {f['names'].get(n)}" for n in names
           if got.get(n) != f['names'].get(n)]
    check(f"{tag}: count/total/self of {', '.join(names)} agree with trace_facts.py", not bad,
          '\n'.join(bad))


# ---- shared step checks -------------------------------------------------------


def check_steps(tag, steps, count, child_order, index_from_zero=True):
    """Steps found, indexed 0..count-1, children in the expected order, and the
    unattributed remainder equal to the step minus its direct children, never negative."""
    check(f"{tag}: {count} steps found", len(steps) == count,
          f"found {len(steps)}: {[s.get('name') for s in steps][:8]}")
    if index_from_zero:
        idx = [s.get('index') for s in steps]
        check(f"{tag}: step indices are 0..{count - 1}", idx == list(range(count)), f"indices {idx}")
    bad_order, bad_rest = [], []
    for s in steps:
        kids = [k for k in s['children'] if k in child_order]
        if kids != list(child_order):
            bad_order.append(f"step {s.get('index')}: children {list(s['children'])}")
        rest = s['dur_ns'] - sum(s['children'].values())
        if s['unattributed_ns'] != rest or rest < 0:
            bad_rest.append(f"step {s.get('index')}: unattributed {s['unattributed_ns']}, "
                            f"dur - children = {rest}")
    check(f"{tag}: each step holds {' then '.join(child_order)}", not bad_order, '\n'.join(bad_order))
    check(f"{tag}: unattributed = step - direct children, >= 0", not bad_rest, '\n'.join(bad_rest))


def check_slices_csv(tag, cli, path, doc, step_name, first, second):
    rows, err = cli.slices(path)
    if rows is None:
        fail(f"{tag}: slices --csv", err)
        return
    check(f"{tag}: slices --csv header", rows and rows[0] == SLICES_HEADER,
          f"header {rows[0] if rows else None}")
    body = rows[1:]
    total = sum(l['slices'] for l in doc['lanes'])
    check(f"{tag}: slices --csv has one row per slice ({total})", len(body) == total,
          f"{len(body)} rows")
    try:
        recs = [((r[0], r[1]), int(r[2]), int(r[3]), r[5]) for r in body]
    except (ValueError, IndexError) as e:
        fail(f"{tag}: slices --csv rows are numbers", e)
        return
    # Depth is per track, as in Perfetto: a step that crossed a frame's end is on an
    # overflow track, and what it holds is on the thread's own. So its children are
    # found by containment among the rows of its thread, any track: the rows inside
    # the step that no other row inside it holds.
    steps = [r for r in recs if r[3] == step_name]
    bad = []
    for lane, ts, dur, _ in steps:
        inside = [r for r in recs if r[0] == lane and r[2] >= 0 and ts <= r[1] and r[1] + r[2] <= ts + dur
                  and (r[1], r[2]) != (ts, dur)]
        direct = [r for r in inside
                  if not any(o is not r and o[1] <= r[1] and r[1] + r[2] <= o[1] + o[2] and (o[1], o[2]) != (r[1], r[2])
                             for o in inside)]
        a = [r for r in direct if r[3] == first]
        b = [r for r in direct if r[3] == second]
        if len(a) != 1 or len(b) != 1:
            bad.append(f"step at {ts}: {len(a)} {first}, {len(b)} {second} directly inside it")
        elif a[0][1] + a[0][2] > b[0][1]:
            bad.append(f"step at {ts}: {first} ends at {a[0][1] + a[0][2]} after {second} starts "
                       f"at {b[0][1]}")
    check(f"{tag}: in slices, each {step_name} holds one {first} ending before its {second} "
          f"(directly, on any track of its thread)", steps and not bad, '\n'.join(bad) or f"no {step_name} rows")


def check_worker_windows(tag, steps):
    """Each step's window on XLA's worker threads (tf_XLA...: tf_XLAEigen, tf_XLAPjRtCpuClient
    as JAX versions name them) holds the step's XLA ops, inside the step."""
    bad = []
    for s in steps:
        xla = [w for w in s.get('windows', []) if w['thread'].startswith('tf_XLA')]
        if not xla or not all(0 < w['busy_ns'] <= s['dur_ns'] and w['names'] for w in xla):
            bad.append(f"step {s.get('index')}: windows {[(w['thread'], w['busy_ns']) for w in s.get('windows', [])]}")
    check(f"{tag}: every step has a non-empty window on the XLA worker lanes (tf_XLA...)", steps and not bad,
          '\n'.join(bad) or 'no steps')


def lane_names(doc):
    return [(l['pid'], l['tid'], l['process'], l['thread']) for l in doc['lanes']]


# ---- JAX ----------------------------------------------------------------------


def check_jax(cli, d):
    info = json.load(open(os.path.join(d, 'lesson3.json')))
    perfetto = os.path.join(d, info['perfetto_trace'])
    tag = 'jax perfetto_trace.json.gz'
    doc, err = cli.json('analyze', '--json', perfetto)
    if not check(f"{tag}: analyze --json", doc is not None, err):
        return
    got = names_of(doc)
    check(f"{tag}: 4 each of {', '.join(LESSON_NAMES)}",
          all(got.get(n, (0,))[0] == 4 for n in LESSON_NAMES),
          {n: got.get(n) for n in LESSON_NAMES})
    compare_with_facts(tag, perfetto, doc, LESSON_NAMES)
    full_facts_check(tag, cli, perfetto)

    sdoc, err = cli.json('steps', '--json', perfetto)
    if check(f"{tag}: steps --json", sdoc is not None, err):
        steps = sdoc['steps']
        check(f"{tag}: steps are the learner_step annotations",
              all(s['name'] == 'learner_step' for s in steps), [s['name'] for s in steps])
        check_steps(tag, steps, 4, ('input_wait', 'model_and_wait'))
        # The lesson's own reading: durations in microseconds with three decimals.
        want = [round(us * 1000) for us in info['step_us']]
        have = [s['dur_ns'] for s in steps]
        check(f"{tag}: step durations equal the lesson's own reading", have == want,
              f"stepscope {have}, lesson {want}")
        for name, key in (('input_wait', 'input_wait_us'), ('model_and_wait', 'model_and_wait_us')):
            want = [round(us * 1000) for us in info[key]]
            have = [s['children'].get(name) for s in steps]
            check(f"{tag}: {name} per step equals the lesson's own reading", have == want,
                  f"stepscope {have}, lesson {want}")
        args = [a.get('step_num') for a in info['step_args']]
        check(f"{tag}: the trace carries step_num 0..3 and stepscope indexes by it",
              args == ['0', '1', '2', '3'] and [s['index'] for s in steps] == [0, 1, 2, 3],
              f"step_num args {args}")
        check_worker_windows(tag, steps)
    check_slices_csv(tag, cli, perfetto, doc, 'learner_step', 'input_wait', 'model_and_wait')

    # The same run's TensorBoard-format trace prints doubles with 17 digits
    # ("81.701999999999998"); rounding to whole nanoseconds must give the same numbers.
    for tb in info.get('tensorboard_trace', []):
        t2 = f"jax {os.path.basename(tb)}"
        doc2, err = cli.json('analyze', '--json', os.path.join(d, tb))
        if check(f"{t2}: analyze --json", doc2 is not None, err):
            a, b = names_of(doc), names_of(doc2)
            diff = [f"{n}: perfetto {a.get(n)}, tensorboard {b.get(n)}" for n in sorted(set(a) | set(b))
                    if a.get(n) != b.get(n)]
            check(f"{t2}: every name's count/total/self equals the perfetto trace's", not diff,
                  '\n'.join(diff))

    check_xplane(cli, d, info, steps if sdoc else None)
    xdoc, err = cli.json('analyze', '--json', os.path.join(d, info['xplane']))
    if check("jax xplane.pb: analyze --json", xdoc is not None, err):
        check("jax xplane.pb and perfetto_trace.json.gz name the same threads the same way (pid, tid, process, "
              "thread, in order)", lane_names(xdoc) == lane_names(doc),
              f"xplane {lane_names(xdoc)}\njson   {lane_names(doc)}")


def check_xplane(cli, d, info, json_steps):
    for what, path in (('xplane.pb', os.path.join(d, info['xplane'])),
                       ('profile dir', os.path.join(d, info['run_dir'])),
                       ('log dir', os.path.join(d, info['profile_dir']))):
        tag = f"jax {what}"
        rc, out, err = cli.run('steps', '--json', path)
        if rc != 0 and unsupported(err):
            skip(f"{tag}: steps", f"stepscope says: {err.strip()[:160]}")
            continue
        if not check(f"{tag}: steps --json", rc == 0, f"exit {rc}: {err.strip()[:400]}"):
            continue
        try:
            steps = json.loads(out)['steps']
        except (ValueError, KeyError) as e:
            fail(f"{tag}: steps --json output", e)
            continue
        steps = [s for s in steps if s['name'] == 'learner_step']
        check_steps(tag, steps, 4, ('input_wait', 'model_and_wait'))
        check_worker_windows(tag, steps)
        if json_steps and len(steps) == len(json_steps):
            # XPlane holds picoseconds; the perfetto JSON rounds to nanoseconds.
            bad = [f"step {a['index']}: xplane {a['dur_ns']}, json {b['dur_ns']}"
                   for a, b in zip(steps, json_steps) if abs(a['dur_ns'] - b['dur_ns']) > 1]
            check(f"{tag}: step durations match the perfetto trace within 1 ns", not bad, '\n'.join(bad))


# ---- PyTorch ------------------------------------------------------------------


def check_torch(cli, d):
    lesson = os.path.join(d, 'lesson.json')
    tag = 'torch lesson'
    doc, err = cli.json('analyze', '--json', lesson)
    if check(f"{tag}: analyze --json", doc is not None, err):
        got = names_of(doc)
        check(f"{tag}: 4 each of {', '.join(LESSON_NAMES)}",
              all(got.get(n, (0,))[0] == 4 for n in LESSON_NAMES), {n: got.get(n) for n in LESSON_NAMES})
        compare_with_facts(tag, lesson, doc, LESSON_NAMES)
        full_facts_check(tag, cli, lesson, 'learner_step')
        sdoc, err = cli.json('steps', '--json', '--step', 'learner_step', lesson)
        if check(f"{tag}: steps --json --step learner_step", sdoc is not None, err):
            check_steps(tag, sdoc['steps'], 4, ('input_wait', 'model_and_wait'))
        check_slices_csv(tag, cli, lesson, doc, 'learner_step', 'input_wait', 'model_and_wait')

    train = os.path.join(d, 'train.json')
    tag = 'torch train'
    # The exact names (ProfilerStep#0..5) for the facts; by default they rank as one row.
    gdoc, err = cli.json('analyze', '--json', train)
    if check(f"{tag}: analyze --json", gdoc is not None, err):
        grouped = names_of(gdoc)
        check(f"{tag}: analyze ranks ProfilerStep#0..5 as one row ProfilerStep#N of 6",
              grouped.get('ProfilerStep#N', (0,))[0] == 6 and not any(n[13:].isdigit() for n in grouped
                                                                      if n.startswith('ProfilerStep#')),
              {n: v for n, v in grouped.items() if n.startswith('ProfilerStep')})
    doc, err = cli.json('analyze', '--json', '--no-group', train)
    if not check(f"{tag}: analyze --json --no-group", doc is not None, err):
        return
    got = names_of(doc)
    step_names = sorted((n for n in got if n.startswith('ProfilerStep#')), key=lambda n: int(n[13:]))
    check(f"{tag}: 6 ProfilerStep#N slices", len(step_names) == 6, step_names)
    compare_with_facts(tag, train, doc, step_names + ['data', 'forward', 'backward', 'optimizer', 'log'])
    full_facts_check(tag, cli, train)
    sdoc, err = cli.json('steps', '--json', train)
    if check(f"{tag}: steps --json finds the ProfilerStep#N steps by itself", sdoc is not None, err):
        steps = sdoc['steps']
        check(f"{tag}: steps are named ProfilerStep#N",
              [s['name'] for s in steps] == step_names, [s['name'] for s in steps])
        check_steps(tag, steps, 6, ('data', 'forward', 'backward', 'optimizer', 'log'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--jax')
    ap.add_argument('--torch')
    args = ap.parse_args()
    cli = Cli(args.cli)
    if args.jax:
        check_jax(cli, args.jax)
    if args.torch:
        check_torch(cli, args.torch)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
