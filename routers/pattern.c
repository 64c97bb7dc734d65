/*
 * pattern.c — the one pattern parser every router uses, and the priority key.
 *
 * A pattern is '/' followed by segments separated by '/'.  Each segment is
 * classified (DESIGN.md, "Route semantics"):
 *
 *     users          static     exact bytes (may be empty: "/" or "/a/")
 *     :id  {id}      param      one whole segment of 1+ bytes
 *     *rest {*rest}  catch-all  1+ bytes to the end; last segment only
 *     **             globstar   zero or more whole segments
 *     *.png img-??   glob       '*' any run, '?' one byte, '[set]' one byte
 *
 * A segment of exactly '*identifier' is a catch-all; any other segment with
 * '*', '?' or '[' is a glob.  '{' must open a whole-segment {name}/{*name};
 * a '}' anywhere else is an error.  Names are [A-Za-z_][A-Za-z0-9_]*.
 *
 * Errors name the byte offset of the first offending byte.  Cost: O(len)
 * time, one allocation of O(segments + len) bytes; no allocation on error
 * paths after that one is freed.
 */
#include "router_impl.h"

#include <string.h>

static bool is_name_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_name_char(unsigned char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/* Validate a name at pattern[at, at+len); returns 0 or the error. */
static int check_name(const char *pattern, size_t at, size_t len, const char *what, rb_error *err)
{
    if (len == 0) return rb__error(err, RB_EPATTERN, at, "empty %s name at byte %zu", what, at);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)pattern[at + i];
        if (i == 0 ? !is_name_start(c) : !is_name_char(c))
            return rb__error(err, RB_EPATTERN, at + i,
                             "bad character '%c' in %s name at byte %zu (names are "
                             "[A-Za-z_][A-Za-z0-9_]*)",
                             c >= 0x20 && c < 0x7f ? c : '?', what, at + i);
    }
    return RB_OK;
}

/* Validate the glob segment pattern[at, at+len) and count its literal bytes.
 * A set is '[' '!'? item+ ']' with item = byte or byte '-' byte (lo <= hi);
 * the set may not be empty and has no escapes. */
static int check_glob(const char *pattern, size_t at, size_t len, uint32_t *literal,
                      rb_error *err)
{
    uint32_t lit = 0;
    for (size_t i = 0; i < len; i++) {
        char c = pattern[at + i];
        if (c == '*' || c == '?') continue;
        if (c != '[') {
            lit++;
            continue;
        }
        size_t open = i++;
        if (i < len && pattern[at + i] == '!') i++;
        size_t items = 0;
        while (i < len && pattern[at + i] != ']') {
            if (i + 2 < len && pattern[at + i + 1] == '-' && pattern[at + i + 2] != ']') {
                if ((unsigned char)pattern[at + i] > (unsigned char)pattern[at + i + 2])
                    return rb__error(err, RB_EPATTERN, at + i,
                                     "reversed range in '[set]' at byte %zu", at + i);
                i += 3;
            } else {
                i++;
            }
            items++;
        }
        if (i >= len)
            return rb__error(err, RB_EPATTERN, at + open, "unbalanced '[' at byte %zu",
                             at + open);
        if (items == 0)
            return rb__error(err, RB_EPATTERN, at + open, "empty '[set]' at byte %zu", at + open);
    }
    *literal = lit;
    return RB_OK;
}

