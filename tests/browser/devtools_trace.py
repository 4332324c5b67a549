#!/usr/bin/env python3
"""Loads a Chrome JSON trace into the trace engine of the DevTools frontend that ships
inside Chromium (models/trace, the engine behind the Performance panel) and checks what
it parsed against `stepscope steps --json` of the same run.

    devtools_trace.py --browser CHROMIUM --trace FILE.json[.gz] --steps STEPS.json

Prints "ok NAME" / "FAIL NAME" lines; exit 1 when a check fails, 3 when the engine
cannot be reached at all (the caller reports that as SKIP or FAIL as it sees fit).

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
NUL-terminated JSON on fds 3 and 4), so only the standard library is needed. The
events go to the engine exactly as the Performance panel's file loader hands them
over: the file's traceEvents array, unfiltered, with the file's metadata.
"""
import argparse
import gzip
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

FRONTEND = "devtools://devtools/bundled/devtools_app.html"
FAILS = 0


def check(name, cond, detail=""):
    global FAILS
    if cond:
        print(f"ok   devtools: {name}")
    else:
        FAILS += 1
        print(f"FAIL devtools: {name}" + (f"\n  {detail}" if detail else ""))


class Browser:
    """One headless Chromium with the DevTools protocol on a pipe."""

    def __init__(self, exe, profile, log):
        to_chrome_r, self.wfd = os.pipe()
        self.rfd, from_chrome_w = os.pipe()
        # Park the child's ends above 3/4 so the dup2s in the child cannot clobber them.
        hi_r = os.dup2(to_chrome_r, 200)
        hi_w = os.dup2(from_chrome_w, 201)

        def wire():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-extensions", "--disable-background-networking",
                 "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        self.proc = subprocess.Popen([exe] + flags, preexec_fn=wire, close_fds=False,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=log)
        for fd in (to_chrome_r, from_chrome_w, hi_r, hi_w):
            os.close(fd)
        self.buf = b""
        self.next_id = 0

    def call(self, method, params=None, session=None, timeout=200.0):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.wfd, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def _read(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.rfd], [], [], left)[0]:
                raise TimeoutError("no reply from chromium")
            chunk = os.read(self.rfd, 1 << 20)
            if not chunk:
                raise EOFError("chromium closed the protocol pipe")
            self.buf += chunk
        msg, _, self.buf = self.buf.partition(b"\0")
        return json.loads(msg)

    def close(self):
        try:
            self.call("Browser.close", timeout=50)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=50)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.wfd)
        os.close(self.rfd)


