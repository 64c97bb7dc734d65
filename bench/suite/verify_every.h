/*
 * verify_every.h — `routebench verify --all`: every router, the registry's
 * and the plugins' (labelled NAME@LIB), on every shipped corpus whose
 * features it supports (bench/measure/verify.h does each run).  Nothing
 * here prints: each run goes to the caller's callback.
 */
#ifndef RB_BENCH_VERIFY_EVERY_H
#define RB_BENCH_VERIFY_EVERY_H

#include "plugins.h"
#include "verify.h"

/* rb_verify_all on the registry's routers, then plugins' (may be NULL).
 * RB_ENOMEM, or rb_verify_all's result. */
int rb_verify_every(const rb_plugins *plugins, rb_verify_each_fn each, void *ctx,
                    rb_verify_totals *tot, rb_error *err);

#endif
