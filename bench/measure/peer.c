/*
 * peer.c — starting a peer runner, reading its protocol lines with a
 * deadline, trials, agreement with linear (peer.h, docs/peer-protocol.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "peer.h"

#include "base_internal.h"
#include "clock.h"
#include "program.h"
#include "verify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef RB_PEERS_DIR
#define RB_PEERS_DIR "peers"
#endif

const char *rb_peer_dir(void)
{
    const char *dir = getenv("ROUTEBENCH_PEERS");
    return dir && *dir ? dir : RB_PEERS_DIR;
}

/* ---- specs ------------------------------------------------------------------ */

/* Split text (blanks) into spec->argv, copying into spec->storage. */
static int split_command(rb_peer_spec *spec, const char *text, rb_error *err)
{
    size_t n = strlen(text);
    if (n >= sizeof spec->storage)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "peer %s: the command is too long",
                         spec->name);
    memcpy(spec->storage, text, n + 1);
    size_t argc = 0;
    for (char *p = spec->storage; *p;) {
        while (*p == ' ' || *p == '\t') *p++ = '\0';
        if (!*p) break;
        if (argc == RB_PEER_MAX_ARGS)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "peer %s: more than %d arguments",
                             spec->name, RB_PEER_MAX_ARGS);
        spec->argv[argc++] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
    }
    spec->argv[argc] = NULL;
    if (!argc) return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "peer %s: no command", spec->name);
    return RB_OK;
}

static void spec_ops(rb_peer_spec *spec)
{
    memset(&spec->ops, 0, sizeof spec->ops);
    spec->ops.abi_version = RB_ROUTER_ABI_VERSION;
    spec->ops.name = spec->name;
    spec->ops.summary = spec->summary;
    /* a peer refuses what it cannot express itself, route by route */
    spec->ops.features = RB_FEAT_PARAMS | RB_FEAT_CATCHALL | RB_FEAT_GLOB | RB_FEAT_PEER;
}

int rb_peer_spec_parse(const char *text, rb_peer_spec *spec, rb_error *err)
{
    memset(spec, 0, sizeof *spec);
    const char *eq = strchr(text, '=');
    size_t n = eq ? (size_t)(eq - text) : 0;
    if (!eq || n == 0 || n >= sizeof spec->name || !eq[1])
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "'%s' is not NAME=COMMAND (e.g. mine=./my-runner --flag)", text);
    for (size_t i = 0; i < n; i++)
        if (!(text[i] == '-' || text[i] == '_' || (text[i] >= '0' && text[i] <= '9') ||
              (text[i] >= 'a' && text[i] <= 'z') || (text[i] >= 'A' && text[i] <= 'Z')))
            return rb__error(err, RB_EINVAL, i, "peer name '%.*s': letters, digits, - and _ only",
                             (int)n, text);
    snprintf(spec->name, sizeof spec->name, "%.*s", (int)n, text);
    snprintf(spec->summary, sizeof spec->summary, "peer process: %s", eq + 1);
    spec_ops(spec);
    return split_command(spec, eq + 1, err);
}

void rb_peer_spec_copy(rb_peer_spec *dst, const rb_peer_spec *src)
{
    memcpy(dst, src, sizeof *dst);
    for (size_t i = 0; src->argv[i]; i++)
        dst->argv[i] = dst->storage + (src->argv[i] - src->storage);
    spec_ops(dst);
}

typedef struct builtin {
    const char *name, *summary;
    const char *program; /* under the peers directory, or an interpreter's script */
    const char *args;    /* the runner's own arguments, or NULL */
    const char *interpreter;
    const char *module; /* an interpreter's: a file its modules must hold */
    const char *needs;  /* what to install */
} builtin;

#define GO_NEEDS(pkg) "golang-go " pkg
#define NODE_FMW      "find-my-way/node_modules/find-my-way/package.json"
#define NODE_JS       "js/node_modules/.package-lock.json"
#define NODE_NEEDS    "nodejs npm (and npm ci in peers/find-my-way and peers/js)"

