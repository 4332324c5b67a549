"""Every public entry point of the stepscope package fed wrong types, one argument at a
time (None, a list, a str, an int past 64 bits, NaN): each call returns or raises a
Python exception (TypeError, ValueError, OverflowError, a stepscope.Error, or
LookupError for a name the ledger lacks), never
crashes the interpreter. The calls run in a child so a crash fails this test alone
and names the call that crashed."""
import json
import os
import subprocess
import sys

BAD = ("None", "[1]", "'x'", "2**70", "float('nan')")

CHILD = r'''
import json, math, sys, warnings
import stepscope
warnings.simplefilter("ignore")
path, log = sys.argv[1], sys.argv[2]
ALLOWED = (TypeError, ValueError, OverflowError, stepscope.Error, LookupError)  # LookupError: a name not there
t = stepscope.open(path)
s = t.slices()
led = stepscope.ledger(log)
fn = lambda *a, **k: 1.0
CALLS = [
    ("stepscope.open", stepscope.open, [path, None, "analysis"]),
    ("stepscope.open_bytes", stepscope.open_bytes, [open(path, "rb").read(), "<bytes>", "analysis"]),
    ("Trace.analyze", t.analyze, [None, None, None, "name", 0, False, 0]),
    ("Trace.names", t.names, [None, None, None, "name"]),
    ("Trace.lanes", t.lanes, [None, None, None]),
    ("Trace.processes", t.processes, [None, None, None]),
    ("Trace.steps", t.steps, ["step", None, 5, False]),
    ("stepscope.analyze_hosts", stepscope.analyze_hosts, [[path], None, 0, "analysis", 0]),
    ("stepscope.steps_hosts", stepscope.steps_hosts, [[path], None, "step", False, 1.1, "analysis", 0]),
    ("stepscope.ledger", stepscope.ledger, [log]),
    ("Ledger.function", led.function, ["f"]),
    ("stepscope.fmt_seconds", stepscope.fmt_seconds, [1e-3]),
]
BENCH_KW = dict(ready=None, check=None, atol=1e-5, rtol=1e-5, repeats=1, warmup=0, dispatch=None, setup=None,
                kwargs=None, name="b", boundary=None, shapes=None, dtype=None, reference=None, backend=None,
                device=None, versions=None, equal_nan=False)
bad = [eval(b) for b in json.loads(sys.argv[3])]
out = []
def attempt(label, f, args, kw):
    print(label, flush=True, file=sys.stderr)
    try:
        f(*args, **kw)
        out.append([label, "ok"])
    except ALLOWED as e:
        out.append([label, type(e).__name__])
    except Exception as e:  # a wrong kind of exception: reported, fails the test
        out.append([label, "WRONG " + type(e).__name__ + ": " + str(e)[:200]])
for name, f, base in CALLS:
    for i in range(len(base)):
        for b in bad:
            args = list(base)
            args[i] = b
            attempt("%s arg %d = %r" % (name, i, b), f, args, {})
for b in bad:
    attempt("bench fn = %r" % (b,), stepscope.bench, [b], dict(BENCH_KW))
    attempt("bench *args = %r" % (b,), stepscope.bench, [fn, b], dict(BENCH_KW))
    for k in BENCH_KW:
        kw = dict(BENCH_KW)
        kw[k] = b
        attempt("bench %s = %r" % (k, b), stepscope.bench, [fn], kw)
for obj, names in ((t, ("slices", "close")), (s, ("names", "rows"))):
    for m in names:
        attempt("%s.%s()" % (type(obj).__name__, m), getattr(obj, m), [], {})
json.dump(out, sys.stdout)
'''


def test_wrong_types_raise_never_crash(tmp_path):
    trace = tmp_path / "t.json"
    events = []
    for i in range(3):
        events.append({"ph": "X", "name": "step", "ts": i * 100, "dur": 90, "pid": 1, "tid": 1,
                       "args": {"step_num": i}})
        events.append({"ph": "X", "name": "work", "ts": i * 100 + 10, "dur": 50, "pid": 1, "tid": 1})
    trace.write_text(json.dumps({"traceEvents": events}))
    log = tmp_path / "c.log"
    log.write_text("Finished tracing + transforming f for pjit in 0.001 sec\n"
                   "Compiling jit(f) with global shapes and types (ShapedArray(float32[8]),). "
                   "Argument mapping: (UnspecifiedValue,).\n"
                   "Finished XLA compilation of jit(f) in 0.01 sec\n")
    p = subprocess.run([sys.executable, "-c", CHILD, str(trace), str(log), json.dumps(BAD)], capture_output=True,
                       text=True, timeout=120, env=dict(os.environ))
    last = p.stderr.strip().splitlines()[-1:] if p.stderr else []
    assert p.returncode == 0, "the child died (rc %d) in: %s\n%s" % (p.returncode, last, p.stderr[-2000:])
    out = json.loads(p.stdout)
    wrong = [o for o in out if o[1].startswith("WRONG")]
    assert not wrong, "\n".join("%s: %s" % (a, b) for a, b in wrong)
    assert len(out) > 300
    # A wrong type is refused somewhere: not every call may quietly accept everything.
    assert sum(o[1] == "TypeError" for o in out) > 50
