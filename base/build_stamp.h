/*
 * build_stamp.h — which commit this build was made from.  The definition is
 * generated at build time (cmake/stamp.cmake), so it is current after
 * every build, and only its own small file recompiles when it changes.
 */
#ifndef RB_BASE_BUILD_STAMP_H
#define RB_BASE_BUILD_STAMP_H

/* The commit's 12-digit hash; "-dirty" appended when a tracked file
 * differed from it at build time; "unknown" outside a git checkout. */
const char *rb__build_commit(void);

#endif
