"""Checks the DOM that headless Chromium dumped for a stepscope report.

usage: check_dom.py DOM.html [--steps N] [--children N] [--warm N] [--calls T,T,...]

Prints "ok browser: ..." or "FAIL browser: ..." per check; exits 1 on any failure.
Every figure must have been laid out (non-zero size) with its text rendered, the page
must load nothing from outside, and each figure must hold the marks its data implies.
"""
import argparse
import sys
from html.parser import HTMLParser


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.kids = tag, dict(attrs), parent, []
        self.data = []

    def cls(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for k in self.kids:
            yield from k.walk()

    def find(self, pred):
        return [n for n in self.walk() if pred(n)]


VOID = {"meta", "link", "br", "img", "input", "hr", "source", "area", "base", "col", "embed", "wbr"}


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.kids.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.kids.append(Node(tag, attrs, self.cur))

    def handle_data(self, data):
        self.cur.data.append(data)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent


failures = 0


def check(name, cond, detail=""):
    global failures
    if cond:
        print(f"ok   browser: {name}")
    else:
        failures += 1
        print(f"FAIL browser: {name}" + (f": {detail}" if detail else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dom")
    ap.add_argument("--steps", type=int)
    ap.add_argument("--children", type=int)
    ap.add_argument("--warm", type=int)
    ap.add_argument("--calls", help="expected new traces per call, comma-separated")
    a = ap.parse_args()
    t = Tree()
    t.feed(open(a.dom, encoding="utf-8", errors="replace").read())
    root = t.root
    html = root.find(lambda n: n.tag == "html")
    check("the probe ran after load", html and html[0].attrs.get("data-probe-done") == "1")
    check("no script errors", html and html[0].attrs.get("data-probe-errors") == "0",
          html[0].attrs.get("data-probe-errors") if html else "no <html>")

    # Self-contained: nothing fetched. The only script is the test's own probe.
    ext = [n for n in root.walk() if any(
        (n.attrs.get(k) or "").startswith(("http:", "https:", "//")) for k in ("src", "href", "xlink:href"))]
    check("nothing loaded from the network", not ext, ", ".join(n.tag for n in ext[:5]))
    check("no external stylesheets, images or frames",
          not root.find(lambda n: n.tag in ("link", "img", "iframe", "object", "embed")))
    scripts = root.find(lambda n: n.tag == "script")
    check("no script besides the test probe", len(scripts) <= 1)

    figs = root.find(lambda n: n.tag == "svg" and "fig" in n.cls())
    check("figures present", len(figs) > 0, "no svg.fig")
    for f in figs:
        fid = f.attrs.get("id", "?")
        w, h = int(f.attrs.get("data-probe-w", "0")), int(f.attrs.get("data-probe-h", "0"))
        n, drawn = (f.attrs.get("data-probe-text", "0/0").split("/") + ["0"])[:2]
        check(f"{fid} laid out ({w}x{h} px) with its text rendered ({drawn}/{n} text elements)",
              w > 200 and h > 80 and int(n) > 0 and int(drawn) >= int(n) * 0.9)

    steps = [f for f in figs if f.attrs.get("id", "").startswith("fig-steps")]
    if a.steps is not None:
        check("a per-step figure", steps)
        for f in steps[:1]:
            groups = f.find(lambda n: n.tag == "g" and "step" in n.cls())
            check(f"fig-steps has {a.steps} steps", len(groups) == a.steps and f.attrs.get("data-steps") == str(a.steps),
                  f"{len(groups)} step groups, data-steps={f.attrs.get('data-steps')}")
            for g in groups:
                kids = g.find(lambda n: n.tag == "rect" and "bar" in n.cls() and "rem" not in n.cls())
                rems = g.find(lambda n: n.tag == "rect" and "rem" in n.cls())
                want = a.children if a.children is not None else len(kids)
                check(f"step {g.attrs.get('data-step')}: {want} children and 1 remainder",
                      len(kids) == want and len(rems) == 1, f"{len(kids)} children, {len(rems)} remainders")
                total = float(g.attrs.get("data-total-ns", "nan"))
                parts = sum(float(r.attrs.get("data-ns", "0")) for r in kids + rems)
                check(f"step {g.attrs.get('data-step')}: children + remainder = step", abs(parts - total) < 1.5,
                      f"{parts} vs {total}")
    lanes = [f for f in figs if f.attrs.get("id", "").startswith("fig-lanes")]
    for f in lanes[:1]:
        sl = f.find(lambda n: n.tag == "rect" and "slice" in n.cls())
        check("fig-lanes draws every slice it counts", len(sl) == int(f.attrs.get("data-slices", "-1")) and sl,
              f"{len(sl)} drawn, data-slices={f.attrs.get('data-slices')}")
        depths = {s.attrs.get("data-depth") for s in sl}
        check("fig-lanes shows nesting (more than one depth row)", len(depths) > 1, str(depths))
    bench = [f for f in figs if f.attrs.get("id", "").startswith("fig-bench")]
    for f in bench[:1]:
        fid = f.attrs["id"]
        pts = f.find(lambda n: n.tag == "circle" and "sample" in n.cls())
        want = a.warm if a.warm is not None else int(f.attrs.get("data-warm", "-1"))
        check(f"{fid}: {want} warm samples drawn", len(pts) == want == int(f.attrs.get("data-warm", "-1")))
        panels = {g.attrs.get("id"): g.attrs.get("data-unit") for g in f.find(lambda n: "panel" in n.cls())}
        check(f"{fid}: two panels, each with its own unit", len(panels) == 2 and all(panels.values()), str(panels))
        check(f"{fid}: the median is drawn and labelled",
              f.find(lambda n: n.tag == "line" and "med" in n.cls()) and
              f.find(lambda n: n.tag == "text" and "median" in "".join(_text(n))))
    if a.calls is not None:
        calls = [f for f in figs if f.attrs.get("id", "").startswith("fig-ledger-calls")]
        check("a ledger calls figure", calls)
        for f in calls[:1]:
            got = [r.attrs.get("data-value") for r in f.find(
                lambda n: n.tag == "rect" and n.attrs.get("data-series") == "traces")]
            check(f"traces per call are {a.calls}", ",".join(got) == a.calls, ",".join(got))
    return 1 if failures else 0


def _text(n):
    return n.data


if __name__ == "__main__":
    sys.exit(main())
