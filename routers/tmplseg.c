/*
 * tmplseg.c — matching one template segment (`img-{id}.png`, `{from}-{to}`,
 * `v{major}.{minor}`) against one path segment, with leftmost-shortest
 * captures (docs/design.md, "Route semantics").
 *
 * A template is P0 {x1} P1 {x2} ... {xk} Pk: literal pieces P0..Pk (P0 and
 * Pk may be empty, P1..Pk-1 may not: two params are apart by 1+ literal
 * bytes) and k >= 1 params, each taking 1+ bytes of the one segment.  The
 * segment must start with P0 and end with Pk; of the splits that fit, the
 * rule picks the one whose lengths (|x1|, ..., |xk|) are smallest in
 * lexicographic order (x1 as short as it can, then x2, ...).
 *
 * Algorithm: one greedy pass.  Check P0 at the start and Pk at the end;
 * the middle region M is what lies between.  Then x1 starts at the start
 * of M, and P1 is searched from one byte further on (x1 takes 1+ bytes):
 * its first occurrence inside M ends x1; x2 starts after it, P2 is
 * searched from one byte further, ...; xk is what remains of M, and must
 * not be empty.
 *
 * Why the greedy pass is exact.  Take any split S that fits and write
 * g_i, s_i for where P_i starts in the greedy pass and in S.  By induction
 * g_i <= s_i: the greedy search for P_i starts at g_{i-1} + |P_{i-1}| + 1
 * <= s_{i-1} + |P_{i-1}| + 1 <= s_i, and S's occurrence lies in M, so the
 * search finds one at or before s_i.  Hence (1) if any split fits, the
 * greedy pass never fails (its searches find a piece, and xk keeps at
 * least the byte S gives it: g_{k-1} + |P_{k-1}| <= s_{k-1} + |P_{k-1}| <
 * end of M); (2) the greedy split is the leftmost-shortest one: applied
 * to the leftmost-shortest split L, g_1 <= s_1 gives |x1| <= L's, and
 * minimality of L gives equality; with x1 equal the same argument gives
 * x2, and so on.  tests/test_pattern.c checks this against a brute force
 * over every split, for every segment of up to 7 bytes over a small
 * alphabet and templates with overlapping pieces ({a}.{b} on "..x",
 * {a}-x-{b} on "1-x-2-x-3").
 *
 * Cost: each piece is searched once, from where the previous one ended,
 * so the pass moves left to right over the segment; a candidate position
 * is found with memchr on the piece's first byte and compared, so the
 * worst case is O(seg_len * longest middle piece) steps and a template
 * with no middle piece (`{sid}.json`, `img-{id}.png`) costs two compares.
 * Piece lengths are the route author's, not the request's: for a given
 * table the cost is linear in the segment.  No allocation, no recursion.
 *
 * The template text was validated by the parser (balanced braces, 1+
 * params, no '/'); names may be empty (a shape, `{}.json`).
 */
#include "router_impl.h"

#include <string.h>

uint32_t rb__template_params(const char *t, size_t t_len)
{
    uint32_t k = 0;
    for (size_t i = 0; i < t_len; i++) k += t[i] == '{';
    return k;
}

size_t rb__template_prefix(const char *t, size_t t_len)
{
    size_t i = 0;
    while (i < t_len && t[i] != '{') i++;
    return i;
}

size_t rb__template_shape(const char *t, size_t t_len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < t_len; i++) {
        out[o++] = t[i];
        if (t[i] != '{') continue;
        while (t[i] != '}') i++;
        out[o++] = '}';
    }
    return o;
}

size_t rb__template_shape_len(const char *t, size_t t_len)
{
    size_t n = 0;
    for (size_t i = 0; i < t_len; i++, n++)
        if (t[i] == '{')
            while (t[i + 1] != '}') i++;
    return n;
}

bool rb__template_same_shape(const char *a, size_t a_len, const char *b, size_t b_len)
{
    size_t i = 0, j = 0;
    for (; i < a_len && j < b_len; i++, j++) {
        if (a[i] != b[j]) return false;
        if (a[i] != '{') continue;
        while (a[i + 1] != '}') i++;
        while (b[j + 1] != '}') j++;
    }
    return i == a_len && j == b_len;
}

uint64_t rb__template_shape_hash(const char *t, size_t t_len, uint64_t seed)
{
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < t_len; i++) {
        h = (h ^ (unsigned char)t[i]) * 1099511628211ull;
        if (t[i] == '{')
            while (t[i + 1] != '}') i++;
    }
    return h;
}

/* First q in [from, lim - m] where seg[q, q + m) equals piece[0, m)
 * (m >= 1), or SIZE_MAX. */
static size_t find_piece(const char *seg, size_t from, size_t lim, const char *piece, size_t m,
                         uint64_t *steps)
{
    while (from + m <= lim) {
        const char *at = memchr(seg + from, piece[0], lim - m + 1 - from);
        if (!at) {
            *steps += lim - m + 1 - from;
            return SIZE_MAX;
        }
        size_t q = (size_t)(at - seg);
        *steps += q - from + m;
        if (memcmp(seg + q + 1, piece + 1, m - 1) == 0) return q;
        from = q + 1;
    }
    return SIZE_MAX;
}

bool rb__template_match(const char *t, size_t t_len, const char *seg, size_t seg_len, uint32_t base,
                        rb_span *caps, uint64_t *steps)
{
    uint64_t n = 0;
    size_t open = 0, close = t_len;
    while (t[open] != '{') open++;       /* end of P0 */
    while (t[close - 1] != '}') close--; /* start of Pk */
    size_t suffix = t_len - close;
    bool ok = false;
    n += open + suffix;
    if (seg_len < open + suffix + 1 || memcmp(seg, t, open) != 0 ||
        memcmp(seg + seg_len - suffix, t + close, suffix) != 0)
        goto done;
    size_t lim = seg_len - suffix; /* the middle region is seg[open, lim) */
    size_t pos = open;             /* where the next param starts */
    uint32_t c = 0;
    for (size_t i = open;;) { /* t[i] == '{' */
        size_t piece = i + 1;
        while (t[piece - 1] != '}') piece++; /* after the param's '}' */
        if (piece == close) {                /* the last param takes the rest */
            ok = lim > pos;
            if (ok) caps[c] = (rb_span){base + (uint32_t)pos, (uint32_t)(lim - pos)};
            goto done;
        }
        size_t next = piece;
        while (t[next] != '{') next++;
        size_t q = find_piece(seg, pos + 1, lim, t + piece, next - piece, &n);
        if (q == SIZE_MAX) goto done;
        caps[c++] = (rb_span){base + (uint32_t)pos, (uint32_t)(q - pos)};
        pos = q + (next - piece);
        i = next;
    }
done:
    if (steps) *steps += n + 1;
    return ok;
}
