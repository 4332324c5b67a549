/* The CPython extension stepscope._stepscope: a thin layer over libstepscope. It is
 * built against the limited API (Py_LIMITED_API, set by setup.py), so one wheel serves
 * every CPython from 3.9 on. Columns come back as bytearrays that NumPy wraps without a
 * copy; documents come back as the JSON text the library's writer made. */
#ifndef STS_PYEXT_H
#define STS_PYEXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdio.h>

#include "stepscope/json.h"
#include "stepscope/status.h"

/* Raises the exception the Python side's error factory makes for `code` and the C
 * message (file, byte offset or event index, what was expected). Returns NULL. */
PyObject *ext_raise(sts_status code, const sts_error *err);

/* Raises the factory's exception for `kind` (a status name, or a kind of the binding's
 * own such as "STS_NO_STEPS") with message `text`; positions from err when not NULL. */
PyObject *ext_raise_as(const char *kind, const char *text, const sts_error *err);

/* As ext_raise() with a message of our own. */
PyObject *ext_raise_msg(sts_status code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets the error factory: a callable (code_name, message, byte_offset, event_index)
 * returning an exception instance. */
PyObject *ext_set_error_factory(PyObject *self, PyObject *factory);

/* Text a library writer prints onto a FILE, kept in memory. */
typedef struct ext_mem {
    char *buf;
    size_t len;
    FILE *f;
} ext_mem;

/* Opens the memory stream; raises MemoryError on failure (returns -1). */
int ext_mem_open(ext_mem *m);

/* Closes the stream and returns its text as a str; when `st` (the writer's status) is
 * not STS_OK or the stream failed, raises with `err` instead and returns NULL. */
PyObject *ext_mem_text(ext_mem *m, sts_status st, const sts_error *err);

/* A JSON document written into memory by the library's writer. */
typedef struct ext_json {
    ext_mem m;
    sts_jsonw *w;
} ext_json;

/* Opens the memory stream and a compact writer; raises MemoryError on failure. */
int ext_json_begin(ext_json *j);

/* The same with the layout given (STS_JSON_TWO_LEVELS: the CLI's --json bytes). */
int ext_json_begin_as(ext_json *j, sts_json_layout layout);

/* Finishes the document and returns it as a str (NULL with an exception set on failure).
 * Frees everything either way. */
PyObject *ext_json_end(ext_json *j);

/* Frees a document abandoned before its end. */
void ext_json_abandon(ext_json *j);

/* A bytearray of n elements of `size` bytes; *data points at its storage. */
PyObject *ext_column(Py_ssize_t n, size_t size, void **data);

/* UTF-8 text to str; invalid bytes become U+FFFD, as in the CLI's JSON. */
PyObject *ext_str(const char *s);

/* Module functions, one file each. */
PyObject *ext_open(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_open_bytes(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_close(PyObject *self, PyObject *cap);
PyObject *ext_warnings(PyObject *self, PyObject *cap);
PyObject *ext_slices(PyObject *self, PyObject *cap);
PyObject *ext_slice_args(PyObject *self, PyObject *args);
PyObject *ext_info_json(PyObject *self, PyObject *cap);
PyObject *ext_analyze_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_steps_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_hosts_analyze_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_hosts_steps_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_steps_device_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_device_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_steps_critpath_json(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_device_launches(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_ledger_json(PyObject *self, PyObject *args);
PyObject *ext_bench(PyObject *self, PyObject *args, PyObject *kw);
PyObject *ext_memory_json(PyObject *self, PyObject *args, PyObject *kw);

#endif
