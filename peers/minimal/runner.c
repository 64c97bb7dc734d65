/*
 * runner.c — a complete, minimal peer runner (docs/peer-protocol.md): the
 * protocol's reference, in plain C11 with nothing of routebench, so a
 * runner in any language can be written from it.
 *
 *     routebench-peer-minimal ROUTES_FILE REQUESTS_FILE
 *
 * Its "router" tries every route on each request (like routebench's
 * linear): static segments, params (":id", "{id}": one whole segment of 1+
 * bytes) and a final catch-all ("*rest", "{*rest}": 1+ bytes to the end),
 * with routebench's priority (segment ranks left to right, a specific
 * method before "*", then the lower route id).  It refuses what it cannot
 * express (globs, "**", templates inside a segment) with a "refuse" line.
 * It reports the capture spans of every answer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_SEGS 64

enum { STATIC = 0, PARAM = 1, CATCHALL = 4 };

typedef struct seg {
    int kind;
    const char *text; /* STATIC: the bytes */
    size_t len;
} seg;

typedef struct route {
    char method[16]; /* "*" for any */
    seg segs[MAX_SEGS];
    size_t nsegs;
} route;

typedef struct request {
    char method[16];
    char *path;
    size_t len;
} request;

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) buf = realloc(buf, (cap *= 2) + 1);
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    return buf;
}

/* The next line of *p (NUL-terminated in place), NULL at the end. */
static char *next_line(char **p)
{
    if (!**p) return NULL;
    char *line = *p, *e = strchr(line, '\n');
    if (e) {
        *e = '\0';
        *p = e + 1;
    } else {
        *p = line + strlen(line);
    }
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r') line[n - 1] = '\0';
    return line;
}

/* Is p[0, n) a name: [A-Za-z_][A-Za-z0-9_]*? */
static int is_name(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!alpha && !(i > 0 && c >= '0' && c <= '9')) return 0;
    }
    return n > 0;
}

/* Parse "/a/:b/{*c}" into r; NULL when it is accepted, else the reason. */
static const char *parse_pattern(char *pat, route *r)
{
    if (pat[0] != '/') return "a pattern starts with /";
    char *p = pat + 1;
    for (;;) {
        char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (r->nsegs == MAX_SEGS) return "more than 64 segments";
        seg *s = &r->segs[r->nsegs++];
        s->text = p;
        s->len = n;
        if ((p[0] == ':' && is_name(p + 1, n - 1)) ||
            (n > 2 && p[0] == '{' && p[n - 1] == '}' && is_name(p + 1, n - 2)))
            s->kind = PARAM;
        else if ((p[0] == '*' && is_name(p + 1, n - 1)) ||
                 (n > 3 && !strncmp(p, "{*", 2) && p[n - 1] == '}' && is_name(p + 2, n - 3)))
            s->kind = CATCHALL;
        else if (memchr(p, '*', n) || memchr(p, '?', n) || memchr(p, '[', n))
            return "globs are not supported";
        else if (memchr(p, '{', n))
            return "templates inside a segment are not supported";
        else
            s->kind = STATIC;
        if (s->kind == CATCHALL && e) return "a catch-all must be the last segment";
        if (!e) return NULL;
        p = e + 1;
    }
}

/* Does r match path?  Spans of its captures into spans[2 * k]. */
static int match(const route *r, const char *path, size_t len, uint32_t *spans, size_t *nspans)
{
    size_t pos = 1, k = 0;
    *nspans = 0;
    if (len == 0 || path[0] != '/') return 0;
    for (size_t i = 0; i < r->nsegs; i++) {
        const seg *s = &r->segs[i];
        if (pos > len) return 0; /* no segment left */
        const char *slash = memchr(path + pos, '/', len - pos);
        size_t end = slash ? (size_t)(slash - path) : len;
        if (s->kind == CATCHALL) {
            if (len - pos < 1) return 0;
            spans[2 * k] = (uint32_t)pos;
            spans[2 * k + 1] = (uint32_t)(len - pos);
            *nspans = ++k;
            return 1;
        }
        size_t n = end - pos;
        if (s->kind == STATIC && (n != s->len || memcmp(path + pos, s->text, n) != 0)) return 0;
        if (s->kind == PARAM) {
            if (n == 0) return 0;
            spans[2 * k] = (uint32_t)pos;
            spans[2 * k + 1] = (uint32_t)n;
            k++;
        }
        pos = end + 1; /* past the '/', or len + 1 at the end */
    }
    *nspans = k;
    return pos == len + 1;
}

/* Does route a win over route b (both match)?  Ranks left to right, a
 * proper prefix first, a specific method before "*"; ids break ties. */
static int better(const route *a, const route *b)
{
    for (size_t i = 0; i < a->nsegs && i < b->nsegs; i++)
        if (a->segs[i].kind != b->segs[i].kind) return a->segs[i].kind < b->segs[i].kind;
    if (a->nsegs != b->nsegs) return a->nsegs < b->nsegs;
    int any_a = strcmp(a->method, "*") == 0, any_b = strcmp(b->method, "*") == 0;
    return any_a < any_b;
}

