#!/usr/bin/env python3
"""stepscope steps beside XProf's overview page, on a real JAX run of eight steps.

    xprof_steps_check.py XPLANE_COPY STEPS_JSON STEPS_XPROF_JSON

STEPS_JSON is `stepscope steps --json` on the run, STEPS_XPROF_JSON the same with
--xprof. XProf's overview page leaves out the first and last step (of more than five)
and prints the average and standard deviation of the rest to 0.1 ms; the check is that
--xprof lists exactly XProf's steps with its step times (ms to six decimals) and that
the mean and standard deviation agree within that rounding, while plain `steps` keeps
all eight. Prints ok/FAIL/SKIP lines; exit 1 when any check failed.
"""
import decimal
import json
import sys

failures = 0


def check(name, cond, why=''):
    global failures
    print(("ok   " if cond else "FAIL ") + "xprof-steps " + name)
    if not cond:
        failures += 1
        for line in str(why).splitlines()[:8]:
            print("  " + line)
    return cond


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    xplane, plain_path, xprof_path = argv[1:]
    try:
        from xprof.convert import raw_to_tool_data as rtd
    except ImportError as e:
        print(f"SKIP xprof-steps: cannot import xprof.convert ({e})")
        return 0
    plain, ours = json.load(open(plain_path)), json.load(open(xprof_path))
    data, _ = rtd.xspace_to_tool_data([xplane], 'overview_page', {'use_saved_result': False})
    page = json.loads(data.decode() if isinstance(data, bytes) else data)
    table = next((t for t in page if isinstance(t, dict)
                  and any(c.get('id') == 'stepTimeMs' for c in t.get('cols', []))), None)
    if not check("overview_page has the step-time table", table is not None):
        return 1
    ids = [c['id'] for c in table['cols']]
    rows = [{ids[i]: cell.get('v') for i, cell in enumerate(r['c'])} for r in table['rows']]
    theirs = [(r['stepnum'], round(decimal.Decimal(repr(r['stepTimeMs'])) * 1000000)) for r in rows]
    mine = [(f"{s['name']} {s['index']}", s['dur_ns']) for s in ours['steps']]
    check("plain steps keeps all 8 and says XProf leaves out the ends", len(plain['steps']) == 8 and
          plain['summary']['dropped'] == 0, len(plain['steps']))
    check("--xprof lists XProf's steps (the middle 6) with its step times", mine == theirs and len(mine) == 6,
          f"stepscope {mine}\nxprof {theirs}")
    p = table.get('p', {})
    y = ours['summary']
    avg, sd = float(p.get('steptime_ms_average', 'nan')), float(p.get('steptime_ms_standard_deviation', 'nan'))
    check("mean step time agrees with XProf's average (to its 0.1 ms)", abs(y['mean_ns'] / 1e6 - avg) <= 0.05 + 1e-9,
          f"stepscope {y['mean_ns'] / 1e6:.4f} ms, xprof {avg}")
    check("standard deviation agrees with XProf's (to its 0.1 ms): the sample one, n - 1",
          abs(y['stddev_ns'] / 1e6 - sd) <= 0.05 + 1e-9, f"stepscope {y['stddev_ns'] / 1e6:.4f} ms, xprof {sd}")
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
