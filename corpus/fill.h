/*
 * fill.h — random request paths that a route's pattern matches.
 *
 * Static segments are copied; every other segment gets random bytes that no
 * static word of the table equals, so a filled path is meant for its route
 * (linear still decides who takes it: a higher-priority route may):
 *
 *     param        1..10 of [a-z0-9] (digits, hex-like or slug-like)
 *     catch-all    1..3 such segments joined by '/'
 *     '**'         1..3 such segments, or none (one time in four)
 *     glob         '*' 0..4 bytes, '?' one byte, '[set]' a byte of the set
 *                  ([!set]: a byte outside it), other bytes copied
 *
 * Determinism: only rb_rng_below draws (stats/rng.h).
 */
#ifndef RB_CORPUS_FILL_H
#define RB_CORPUS_FILL_H

#include "rng.h"
#include "shape_tree.h"

/* A random value of 1..10 bytes of [a-z0-9] that is not a static word of
 * the table, written to buf (cap >= 12); returns its length. */
size_t rb_fill_value(const rb_shape_tree *st, rb_rng *rng, char *buf);

/* A random path for route r into buf[0, cap); returns its length, or 0 when
 * it does not fit.  Never NUL-dependent: buf is not terminated. */
size_t rb_fill_path(const rb_shape_tree *st, uint32_t r, rb_rng *rng, char *buf, size_t cap);

/* A random method that fits route r (its own, or any for '*'). */
int rb_fill_method(const rb_shape_tree *st, uint32_t r, rb_rng *rng);

#endif
