#!/usr/bin/env python3
"""Checks what tests/cli/recorder_hostile.c made, with decoders that share no code with
stepscope: recorder_text_check.py DIR [PROTOBUF_PYTHON]

Every *.xplane.pb under DIR must decode with `protoc --decode=tensorflow.profiler.XSpace`
(libprotobuf refuses a proto3 string field that is not UTF-8, and the whole file with
it), and, when PROTOBUF_PYTHON names a Python with google.protobuf, with its parser
too. Every *.json and *.json.gz must be strict UTF-8 JSON. In each, the names must be
cut on character boundaries: the 63-byte thread name holds 62 'a' (not half of its
"é"), the kernel-named thread is "kernel-named-x", the 255-byte arg 254 'b' (not two
thirds of its "€"), and bytes that are not UTF-8 come out as U+FFFD. Prints one line
per file checked; exits 1 with the reason on the first failure."""
import gzip
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO = os.path.join(ROOT, "proto", "xplane.proto")
FFFD = "\ufffd"
PY_DECODE = r"""
import sys
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
fds = descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[1], "rb").read())
pool = descriptor_pool.DescriptorPool()
for f in fds.file:
    pool.Add(f)
XSpace = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow.profiler.XSpace"))
XSpace.FromString(open(sys.argv[2], "rb").read())
"""


def fail(msg):
    print("FAIL " + msg)
    sys.exit(1)


def expect_names(where, texts):
    """The names the probe recorded, each as it must come out."""
    want = {
        "63-byte thread name cut before its 'é'": "a" * 62,
        "kernel-cut thread name": "kernel-named-x",
        "255-byte arg cut before its '€'": "b" * 254,
        "scope name's raw bytes as U+FFFD": "bad %s%s name" % (FFFD, FFFD),
        "thread name's raw bytes as U+FFFD": "raw %s%s thread" % (FFFD, FFFD),
        "arg key's raw byte as U+FFFD": "key " + FFFD,
        "arg value's overlong '/' and surrogate, a U+FFFD per byte": "x%sy%sz" % (FFFD * 2, FFFD * 3),
    }
    for what, text in want.items():
        if text not in texts:
            fail("%s: no %s (%r) among %r" % (where, what, text, sorted(t for t in texts if len(t) < 80)[:40]))
    for t in texts:
        if "\\x" in t or FFFD in t and t not in want.values() and t != "open %s scope" % FFFD:
            fail("%s: an unexpected name %r" % (where, t))
        if t.startswith("aaaa") and t != "a" * 62 or t.startswith("bbbb") and t != "b" * 254:
            fail("%s: a cut name kept part of a character: %r" % (where, t[-4:]))


def json_texts(doc):
    out = set()

    def walk(v):
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, dict):
            for k, x in v.items():
                out.add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(doc)
    return out


def check_json(path):
    raw = open(path, "rb").read()
    if path.endswith(".gz"):
        raw = gzip.decompress(raw)
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s is not strict UTF-8 JSON: %s" % (path, e))
    expect_names(path, json_texts(doc))
    print("ok   %s: strict UTF-8 JSON, names cut on character boundaries" % os.path.basename(path))


def protoc_texts(text):
    """The string fields of protoc's text format, unescaped (octal escapes are bytes)."""
    out = set()
    for line in text.splitlines():
        s = line.strip()
        for key in ("name: ", "str_value: ", "display_name: ", "hostnames: "):
            if s.startswith(key) and s.endswith('"'):
                body = s[len(key) + 1:-1]
                out.add(body.encode("latin-1").decode("unicode_escape").encode("latin-1").decode("utf-8"))
    return out


def check_xplane(path, venv_python, desc):
    with open(path, "rb") as f:
        p = subprocess.run(["protoc", "--decode=tensorflow.profiler.XSpace", "-I" + os.path.dirname(PROTO), PROTO],
                           stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        fail("protoc --decode refuses %s: %s" % (path, p.stderr.decode("utf-8", "replace").strip()))
    expect_names(path, protoc_texts(p.stdout.decode("ascii", "replace")))
    how = "protoc --decode"
    if venv_python:
        q = subprocess.run([venv_python, "-c", PY_DECODE, desc, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if q.returncode != 0:
            fail("google.protobuf refuses %s: %s" % (path, q.stderr.decode("utf-8", "replace").strip()[-300:]))
        how += " and google.protobuf"
    print("ok   %s: %s accept it, names cut on character boundaries" % (os.path.basename(path), how))


def main():
    top = sys.argv[1]
    venv_python = sys.argv[2] if len(sys.argv) > 2 else ""
    if venv_python and subprocess.run([venv_python, "-c", "import google.protobuf"]).returncode != 0:
        venv_python = ""
    desc = os.path.join(top, "xplane.desc")
    if venv_python:
        subprocess.run(["protoc", "-I" + os.path.dirname(PROTO), "--descriptor_set_out=" + desc, PROTO], check=True)
    files = 0
    for folder, _, names in os.walk(top):
        for n in sorted(names):
            path = os.path.join(folder, n)
            if n.endswith(".xplane.pb"):
                check_xplane(path, venv_python, desc)
            elif n.endswith((".json", ".json.gz")):
                check_json(path)
            else:
                continue
            files += 1
    if files == 0:
        fail("no .xplane.pb or JSON file under %s" % top)


main()
