/*
 * arena.c — the deterministic allocator of counted measurements (arena.h).
 */
#define _DEFAULT_SOURCE
#include "arena.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define BLOCK_ALIGN 16u

/* A chunk: this header, then blocks carved front to back. */
struct rb_bench_arena_chunk {
    rb_bench_arena_chunk *next;
    size_t size; /* mapped bytes, header included */
    size_t used; /* bytes carved, header included */
};

/* The header rounded up to the block alignment. */
#define HEADER ((sizeof(rb_bench_arena_chunk) + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1))

static size_t round_up(size_t n, size_t to)
{
    return n > SIZE_MAX - (to - 1) ? 0 : (n + to - 1) / to * to;
}

/* Map size bytes (a multiple of the alignment) at an aligned address: map
 * size + ALIGN and unmap the ends. */
static void *map_aligned(size_t size)
{
    size_t span = size + RB_BENCH_ARENA_ALIGN;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uintptr_t start =
        ((uintptr_t)p + RB_BENCH_ARENA_ALIGN - 1) & ~(uintptr_t)(RB_BENCH_ARENA_ALIGN - 1);
    char *aligned = (char *)start;
    if (aligned > p) munmap(p, (size_t)(aligned - p));
    size_t tail = (size_t)(p + span - (aligned + size));
    if (tail) munmap(aligned + size, tail);
    return aligned;
}

static rb_bench_arena_chunk *add_chunk(rb_bench_arena *a, size_t need)
{
    size_t size = round_up(HEADER + need, RB_BENCH_ARENA_CHUNK);
    if (size == 0 || size > SIZE_MAX - RB_BENCH_ARENA_ALIGN) return NULL;
    rb_bench_arena_chunk *c = map_aligned(size);
    if (!c) return NULL;
    c->next = a->chunks;
    c->size = size;
    c->used = HEADER;
    a->chunks = c;
    a->mapped += size;
    return c;
}

static void *arena_alloc(void *ctx, size_t size)
{
    rb_bench_arena *a = ctx;
    size_t n = round_up(size ? size : 1, BLOCK_ALIGN);
    if (n == 0) return NULL;
    rb_bench_arena_chunk *c = a->chunks;
    if (!c || c->size - c->used < n) c = add_chunk(a, n);
    if (!c) return NULL;
    char *p = (char *)c + c->used;
    c->used += n;
    a->last = p;
    return p;
}

static void arena_free(void *ctx, void *ptr, size_t size)
{
    rb_bench_arena *a = ctx;
    if (!ptr || ptr != a->last) return;
    rb_bench_arena_chunk *c = a->chunks;
    c->used -= round_up(size ? size : 1, BLOCK_ALIGN);
    a->last = NULL; /* the block before it is not known: keep it */
}

static void *arena_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size)
{
    rb_bench_arena *a = ctx;
    if (!ptr) return arena_alloc(ctx, new_size);
    size_t old_n = round_up(old_size ? old_size : 1, BLOCK_ALIGN);
    size_t new_n = round_up(new_size ? new_size : 1, BLOCK_ALIGN);
    if (new_n == 0) return NULL;
    rb_bench_arena_chunk *c = a->chunks;
    if (ptr == a->last && c->size - (c->used - old_n) >= new_n) {
        c->used = c->used - old_n + new_n;
        return ptr;
    }
    void *grown = arena_alloc(ctx, new_size);
    if (!grown) return NULL;
    memcpy(grown, ptr, old_size < new_size ? old_size : new_size);
    return grown; /* the old block stays carved: it is not the last one now */
}

void rb_bench_arena_init(rb_bench_arena *a)
{
    memset(a, 0, sizeof *a);
    a->allocator = (rb_allocator){arena_alloc, arena_realloc, arena_free, a};
}

void rb_bench_arena_destroy(rb_bench_arena *a)
{
    rb_bench_arena_chunk *c = a->chunks;
    while (c) {
        rb_bench_arena_chunk *next = c->next;
        munmap(c, c->size);
        c = next;
    }
    rb_bench_arena_init(a);
}
