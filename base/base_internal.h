/*
 * base_internal.h — the parts of base/ that are routebench's own and not
 * installed: the out-of-line error filler every library calls, and the
 * default allocator the router front end hands to implementations.
 */
#ifndef RB_BASE_INTERNAL_H
#define RB_BASE_INTERNAL_H

#include "base.h"

/* rb_error_set, out of line (one copy of the variadic code for the whole
 * project; rb_error_set is for plugins, which link nothing of ours). */
int rb__error(rb_error *err, int code, size_t offset, const char *fmt, ...) RB_PRINTF(4, 5);

/* The C heap (malloc, realloc, free) as an rb_allocator. */
const rb_allocator *rb__default_allocator(void);

#endif
