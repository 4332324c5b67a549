#!/usr/bin/env python3
"""Writes a random Chrome trace-event JSON file that exercises the importer's rules.

  random_trace.py SEED OUT.json

Per seed: a few threads and processes; X slices that nest, overlap by a little (within
the resolution) or a lot, have zero length or equal timestamps; B/E pairs with names
and categories from a small set, so that E events match by name, close out of order,
or match nothing; instants of every scope; async b/e/n events with string, numeric and
id2 ids; metadata events with no ts; events listed out of time order; and, on some
seeds, fractional microseconds (so the resolution is 1 ns). Deterministic per seed.
"""
import json
import random
import sys

NAMES = ['a', 'b', 'c', 'step', 'work']
CATS = ['x', 'y']


def ts_of(rng, t, frac):
    return round(t + rng.choice([0, 0.001, 0.25, 0.5]), 3) if frac else t


def main():
    seed, out = int(sys.argv[1]), sys.argv[2]
    rng = random.Random(seed)
    frac = seed % 3 == 0
    threads = [(1, 1), (1, 2), (2, 7)]
    ev = []
    for pid, tid in threads:
        t = rng.randint(0, 5)
        for _ in range(rng.randint(5, 60)):
            kind = rng.random()
            base = {'pid': pid, 'tid': tid}
            if kind < 0.45:
                dur = rng.choice([0, 1, 2, 3, 5, 8, 13, 40])
                e = dict(base, ph='X', name=rng.choice(NAMES), ts=ts_of(rng, t, frac), dur=dur)
                if rng.random() < 0.3:
                    e['cat'] = rng.choice(CATS)
                ev.append(e)
            elif kind < 0.65:
                e = dict(base, ph='B', name=rng.choice(NAMES), ts=ts_of(rng, t, frac))
                if rng.random() < 0.5:
                    e['cat'] = rng.choice(CATS)
                ev.append(e)
            elif kind < 0.82:
                e = dict(base, ph='E', ts=ts_of(rng, t, frac))
                if rng.random() < 0.5:
                    e['name'] = rng.choice(NAMES)
                if rng.random() < 0.3:
                    e['cat'] = rng.choice(CATS)
                ev.append(e)
            elif kind < 0.9:
                e = dict(base, ph=rng.choice('iIR'), name=rng.choice(NAMES), ts=ts_of(rng, t, frac))
                s = rng.choice([None, 't', 'p', 'g'])
                if s:
                    e['s'] = s
                ev.append(e)
            else:
                ph = rng.choice('ben')
                e = dict(base, ph=ph, name=rng.choice(NAMES[:2]), cat=rng.choice(CATS), ts=ts_of(rng, t, frac))
                idk = rng.random()
                if idk < 0.4:
                    e['id'] = rng.choice(['0x1', '0x2'])
                elif idk < 0.7:
                    e['id'] = rng.choice([1, 2])
                else:
                    e['id2'] = {rng.choice(['local', 'global']): rng.choice(['p', 3])}
                ev.append(e)
            t += rng.choice([0, 0, 1, 2, 3, 7])
    for pid, tid in threads:
        ev.append({'ph': 'M', 'name': 'thread_name', 'pid': pid, 'tid': tid, 'args': {'name': 'T%d' % tid}})
    # Mostly in order, with some local disorder and a few far moves.
    for _ in range(len(ev) // 6):
        i = rng.randrange(len(ev))
        j = min(len(ev) - 1, max(0, i + rng.randint(-4, 4)))
        ev[i], ev[j] = ev[j], ev[i]
    if rng.random() < 0.5:
        ev.sort(key=lambda e: e.get('ts', 0))
    with open(out, 'w') as f:
        json.dump({'traceEvents': ev, 'displayTimeUnit': 'ns'} if seed % 2 else ev, f)


if __name__ == '__main__':
    main()