/* Classify pattern[at, at+len) into *s. */
static int parse_segment(const char *pattern, size_t at, size_t len, rb_segment *s, rb_error *err)
{
    const char *t = pattern + at;
    s->offset = (uint32_t)at;
    s->len = (uint32_t)len;
    s->text = t;
    s->text_len = (uint32_t)len;
    s->literal = 0;
    s->captures = 1;
    int rc;

    for (size_t i = 0; i < len; i++) {
        if (t[i] == '}' && !(t[0] == '{' && i == len - 1))
            return rb__error(err, RB_EPATTERN, at + i, "unbalanced '}' at byte %zu", at + i);
        if (t[i] == '{' && i != 0)
            return rb__error(err, RB_EPATTERN, at + i,
                             "'{' at byte %zu: braces must enclose a whole segment", at + i);
    }
    if (len > 0 && t[0] == '{') {
        if (len < 2 || t[len - 1] != '}')
            return rb__error(err, RB_EPATTERN, at, "unbalanced '{' at byte %zu", at);
        bool star = len > 2 && t[1] == '*';
        size_t name_at = at + 1 + (star ? 1u : 0u);
        size_t name_len = len - 2 - (star ? 1u : 0u);
        rc = check_name(pattern, name_at, name_len, star ? "catch-all" : "parameter", err);
        if (rc < 0) return rc;
        s->kind = star ? RB_SEG_CATCHALL : RB_SEG_PARAM;
        s->text = pattern + name_at;
        s->text_len = (uint32_t)name_len;
        return RB_OK;
    }
    if (len > 0 && t[0] == ':') {
        rc = check_name(pattern, at + 1, len - 1, "parameter", err);
        if (rc < 0) return rc;
        s->kind = RB_SEG_PARAM;
        s->text = t + 1;
        s->text_len = (uint32_t)(len - 1);
        return RB_OK;
    }
    if (len == 2 && t[0] == '*' && t[1] == '*') {
        s->kind = RB_SEG_GLOBSTAR;
        return RB_OK;
    }
    if (len >= 2 && t[0] == '*' && is_name_start((unsigned char)t[1])) {
        size_t i = 2;
        while (i < len && is_name_char((unsigned char)t[i])) i++;
        if (i == len) {
            s->kind = RB_SEG_CATCHALL;
            s->text = t + 1;
            s->text_len = (uint32_t)(len - 1);
            return RB_OK;
        }
    }
    if (memchr(t, '*', len) || memchr(t, '?', len) || memchr(t, '[', len)) {
        rc = check_glob(pattern, at, len, &s->literal, err);
        if (rc < 0) return rc;
        s->kind = RB_SEG_GLOB;
        return RB_OK;
    }
    s->kind = RB_SEG_STATIC;
    s->captures = 0;
    s->literal = (uint32_t)len;
    return RB_OK;
}

/* Is the name of capture segment b equal to an earlier one? */
static int check_duplicate_name(const rb_pattern *p, uint32_t b, rb_error *err)
{
    const rb_segment *sb = &p->segs[b];
    if (sb->kind != RB_SEG_PARAM && sb->kind != RB_SEG_CATCHALL) return RB_OK;
    for (uint32_t a = 0; a < b; a++) {
        const rb_segment *sa = &p->segs[a];
        if ((sa->kind == RB_SEG_PARAM || sa->kind == RB_SEG_CATCHALL) &&
            sa->text_len == sb->text_len && memcmp(sa->text, sb->text, sa->text_len) == 0) {
            size_t off = (size_t)(sb->text - p->text);
            return rb__error(err, RB_EPATTERN, off, "duplicate name '%.*s' at byte %zu",
                             (int)sb->text_len, sb->text, off);
        }
    }
    return RB_OK;
}

static size_t shape_piece_len(const rb_segment *s)
{
    return 1u + (s->kind == RB_SEG_PARAM      ? 2u
                 : s->kind == RB_SEG_CATCHALL ? 3u
                                              : s->len);
}

static void write_shape(rb_pattern *p)
{
    char *o = p->shape;
    for (uint32_t i = 0; i < p->nsegs; i++) {
        const rb_segment *s = &p->segs[i];
        *o++ = '/';
        if (s->kind == RB_SEG_PARAM) {
            memcpy(o, "{}", 2);
            o += 2;
        } else if (s->kind == RB_SEG_CATCHALL) {
            memcpy(o, "{*}", 3);
            o += 3;
        } else {
            memcpy(o, p->text + s->offset, s->len);
            o += s->len;
        }
    }
    *o = '\0';
    p->shape_len = (size_t)(o - p->shape);
}

static size_t storage_size(uint32_t nsegs, size_t shape_cap)
{
    return nsegs * sizeof(rb_segment) + nsegs + shape_cap;
}

size_t rb_pattern_bytes(const rb_pattern *p)
{
    return p->segs ? storage_size(p->nsegs, p->shape_len + 1u) : 0;
}

void rb_pattern_free(rb_pattern *p)
{
    if (p->segs) rb__free(p->allocator, p->segs, storage_size(p->nsegs, p->shape_len + 1u));
    p->segs = NULL;
}

