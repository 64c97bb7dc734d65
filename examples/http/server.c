/*
 * server.c — routebench-http-server: a small, real HTTP/1.1 server that
 * routes every request with a routebench router, for `routebench http`
 * (bench/http/http.c) and for anyone who wants to see a router inside a server.
 *
 *     routebench-http-server --router SPEC --routes FILE [--port N] [--cpu N]
 *
 * SPEC is a router name (`routebench list`) or NAME@LIB, router NAME of a
 * plugin library LIB (bench/measure/plugins.h).  The routes file is the usual
 * "METHOD PATTERN" table; route ids are line indices among route lines.
 *
 * HTTP library: GNU libmicrohttpd (Debian libmicrohttpd-dev), because it is
 * small, plain C, long maintained and packaged, and runs a whole server in
 * ONE internal thread on epoll (MHD_USE_INTERNAL_POLLING_THREAD |
 * MHD_USE_EPOLL): pinned to one core, the server is one thread parsing
 * HTTP, calling the router and writing responses, which is what the
 * measurement wants to see.  (libh2o is faster but brings an event loop,
 * TLS and HTTP/2 machinery we would not measure.)
 *
 * Every request is answered with:
 *   200  header  X-Route: ID OFF+LEN ...   (route id, then each capture as a
 *                                          span into the path, in pattern order)
 *        body    "route ID OFF+LEN ...\n"  (the same; HEAD gets no body)
 *   404  body    "not found\n"
 *   405  header  Allow: GET, POST          (built from the router's mask)
 *        body    "method not allowed\n"
 *   501  for a method routebench does not know.
 * The path is routed byte for byte as it was sent: the unescape callback
 * below turns libmicrohttpd's %-decoding off (routebench compares bytes as
 * they are); the query string, if any, is not part of the path.
 *
 * Start-up protocol (bench/http/http_proc.c relies on it): after the socket is
 * bound and the daemon runs, one line "listening 127.0.0.1:PORT (libmicrohttpd
 * VERSION, one epoll thread)" goes to stdout; with --port 0 (the default) the kernel picks a free port, so no
 * other program can race us for it.  Errors go to stderr; exit status 2 for
 * a usage or input error, 3 when the port is in use, 1 for anything else.
 * SIGTERM or SIGINT stop the daemon cleanly.
 *
 * The main thread accepts connections itself and looks at each one's first
 * bytes before handing it to the daemon (the accept stage below): a request
 * line starting with a NUL byte gets a 400 there.
 *
 * Hostile clients: a connection idle for --idle-timeout seconds (default
 * 10) is closed, and at most --max-connections (default 10000) are open at
 * once (waiting for their first bytes or held by the daemon); beyond that a
 * new connection waits in the kernel's accept queue,
 * unanswered, until an open one closes (an idle one after --idle-timeout),
 * and is then served.  (libmicrohttpd's own limit is FD_SETSIZE - 4, about 1,020, past
 * which it stops accepting: 1,100 idle clients kept every new request
 * waiting.)  The open-file limit is raised to fit the connection limit.
 */
#define _GNU_SOURCE
#include "plugins.h"
#include "router.h"
#include "table.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_PORT_IN_USE = 3 };

static const char usage_text[] =
    "usage: routebench-http-server --router SPEC --routes FILE [options]\n"
    "\n"
    "A small HTTP/1.1 server (libmicrohttpd, one epoll thread) that routes every request\n"
    "with a routebench router: 200 with X-Route: ID OFF+LEN... and the same body, 404, or\n"
    "405 with an Allow header; 400 to a request line starting with a NUL byte.\n"
    "Prints \"listening 127.0.0.1:PORT\" once it accepts.\n"
    "\n"
    "options:\n"
    "  --router SPEC       router NAME (routebench list) or NAME@LIB (a plugin library)\n"
    "  --router-lib LIB    load a plugin library first (repeatable)\n"
    "  --routes FILE       the route table (METHOD PATTERN lines)\n"
    "  --port N            TCP port on 127.0.0.1 (default 0: a free port the kernel picks)\n"
    "  --cpu N             pin the server (all its threads) to CPU N\n"
    "  --idle-timeout S    close a connection idle for S seconds (default 10; 0: never)\n"
    "  --max-connections N at most N connections at once (default 10000); more wait,\n"
    "                      unanswered, until one closes (an idle one after --idle-timeout)\n"
    "\n"
    "exit status: 0 stopped by SIGTERM/SIGINT, 1 runtime error, 2 usage/input error,\n"
    "             3 the port is in use\n";