static const builtin builtins[] = {
    {"httprouter", "peer process: Go github.com/julienschmidt/httprouter (peers/go)",
     "bin/httprouter", NULL, NULL, NULL, GO_NEEDS("golang-github-julienschmidt-httprouter-dev")},
    {"chi", "peer process: Go github.com/go-chi/chi v5, Mux.Match (peers/go)", "bin/chi", NULL,
     NULL, NULL, GO_NEEDS("golang-github-go-chi-chi-dev")},
    {"chi-servehttp", "peer process: Go github.com/go-chi/chi v5, Mux.ServeHTTP (peers/go)",
     "bin/chi", "servehttp", NULL, NULL, GO_NEEDS("golang-github-go-chi-chi-dev")},
    {"gin", "peer process: Go github.com/gin-gonic/gin, Engine.ServeHTTP (peers/go)", "bin/gin",
     NULL, NULL, NULL, GO_NEEDS("golang-github-gin-gonic-gin-dev")},
    {"echo", "peer process: Go github.com/labstack/echo v4, Router.Find (peers/go)", "bin/echo",
     NULL, NULL, NULL, GO_NEEDS("golang-github-labstack-echo-dev")},
    {"gorilla-mux", "peer process: Go github.com/gorilla/mux, Router.Match (peers/go)",
     "bin/gorilla-mux", NULL, NULL, NULL, GO_NEEDS("golang-github-gorilla-mux-dev")},
    {"nop-go", "reference, not a router: Go runners' loop, constant lookup (peers/go)",
     "bin/nop-go", NULL, NULL, NULL, "golang-go"},
    {"matchit", "peer process: Rust matchit 0.9.1, axum's layout (peers/matchit)", "bin/matchit",
     NULL, NULL, NULL, "cargo (Rust 1.66 or newer)"},
    {"matchit-per-method", "peer process: Rust matchit 0.9.1, one tree per method (peers/matchit)",
     "bin/matchit", "per-method", NULL, NULL, "cargo (Rust 1.66 or newer)"},
    {"nop-rust", "reference, not a router: Rust runner's loop, constant lookup (peers/matchit)",
     "bin/nop-rust", NULL, NULL, NULL, "cargo (Rust 1.66 or newer)"},
    {"find-my-way", "peer process: Node find-my-way 9.10.2, find (peers/find-my-way)",
     "find-my-way/runner.js", NULL, "node", NODE_FMW, NODE_NEEDS},
    {"find-my-way-find",
     "peer process: Node find-my-way 9.10.2, find, 404 for 405 (peers/find-my-way)",
     "find-my-way/runner.js", "find", "node", NODE_FMW, NODE_NEEDS},
    {"hono", "peer process: Node hono SmartRouter (peers/js)", "js/hono.mjs", "smart", "node",
     NODE_JS, NODE_NEEDS},
    {"hono-regexp", "peer process: Node hono RegExpRouter (peers/js)", "js/hono.mjs", "regexp",
     "node", NODE_JS, NODE_NEEDS},
    {"hono-trie", "peer process: Node hono TrieRouter (peers/js)", "js/hono.mjs", "trie", "node",
     NODE_JS, NODE_NEEDS},
    {"rou3", "peer process: Node rou3 (peers/js)", "js/rou3.mjs", NULL, "node", NODE_JS,
     NODE_NEEDS},
    {"memoirist", "peer process: Node memoirist (peers/js)", "js/memoirist.mjs", NULL, "node",
     NODE_JS, NODE_NEEDS},
    {"nop-node", "reference, not a router: Node runners' loop, constant lookup (peers/js)",
     "js/nop.mjs", NULL, "node", NULL, "nodejs"},
};

size_t rb_peer_builtin_count(void)
{
    return sizeof builtins / sizeof builtins[0];
}

