"""Checks the DOM that headless Chromium dumped for a stepscope report.

usage: check_dom.py DOM.html [--steps N] [--children N] [--warm N] [--calls T,T,...]

Prints "ok browser: ..." or "FAIL browser: ..." per check; exits 1 on any failure.
Every figure must have been laid out (non-zero size) with its text rendered, the page
must load nothing from outside, and each figure must hold the marks its data implies.
Each text's real box, as the browser laid it out (getBBox, in the fonts it found), must
stay inside its figure and clear of the other texts, of points, data and reference
lines and axis lines, and a text on a bar or slice must lie inside it.
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

    for f in figs:
        problems = layout_problems(f)
        check(f"{f.attrs.get('id', '?')}: no text collides or leaves the figure (real text boxes)", not problems,
              "; ".join(problems[:6]) + (f" (+{len(problems) - 6} more)" if len(problems) > 6 else ""))

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
    for f in lanes:
        # Two different lanes never read the same, however their names were cut.
        seen, clash = {}, []
        for g in f.find(lambda n: n.tag == "g" and "lane" in n.cls()):
            full = "".join(t for k in g.kids if k.tag == "title" for t in k.data)
            shown = "".join(t for k in g.kids if k.tag == "text" for t in k.data)
            if shown in seen and seen[shown] != full:
                clash.append(f"{seen[shown]!r} and {full!r} both read {shown!r}")
            seen.setdefault(shown, full)
        check(f"{f.attrs.get('id')}: different lanes have different labels ({len(seen)} labels)", not clash,
              "; ".join(clash[:3]))
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


def _num(n, k):
    try:
        return float(n.attrs.get(k, "0"))
    except ValueError:
        return 0.0


def _drawn(n):
    """Not inside <defs> (patterns), so actually drawn where it says."""
    p = n.parent
    while p is not None:
        if p.tag in ("defs", "pattern"):
            return False
        p = p.parent
    return True


def _overlap(a, b, slack=0.5):
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w > slack and h > slack


def _hits_segment(box, x0, y0, x1, y1, shrink=0.5):
    """Liang-Barsky: does the segment pass through the box (shrunk by `shrink`)?"""
    bx0, by0, bx1, by1 = box[0] + shrink, box[1] + shrink, box[2] - shrink, box[3] - shrink
    dx, dy, t0, t1 = x1 - x0, y1 - y0, 0.0, 1.0
    for p, q in ((-dx, x0 - bx0), (dx, bx1 - x0), (-dy, y0 - by0), (dy, by1 - y0)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            if t > t1:
                return False
            t0 = max(t0, t)
        else:
            if t < t0:
                return False
            t1 = min(t1, t)
    return t0 <= t1


LINE_MARKS = {"med", "ref", "tot", "zbar", "pair", "axis"}
AREA_MARKS = {"bar", "slice", "busy", "win", "encl"}


def layout_problems(fig):
    vb = [float(v) for v in (fig.attrs.get("viewbox") or fig.attrs.get("viewBox") or "0 0 0 0").split()]
    texts, points, lines, areas = [], [], [], []
    for n in fig.walk():
        if not _drawn(n):
            continue
        cls = set(n.cls())
        if n.tag == "text" and n.attrs.get("data-probe-bbox") and "".join(n.data).strip():
            x, y, w, h = (float(v) for v in n.attrs["data-probe-bbox"].split(","))
            texts.append(("".join(n.data), (x, y, x + w, y + h)))
        elif n.tag == "circle":
            cx, cy, r = _num(n, "cx"), _num(n, "cy"), _num(n, "r")
            points.append((cx - r, cy - r, cx + r, cy + r))
        elif n.tag == "rect" and "pt2" in cls:
            x, y = _num(n, "x"), _num(n, "y")
            points.append((x, y, x + _num(n, "width"), y + _num(n, "height")))
        elif n.tag == "rect" and cls & AREA_MARKS:
            x, y = _num(n, "x"), _num(n, "y")
            areas.append((x, y, x + _num(n, "width"), y + _num(n, "height")))
        elif n.tag == "line" and cls & LINE_MARKS:
            lines.append((_num(n, "x1"), _num(n, "y1"), _num(n, "x2"), _num(n, "y2")))
        elif n.tag == "polyline":
            pts = [tuple(float(v) for v in p.split(",")) for p in (n.attrs.get("points") or "").split()]
            lines.extend((a[0], a[1], b[0], b[1]) for a, b in zip(pts, pts[1:]))
    out = []
    for i, (t, a) in enumerate(texts):
        if a[0] < -0.5 or a[1] < -0.5 or a[2] > vb[2] + 0.5 or a[3] > vb[3] + 0.5:
            out.append(f"{t!r} leaves the figure")
        out += [f"{t!r} overlaps {u!r}" for u, b in texts[i + 1:] if _overlap(a, b)]
        if any(_overlap(a, p) for p in points):
            out.append(f"{t!r} covers a point")
        if any(_hits_segment(a, *s) for s in lines):
            out.append(f"{t!r} crosses a line")
        for r in areas:
            inside = a[0] >= r[0] - 1 and a[2] <= r[2] + 1 and a[1] >= r[1] - 1 and a[3] <= r[3] + 1
            if _overlap(a, r) and not inside:
                out.append(f"{t!r} straddles the edge of a bar or slice")
                break
    return out


if __name__ == "__main__":
    sys.exit(main())