def evaluate(b, session, expr, timeout=200.0):
    r = b.call("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                    "awaitPromise": True}, session, timeout)
    if "exceptionDetails" in r:
        ex = r["exceptionDetails"]
        raise RuntimeError(ex.get("exception", {}).get("description", ex.get("text")))
    return r["result"].get("value")


def open_frontend(b):
    target = b.call("Target.createTarget", {"url": FRONTEND})["targetId"]
    session = b.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    deadline = time.monotonic() + 150
    while time.monotonic() < deadline:
        here = evaluate(b, session, "location.href + ' ' + document.readyState")
        if here == FRONTEND + " complete":
            return session
        time.sleep(0.1)
    raise TimeoutError(f"{FRONTEND} did not load (last state: {here})")


# Runs in the frontend page. Parses the events as given; only when that throws does it
# parse a second time without the events that have no name, so the report can say
# whether the rest of the file would have been read.
PARSE_JS = r"""
(async () => {
  const T = await import('./models/trace/trace.js');
  const file = JSON.parse(%s);
  const all = Array.isArray(file) ? file : file.traceEvents;
  const meta = Array.isArray(file) ? {} : (file.metadata || {});
  async function parse(events) {
    const model = T.TraceModel.Model.createWithAllHandlers();
    await model.parse(events, {metadata: meta});
    return model.parsedTrace(0);
  }
  const out = {given: all.length};
  let parsed;
  try {
    parsed = await parse(all);
  } catch (e) {
    out.error = String(e && e.stack || e).split('\n').slice(0, 2).join(' | ');
    const named = all.filter(e => e && typeof e.name === 'string');
    out.dropped = all.length - named.length;
    parsed = await parse(named);
  }
  const d = parsed.data;
  out.raw = parsed.traceEvents.length;
  out.generic = d.Meta.traceIsGeneric;
  out.flows = d.Flows.flows.length;
  const node = d.Renderer.entryToNode;
  out.threads = [];
  for (const [pid, proc] of d.Renderer.processes) {
    for (const [tid, th] of proc.threads) {
      out.threads.push({pid, tid, name: th.name, entries: (th.entries || []).map(e => {
        const n = node.get(e), p = n && n.parent ? n.parent.entry : null;
        return {name: e.name, ts: e.ts, dur: e.dur, depth: n ? n.depth : -1,
                parent: p ? (th.entries || []).indexOf(p) : -1};
      })});
    }
  }
  return JSON.stringify(out);
})()
"""


def load_text(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data.decode("utf-8")


def ns(us):
    return round(us * 1000)


def compare(res, text, steps):
    file = json.loads(text)
    events = file if isinstance(file, list) else file["traceEvents"]
    check("the Performance panel's engine parses the file as written", "error" not in res,
          f"engine threw: {res.get('error')}; parsing again without the {res.get('dropped')} "
          "nameless event(s) (e.g. a trailing {}) to check the rest")
    named = sum(1 for e in events if isinstance(e, dict) and isinstance(e.get("name"), str))
    check(f"engine holds all {named} named events of the file", res["raw"] == named,
          f"engine kept {res['raw']} of {res['given']} given")
    n_flow_starts = sum(1 for e in events if isinstance(e, dict) and e.get("ph") == "s")
    # DevTools binds a flow event only to the slice with the same ts, pid, tid and cat
    # (it ignores "bp":"e"), so a flow whose cat differs from its slice's is dropped.
    check(f"engine links {n_flow_starts} flows (host enqueue -> device command)",
          res["flows"] == n_flow_starts,
          f"engine has {res['flows']} flows; it binds a flow event only to a slice with "
          "the same ts, pid, tid and cat")
    lane = steps["lane"]
    host = [t for t in res["threads"] if t["name"] == lane["thread"] and str(t["tid"]) == str(lane["tid"])]
    check(f"engine shows thread '{lane['thread']}' (tid {lane['tid']})", len(host) == 1,
          f"threads: {[(t['pid'], t['tid'], t['name']) for t in res['threads']]}")
    if len(host) != 1:
        return
    entries = host[0]["entries"]
    want = steps["steps"]
    step_name = want[0]["name"] if want else "learner_step"
    got = [i for i, e in enumerate(entries) if e["name"] == step_name]
    check(f"{len(want)} {step_name} entries on that thread", len(got) == len(want),
          f"engine has {len(got)}")
    bad = []
    for s, i in zip(want, got):
        e = entries[i]
        if (ns(e["ts"]), ns(e["dur"])) != (s["ts_ns"], s["dur_ns"]):
            bad.append(f"step {s['index']}: engine ts {e['ts']} dur {e['dur']} us, "
                       f"steps --json {s['ts_ns']} / {s['dur_ns']} ns")
        kids = {}
        counts = {}
        for k in entries:
            if k["parent"] == i:
                kids[k["name"]] = kids.get(k["name"], 0) + ns(k["dur"])
                counts[k["name"]] = counts.get(k["name"], 0) + 1
        if kids != s["children"] or counts != s["child_counts"]:
            bad.append(f"step {s['index']}: engine children {kids} x{counts}, "
                       f"steps --json {s['children']} x{s['child_counts']}")
        for k in entries:
            if k["parent"] == i and not (e["ts"] <= k["ts"] and k["ts"] + k["dur"] <= e["ts"] + e["dur"]):
                bad.append(f"step {s['index']}: child {k['name']} not inside it")
    check("each step's ts/dur and its children's durations equal steps --json (to the ns)",
          not bad and len(got) == len(want), "; ".join(bad[:4]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--browser", required=True)
    ap.add_argument("--trace", required=True)
    ap.add_argument("--steps", required=True)
    a = ap.parse_args()
    text = load_text(a.trace)
    with open(a.steps, encoding="utf-8") as f:
        steps = json.load(f)
    work = tempfile.mkdtemp(prefix="devtools-trace-")
    try:
        with open(os.path.join(work, "chromium.log"), "w") as log:
            b = Browser(a.browser, os.path.join(work, "profile"), log)
            try:
                session = open_frontend(b)
                res = json.loads(evaluate(b, session, PARSE_JS % json.dumps(text), timeout=600))
            except Exception as e:  # the engine never answered: nothing was checked
                print(f"  cannot run the DevTools trace engine: {e}", file=sys.stderr)
                return 3
            finally:
                b.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    compare(res, text, steps)
    print(f"  engine: {res['raw']} events, {len(res['threads'])} threads, generic trace: {res['generic']}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
