/*
 * base.c — the out-of-line parts of base.h and base_internal.h: status
 * texts, the error filler and the default allocator.  Linked into every
 * library of routebench, the installed libroutebench included.
 */
#include "base_internal.h"

#include <stdlib.h>

const char *rb_status_text(int code)
{
#define RB__STATUS_CASE(name, value, text)                                                         \
    case value:                                                                                    \
        return text;
    switch (code) {
        RB_STATUS_LIST(RB__STATUS_CASE)
    }
#undef RB__STATUS_CASE
    return "unknown status";
}

int rb__error(rb_error *err, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rb_error_vset(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

static void *default_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size);
}

static void default_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx;
    (void)size;
    free(ptr);
}

static const rb_allocator default_allocator = {default_alloc, default_realloc, default_free, NULL};

const rb_allocator *rb__default_allocator(void)
{
    return &default_allocator;
}
