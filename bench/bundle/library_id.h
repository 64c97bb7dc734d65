/*
 * library_id.h — the identity of a plugin library file, for result bundles:
 * which bytes were measured when a router is named NAME@LIB.  Path (made
 * absolute with realpath when possible), size, the XXH3-64 hash of the
 * file's bytes, and the commit the library says it was built from
 * (bench/measure/plugins.h, RB_PLUGIN_COMMIT_SYMBOL).
 */
#ifndef RB_BENCH_LIBRARY_ID_H
#define RB_BENCH_LIBRARY_ID_H

#include "bundle.h"

/* Fill *out for the library at path (label: the NAME@LIB router; commit:
 * "" when unknown).  RB_EIO when the file cannot be read. */
int rb_library_identify(const char *label, const char *path, const char *commit,
                        rb_bundle_library *out, rb_error *err);

#endif