typedef struct server {
    rb_router *router;
} server;

/* Keep the path as sent: no %-decoding. */
static size_t keep_bytes(void *cls, struct MHD_Connection *c, char *s)
{
    (void)cls;
    (void)c;
    return strlen(s);
}

/* "ID OFF+LEN ..." for a found route. */
static size_t format_route(const rb_match *m, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "%u", m->route_id);
    for (uint32_t i = 0; i < m->nparams && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, " %u+%u", m->params[i].offset, m->params[i].len);
    return n < cap ? n : cap - 1;
}

/* "GET, POST" from a 405 mask. */
static void format_allow(uint32_t mask, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < RB_METHOD_COUNT; k++) {
        if (!(mask & RB_METHOD_BIT(k)) || n >= cap) continue;
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", rb_method_name(k));
    }
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body,
                             size_t len, const char *header, const char *value)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
    if (header) MHD_add_response_header(r, header, value);
    enum MHD_Result res = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return res;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload_data,
                              size_t *upload_data_size, void **state)
{
    (void)version;
    (void)upload_data;
    static int seen;      /* address used as a per-request marker, never written */
    if (*state == NULL) { /* headers are in; the body (if any) follows */
        *state = &seen;
        return MHD_YES;
    }
    if (*upload_data_size) { /* a body: read and ignore it */
        *upload_data_size = 0;
        return MHD_YES;
    }
    const server *s = cls;
    int m = rb_method_parse(method, strlen(method));
    if (m < 0 || m >= RB_METHOD_COUNT) {
        static const char msg[] = "method not implemented\n";
        return reply(c, MHD_HTTP_NOT_IMPLEMENTED, msg, sizeof msg - 1, NULL, NULL);
    }
    rb_match match;
    char text[64 + RB_MAX_CAPTURES * 24], body[sizeof text + 16];
    switch (rb_router_lookup(s->router, m, url, strlen(url), &match)) {
    case RB_FOUND: {
        format_route(&match, text, sizeof text);
        int n = snprintf(body, sizeof body, "route %s\n", text);
        return reply(c, MHD_HTTP_OK, body, (size_t)n, "X-Route", text);
    }
    case RB_METHOD_NOT_ALLOWED: {
        static const char msg[] = "method not allowed\n";
        format_allow(match.allowed, text, sizeof text);
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, msg, sizeof msg - 1, MHD_HTTP_HEADER_ALLOW,
                     text);
    }
    default: {
        static const char msg[] = "not found\n";
        return reply(c, MHD_HTTP_NOT_FOUND, msg, sizeof msg - 1, NULL, NULL);
    }
    }
}

/* Bind and listen on 127.0.0.1:port; the port actually bound in *bound. */
static int listen_on(unsigned port, unsigned *bound)
{
    /* non-blocking: the accept stage takes connections until none is left */
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        fprintf(stderr, "routebench-http-server: socket: %s\n", strerror(errno));
        return -EXIT_RUNTIME;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        int e = errno;
        fprintf(stderr, "routebench-http-server: cannot bind 127.0.0.1:%u: %s\n", port,
                strerror(e));
        close(fd);
        return e == EADDRINUSE ? -EXIT_PORT_IN_USE : -EXIT_RUNTIME;
    }
    if (listen(fd, SOMAXCONN) != 0) {
        fprintf(stderr, "routebench-http-server: listen: %s\n", strerror(errno));
        close(fd);
        return -EXIT_RUNTIME;
    }
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    *bound = ntohs(a.sin_port);
    return fd;
}

static int pin(unsigned cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) == 0) return 0;
    fprintf(stderr, "routebench-http-server: cannot pin to CPU %u: %s\n", cpu, strerror(errno));
    return -1;
}

static bool parse_uint(const char *opt, const char *v, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long x = v ? strtoul(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || x > max || v[0] == '-') {
        fprintf(stderr, "routebench-http-server: %s needs a number 0..%lu, got '%s'\n", opt, max,
                v ? v : "");
        return false;
    }
    *out = x;
    return true;
}

/* Raise the open-file limit so that max_conn connections (and the files
 * the server has open) fit; the limit it can have when less. */
