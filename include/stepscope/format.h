/* stepscope/format.h: how stepscope writes numbers for people, the same in the CLI,
 * the ledger text and the HTML report; and how text from an input is made harmless
 * for a terminal or a spreadsheet. */
#ifndef STEPSCOPE_FORMAT_H
#define STEPSCOPE_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for any duration sts_fmt_duration() writes for |ns| < 2^63, NUL included. */
#define STS_FMT_DURATION_MAX 24

/* Writes the duration `ns` (nanoseconds) into buf (n bytes, NUL included; longer text is
 * cut) with the rule:
 *   - the unit is the largest of s, ms, µs (U+00B5), ns not larger than |ns|, after
 *     rounding: 999.7 µs is "1.00 ms", never "1000 µs";
 *   - a whole number of that unit is written exactly, without decimals: "12 ns",
 *     "5 µs", "3600 s";
 *   - anything else with three significant digits: "1.05 ms", "812 µs", "21.3 ms",
 *     "2.50 ns" (rounded to nearest; at most three decimals, "0.001 ns"; from 1000 s up,
 *     whole seconds: "1235 s");
 *   - a negative duration gets an ASCII '-': "-1.20 µs";
 *   - NaN (what the input cannot tell) is "unknown", as are the infinities.
 * Whole-unit detection is exact for any integer |ns| < 2^53 (104 days); beyond 2^63 ns
 * the number is written with three significant digits in seconds ("1.23e+20 s"). */
void sts_fmt_duration(double ns, char *buf, size_t n);

/* The printf field width ("%*s") that right-aligns the UTF-8 text s in `width`
 * terminal columns, one per character: `width` plus the bytes s has beyond its
 * characters, so a table of durations stays aligned although "µs" takes two bytes for
 * one column. A longer s is printed whole, never cut. */
int sts_fmt_field(const char *s, int width);

/* Writes the n bytes of s to f with every byte or character a terminal would obey
 * replaced by '?': the C0 controls (ESC, BEL, a newline in a name), DEL, and the C1
 * controls, whether as UTF-8 (U+0080..U+009F) or as a lone byte 0x80..0x9F. Every
 * name that comes from an input (a trace, a log) goes to a terminal through this, in
 * tables, headers and warnings alike. Returns 0, or EOF when f failed. */
int sts_fmt_put_text(FILE *f, const char *s, size_t n);

/* 1 when the CSV text cell s (n bytes) would be read by a spreadsheet as a formula:
 * it starts with '=', '+', '-', '@', a tab or a carriage return (OWASP's list) and is
 * not a plain decimal number ("-12", "-1.5e3" stay numbers). Every CSV writer writes
 * such a cell quoted, with a "'" before its first byte (docs/csv.md). */
int sts_csv_formula(const char *s, size_t n);

#ifdef __cplusplus
}
#endif
#endif
