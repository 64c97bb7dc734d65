/*
 * fuzz_glob.c — libFuzzer target: the glob and template segment matchers
 * with adversarial inputs.  Input: GLOB, a NUL byte, SEGMENT.  The glob (or
 * template: img-{id}.png) must first be accepted by the parser as one glob
 * (template) segment; then matching must finish within
 * (len(glob) + 1) * (len(segment) + 1) steps — the bound globseg.c and
 * tmplseg.c state — and a template's match must be a split of the segment:
 * its pieces, in order, between captures of 1+ bytes.
 */
#include "router_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Is caps[0, k) a split of seg by template t: piece, capture, piece, ... ? */
static bool is_split(const char *t, size_t tn, const char *seg, size_t n, const rb_span *caps)
{
    size_t pos = 0, c = 0;
    for (size_t i = 0; i < tn; i++) {
        if (t[i] != '{') {
            if (pos >= n || seg[pos] != t[i]) return false;
            pos++;
            continue;
        }
        while (t[i] != '}') i++;
        if (caps[c].offset != pos || caps[c].len == 0 || caps[c].len > n - pos) return false;
        pos += caps[c++].len;
    }
    return pos == n;
}

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
        if (p.nsegs == 1 && p.segs[0].kind == RB_SEG_TEMPLATE) {
            uint64_t steps = 0;
            rb_span caps[RB_MAX_CAPTURES];
            const char *t = p.segs[0].text;
            size_t tn = p.segs[0].text_len;
            bool ok = rb__template_match(t, tn, seg, seg_len, 0, caps, &steps);
            uint64_t bound = (uint64_t)(glob_len + 1) * (seg_len + 1);
            if (steps > bound || (ok && !is_split(t, tn, seg, seg_len, caps))) {
                fprintf(stderr, "fuzz_glob: template %llu steps (bound %llu), match %d\n",
                        (unsigned long long)steps, (unsigned long long)bound, ok);
                abort();
            }
        }
        rb_pattern_free(&p);
    }
    free(pattern);
    return 0;
}
