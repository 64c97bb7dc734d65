/*
 * fill.c — random request paths for a route (see fill.h).
 */
#include "fill.h"

#include <string.h>

static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
#define NALNUM (sizeof alnum - 1)

static uint32_t below(rb_rng *rng, uint32_t n)
{
    return (uint32_t)rb_rng_below(rng, n);
}

static size_t random_value(rb_rng *rng, char *buf)
{
    size_t len;
    switch (below(rng, 3)) {
    case 0: /* a numeric id */
        len = 1 + below(rng, 7);
        for (size_t i = 0; i < len; i++) buf[i] = (char)('0' + below(rng, 10));
        break;
    case 1: /* hex-like */
        len = 8;
        for (size_t i = 0; i < len; i++) buf[i] = "0123456789abcdef"[below(rng, 16)];
        break;
    default: /* slug-like */
        len = 2 + below(rng, 9);
        for (size_t i = 0; i < len; i++) buf[i] = alnum[below(rng, NALNUM)];
        break;
    }
    return len;
}

size_t rb_fill_value(const rb_shape_tree *st, rb_rng *rng, char *buf)
{
    for (;;) {
        size_t len = random_value(rng, buf);
        if (!rb_st_is_word(st, buf, len)) return len;
    }
}

/* Is byte c in the set text[0, len) (without brackets or '!')? */
static bool in_set(const char *text, size_t len, unsigned char c)
{
    for (size_t i = 0; i < len;) {
        if (i + 2 < len && text[i + 1] == '-') {
            if (c >= (unsigned char)text[i] && c <= (unsigned char)text[i + 2]) return true;
            i += 3;
        } else {
            if (c == (unsigned char)text[i]) return true;
            i++;
        }
    }
    return false;
}

/* One byte of the set (negated: outside it), preferring [a-z0-9]. */
static char set_byte(rb_rng *rng, const char *text, size_t len, bool negated)
{
    char pool[128];
    size_t n = 0;
    for (size_t i = 0; i < NALNUM; i++)
        if (in_set(text, len, (unsigned char)alnum[i]) != negated) pool[n++] = alnum[i];
    if (n == 0) {
        for (int c = 0x21; c < 0x7f; c++)
            if (c != '/' && in_set(text, len, (unsigned char)c) != negated) pool[n++] = (char)c;
    }
    if (n == 0) {
        for (size_t i = 0; i < len; i++) /* a set of other bytes only */
            if ((unsigned char)text[i] != '/' && !negated) return text[i];
        return '~';
    }
    return pool[below(rng, (uint32_t)n)];
}

/* Bytes matching glob text[0, len) into out (cap >= 5 * len); returns the
 * length. */
static size_t glob_value(rb_rng *rng, const char *text, size_t len, char *out)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '*') {
            uint32_t run = below(rng, 5);
            for (uint32_t k = 0; k < run; k++) out[w++] = alnum[below(rng, NALNUM)];
        } else if (c == '?') {
            out[w++] = alnum[below(rng, NALNUM)];
        } else if (c == '[') {
            size_t b = i + 1;
            bool negated = b < len && text[b] == '!';
            if (negated) b++;
            /* a valid set has 1+ items and no ']' among them */
            size_t e = b + 1;
            while (e < len && text[e] != ']') e++;
            out[w++] = set_byte(rng, text + b, e - b, negated);
            i = e;
        } else {
            out[w++] = c;
        }
    }
    return w;
}

/* Bytes matching template text[0, len) into out (cap >= len + 10 per
 * param): its literal bytes, a random value for each param; returns the
 * length. */
static size_t template_value(const rb_shape_tree *st, rb_rng *rng, const char *text, size_t len,
                             char *out)
{
    size_t w = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '{') {
            out[w++] = text[i];
            continue;
        }
        while (text[i] != '}') i++;
        w += rb_fill_value(st, rng, out + w);
    }
    return w;
}

size_t rb_fill_path(const rb_shape_tree *st, uint32_t r, rb_rng *rng, char *buf, size_t cap)
{
    uint32_t chain[256];
    size_t depth = 0;
    for (uint32_t x = st->route_node[r]; x != RB_ST_ROOT; x = st->nodes[x].parent) {
        if (depth == sizeof chain / sizeof chain[0]) return 0;
        chain[depth++] = x;
    }
    size_t w = 0, nsegs = 0;
    char seg[1024];
#define PUT(p, n)                                                                                  \
    do {                                                                                           \
        size_t n_ = (n);                                                                           \
        if (w + n_ > cap) return 0;                                                                \
        memcpy(buf + w, (p), n_);                                                                  \
        w += n_;                                                                                   \
    } while (0)
    for (size_t i = depth; i-- > 0;) {
        const rb_st_node *n = &st->nodes[chain[i]];
        size_t len = 0;
        uint32_t reps = 1;
        switch (n->kind) {
        case RB_SEG_STATIC:
            PUT("/", 1);
            PUT(rb_st_text(st, n), n->text_len);
            nsegs++;
            continue;
        case RB_SEG_GLOB:
            if ((size_t)n->text_len * 5 > sizeof seg) return 0;
            for (int tries = 0; tries < 8; tries++) {
                len = glob_value(rng, rb_st_text(st, n), n->text_len, seg);
                if (!rb_st_is_word(st, seg, len)) break;
            }
            PUT("/", 1);
            PUT(seg, len);
            nsegs++;
            continue;
        case RB_SEG_TEMPLATE:
            if ((size_t)n->text_len * 10 > sizeof seg) return 0;
            for (int tries = 0; tries < 8; tries++) {
                len = template_value(st, rng, rb_st_text(st, n), n->text_len, seg);
                if (!rb_st_is_word(st, seg, len)) break;
            }
            PUT("/", 1);
            PUT(seg, len);
            nsegs++;
            continue;
        case RB_SEG_CATCHALL:
            reps = 1 + below(rng, 3);
            break;
        case RB_SEG_GLOBSTAR:
            /* zero segments one time in four: such paths are often taken by
             * the route of the prefix itself */
            reps = below(rng, 4) == 0 ? 0 : 1 + below(rng, 3);
            /* a path has at least one segment */
            if (reps == 0 && nsegs == 0 && i == 0) reps = 1;
            break;
        default: /* param */
            break;
        }
        for (uint32_t k = 0; k < reps; k++) {
            len = rb_fill_value(st, rng, seg);
            PUT("/", 1);
            PUT(seg, len);
            nsegs++;
        }
    }
#undef PUT
    return w;
}

int rb_fill_method(const rb_shape_tree *st, uint32_t r, rb_rng *rng)
{
    int m = st->table->routes[r].method;
    if (m != RB_ANY) return m;
    /* '*': GET half of the time, else any method */
    return below(rng, 2) ? RB_GET : (int)below(rng, RB_METHOD_COUNT);
}
