/* stepscope/version.h: the version of the headers and of the library linked. */
#ifndef STEPSCOPE_VERSION_H
#define STEPSCOPE_VERSION_H

#define STS_VERSION_MAJOR  0
#define STS_VERSION_MINOR  1
#define STS_VERSION_PATCH  0
#define STS_VERSION_NUMBER (STS_VERSION_MAJOR * 10000 + STS_VERSION_MINOR * 100 + STS_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version as "MAJOR.MINOR.PATCH"; static storage. Compare with
 * STS_VERSION_* to detect a header/library mismatch. */
const char *sts_version(void);

/* The library's version as STS_VERSION_NUMBER would spell it. */
unsigned sts_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
