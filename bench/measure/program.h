/*
 * program.h — finding a program to start and reaping it, one helper each
 * for bench/ (Callgrind's valgrind, a peer runner, the HTTP lab's wrk, the
 * compiled router's compiler).
 */
#ifndef RB_BENCH_PROGRAM_H
#define RB_BENCH_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* name as a path when it holds a '/', else the first executable name in
 * a directory of PATH (an empty entry is the current directory; no PATH:
 * /usr/local/bin:/usr/bin:/bin), written into buf.  False when there is
 * none or the path does not fit cap. */
bool rb__find_program(const char *name, char *buf, size_t cap);

/* No time budget for rb__reap_child: wait as long as the child runs. */
#define RB_REAP_FOREVER UINT64_MAX

/* Waits for child pid to exit, an interrupted wait retried, at most
 * budget_ms (RB_REAP_FOREVER: no limit); past it, kills the child with
 * SIGKILL (its whole process group when group) and reaps it.  *status is
 * the wait status.  1 when the child exited within the budget, 0 when it
 * was killed, -1 when it cannot be waited for (errno says why). */
int rb__reap_child(pid_t pid, uint64_t budget_ms, bool group, int *status);

#endif
