#!/usr/bin/env python3
"""Summarize an XSpace (.xplane.pb, optionally gzip) independently of stepscope.

Decodes with Debian's `protoc --decode=tensorflow.profiler.XSpace proto/xplane.proto`
and walks protoc's text output, so the numbers it prints share no code with
stepscope's reader. Tests compare the two.

Output, tab-separated, one record per line:
  planes      <planes with lines>   <all planes>
  line        <plane name> <line tid> <shown name> <timed events> <sum of durations, ns> <first start, ns>
  events      <timed events>  <aggregated events (num_occurrences)>
  top         <event name> <count>         (the 10 most frequent, ties by name)
  stat        <key> <count>                (how often each stat key occurs on events)
  step        <plane name> <line tid> <start ns> <dur ns> <step_num>
  hostname    <name>
A line's tid is what XProf's converters make of it: its display_id, else its id, as
a uint32. Times in ns follow stepscope's documented rule: start and end are rounded to the
nearest ns separately, halves up; duration = end - start.
"""
import codecs
import collections
import gzip
import os
import subprocess
import sys


def parse(text):
    root = {}
    stack = [root]
    for raw in text.splitlines():
        s = raw.strip()
        if not s:
            continue
        if s.endswith("{"):
            child = {}
            stack[-1].setdefault(s[:-1].strip(), []).append(child)
            stack.append(child)
        elif s == "}":
            stack.pop()
        else:
            key, val = s.split(":", 1)
            stack[-1].setdefault(key.strip(), []).append(val.strip())
    return root


def text_value(v):
    """protoc prints strings C-escaped in double quotes."""
    if v.startswith('"') and v.endswith('"'):
        b = codecs.escape_decode(v[1:-1].encode("latin-1"))[0]
        return b.decode("utf-8", "replace")
    return v


def one(msg, key, default=None):
    vals = msg.get(key)
    return vals[-1] if vals else default


def round_ns(ps):
    # floor((ps + 500) / 1000): nearest ns, halves up (Python's // floors).
    return (ps + 500) // 1000


def main():
    path = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    proto = os.path.join(here, "..", "..", "proto", "xplane.proto")
    data = open(path, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    out = subprocess.run(
        ["protoc", "--decode=tensorflow.profiler.XSpace", "-I", os.path.dirname(proto), os.path.basename(proto)],
        input=data, stdout=subprocess.PIPE, check=True)
    space = parse(out.stdout.decode("latin-1"))
    planes = space.get("planes", [])
    with_lines = [p for p in planes if p.get("lines")]
    print("planes\t%d\t%d" % (len(with_lines), len(planes)))
    top = collections.Counter()
    stats = collections.Counter()
    timed = aggregated = 0
    for p in with_lines:
        pname = text_value(one(p, "name", '""'))
        emeta = {}
        for entry in p.get("event_metadata", []):
            key = int(one(entry, "key", "0"))
            val = (entry.get("value") or [{}])[-1]
            disp = text_value(one(val, "display_name", '""'))
            emeta[key] = disp or text_value(one(val, "name", '""'))
        smeta = {}
        for entry in p.get("stat_metadata", []):
            key = int(one(entry, "key", "0"))
            val = (entry.get("value") or [{}])[-1]
            smeta[key] = text_value(one(val, "name", '""'))
        for line in p.get("lines", []):
            # The tid XProf's converters give a line: display_id, else id, as a uint32.
            lid = (int(one(line, "display_id", "0")) or int(one(line, "id", "0"))) & 0xFFFFFFFF
            shown = text_value(one(line, "display_name", '""')) or text_value(one(line, "name", '""'))
            base = int(one(line, "timestamp_ns", "0"))
            n = 0
            total = 0
            first = None
            for ev in line.get("events", []):
                if "num_occurrences" in ev:
                    aggregated += 1
                    continue
                off = int(one(ev, "offset_ps", "0"))
                dur = int(one(ev, "duration_ps", "0"))
                start = round_ns(base * 1000 + off)
                end = round_ns(base * 1000 + off + dur)
                n += 1
                total += end - start
                first = start if first is None else min(first, start)
                mid = int(one(ev, "metadata_id", "0"))
                name = emeta.get(mid, "event_metadata %d" % mid)
                top[name] += 1
                step = None
                for st in ev.get("stats", []):
                    key = smeta.get(int(one(st, "metadata_id", "0")), "?")
                    stats[key] += 1
                    if key == "step_num":
                        step = one(st, "int64_value") or one(st, "uint64_value")
                if step is not None:
                    print("step\t%s\t%d\t%d\t%d\t%s" % (pname, lid, start, end - start, step))
            timed += n
            print("line\t%s\t%d\t%s\t%d\t%d\t%d" % (pname, lid, shown, n, total, first if first is not None else 0))
    print("events\t%d\t%d" % (timed, aggregated))
    for name, count in sorted(top.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
        print("top\t%s\t%d" % (name, count))
    for key, count in sorted(stats.items()):
        print("stat\t%s\t%d" % (key, count))
    for h in space.get("hostnames", []):
        print("hostname\t%s" % text_value(h))


if __name__ == "__main__":
    main()