const char *rb_peer_builtin_name(size_t i)
{
    return i < rb_peer_builtin_count() ? builtins[i].name : NULL;
}

const char *rb_peer_builtin_names(void)
{
    static char names[512];
    if (!names[0]) {
        size_t n = 0;
        for (size_t i = 0; i < rb_peer_builtin_count() && n < sizeof names; i++) {
            int w = snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "", builtins[i].name);
            if (w > 0) n += (size_t)w;
        }
    }
    return names;
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[1024];
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
        if (access(buf, X_OK) == 0) return true;
        p += n + (p[n] ? 1 : 0);
    }
    return false;
}

int rb_peer_builtin(const char *name, const char *peers_dir, rb_peer_spec *spec, rb_error *err)
{
    memset(spec, 0, sizeof *spec);
    const char *dir = peers_dir ? peers_dir : rb_peer_dir();
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++) {
        const builtin *b = &builtins[i];
        if (strcmp(b->name, name) != 0) continue;
        snprintf(spec->name, sizeof spec->name, "%s", b->name); /* also when not built */
        snprintf(spec->summary, sizeof spec->summary, "%s", b->summary);
        char prog[768], cmd[1024];
        snprintf(prog, sizeof prog, "%s/%s", dir, b->program);
        if (b->interpreter && !on_path(b->interpreter))
            return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                             "peer %s needs %s, which is not installed (scripts/setup.sh "
                             "--peers installs %s)",
                             name, b->interpreter, b->needs);
        char probe[800] = "";
        if (b->module) snprintf(probe, sizeof probe, "%s/%s", dir, b->module);
        if (access(prog, b->interpreter ? R_OK : X_OK) != 0 ||
            (b->module && access(probe, R_OK) != 0))
            return rb__error(err, RB_EUNSUPPORTED, RB_NO_OFFSET,
                             "peer %s is not built (%s%s missing): scripts/setup.sh --peers "
                             "installs %s and builds it",
                             name, b->module ? "its modules or " : "", prog, b->needs);
        /* a JIT runtime's lookups are machine code made at run time: no
         * function of the runner's to count (docs/peer-protocol.md) */
        spec->jit = b->interpreter != NULL;
        spec_ops(spec);
        snprintf(cmd, sizeof cmd, "%s%s%s%s%s", b->interpreter ? b->interpreter : "",
                 b->interpreter ? " " : "", prog, b->args ? " " : "", b->args ? b->args : "");
        return split_command(spec, cmd, err);
    }
    return rb__error(err, RB_ENOTFOUND, RB_NO_OFFSET, "no peer runner named '%s' (built in: %s)",
                     name, rb_peer_builtin_names());
}

/* ---- the process and its lines ------------------------------------------------ */

static uint64_t now_ms(void)
{
    return rb__monotonic_ns() / 1000000u;
}

/* ---- its stderr: read, kept in part, never copied to ours ------------------ */

/* One read of its stderr: the start kept, the rest dropped; closed at its
 * end. */
static void read_stderr(rb_peer *p)
{
    char buf[4096];
    ssize_t got = read(p->errfd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) return;
    if (got <= 0) {
        close(p->errfd);
        p->errfd = -1;
        return;
    }
    size_t keep = sizeof p->ebuf - 1 - p->elen;
    if (keep > (size_t)got) keep = (size_t)got;
    memcpy(p->ebuf + p->elen, buf, keep);
    p->elen += keep;
    p->ebuf[p->elen] = '\0';
}

/* What it wrote on stderr until it closed it, for at most wait_ms. */
static void drain_stderr(rb_peer *p, int wait_ms)
{
    uint64_t deadline = now_ms() + (uint64_t)wait_ms;
    while (p->errfd >= 0) {
        uint64_t t = now_ms();
        if (t >= deadline) return;
        struct pollfd pf = {p->errfd, POLLIN, 0};
        int rc = poll(&pf, 1, (int)(deadline - t));
        if (rc < 0 && errno != EINTR) return;
        if (rc > 0) read_stderr(p);
    }
}

