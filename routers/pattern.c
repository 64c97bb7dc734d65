/*
 * pattern.c — the one pattern parser every router uses; it computes the parts
 * of the priority key (ranks, literal bytes), which rb_priority_compare
 * (router_plugin.h) orders.
 *
 * A pattern is '/' followed by segments separated by '/'.  Each segment is
 * classified (docs/design.md, "Route semantics"):
 *
 *     users          static     exact bytes (may be empty: "/" or "/a/")
 *     :id  {id}      param      one whole segment of 1+ bytes
 *     img-{id}.png   template   {name} params among literal bytes (rank 1)
 *     *rest {*rest}  catch-all  1+ bytes to the end; last segment only
 *     **             globstar   zero or more whole segments
 *     *.png img-??   glob       '*' any run, '?' one byte, '[set]' one byte
 *
 * A segment of exactly '*identifier' is a catch-all; any other segment with
 * '*', '?' or '[' is a glob.  A segment of exactly {name} or {*name} is a
 * param or a catch-all; any other segment with '{' is a template: {name}
 * params (never {*name}) among literal bytes, two params apart by 1+
 * literal bytes ({a}{b} is malformed), no glob syntax ({id}*.png is
 * malformed).  A '}' that closes no '{' is an error; ':' starts a param
 * only as a whole segment (:name), elsewhere it is a literal byte.  Names
 * are [A-Za-z_][A-Za-z0-9_]*, distinct within the pattern; every param of
 * a template is one of the at most RB_MAX_CAPTURES captures.
 *
 * A pattern is printable: a space, a control byte (NUL, tab, CR, LF, ...)
 * or DEL anywhere is an error, since a routes file could not hold it and
 * the router front end must not accept what the file formats cannot carry.
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
static int check_glob(const char *pattern, size_t at, size_t len, uint32_t *literal, rb_error *err)
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
            return rb__error(err, RB_EPATTERN, at + open, "unbalanced '[' at byte %zu", at + open);
        if (items == 0)
            return rb__error(err, RB_EPATTERN, at + open, "empty '[set]' at byte %zu", at + open);
    }
    *literal = lit;
    return RB_OK;
}

/* The template segment pattern[at, at+len) (a segment with braces that is
 * not exactly {name} or {*name}) into *s: its params, literal bytes and
 * the errors of docs/design.md with their byte offsets. */
static int parse_template(const char *pattern, size_t at, size_t len, rb_segment *s, rb_error *err)
{
    const char *t = pattern + at;
    uint32_t params = 0, lit = 0;
    size_t last_close = SIZE_MAX; /* index after the previous param's '}' */
    for (size_t i = 0; i < len; i++) {
        char c = t[i];
        if (c == '}')
            return rb__error(err, RB_EPATTERN, at + i, "unbalanced '}' at byte %zu", at + i);
        if (c == '*' || c == '?' || c == '[')
            return rb__error(err, RB_EPATTERN, at + i,
                             "'%c' at byte %zu: a template segment ({name} inside a segment) "
                             "cannot use glob syntax",
                             c, at + i);
        if (c != '{') {
            lit++;
            continue;
        }
        if (last_close == i)
            return rb__error(err, RB_EPATTERN, at + i,
                             "'{' at byte %zu: two params of a template must be apart by at "
                             "least one literal byte",
                             at + i);
        size_t j = i + 1;
        while (j < len && t[j] != '}' && t[j] != '{') j++;
        if (j == len || t[j] == '{')
            return rb__error(err, RB_EPATTERN, at + i, "unbalanced '{' at byte %zu", at + i);
        if (j > i + 1 && t[i + 1] == '*')
            return rb__error(err, RB_EPATTERN, at + i + 1,
                             "'*' at byte %zu: a catch-all {*name} must be a whole segment",
                             at + i + 1);
        int rc = check_name(pattern, at + i + 1, j - i - 1, "parameter", err);
        if (rc < 0) return rc;
        params++;
        i = j;
        last_close = j + 1;
    }
    s->kind = RB_SEG_TEMPLATE;
    s->captures = (uint8_t)(params < 255 ? params : 255);
    s->literal = lit;
    return RB_OK;
}

