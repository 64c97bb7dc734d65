/*
 * program.h — finding a program to start, one helper for bench/
 * (Callgrind's valgrind, a counted peer's valgrind, the HTTP lab's wrk).
 */
#ifndef RB_BENCH_PROGRAM_H
#define RB_BENCH_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

/* name as a path when it holds a '/', else the first executable name in
 * a directory of PATH (an empty entry is the current directory; no PATH:
 * /usr/local/bin:/usr/bin:/bin), written into buf.  False when there is
 * none or the path does not fit cap. */
bool rb__find_program(const char *name, char *buf, size_t cap);

#endif