/* Does this stderr line say what went wrong (a Go or Rust panic, a Node
 * exception)? */
static bool telling(const char *line, size_t n)
{
    static const char *const starts[] = {"panic:", "fatal error:", "thread '"};
    for (size_t i = 0; i < sizeof starts / sizeof starts[0]; i++)
        if (n >= strlen(starts[i]) && memcmp(line, starts[i], strlen(starts[i])) == 0) return true;
    for (size_t i = 0; i + 6 <= n; i++)
        if (memcmp(line + i, "Error:", 6) == 0) return true;
    return false;
}

/* ": LINE", one short line of its stderr (the first that tells what went
 * wrong, else the first not blank; printable ASCII, at most
 * RB_PEER_STDERR_LINE bytes), or "" when it wrote nothing. */
static void stderr_line(const rb_peer *p, char *out, size_t cap)
{
    const char *pick = NULL;
    size_t pick_n = 0;
    for (const char *q = p->ebuf; *q;) {
        size_t n = strcspn(q, "\n");
        size_t lead = strspn(q, " \t\r");
        if (lead < n && (!pick || (telling(q + lead, n - lead) && !telling(pick, pick_n)))) {
            pick = q + lead;
            pick_n = n - lead;
        }
        q += n + (q[n] ? 1 : 0);
    }
    out[0] = '\0';
    if (!pick || cap < 3) return;
    while (pick_n && (pick[pick_n - 1] == '\r' || pick[pick_n - 1] == ' ')) pick_n--;
    if (pick_n > RB_PEER_STDERR_LINE) pick_n = RB_PEER_STDERR_LINE;
    size_t k = 0;
    out[k++] = ':', out[k++] = ' ';
    for (size_t i = 0; i < pick_n && k + 1 < cap; i++)
        out[k++] = pick[i] >= 0x20 && pick[i] < 0x7f ? pick[i] : '?';
    out[k] = '\0';
}

/* The next line (without '\n') into line[cap], waiting until deadline_ms,
 * reading its stderr meanwhile (a runner blocked on a full stderr pipe
 * would hang).  RB_EIO when the runner closed its output, broke the
 * deadline or wrote a line longer than cap; the message ends with a line
 * of its stderr. */
static int read_line(rb_peer *p, char *line, size_t cap, uint64_t deadline_ms, rb_error *err)
{
    char said[RB_PEER_STDERR_LINE + 8];
    size_t n = 0;
    for (;;) {
        while (p->rpos < p->rlen) {
            char c = p->rbuf[p->rpos++];
            if (c == '\n') {
                line[n] = '\0';
                if (n && line[n - 1] == '\r') line[n - 1] = '\0';
                return RB_OK;
            }
            if (n + 1 >= cap)
                return rb__error(err, RB_EIO, RB_NO_OFFSET, "peer %s: a line over %zu bytes",
                                 p->name, cap);
            line[n++] = c;
        }
        uint64_t t = now_ms();
        if (t >= deadline_ms) {
            stderr_line(p, said, sizeof said);
            return rb__error(err, RB_EIO, RB_NO_OFFSET,
                             "peer %s: no answer within %d s (hung or too slow)%s", p->name,
                             RB_PEER_TIMEOUT_S, said);
        }
        struct pollfd pf[2] = {{p->from, POLLIN, 0}, {p->errfd, POLLIN, 0}};
        int rc = poll(pf, 2, (int)(deadline_ms - t)); /* a closed errfd (-1) is skipped */
        if (rc < 0 && errno == EINTR) continue;
        if (rc <= 0) continue;
        if (p->errfd >= 0 && pf[1].revents) read_stderr(p);
        if (!pf[0].revents) continue;
        ssize_t got = read(p->from, p->rbuf, sizeof p->rbuf);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            drain_stderr(p, 1000); /* what it said as it ended */
            stderr_line(p, said, sizeof said);
            return rb__error(err, RB_EIO, RB_NO_OFFSET,
                             "peer %s: its output ended (the runner exited or crashed)%s", p->name,
                             said);
        }
        p->rpos = 0;
        p->rlen = (size_t)got;
    }
}