/* Bytes that make a segment something other than static. */
enum { CLASS_BRACE = 1, CLASS_GLOB = 2 };
static const uint8_t byte_class[256] = {
    ['{'] = CLASS_BRACE, ['}'] = CLASS_BRACE, ['*'] = CLASS_GLOB,
    ['?'] = CLASS_GLOB,  ['['] = CLASS_GLOB,
};

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

    /* one pass over the bytes: which special characters occur? */
    unsigned seen = 0, braces = 0;
    for (size_t i = 0; i < len; i++) {
        seen |= byte_class[(unsigned char)t[i]];
        braces += t[i] == '{' || t[i] == '}';
    }
    if ((seen & CLASS_BRACE) && !(braces == 2 && t[0] == '{' && t[len - 1] == '}'))
        return parse_template(pattern, at, len, s, err);
    if (len > 0 && t[0] == '{') {
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
    if (seen & CLASS_GLOB) {
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

/* A capture's name: bytes [at, at + len) of the pattern. */
typedef struct name_span {
    size_t at, len;
} name_span;

/* Record the name pattern[at, at + len) after the earlier ones
 * (names[0..*nnames)), or fail if it is one of them.  The caller keeps
 * *nnames <= RB_MAX_CAPTURES (every name is a capture). */
static int add_name(const rb_pattern *p, size_t at, size_t len, name_span *names, uint32_t *nnames,
                    rb_error *err)
{
    for (uint32_t a = 0; a < *nnames; a++) {
        if (names[a].len == len && memcmp(p->text + names[a].at, p->text + at, len) == 0)
            return rb__error(err, RB_EPATTERN, at, "duplicate name '%.*s' at byte %zu", (int)len,
                             p->text + at, at);
    }
    names[(*nnames)++] = (name_span){at, len};
    return RB_OK;
}

/* The names of segment s's captures, in order (params and catch-alls: the
 * name; templates: each {name}); globs and '**' have none.  Fails on a
 * name used before. */
static int add_names(const rb_pattern *p, const rb_segment *s, name_span *names, uint32_t *nnames,
                     rb_error *err)
{
    if (s->kind == RB_SEG_PARAM || s->kind == RB_SEG_CATCHALL)
        return add_name(p, (size_t)(s->text - p->text), s->text_len, names, nnames, err);
    if (s->kind != RB_SEG_TEMPLATE) return RB_OK;
    for (size_t i = 0; i < s->len; i++) {
        if (p->text[s->offset + i] != '{') continue;
        size_t j = i + 1;
        while (p->text[s->offset + j] != '}') j++;
        int rc = add_name(p, s->offset + i + 1, j - i - 1, names, nnames, err);
        if (rc < 0) return rc;
        i = j;
    }
    return RB_OK;
}

/* Byte offset of the capture of segment s that would be capture number
 * RB_MAX_CAPTURES + 1, when s's captures begin after `before` others. */
static size_t capture_over_limit(const rb_pattern *p, const rb_segment *s, uint32_t before)
{
    if (s->kind != RB_SEG_TEMPLATE) return s->offset;
    uint32_t k = before;
    for (size_t i = 0; i < s->len; i++) {
        if (p->text[s->offset + i] == '{' && ++k > RB_MAX_CAPTURES) return s->offset + i;
    }
    return s->offset;
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
        } else if (s->kind == RB_SEG_TEMPLATE) {
            o += rb__template_shape(p->text + s->offset, s->len, o);
        } else {
            memcpy(o, p->text + s->offset, s->len);
            o += s->len;
        }
    }
    *o = '\0';
    p->shape_len = (size_t)(o - p->shape);
}

/* One block holds the segments, the ranks and the shape.  A shape is at
 * most one byte longer per segment than the pattern ("*x" -> "{*}"). */
static size_t storage_size(uint32_t nsegs, size_t len)
{
    return nsegs * sizeof(rb_segment) + nsegs + len + nsegs + 1u;
}

size_t rb_pattern_bytes(const rb_pattern *p)
{
    return p->segs ? storage_size(p->nsegs, p->len) : 0;
}

void rb_pattern_free(rb_pattern *p)
{
    if (p->segs) rb_free(p->allocator, p->segs, storage_size(p->nsegs, p->len));
    p->segs = NULL;
}