int rb_pattern_parse(const char *pattern, size_t len, const rb_allocator *allocator,
                     rb_pattern *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    out->allocator = allocator ? allocator : rb__default_allocator();
    out->text = pattern;
    out->len = len;
    if (len >= UINT32_MAX)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "pattern of %zu bytes is too long", len);
    if (len == 0 || pattern[0] != '/')
        return rb__error(err, RB_EPATTERN, 0, "pattern must start with '/' (byte 0)");
    const char *nul = memchr(pattern, '\0', len);
    if (nul) {
        size_t at = (size_t)(nul - pattern);
        return rb__error(err, RB_EPATTERN, at, "NUL byte at byte %zu", at);
    }
    uint32_t nsegs = 0;
    for (size_t i = 0; i < len; i++) nsegs += pattern[i] == '/';

    /* First pass: classify into a temporary segment on the stack, to find
     * errors before allocating and to size the shape. */
    size_t shape_cap = 1;
    uint32_t ncaptures = 0;
    size_t start = 1;
    rb_segment seg;
    for (uint32_t i = 0; i < nsegs; i++) {
        const char *slash = memchr(pattern + start, '/', len - start);
        size_t end = slash ? (size_t)(slash - pattern) : len;
        int rc = parse_segment(pattern, start, end - start, &seg, err);
        if (rc < 0) return rc;
        if (seg.kind == RB_SEG_CATCHALL && i + 1 != nsegs)
            return rb__error(err, RB_EPATTERN, seg.offset,
                             "catch-all at byte %u must be the last segment", seg.offset);
        ncaptures += seg.captures;
        if (ncaptures > RB_MAX_CAPTURES)
            return rb__error(err, RB_EPATTERN, seg.offset,
                             "more than %d captures (segment at byte %u)", RB_MAX_CAPTURES,
                             seg.offset);
        shape_cap += shape_piece_len(&seg);
        start = end + 1;
    }

    char *mem = rb__alloc(out->allocator, storage_size(nsegs, shape_cap));
    if (!mem) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory parsing a pattern");
    out->segs = (rb_segment *)(void *)mem;
    out->ranks = (uint8_t *)(mem + nsegs * sizeof(rb_segment));
    out->shape = (char *)out->ranks + nsegs;
    out->nsegs = nsegs;
    out->ncaptures = ncaptures;
    start = 1;
    for (uint32_t i = 0; i < nsegs; i++) {
        const char *slash = memchr(pattern + start, '/', len - start);
        size_t end = slash ? (size_t)(slash - pattern) : len;
        rb_segment *s = &out->segs[i];
        (void)parse_segment(pattern, start, end - start, s, NULL);
        out->ranks[i] = s->kind;
        out->literal_bytes += s->literal;
        out->features |= s->kind == RB_SEG_PARAM      ? RB_FEAT_PARAMS
                         : s->kind == RB_SEG_CATCHALL ? RB_FEAT_CATCHALL
                         : s->kind == RB_SEG_STATIC   ? 0u
                                                      : RB_FEAT_GLOB;
        start = end + 1;
    }
    write_shape(out);
    for (uint32_t i = 0; i < nsegs; i++) {
        int rc = check_duplicate_name(out, i, err);
        if (rc < 0) {
            rb__free(out->allocator, mem, storage_size(nsegs, shape_cap));
            out->segs = NULL;
            return rc;
        }
    }
    /* shape_len + 1 == shape_cap, which rb_pattern_free relies on. */
    return RB_OK;
}

int rb_priority_compare(const rb_priority *a, const rb_priority *b)
{
    uint32_t n = a->nranks < b->nranks ? a->nranks : b->nranks;
    for (uint32_t i = 0; i < n; i++) {
        if (a->ranks[i] != b->ranks[i]) return a->ranks[i] < b->ranks[i] ? -1 : 1;
    }
    if (a->nranks != b->nranks) return a->nranks < b->nranks ? -1 : 1;
    if (a->any_method != b->any_method) return a->any_method ? 1 : -1;
    if (a->literal_bytes != b->literal_bytes) return a->literal_bytes > b->literal_bytes ? -1 : 1;
    if (a->id != b->id) return a->id < b->id ? -1 : 1;
    return 0;
}