static int protocol_error(rb_peer *p, const char *line, const char *want, rb_error *err)
{
    if (strncmp(line, "error", 5) == 0)
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "peer %s: %s", p->name, line);
    return rb__error(err, RB_EIO, RB_NO_OFFSET, "peer %s: expected %s, got \"%.120s\"", p->name,
                     want, line);
}

static int write_all(rb_peer *p, const char *text, rb_error *err)
{
    size_t n = strlen(text);
    while (n) {
        ssize_t w = write(p->to, text, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "peer %s: cannot write to it (%s)", p->name,
                             strerror(errno));
        text += w;
        n -= (size_t)w;
    }
    return RB_OK;
}

static void close_pair(int fd[2])
{
    close(fd[0]);
    close(fd[1]);
}

static int spawn(rb_peer *p, const rb_peer_spec *spec, const char *routes, const char *requests,
                 rb_error *err)
{
    int in[2], out[2], errp[2];
    if (pipe(in) < 0) return rb__error(err, RB_EIO, RB_NO_OFFSET, "pipe: %s", strerror(errno));
    if (pipe(out) < 0) {
        close_pair(in);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "pipe: %s", strerror(errno));
    }
    if (pipe(errp) < 0) {
        close_pair(in);
        close_pair(out);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "pipe: %s", strerror(errno));
    }
    char *argv[RB_PEER_MAX_ARGS + 3];
    size_t argc = 0;
    while (spec->argv[argc]) {
        argv[argc] = spec->argv[argc];
        argc++;
    }
    argv[argc++] = (char *)(uintptr_t)routes;
    argv[argc++] = (char *)(uintptr_t)requests;
    argv[argc] = NULL;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close_pair(in);
        close_pair(out);
        close_pair(errp);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "fork: %s", strerror(e));
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(errp[1], 2);
        close_pair(in);
        close_pair(out);
        close_pair(errp);
        execvp(argv[0], argv);
        dprintf(2, "routebench: peer %s: cannot run %s: %s\n", spec->name, argv[0],
                strerror(errno));
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(errp[1]);
    fcntl(in[1], F_SETFD, FD_CLOEXEC);
    fcntl(out[0], F_SETFD, FD_CLOEXEC);
    fcntl(errp[0], F_SETFD, FD_CLOEXEC);
    p->pid = pid;
    p->to = in[1];
    p->from = out[0];
    p->errfd = errp[0];
    return RB_OK;
}

/* "a ID [= OFF+LEN ...]" */
static int parse_answer(rb_peer *p, const char *line, size_t i, rb_error *err)
{
    char *end;
    if (line[0] != 'a' || line[1] != ' ') return protocol_error(p, line, "an answer line", err);
    long id = strtol(line + 2, &end, 10);
    if (end == line + 2 || id < -2 || id > INT32_MAX)
        return protocol_error(p, line, "a ID (a route id, -1 or -2)", err);
    rb_peer_answer *a = &p->answers[i];
    a->id = (int32_t)id;
    a->nspans = -1;
    a->first = (uint32_t)p->nspans;
    while (*end == ' ') end++;
    if (*end != '=') return *end ? protocol_error(p, line, "a ID [= OFF+LEN ...]", err) : RB_OK;
    a->nspans = 0;
    for (char *q = end + 1;;) {
        while (*q == ' ') q++;
        if (!*q) return RB_OK;
        char *e1, *e2;
        unsigned long off = strtoul(q, &e1, 10);
        if (e1 == q || *e1 != '+') return protocol_error(p, line, "spans as OFF+LEN", err);
        unsigned long len = strtoul(e1 + 1, &e2, 10);
        if (e2 == e1 + 1 || off > UINT32_MAX || len > UINT32_MAX)
            return protocol_error(p, line, "spans as OFF+LEN", err);
        if (p->nspans == p->spans_cap) {
            size_t cap = p->spans_cap ? 2 * p->spans_cap : 1024;
            rb_span *v = realloc(p->spans, cap * sizeof *v);
            if (!v) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
            p->spans = v;
            p->spans_cap = cap;
        }
        p->spans[p->nspans++] = (rb_span){(uint32_t)off, (uint32_t)len};
        a->nspans++;
        q = e2;
    }
}

