"""Two or more builds of stepscope on one trace, run in turns (A B A B ...), so that the
VM's drift (10 to 30% between runs minutes apart here) falls on every build alike.
Prints each build's median and least CPU (user + sys) and wall time, its peak RSS, and
the ratio of each median to the first build's; checks that every build printed the
same output. perf/ab.sh is the entry point."""
import argparse
import statistics
import sys

from measure import run_once


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('builds', nargs='+', help='stepscope binaries; the first is the baseline')
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--args', default='analyze -j 1', help='the subcommand and its options')
    a = ap.parse_args()
    if a.runs < 1:
        ap.error('--runs must be at least 1')
    samples = {b: [] for b in a.builds}
    outputs = {}
    for i in range(a.runs):
        for b in a.builds:
            s = run_once([b] + a.args.split() + [a.trace], capture=(i == 0))
            if s['rc'] != 0:
                sys.exit('ab: %s exited %d on %s: %s' % (b, s['rc'], a.trace, s['err'].strip()[:400]))
            if i == 0:
                outputs[b] = s['out']
            samples[b].append(s)
        print('  round %d of %d done' % (i + 1, a.runs), file=sys.stderr)
    base_cpu = statistics.median(s['cpu'] for s in samples[a.builds[0]])
    base_wall = statistics.median(s['wall'] for s in samples[a.builds[0]])
    print('%s: %d rounds of the %d builds in turns (%s):' % (a.trace, a.runs, len(a.builds), a.args))
    for b in a.builds:
        cpu = [s['cpu'] for s in samples[b]]
        wall = [s['wall'] for s in samples[b]]
        mc, mw = statistics.median(cpu), statistics.median(wall)
        print('  %-40s CPU median %.3f s (least %.3f), wall median %.3f s (least %.3f), RSS %.1f MB;'
              ' x%.3f CPU, x%.3f wall against the first' %
              (b, mc, min(cpu), mw, min(wall), max(s['rss'] for s in samples[b]) / 1e6,
               base_cpu / mc if mc else float('nan'), base_wall / mw if mw else float('nan')))
    same = len(set(outputs.values())) == 1
    print('  output: %s' % ('the same bytes from every build' if same else 'DIFFERS between builds'))
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
