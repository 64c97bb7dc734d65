/*
 * fuzz_glob.c — libFuzzer target: the glob segment matcher with adversarial
 * globs.  Input: GLOB, a NUL byte, SEGMENT.  The glob must first be accepted
 * by the parser as a glob segment; then matching must finish within
 * (len(glob) + 1) * (len(segment) + 1) steps — the bound globseg.c states.
 */
#include "router_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *nul = memchr(in, '\0', size);
    if (!nul || nul == in) return 0;
    size_t glob_len = (size_t)(nul - in);
    const char *seg = nul + 1;
    size_t seg_len = size - glob_len - 1;
    if (memchr(seg, '/', seg_len)) return 0;

    char *pattern = malloc(glob_len + 1);
    if (!pattern) return 0;
    pattern[0] = '/';
    memcpy(pattern + 1, in, glob_len);
    rb_pattern p;
    if (rb_pattern_parse(pattern, glob_len + 1, NULL, &p, NULL) == RB_OK) {
        if (p.nsegs == 1 && p.segs[0].kind == RB_SEG_GLOB) {
            uint64_t steps = 0;
            (void)rb_glob_segment_match(p.segs[0].text, p.segs[0].text_len, seg, seg_len, &steps);
            uint64_t bound = (uint64_t)(glob_len + 1) * (seg_len + 1);
            if (steps > bound) {
                fprintf(stderr, "fuzz_glob: %llu steps > bound %llu\n", (unsigned long long)steps,
                        (unsigned long long)bound);
                abort();
            }
        }
        rb_pattern_free(&p);
    }
    free(pattern);
    return 0;
}