static unsigned long fit_files(unsigned long max_conn)
{
    enum { RESERVE = 64 }; /* the listening socket, epoll, stdio, libraries */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return max_conn;
    rlim_t want = (rlim_t)max_conn + RESERVE;
    if (rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= want ? want : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    /* grow the file table now, while this is the only thread: grown later,
     * under a flood, the kernel waits for the other threads each time it
     * doubles, and the accept stage stalls long enough for the listening
     * queue to overflow (a client whose SYN is dropped retries after 1 s) */
    int top = (int)(rl.rlim_cur < want ? rl.rlim_cur : want) - 1;
    if (top > 2 && dup2(2, top) == top) close(top);
    if (rl.rlim_cur < want && rl.rlim_cur > RESERVE) return (unsigned long)(rl.rlim_cur - RESERVE);
    return max_conn;
}

/* ---- the accept stage ----------------------------------------------------
 * libmicrohttpd skips a request line that starts with a NUL byte as if it
 * were empty and waits for another, so a client sending one got no answer
 * until the idle timeout.  The server therefore accepts connections itself
 * and looks at each one's first bytes before handing it to the daemon
 * (MHD_add_connection): leading empty lines are read and dropped (RFC 9112
 * lets a server ignore them), a first byte NUL gets a 400 and the
 * connection is closed, anything else goes to the daemon.  A connection
 * that sends nothing for --idle-timeout seconds is closed here, as the
 * daemon would.  The connection limit counts both: while the connections
 * waiting here and those the daemon holds reach it, the listening socket
 * is not accepted from, and new connections wait in the kernel's queue. */

typedef struct waiting {
    int fd;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    double since; /* seconds, CLOCK_MONOTONIC: the last bytes seen */
} waiting;

typedef struct stage {
    struct MHD_Daemon *daemon;
    unsigned long handed; /* connections handed to the daemon (this thread's count) */
    atomic_ulong closed;  /* of those, closed by the daemon */
    int wake;             /* eventfd: the daemon closed a connection */
    waiting *wait;        /* connections whose first bytes are not in yet */
    size_t nwait, cap;
    unsigned long limit;
    unsigned long idle_s;
} stage;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Count the daemon's closed connections, and wake the accept stage. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)c;
    (void)socket_context;
    stage *st = cls;
    if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_add(&st->closed, 1);
        uint64_t one = 1;
        ssize_t ignored = write(st->wake, &one, sizeof one); /* fails only when a wake-up is due */
        (void)ignored;
    }
}

#define NUL_BODY "bad request: the request line starts with a NUL byte\n"
_Static_assert(sizeof NUL_BODY - 1 == 53, "the Content-Length of refuse_nul's answer");

/* Answer 400 to a request line that starts with a NUL byte, and close. */
static void refuse_nul(int fd)
{
    static const char msg[] = "HTTP/1.1 400 Bad Request\r\n"
                              "Content-Type: text/plain\r\n"
                              "Content-Length: 53\r\n"
                              "Connection: close\r\n"
                              "\r\n" NUL_BODY;
    ssize_t ignored = send(fd, msg, sizeof msg - 1, MSG_NOSIGNAL | MSG_DONTWAIT); /* or it left */
    (void)ignored;
    shutdown(fd, SHUT_WR);
    char junk[4096]; /* read what is in, so close does not reset the answer away */
    for (int i = 0; i < 16 && recv(fd, junk, sizeof junk, MSG_DONTWAIT) > 0; i++) continue;
    close(fd);
    fprintf(stderr, "routebench-http-server: 400 to a request line starting with a NUL byte; "
                    "connection closed\n");
}

/* Look at w's first bytes: true when w is done with (handed to the
 * daemon, refused or closed), false while it waits for more. */
