/*
 * base.h — what every part of routebench shares, and the one place it is
 * defined: the export macro RB_API, the status codes and their texts, the
 * error record rb_error, the allocator type, and the helpers that fill an
 * error or allocate through an allocator.
 *
 * Installed as <routebench/base.h> (router.h includes it), so it depends on
 * the C library only.  The helpers are `static inline`: a router plugin
 * (router_plugin.h) uses them without linking anything of ours, and the
 * project's own code uses the very same functions.
 *
 * Errors are values: 0 (RB_OK) or a negative RB_E* code, with the details in
 * an rb_error the caller owns.  Nothing here prints, aborts, exits or keeps
 * global state.
 */
#ifndef RB_BASE_H
#define RB_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the functions libroutebench.so exports (everything else is hidden). */
#if defined(__GNUC__)
#define RB_API __attribute__((visibility("default")))
#else
#define RB_API
#endif

#if defined(__GNUC__)
#define RB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define RB_PRINTF(fmt, args)
#endif

/* ---- status codes: one list generates the enum and its strings ---------- */

#define RB_STATUS_LIST(X)                                                                          \
    X(RB_OK, 0, "ok")                                                                              \
    X(RB_ENOMEM, -1, "out of memory")                                                              \
    X(RB_EPATTERN, -2, "malformed pattern")                                                        \
    X(RB_EUNSUPPORTED, -3, "pattern uses a feature this router does not support")                  \
    X(RB_EDUPLICATE, -4, "duplicate route (same method and shape)")                                \
    X(RB_EMETHOD, -5, "unknown method")                                                            \
    X(RB_ESTATE, -6, "call not valid in this state")                                               \
    X(RB_ELIMIT, -7, "a limit of the router was exceeded")                                         \
    X(RB_EIO, -8, "input/output error")                                                            \
    X(RB_EFORMAT, -9, "malformed input line")                                                      \
    X(RB_EINVAL, -10, "invalid argument")                                                          \
    X(RB_ENOTFOUND, -11, "no such router")                                                         \
    X(RB_EABI, -12, "incompatible plugin ABI")

#define RB__STATUS_ENUM(name, value, text) name = value,
typedef enum rb_status { RB_STATUS_LIST(RB__STATUS_ENUM) } rb_status;
#undef RB__STATUS_ENUM

/* The fixed text of a status code ("unknown status" for others). */
RB_API const char *rb_status_text(int code);

/* ---- errors ------------------------------------------------------------- */

/* Sentinel for "no byte offset" in rb_error.offset. */
#define RB_NO_OFFSET SIZE_MAX

/* Details of the last failure of a call.  Owned by the caller; the library
 * fills it without allocating.  message is always NUL-terminated. */
typedef struct rb_error {
    int code;      /* RB_E* (negative), RB_OK when nothing failed */
    size_t offset; /* byte offset in the pattern, or RB_NO_OFFSET */
    size_t line;   /* 1-based line in a file, or 0 */
    char message[256];
} rb_error;

/* Fill err (may be NULL) with code, offset, line 0 and a printf-style
 * message (truncated to fit); returns code.  Never allocates. */
static inline int rb_error_vset(rb_error *err, int code, size_t offset, const char *fmt, va_list ap)
    RB_PRINTF(4, 0);
static inline int rb_error_vset(rb_error *err, int code, size_t offset, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        err->offset = offset;
        err->line = 0;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
    }
    return code;
}

static inline int rb_error_set(rb_error *err, int code, size_t offset, const char *fmt, ...)
    RB_PRINTF(4, 5);
static inline int rb_error_set(rb_error *err, int code, size_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rb_error_vset(err, code, offset, fmt, ap);
    va_end(ap);
    return code;
}

/* ---- allocators --------------------------------------------------------- */

/* An allocator.  All three functions receive ctx.  free_fn and realloc_fn
 * receive the size the block was allocated with.  realloc_fn may be NULL
 * (alloc + copy + free is used). */
typedef struct rb_allocator {
    void *(*alloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free_fn)(void *ctx, void *ptr, size_t size);
    void *ctx;
} rb_allocator;

/* Allocation through allocator a; a == NULL means the C heap (malloc,
 * realloc, free: a block from it may be given to free()).  A size of 0 is
 * taken as 1, so a block is never NULL on success.  rb_free(a, NULL, n)
 * does nothing; size is the size the block was allocated with. */
static inline void *rb_alloc(const rb_allocator *a, size_t size)
{
    if (size == 0) size = 1;
    return a ? a->alloc_fn(a->ctx, size) : malloc(size);
}

static inline void *rb_calloc(const rb_allocator *a, size_t size)
{
    void *p = rb_alloc(a, size);
    if (p) memset(p, 0, size);
    return p;
}

static inline void rb_free(const rb_allocator *a, void *ptr, size_t size)
{
    if (!ptr) return;
    if (a)
        a->free_fn(a->ctx, ptr, size ? size : 1);
    else
        free(ptr);
}

/* ptr (a block of old_size bytes, or NULL) moved to a block of new_size
 * bytes; NULL when memory runs out, ptr untouched then. */
static inline void *rb_realloc(const rb_allocator *a, void *ptr, size_t old_size, size_t new_size)
{
    if (new_size == 0) new_size = 1;
    if (ptr == NULL) return rb_alloc(a, new_size);
    if (old_size == 0) old_size = 1;
    if (!a) return realloc(ptr, new_size);
    if (a->realloc_fn) return a->realloc_fn(a->ctx, ptr, old_size, new_size);
    void *q = a->alloc_fn(a->ctx, new_size);
    if (!q) return NULL;
    memcpy(q, ptr, old_size < new_size ? old_size : new_size);
    a->free_fn(a->ctx, ptr, old_size);
    return q;
}

/* The one growth rule for arrays.  arrp is the address of an array pointer
 * (T **) whose array holds *cap elements of elem bytes.  Makes room for at
 * least need elements: nothing changes when *cap >= need; otherwise the
 * capacity becomes the smallest min_cap * 2^k >= need (min_cap >= 1) and
 * the array moves through rb_realloc.  RB_OK, or RB_ENOMEM (also when the
 * size would overflow) with the array and *cap unchanged.  The pointer is
 * read and written with memcpy, which assumes that T * and void * share a
 * representation (true on every platform routebench builds on). */
static inline int rb_grow(const rb_allocator *a, void *arrp, size_t *cap, size_t need, size_t elem,
                          size_t min_cap)
{
    if (need <= *cap) return RB_OK;
    if (elem == 0 || need > SIZE_MAX / elem) return RB_ENOMEM;
    size_t ncap = *cap ? *cap : (min_cap ? min_cap : 1);
    while (ncap < need) ncap = ncap > SIZE_MAX / elem / 2 ? need : ncap * 2;
    void *old;
    memcpy(&old, arrp, sizeof old);
    void *grown = rb_realloc(a, old, *cap * elem, ncap * elem);
    if (!grown) return RB_ENOMEM;
    memcpy(arrp, &grown, sizeof grown);
    *cap = ncap;
    return RB_OK;
}

#ifdef __cplusplus
}
#endif
#endif
