#!/usr/bin/env python3
"""The XProf peer for the XPlane benchmark: XProf's own converter from an XSpace to the
trace viewer's data, as its server runs it.

    xprof_convert.py XPLANE [TOOL]      (run with .venv/bin/python; TOOL: trace_viewer)

Calls xprof.convert.raw_to_tool_data.xspace_to_tool_data([XPLANE], TOOL, {}), which
hands the file to XProf's C++ converter (and, for trace_viewer, post-processes its
JSON in Python). XProf caches what it converts next to the input, so the caller gives
a fresh copy each time. Prints one JSON line: seconds to import xprof, seconds to
convert, the size of what it made, and the events in it (trace_viewer: complete events
and the instants zero-length events become)."""
import json
import sys
import time


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    tool = argv[2] if len(argv) == 3 else 'trace_viewer'
    t0 = time.perf_counter()
    from xprof.convert import raw_to_tool_data as rtd
    t1 = time.perf_counter()
    data, _ = rtd.xspace_to_tool_data([argv[1]], tool, {})
    t2 = time.perf_counter()
    if data is None:
        print(json.dumps({'error': 'no data'}))
        return 1
    events = None
    if tool == 'trace_viewer':
        doc = json.loads(data)
        # Zero-length events come out as instants ('i'): they count too.
        events = sum(1 for e in doc.get('traceEvents', []) if e.get('ph') in ('X', 'i'))
    print(json.dumps({'import_s': round(t1 - t0, 3), 'convert_s': round(t2 - t1, 3), 'bytes_out': len(data),
                      'events': events}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