/* The answer: a route id, -1 or -2. */
static long lookup(const route *routes, size_t n, const request *q, uint32_t *spans, size_t *nspans)
{
    long best = -1;
    int path_matched = 0;
    uint32_t tmp[2 * MAX_SEGS];
    size_t ntmp;
    *nspans = 0;
    for (size_t i = 0; i < n; i++) {
        if (!match(&routes[i], q->path, q->len, tmp, &ntmp)) continue;
        path_matched = 1;
        if (strcmp(routes[i].method, "*") != 0 && strcmp(routes[i].method, q->method) != 0)
            continue;
        if (best < 0 || better(&routes[i], &routes[best])) {
            best = (long)i;
            memcpy(spans, tmp, 2 * ntmp * sizeof *tmp);
            *nspans = ntmp;
        }
    }
    return best >= 0 ? best : path_matched ? -2 : -1;
}

/* The timed loop: reps replays of every request, the sum of (id + 2).  Its
 * name is the protocol's: under --metric instructions routebench counts
 * the instructions run inside it, and only those (not inlined, so that it
 * is there to be found). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
uint64_t
routebench_peer_loop(const route *routes, size_t nroutes, const request *reqs, size_t nreq,
                     unsigned long long reps);
uint64_t routebench_peer_loop(const route *routes, size_t nroutes, const request *reqs, size_t nreq,
                              unsigned long long reps)
{
    uint32_t spans[2 * MAX_SEGS];
    size_t nspans;
    uint64_t sum = 0;
    for (unsigned long long r = 0; r < reps; r++)
        for (size_t i = 0; i < nreq; i++)
            sum += (uint64_t)(lookup(routes, nroutes, &reqs[i], spans, &nspans) + 2);
    return sum;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s ROUTES_FILE REQUESTS_FILE\n", argv[0]);
        return 2;
    }
    char *rtext = read_file(argv[1]), *qtext = read_file(argv[2]);
    if (!rtext || !qtext) {
        printf("error cannot read %s\n", rtext ? argv[2] : argv[1]);
        return 1;
    }
    printf("routebench-peer 1 minimal\n");
    /* routes: the id is the index among route lines */
    size_t nroutes = 0, cap = 1024, id = 0, refused = 0;
    route *routes = malloc(cap * sizeof *routes);
    uint64_t t0 = now_ns();
    for (char *p = rtext, *line; (line = next_line(&p));) {
        if (!*line || *line == '#') continue;
        char *sp = strchr(line, ' ');
        if (nroutes == cap) routes = realloc(routes, (cap *= 2) * sizeof *routes);
        route *r = &routes[nroutes];
        memset(r, 0, sizeof *r);
        const char *why = sp && (size_t)(sp - line) < sizeof r->method ? NULL : "bad method";
        if (!why) {
            memcpy(r->method, line, (size_t)(sp - line));
            why = parse_pattern(sp + 1, r);
        }
        if (why) {
            printf("refuse %zu %s\n", id, why);
            refused++;
            r->nsegs = 0;
            strcpy(r->method, "-"); /* never matches: keeps ids in step */
            r->segs[0].kind = STATIC;
        }
        nroutes++;
        id++;
    }
    uint64_t build_ns = now_ns() - t0;
    printf("loaded %zu %llu %zu\n", nroutes - refused, (unsigned long long)build_ns,
           nroutes * sizeof(route));
    /* requests: "METHOD PATH EXPECTED" */
    size_t nreq = 0, qcap = 1024;
    request *reqs = malloc(qcap * sizeof *reqs);
    for (char *p = qtext, *line; (line = next_line(&p));) {
        if (!*line || *line == '#') continue;
        char *a = strchr(line, ' '), *b = a ? strrchr(a + 1, ' ') : NULL;
        if (!a || !b || (size_t)(a - line) >= sizeof reqs->method) {
            printf("error malformed request line: %s\n", line);
            return 1;
        }
        if (nreq == qcap) reqs = realloc(reqs, (qcap *= 2) * sizeof *reqs);
        request *q = &reqs[nreq++];
        memset(q->method, 0, sizeof q->method);
        memcpy(q->method, line, (size_t)(a - line));
        *b = '\0';
        q->path = a + 1;
        q->len = strlen(q->path);
    }
    uint32_t spans[2 * MAX_SEGS];
    size_t nspans;
    for (size_t i = 0; i < nreq; i++) {
        long ans = lookup(routes, nroutes, &reqs[i], spans, &nspans);
        printf("a %ld =", ans);
        for (size_t k = 0; k < nspans; k++) printf(" %u+%u", spans[2 * k], spans[2 * k + 1]);
        printf("\n");
    }
    printf("ready\n");
    fflush(stdout);
    /* trials: "run R" -> "ok NS CHECKSUM" */
    char cmd[128];
    while (fgets(cmd, sizeof cmd, stdin)) {
        unsigned long long reps;
        if (strncmp(cmd, "quit", 4) == 0) break;
        if (sscanf(cmd, "run %llu", &reps) != 1) {
            printf("error unknown command\n");
            fflush(stdout);
            continue;
        }
        uint64_t start = now_ns();
        uint64_t sum = routebench_peer_loop(routes, nroutes, reqs, nreq, reps);
        uint64_t ns = now_ns() - start;
        printf("ok %llu %llu\n", (unsigned long long)ns, (unsigned long long)sum);
        fflush(stdout);
    }
    free(routes);
    free(reqs);
    free(rtext);
    free(qtext);
    return 0;
}
