#include "read/json_skip.h"

#include <stdlib.h>

enum {
    SK_VALUE = 0,      /* a value must come */
    SK_VALUE_OR_CLOSE, /* just after '[' */
    SK_KEY_OR_CLOSE,   /* just after '{' */
    SK_KEY,            /* after ',' in an object */
    SK_COLON,          /* after a key */
    SK_AFTER,          /* after a value */
    SK_STRING,
    SK_ESC, /* after a backslash */
    SK_HEX, /* inside \uXXXX */
    SK_NUMBER,
    SK_LITERAL
};

/* Number states, following the JSON grammar. */
enum { N_START, N_MINUS, N_INT, N_DOT, N_FRAC, N_EXP, N_EXP_SIGN, N_EXP_DIGITS, N_ZERO };

void sts_jr_skip_start(json_skip *s)
{
    s->depth = 0;
    s->state = SK_VALUE;
    s->in_key = 0;
    s->num = N_START;
    s->hex_left = 0;
    s->lit = NULL;
    s->lit_pos = 0;
}

void sts_jr_skip_release(json_skip *s)
{
    free(s->stack);
    s->stack = NULL;
    s->words = 0;
    sts_jr_skip_start(s);
}

static int push(json_skip *s, int is_object)
{
    uint64_t d = s->depth;
    if (d / 64 >= s->words) {
        size_t words = s->words ? s->words * 2 : 16;
        uint64_t *st = realloc(s->stack, words * sizeof *st);
        if (!st) return -1;
        s->stack = st;
        s->words = words;
    }
    uint64_t bit = (uint64_t)1 << (d % 64);
    if (is_object)
        s->stack[d / 64] |= bit;
    else
        s->stack[d / 64] &= ~bit;
    s->depth = d + 1;
    return 0;
}

static int top_is_object(const json_skip *s)
{
    uint64_t d = s->depth - 1;
    return (int)(s->stack[d / 64] >> (d % 64) & 1);
}

/* One number byte: the next state, or -1 when c cannot continue the number. */
static int number_step(int st, char c)
{
    int digit = json_is_digit(c);
    switch (st) {
    case N_START:
        return c == '-' ? N_MINUS : c == '0' ? N_ZERO : digit ? N_INT : -1;
    case N_MINUS:
        return c == '0' ? N_ZERO : digit ? N_INT : -1;
    case N_ZERO: /* JSON has no leading zeros: a digit cannot follow */
        return c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_EXP : -1;
    case N_INT:
        return digit ? N_INT : c == '.' ? N_DOT : (c == 'e' || c == 'E') ? N_EXP : -1;
    case N_DOT:
        return digit ? N_FRAC : -1;
    case N_FRAC:
        return digit ? N_FRAC : (c == 'e' || c == 'E') ? N_EXP : -1;
    case N_EXP:
        return (c == '+' || c == '-') ? N_EXP_SIGN : digit ? N_EXP_DIGITS : -1;
    default:
        return digit ? N_EXP_DIGITS : -1;
    }
}

static json_skip_rc error_at(const char *at, const char *expected, const char **stop, json_fail *f)
{
    *stop = at;
    json_failed(f, at, expected);
    return JSON_SKIP_ERROR;
}

#define NEED(p)                  \
    do {                         \
        if ((p) >= e) goto more; \
    } while (0)

json_skip_rc sts_jr_skip_feed(json_skip *s, const char *p, const char *e, const char **stop, json_fail *f)
{
    for (;;) {
        switch (s->state) {
        case SK_VALUE:
        case SK_VALUE_OR_CLOSE: {
            p = json_ws(p);
            NEED(p);
            char c = *p;
            if (c == ']' && s->state == SK_VALUE_OR_CLOSE) {
                p++;
                s->depth--;
                s->state = SK_AFTER;
            } else if (c == '{' || c == '[') {
                if (push(s, c == '{') != 0) return JSON_SKIP_NOMEM;
                p++;
                s->state = c == '{' ? SK_KEY_OR_CLOSE : SK_VALUE_OR_CLOSE;
            } else if (c == '"') {
                p++;
                s->in_key = 0;
                s->state = SK_STRING;
            } else if (c == '-' || json_is_digit(c)) {
                s->num = N_START;
                s->state = SK_NUMBER;
            } else if (c == 't' || c == 'f' || c == 'n') {
                s->lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
                s->lit_pos = 0;
                s->state = SK_LITERAL;
            } else {
                return error_at(p, "a value (true, false, null, a number, a string, an object or an array)", stop, f);
            }
            break;
        }
        case SK_KEY_OR_CLOSE:
        case SK_KEY:
            p = json_ws(p);
            NEED(p);
            if (*p == '}' && s->state == SK_KEY_OR_CLOSE) {
                p++;
                s->depth--;
                s->state = SK_AFTER;
            } else if (*p == '"') {
                p++;
                s->in_key = 1;
                s->state = SK_STRING;
            } else {
                return error_at(p, s->state == SK_KEY ? "a string key" : "a string key or '}'", stop, f);
            }
            break;
        case SK_COLON:
            p = json_ws(p);
            NEED(p);
            if (*p != ':') return error_at(p, "':' after an object key", stop, f);
            p++;
            s->state = SK_VALUE;
            break;
        case SK_AFTER: {
            if (s->depth == 0) {
                *stop = p;
                return JSON_SKIP_DONE;
            }
            p = json_ws(p);
            NEED(p);
            int obj = top_is_object(s);
            if (*p == ',') {
                s->state = obj ? SK_KEY : SK_VALUE;
            } else if (*p == (obj ? '}' : ']')) {
                s->depth--;
            } else {
                return error_at(p, obj ? "',' or '}' after a value" : "',' or ']' after a value", stop, f);
            }
            p++;
            break;
        }
        case SK_STRING: {
            const char *q = json_find_quote(p, e);
            if (q >= e) goto more;
            p = q + 1;
            if (*q == '\\')
                s->state = SK_ESC;
            else
                s->state = s->in_key ? SK_COLON : SK_AFTER;
            break;
        }
        case SK_ESC: {
            NEED(p);
            char c = *p;
            if (c == 'u') {
                s->hex_left = 4;
                s->state = SK_HEX;
            } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
                s->state = SK_STRING;
            } else {
                return error_at(p, "an escape ('\\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t' or '\\u')",
                                stop, f);
            }
            p++;
            break;
        }
        case SK_HEX:
            while (s->hex_left) {
                NEED(p);
                if (json_hex(*p) < 0) return error_at(p, "4 hex digits after '\\u'", stop, f);
                p++;
                s->hex_left--;
            }
            s->state = SK_STRING;
            break;
        case SK_NUMBER:
            for (;;) {
                int next = number_step(s->num, *p);
                if (next < 0) break;
                s->num = (uint8_t)next;
                p++;
            }
            NEED(p);
            if (s->num == N_ZERO && json_is_digit(*p)) return error_at(p, LEADING_ZERO, stop, f);
            if (s->num != N_INT && s->num != N_FRAC && s->num != N_EXP_DIGITS && s->num != N_ZERO)
                return error_at(p, s->num == N_DOT ? "a digit after '.'" : "a digit", stop, f);
            s->state = SK_AFTER;
            break;
        default: /* SK_LITERAL */
            while (s->lit[s->lit_pos]) {
                NEED(p);
                if (*p != s->lit[s->lit_pos])
                    return error_at(p, "a value (true, false, null, a number, a string, an object or an array)", stop,
                                    f);
                p++;
                s->lit_pos++;
            }
            s->state = SK_AFTER;
            break;
        }
    }
more:
    *stop = e;
    return JSON_SKIP_MORE;
}
