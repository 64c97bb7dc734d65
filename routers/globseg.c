/*
 * globseg.c — matching one glob segment ('*', '?', '[set]', '[!set]',
 * literal bytes) against one path segment.
 *
 * Algorithm: the classic single-backtrack-point wildcard match.  When a '*'
 * is met, remember it and the text position; on a mismatch, return to the
 * last '*' and let it take one more byte.  Only the last '*' ever needs
 * revisiting (an earlier '*' can absorb nothing a later one cannot), so the
 * cost is O(len(glob) * len(segment)) steps in the worst case and O(len)
 * for globs with at most one '*'.  No allocation, no recursion.
 *
 * The glob text was validated by the parser (balanced, non-empty sets).
 */
#include "router_impl.h"

/* Does byte c belong to the set starting at glob[at] == '['?  *next gets
 * the index after the closing ']'. */
static bool set_contains(const char *glob, size_t at, unsigned char c, size_t *next)
{
    size_t i = at + 1;
    bool negate = glob[i] == '!';
    if (negate) i++;
    bool found = false;
    while (glob[i] != ']') {
        unsigned char lo = (unsigned char)glob[i], hi = lo;
        if (glob[i + 1] == '-' && glob[i + 2] != ']') {
            hi = (unsigned char)glob[i + 2];
            i += 3;
        } else {
            i++;
        }
        if (c >= lo && c <= hi) found = true;
    }
    *next = i + 1;
    return found != negate;
}

bool rb_glob_segment_match(const char *glob, size_t glob_len, const char *seg, size_t seg_len,
                           uint64_t *steps)
{
    size_t g = 0, s = 0;
    size_t star_g = SIZE_MAX, star_s = 0;
    uint64_t n = 0;
    while (s < seg_len || g < glob_len) {
        n++;
        if (g < glob_len) {
            char c = glob[g];
            if (c == '*') {
                star_g = g++;
                star_s = s;
                continue;
            }
            if (s < seg_len) {
                size_t next = g + 1;
                bool ok = c == '?'   ? true
                          : c == '[' ? set_contains(glob, g, (unsigned char)seg[s], &next)
                                     : c == seg[s];
                if (ok) {
                    g = next;
                    s++;
                    continue;
                }
            }
        }
        if (star_g == SIZE_MAX || star_s >= seg_len) {
            if (steps) *steps += n;
            return false;
        }
        g = star_g + 1;
        s = ++star_s;
    }
    if (steps) *steps += n;
    return true;
}
