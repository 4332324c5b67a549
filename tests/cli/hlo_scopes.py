"""The named scope of each XLA op of an XSpace file, read here independently of
stepscope: the /host:metadata plane's HloProto stats, each instruction's op_name up to
its last '/'. Prints {"module\\top": scope} as JSON (docs/xplane.md, "Named scopes")."""
import json
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def fields(b):
    i = 0
    while i < len(b):
        t, i = varint(b, i)
        n, w = t >> 3, t & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            ln, i = varint(b, i)
            v, i = b[i:i + ln], i + ln
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % w)
        yield n, v


def first(b, num):
    return next((v for n, v in fields(b) if n == num), None)


def scopes(path):
    out = {}
    for n, plane in fields(open(path, "rb").read()):
        if n != 1 or first(plane, 2) != b"/host:metadata":
            continue
        stat_names = {}
        for k, entry in fields(plane):
            if k == 5:
                stat_names[first(entry, 1)] = first(first(entry, 2), 2)
        for k, entry in fields(plane):
            if k != 4:
                continue
            for f, stat in fields(first(entry, 2)):
                if f != 5 or stat_names.get(first(stat, 1)) != b"Hlo Proto":
                    continue
                module = first(first(stat, 6), 1)
                mname = first(module, 1).decode()
                for c, comp in fields(module):
                    if c != 3:
                        continue
                    for i, ins in fields(comp):
                        meta = first(ins, 7) if i == 2 else None
                        op = first(meta, 2) if meta else None
                        cut = op.rfind(b"/") if op else -1
                        if cut >= 1:  # "jit(f)/encoder/dot_general": "jit(f)/encoder"
                            out[mname + "\t" + first(ins, 1).decode()] = op[:cut].decode()
    return out


if __name__ == "__main__":
    json.dump(scopes(sys.argv[1]), sys.stdout)
