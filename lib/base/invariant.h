/* base: STS_ASSERT, the library's invariants at the seams its tests cannot see from
 * outside (a permutation, a sort, a merge, an arena's block). Checked where
 * STS_ASSERTS is defined: the sanitizer, fuzz and debug builds (SAN=1, SAN=thread,
 * make fuzz, DEBUG=1, or ASSERTS=1); compiled out in release, where the condition is
 * still type-checked but never evaluated, so it may cost what it likes.
 *
 * A failed assertion is a bug of the library, never of its input: bad input gets an
 * sts_error. It prints "stepscope: internal error: FILE:LINE: assertion failed: COND"
 * on stderr and aborts. */
#ifndef STS_BASE_INVARIANT_H
#define STS_BASE_INVARIANT_H

/* Prints the message above and aborts. */
_Noreturn void sts_assert_fail(const char *file, int line, const char *cond);

#ifdef STS_ASSERTS
#define STS_ASSERT(cond) ((cond) ? (void)0 : sts_assert_fail(__FILE__, __LINE__, #cond))
#else
#define STS_ASSERT(cond) ((void)sizeof(!(cond)))
#endif

#endif