static bool look(stage *st, waiting *w)
{
    unsigned char b[64];
    ssize_t n = recv(w->fd, b, sizeof b, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return false;
    if (n <= 0) { /* the client left, or the socket failed */
        close(w->fd);
        return true;
    }
    size_t k = 0;
    while (k < (size_t)n && (b[k] == '\r' || b[k] == '\n')) k++;
    if (k == (size_t)n) { /* only empty lines so far: drop them, wait for more */
        ssize_t ignored = recv(w->fd, b, k, MSG_DONTWAIT); /* peeked: they are there */
        (void)ignored;
        w->since = now_s();
        return false;
    }
    if (b[k] == '\0') {
        refuse_nul(w->fd);
        return true;
    }
    /* counted here, not when the daemon starts it (later, in its own
     * thread: the stage would accept past the limit meanwhile); the daemon
     * closes the socket when it cannot take it */
    if (MHD_add_connection(st->daemon, w->fd, (const struct sockaddr *)&w->addr, w->addrlen) ==
        MHD_YES)
        st->handed++;
    return true;
}

/* Accept what the kernel has queued, up to the room the limit leaves and
 * ACCEPT_BATCH at a time, and look at each at once (a client's first bytes
 * are often in already).  One connection a wake-up would let a flood fill
 * the kernel's queue: a connection dropped there is retried by the client
 * after a second, and then after ever longer pauses. */
static void accept_queued(stage *st, int listen_fd, double *backoff_until)
{
    enum { ACCEPT_BATCH = 256 };
    for (int k = 0; k < ACCEPT_BATCH; k++) {
        unsigned long open = st->handed - atomic_load(&st->closed);
        if (open + st->nwait >= st->limit) return;
        if (st->nwait == st->cap) {
            size_t cap = st->cap ? st->cap * 2 : 64;
            waiting *q = realloc(st->wait, cap * sizeof *q);
            if (!q) {
                *backoff_until = now_s() + 0.1;
                return;
            }
            st->wait = q;
            st->cap = cap;
        }
        waiting *w = &st->wait[st->nwait];
        w->addrlen = sizeof w->addr;
        w->fd = accept4(listen_fd, (struct sockaddr *)&w->addr, &w->addrlen,
                        SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (w->fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                *backoff_until = now_s() + 0.1; /* out of files: wait, do not spin */
            return;                             /* EAGAIN: the queue is empty */
        }
        w->since = now_s();
        if (!look(st, w)) st->nwait++;
    }
}

/* Accept, look, hand over, until SIGTERM or SIGINT (read from sigfd). */
static int accept_loop(stage *st, int listen_fd, int sigfd)
{
    struct pollfd *p = NULL;
    size_t pcap = 0;
    double backoff_until = 0;
    for (;;) {
        size_t want = 3 + st->nwait;
        if (want > pcap) {
            struct pollfd *q = realloc(p, want * sizeof *p);
            if (!q) {
                fprintf(stderr, "routebench-http-server: out of memory\n");
                free(p);
                return EXIT_RUNTIME;
            }
            p = q;
            pcap = want;
        }
        double t = now_s();
        unsigned long open = st->handed - atomic_load(&st->closed);
        bool room = open + st->nwait < st->limit && t >= backoff_until;
        p[0] = (struct pollfd){sigfd, POLLIN, 0};
        p[1] = (struct pollfd){st->wake, POLLIN, 0};
        p[2] = (struct pollfd){listen_fd, room ? POLLIN : 0, 0};
        double next = t >= backoff_until ? -1 : backoff_until;
        for (size_t i = 0; i < st->nwait; i++) {
            p[3 + i] = (struct pollfd){st->wait[i].fd, POLLIN, 0};
            double end = st->wait[i].since + (double)st->idle_s;
            if (st->idle_s && (next < 0 || end < next)) next = end;
        }
        int ms = next < 0 ? -1 : next <= t ? 0 : (int)((next - t) * 1000) + 1;
        int ready = poll(p, want, ms);
        if (ready < 0 && errno != EINTR) {
            fprintf(stderr, "routebench-http-server: poll: %s\n", strerror(errno));
            free(p);
            return EXIT_RUNTIME;
        }
        if (ready > 0 && p[0].revents) break; /* SIGTERM or SIGINT */
        if (ready > 0 && p[1].revents) {
            uint64_t n;
            ssize_t ignored = read(st->wake, &n, sizeof n); /* the count is not needed */
            (void)ignored;
        }
        /* the waiting connections first: a finished one leaves room */
        t = now_s();
        size_t kept = 0;
        for (size_t i = 0; i < st->nwait; i++) {
            waiting *w = &st->wait[i];
            bool done;
            if (ready > 0 && p[3 + i].revents) {
                done = look(st, w);
            } else if (st->idle_s && t - w->since >= (double)st->idle_s) {
                close(w->fd);
                done = true;
            } else {
                done = false;
            }
            if (!done) st->wait[kept++] = *w;
        }
        st->nwait = kept;
        if (ready > 0 && p[2].revents && room) accept_queued(st, listen_fd, &backoff_until);
    }
    free(p);
    return 0;
}

/* Serve until SIGTERM or SIGINT. */
static int serve(rb_router *router, unsigned long port, unsigned long idle_s,
                 unsigned long max_conn)
{
    unsigned bound = 0;
    int fd = listen_on((unsigned)port, &bound);
    if (fd < 0) return -fd;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the daemon's thread inherits the mask */
    int sigfd = signalfd(-1, &stop, SFD_CLOEXEC);
    stage st = {.limit = fit_files(max_conn), .idle_s = idle_s};
    atomic_init(&st.closed, 0);
    st.wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (sigfd < 0 || st.wake < 0) {
        fprintf(stderr, "routebench-http-server: signalfd/eventfd: %s\n", strerror(errno));
        if (sigfd >= 0) close(sigfd);
        if (st.wake >= 0) close(st.wake);
        close(fd);
        return EXIT_RUNTIME;
    }
    server s = {router};
    /* the daemon's own limit has room above ours: a connection it has
     * reported closed may still count there for a moment */
    st.daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
                                     MHD_USE_ERROR_LOG | MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC,
                                 0, NULL, NULL, handle, &s, MHD_OPTION_UNESCAPE_CALLBACK,
                                 keep_bytes, NULL, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)idle_s,
                                 MHD_OPTION_CONNECTION_LIMIT, (unsigned)st.limit + 16,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, &st, MHD_OPTION_END);
    int status = EXIT_RUNTIME;
    if (!st.daemon) {
        fprintf(stderr, "routebench-http-server: libmicrohttpd could not start\n");
    } else {
        printf("listening 127.0.0.1:%u (libmicrohttpd %s, one epoll thread)\n", bound,
               MHD_get_version());
        fflush(stdout);
        status = accept_loop(&st, fd, sigfd);
        MHD_stop_daemon(st.daemon);
    }
    for (size_t i = 0; i < st.nwait; i++) close(st.wait[i].fd);
    free(st.wait);
    close(st.wake);
    close(sigfd);
    close(fd);
    return status;
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *routes_path = NULL;
    unsigned long port = 0, cpu = 0, idle_s = 10, max_conn = 10000;
    bool pinned = false;
    rb_plugins plugins;
    rb_plugins_init(&plugins);
    rb_error err;
    int status = 0;
    for (int i = 1; i < argc && !status; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(usage_text, stdout);
            rb_plugins_close(&plugins);
            return 0;
        } else if (!strcmp(a, "--router") && v) {
            spec = argv[++i];
        } else if (!strcmp(a, "--routes") && v) {
            routes_path = argv[++i];
        } else if (!strcmp(a, "--router-lib") && v) {
            if (rb_plugins_load(&plugins, argv[++i], &err) < 0) {
                fprintf(stderr, "routebench-http-server: --router-lib %s: %s\n", v, err.message);
                status = EXIT_USAGE;
            }
        } else if (!strcmp(a, "--port")) {
            i++;
            if (!parse_uint("--port", v, 65535, &port)) status = EXIT_USAGE;
        } else if (!strcmp(a, "--idle-timeout")) {
            i++;
            if (!parse_uint("--idle-timeout", v, 86400, &idle_s)) status = EXIT_USAGE;
        } else if (!strcmp(a, "--max-connections")) {
            i++;
            if (!parse_uint("--max-connections", v, 1000000, &max_conn)) {
                status = EXIT_USAGE;
            } else if (max_conn == 0) {
                fprintf(stderr, "routebench-http-server: --max-connections needs 1 or more\n");
                status = EXIT_USAGE;
            }
        } else if (!strcmp(a, "--cpu")) {
            i++;
            pinned = true;
            if (!parse_uint("--cpu", v, CPU_SETSIZE - 1, &cpu)) status = EXIT_USAGE;
        } else {
            fprintf(stderr, "routebench-http-server: unknown option or missing value: %s\n\n%s", a,
                    usage_text);
            status = EXIT_USAGE;
        }
    }
    if (!status && (!spec || !routes_path)) {
        fprintf(stderr, "routebench-http-server: needs --router SPEC and --routes FILE\n\n%s",
                usage_text);
        status = EXIT_USAGE;
    }
    if (!status && pinned && pin((unsigned)cpu) < 0) status = EXIT_USAGE;

    const rb_router_ops *ops = NULL;
    rb_route_table routes = {0};
    rb_router *router = NULL;
    if (!status && rb_router_spec_resolve(&plugins, spec, &ops, &err) < 0) {
        fprintf(stderr, "routebench-http-server: %s\n", err.message);
        status = EXIT_USAGE;
    }
    if (!status && rb_route_table_read(routes_path, &routes, &err) < 0) {
        fprintf(stderr, "routebench-http-server: %s\n", err.message);
        status = EXIT_USAGE;
    }
    if (!status &&
        rb_route_table_build_router(&routes, routes_path, ops, NULL, &router, &err) < 0) {
        fprintf(stderr, "routebench-http-server: %s: %s\n", spec, err.message);
        status = EXIT_USAGE;
    }
    if (!status) status = serve(router, port, idle_s, max_conn);
    rb_router_destroy(router);
    rb_route_table_free(&routes);
    rb_plugins_close(&plugins);
    return status;
}