static int handshake(rb_peer *p, size_t nrequests, rb_error *err)
{
    char line[4096];
    uint64_t deadline = now_ms() + RB_PEER_TIMEOUT_S * 1000u;
    int rc = read_line(p, line, sizeof line, deadline, err);
    if (rc < 0) return rc;
    int version = 0, used = 0;
    if (sscanf(line, "routebench-peer %d %n", &version, &used) < 1 || !used)
        return protocol_error(p, line, "\"routebench-peer 1 NAME\"", err);
    if (version != RB_PEER_PROTOCOL)
        return rb__error(err, RB_EIO, RB_NO_OFFSET,
                         "peer %s speaks protocol version %d; this routebench speaks %d", p->name,
                         version, RB_PEER_PROTOCOL);
    for (;;) {
        if ((rc = read_line(p, line, sizeof line, deadline, err)) < 0) return rc;
        if (strncmp(line, "refuse ", 7) == 0) {
            if (!p->nrefused++) snprintf(p->first_refusal, sizeof p->first_refusal, "%s", line + 7);
            continue;
        }
        unsigned long long routes, build;
        long long memory;
        if (sscanf(line, "loaded %llu %llu %lld", &routes, &build, &memory) != 3)
            return protocol_error(p, line, "\"refuse ID REASON\" or \"loaded N BUILD_NS MEMORY\"",
                                  err);
        p->build_ns = build;
        p->memory = memory;
        break;
    }
    p->answers = calloc(nrequests ? nrequests : 1, sizeof *p->answers);
    if (!p->answers) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < nrequests; i++) {
        if ((rc = read_line(p, line, sizeof line, deadline, err)) < 0) return rc;
        if ((rc = parse_answer(p, line, i, err)) < 0) return rc;
        p->checksum += (uint64_t)((int64_t)p->answers[i].id + 2);
        p->nanswers++;
    }
    if ((rc = read_line(p, line, sizeof line, deadline, err)) < 0) return rc;
    /* optional: the timed loop's own fold of one replay (its trials must
     * sum to R times it instead of R times the answers' sum) */
    unsigned long long fold;
    int end = 0;
    if (strncmp(line, "fold ", 5) == 0 && line[5] >= '0' && line[5] <= '9' &&
        sscanf(line, "fold %llu%n", &fold, &end) == 1 && line[end] == '\0') {
        p->checksum = fold;
        if ((rc = read_line(p, line, sizeof line, deadline, err)) < 0) return rc;
    }
    if (strcmp(line, "ready") != 0)
        return protocol_error(p, line,
                              "\"fold CHECKSUM\" or \"ready\" after one answer per request", err);
    return RB_OK;
}