unsigned rb__segment_feature(unsigned kind)
{
    switch (kind) {
    case RB_SEG_STATIC:
        return 0;
    case RB_SEG_PARAM:
        return RB_FEAT_PARAMS;
    case RB_SEG_CATCHALL:
        return RB_FEAT_CATCHALL;
    case RB_SEG_TEMPLATE:
        return RB_FEAT_TEMPLATE;
    default:
        return RB_FEAT_GLOB;
    }
}

/* Classify every segment of out->text into out->segs (allocated). */
static int parse_segments(rb_pattern *out, rb_error *err)
{
    const char *pattern = out->text;
    size_t len = out->len;
    name_span names[RB_MAX_CAPTURES];
    uint32_t nnames = 0;
    size_t start = 1;
    for (uint32_t i = 0; i < out->nsegs; i++) {
        const char *slash = memchr(pattern + start, '/', len - start);
        size_t end = slash ? (size_t)(slash - pattern) : len;
        rb_segment *s = &out->segs[i];
        int rc = parse_segment(pattern, start, end - start, s, err);
        if (rc < 0) return rc;
        if (s->kind == RB_SEG_CATCHALL && i + 1 != out->nsegs)
            return rb__error(err, RB_EPATTERN, s->offset,
                             "catch-all at byte %u must be the last segment", s->offset);
        if (out->ncaptures + s->captures > RB_MAX_CAPTURES) {
            size_t off = capture_over_limit(out, s, out->ncaptures);
            return rb__error(err, RB_EPATTERN, off, "more than %d captures (capture at byte %zu)",
                             RB_MAX_CAPTURES, off);
        }
        out->ncaptures += s->captures;
        rc = add_names(out, s, names, &nnames, err);
        if (rc < 0) return rc;
        out->ranks[i] = rb_seg_rank(s->kind);
        out->literal_bytes += s->literal;
        out->features |= rb__segment_feature(s->kind);
        start = end + 1;
    }
    return RB_OK;
}

/* The offset of the first space, control byte (0x00-0x1f) or DEL, or len:
 * what a "METHOD PATTERN" line cannot hold (fields split on blanks, lines
 * on LF, a CR before it is dropped) or a reader would mangle (NUL). */
static size_t first_unprintable(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] == 0x7f) return i;
    return len;
}

static const char *byte_name(unsigned char c)
{
    switch (c) {
    case '\0':
        return "a NUL byte";
    case '\t':
        return "a tab";
    case '\n':
        return "a line feed";
    case '\r':
        return "a carriage return";
    case ' ':
        return "a space";
    default:
        return "a control byte";
    }
}

int rb_pattern_parse(const char *pattern, size_t len, const rb_allocator *allocator,
                     rb_pattern *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    out->allocator = allocator ? allocator : rb__default_allocator();
    out->text = pattern;
    out->len = len;
    if (len >= UINT32_MAX / 4)
        return rb__error(err, RB_ELIMIT, RB_NO_OFFSET, "pattern of %zu bytes is too long", len);
    if (len == 0 || pattern[0] != '/')
        return rb__error(err, RB_EPATTERN, 0, "pattern must start with '/' (byte 0)");
    size_t bad = first_unprintable(pattern, len);
    if (bad < len) {
        unsigned char c = (unsigned char)pattern[bad];
        return rb__error(err, RB_EPATTERN, bad,
                         "%s (0x%02x) at byte %zu: a pattern holds no whitespace or control bytes "
                         "(a routes file line could not carry it)",
                         byte_name(c), c, bad);
    }
    uint32_t nsegs = 0;
    for (size_t i = 0; i < len; i++) nsegs += pattern[i] == '/';

    char *mem = rb_alloc(out->allocator, storage_size(nsegs, len));
    if (!mem) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory parsing a pattern");
    out->segs = (rb_segment *)(void *)mem;
    out->ranks = (uint8_t *)(mem + nsegs * sizeof(rb_segment));
    out->shape = (char *)out->ranks + nsegs;
    out->nsegs = nsegs;
    int rc = parse_segments(out, err);
    if (rc < 0) {
        rb_pattern_free(out);
        return rc;
    }
    write_shape(out);
    return RB_OK;
}
