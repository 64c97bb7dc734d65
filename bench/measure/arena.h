/*
 * arena.h — a deterministic allocator for counted measurements: the same
 * sequence of allocation calls gives the same addresses modulo
 * RB_BENCH_ARENA_ALIGN, whatever else the process has allocated before.
 *
 * Why.  Under `--metric instructions` and `cycles-est` two builds of the
 * same router must execute exactly the same instructions and, with the
 * cache simulation, touch the same cache sets.  With malloc the second
 * router's nodes land wherever the first one's left the heap, so their
 * offsets within a page (and within a cache-set stride) differ, and the C
 * library's string functions (memcmp, memchr), whose entry code branches
 * on alignment and page crossings, execute different instruction counts.
 * Each router gets an arena of its own instead: memory comes in chunks
 * mapped at RB_BENCH_ARENA_ALIGN boundaries, carved front to back, so the
 * k-th block of either router sits at the same offset from its chunk.
 *
 * Layout: chunks of RB_BENCH_ARENA_CHUNK bytes (a larger request gets a
 * chunk of its own, rounded up to the chunk size), each aligned to
 * RB_BENCH_ARENA_ALIGN; blocks are 16-byte aligned and carved in call
 * order.  free() of the most recent block of the current chunk gives its
 * bytes back (a temporary allocate-free pair costs nothing); any other
 * free() keeps the bytes until the arena is destroyed.  realloc() of the
 * most recent block grows it in place when the chunk has room, otherwise
 * allocates, copies and frees.  Cost: O(1) per call; memory: at most the
 * sum of every allocation made, plus chunk rounding.
 *
 * The allocator's ctx points at the arena itself, so an arena must not
 * move after rb_bench_arena_init.  Not thread-safe (one router is built by
 * one thread); no global state.
 * Used for counted measurements only: the time metric keeps malloc, the
 * allocator a server would use.
 */
#ifndef RB_BENCH_ARENA_H
#define RB_BENCH_ARENA_H

#include "router.h"

#include <stddef.h>

#define RB_BENCH_ARENA_ALIGN ((size_t)4 << 20) /* 4 MiB: beyond any cache's set stride */
#define RB_BENCH_ARENA_CHUNK ((size_t)4 << 20)

typedef struct rb_bench_arena_chunk rb_bench_arena_chunk;

typedef struct rb_bench_arena {
    rb_bench_arena_chunk *chunks; /* most recent first */
    char *last;                   /* the most recent block of the current chunk, or NULL */
    size_t mapped;                /* bytes mapped */
    rb_allocator allocator;       /* hands blocks out of this arena */
} rb_bench_arena;

/* An empty arena; its allocator is ready. */
void rb_bench_arena_init(rb_bench_arena *a);
/* Unmap every chunk: every block of the arena becomes invalid. */
void rb_bench_arena_destroy(rb_bench_arena *a);

#endif