int rb_peer_start(const rb_peer_spec *spec, const char *routes_path, const char *requests_path,
                  size_t nrequests, rb_peer **out, rb_error *err)
{
    *out = NULL;
    rb_peer *p = calloc(1, sizeof *p);
    if (!p) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    p->to = p->from = p->errfd = -1;
    snprintf(p->name, sizeof p->name, "%s", spec->name);
    p->jit = spec->jit;
    /* a runner that dies must not kill us with SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    int rc = spawn(p, spec, routes_path, requests_path, err);
    if (rc == RB_OK) rc = handshake(p, nrequests, err);
    if (rc < 0) {
        rb_peer_close(p);
        return rc;
    }
    *out = p;
    return RB_OK;
}

int rb_peer_trial(rb_peer *p, uint64_t reps, uint64_t *ns, uint64_t *checksum, rb_error *err)
{
    char cmd[64], line[256];
    snprintf(cmd, sizeof cmd, "run %llu\n", (unsigned long long)reps);
    int rc = write_all(p, cmd, err);
    if (rc < 0) return rc;
    if ((rc = read_line(p, line, sizeof line, now_ms() + RB_PEER_TIMEOUT_S * 1000u, err)) < 0)
        return rc;
    unsigned long long a, b;
    if (sscanf(line, "ok %llu %llu", &a, &b) != 2)
        return protocol_error(p, line, "\"ok NS CHECKSUM\"", err);
    *ns = a;
    *checksum = b;
    return RB_OK;
}

void rb_peer_info(const rb_peer *p, uint64_t *build_ns, size_t *memory)
{
    *build_ns = p->build_ns;
    *memory = p->memory > 0 ? (size_t)p->memory : 0;
}

void rb_peer_match(const rb_peer *p, size_t i, rb_match *m)
{
    memset(m, 0, sizeof *m);
    const rb_peer_answer *a = &p->answers[i];
    if (a->id == RB_EXPECT_NOT_FOUND) {
        m->outcome = RB_NOT_FOUND;
        return;
    }
    if (a->id == RB_EXPECT_NOT_ALLOWED) {
        m->outcome = RB_METHOD_NOT_ALLOWED;
        return;
    }
    m->outcome = RB_FOUND;
    m->route_id = (uint32_t)a->id;
    uint32_t n = a->nspans > 0 ? (uint32_t)a->nspans : 0;
    m->nparams = n < RB_MAX_CAPTURES ? n : RB_MAX_CAPTURES;
    for (uint32_t k = 0; k < m->nparams; k++) m->params[k] = p->spans[a->first + k];
}

int rb_peer_check(const rb_peer *p, const rb_route_table *routes, const rb_request_table *requests,
                  rb_peer_agreement *a, rb_error *err)
{
    memset(a, 0, sizeof *a);
    a->first_linear_miss = SIZE_MAX;
    a->spans = true;
    if (p->nanswers != requests->count)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "peer %s answered %zu of %zu requests",
                         p->name, p->nanswers, requests->count);
    rb_router *lin;
    int rc =
        rb_route_table_build_router(routes, "routes", rb_registry_find("linear"), NULL, &lin, err);
    if (rc < 0) return rc;
    a->requests = requests->count;
    for (size_t i = 0; i < requests->count; i++) {
        const rb_request *q = &requests->reqs[i];
        rb_match got, want;
        rb_peer_match(p, i, &got);
        rb_router_lookup(lin, q->method, rb_request_path(requests, i), q->len, &want);
        if (rb_match_expected(&got, q->expected)) a->agree_expected++;
        bool spans = p->answers[i].nspans >= 0;
        a->spans = a->spans && spans;
        got.allowed = want.allowed; /* not part of the protocol */
        if (!spans && got.outcome == RB_FOUND) {
            got.nparams = want.nparams;
            memcpy(got.params, want.params, sizeof got.params);
        }
        if (rb_match_equal(&got, &want))
            a->agree_linear++;
        else if (a->first_linear_miss == SIZE_MAX)
            a->first_linear_miss = i;
    }
    rb_router_destroy(lin);
    return RB_OK;
}

void rb_peer_close(rb_peer *p)
{
    if (!p) return;
    if (p->to >= 0) {
        rb_error ignored;
        write_all(p, "quit\n", &ignored);
        close(p->to);
    }
    if (p->from >= 0) close(p->from);
    if (p->errfd >= 0) close(p->errfd); /* its later writes fail, never block */
    if (p->pid > 0) {
        int status;
        rb__reap_child(p->pid, 2000, false, &status); /* 2 s of grace */
    }
    free(p->answers);
    free(p->spans);
    free(p);
}
