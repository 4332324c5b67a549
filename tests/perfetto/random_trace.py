#!/usr/bin/env python3
"""Writes a random Chrome trace-event JSON file that exercises the importer's rules.

  random_trace.py SEED OUT.json
  random_trace.py --corners SEED OUT.json

Per seed: a few threads and processes; X slices that nest, overlap by a little (within
the resolution) or a lot, have zero length or equal timestamps; B/E pairs with names
and categories from a small set, so that E events match by name, close out of order,
or match nothing; instants of every scope; async b/e/n events with string, numeric and
id2 ids; metadata events with no ts; events listed out of time order; and, on some
seeds, fractional microseconds (so the resolution is 1 ns). Deterministic per seed.

--corners makes the shapes whose cost once grew with the square of their size (issue
34), mixed with what changes how they nest: runs of zero-length slices at one instant,
over slices that end there, under B's and E's at that instant; staircases of slices
each overrunning the one before, so they spill onto many overflow tracks, which free up
and fill again; async slices with many ids open at once, closed in any order.
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


def corners(seed, out):
    rng = random.Random(seed)
    ev = []
    for pid, tid in [(1, 1), (1, 2), (3, 3)]:
        t = 0
        base = {'pid': pid, 'tid': tid}
        for _ in range(rng.randint(20, 60)):
            shape = rng.random()
            if shape < 0.4:  # a run of zero-length slices at t, and what else happens at t
                for _ in range(rng.randint(1, 12)):
                    r = rng.random()
                    if r < 0.6:
                        ev.append(dict(base, ph='X', name=rng.choice(NAMES), ts=t, dur=0))
                    elif r < 0.7:
                        ev.append(dict(base, ph='X', name='long', ts=t, dur=rng.choice([1, 3, 20])))
                    elif r < 0.82:
                        ev.append(dict(base, ph='B', name=rng.choice(NAMES), ts=t))
                    elif r < 0.92:
                        ev.append(dict(base, ph='E', ts=t))
                    else:
                        ev.append(dict(base, ph='i', name='mark', ts=t))
            elif shape < 0.7:  # a staircase: each step overruns the one before
                step, length = rng.choice([1, 2, 3]), rng.choice([5, 10, 40])
                for k in range(rng.randint(2, 15)):
                    ev.append(dict(base, ph='X', name='stair', ts=t + k * step, dur=length + rng.choice([0, 0, 1, 4])))
                if rng.random() < 0.3:  # zero-length ones inside the stairs
                    ev.append(dict(base, ph='X', name='z', ts=t + step, dur=0))
            else:  # async slices under many ids at once
                for _ in range(rng.randint(1, 10)):
                    ph = rng.choice('bbbeen')
                    e = dict(base, ph=ph, cat=rng.choice(CATS), name=rng.choice(NAMES[:3]), ts=t + rng.randint(0, 3))
                    e['id'] = rng.randint(0, 30)
                    if rng.random() < 0.2:
                        e = dict(e, id2={'local': rng.randint(0, 5)})
                        del e['id']
                    ev.append(e)
            t += rng.choice([0, 1, 1, 2, 5, 30])
    ev.sort(key=lambda e: e['ts'])
    with open(out, 'w') as f:
        json.dump({'traceEvents': ev}, f)


if __name__ == '__main__':
    if sys.argv[1] == '--corners':
        corners(int(sys.argv[2]), sys.argv[3])
    else:
        main()
