/*
 * http_gate.c — the validity gate of `routebench http`: before a server's
 * throughput counts, every request of the table goes to it once over HTTP
 * and each answer must equal linear's: the status, the route id and every
 * capture span (X-Route), the 405 mask (Allow), and for a 200 the body.
 * A server that fails is named with its first wrong request; its load
 * phase is refused (bench/http/http.c).
 *
 * One blocking keep-alive connection with send/receive timeouts, the
 * simplest client that can tell a wrong answer from a dead server.
 */
#define _GNU_SOURCE
#include "http.h"

#include "base_internal.h"
#include "verify.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int rb__http_connect(uint16_t port, bool nonblocking, unsigned timeout_ms, rb_error *err)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0) return rb__error(err, RB_EIO, RB_NO_OFFSET, "socket: %s", strerror(errno));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (timeout_ms) {
        struct timeval tv = {(time_t)(timeout_ms / 1000), (suseconds_t)(timeout_ms % 1000) * 1000};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    }
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 && errno != EINPROGRESS) {
        int e = errno;
        close(fd);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot connect to 127.0.0.1:%u: %s", port,
                         strerror(e));
    }
    return fd;
}

typedef struct gate_conn {
    int fd;
    uint16_t port;
    unsigned timeout_ms;
    char buf[16384];
    size_t len;
} gate_conn;

static int send_all(gate_conn *c, const char *p, size_t n, rb_error *err)
{
    while (n) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "send failed: %s",
                             w < 0 ? strerror(errno) : "connection closed");
        p += w;
        n -= (size_t)w;
    }
    return RB_OK;
}

/* Read until one whole response is in c->buf. */
static int receive(gate_conn *c, bool head, rb_http_response *r, size_t *used, rb_error *err)
{
    for (;;) {
        int pr = rb_http_response_parse(c->buf, c->len, head, r, used, err);
        if (pr != 0) return pr < 0 ? pr : RB_OK;
        if (c->len == sizeof c->buf)
            return rb__error(err, RB_EFORMAT, RB_NO_OFFSET, "response larger than %zu bytes",
                             sizeof c->buf);
        ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "no answer within %u ms", c->timeout_ms);
        if (n <= 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "the server closed the connection%s%s",
                             n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
        c->len += (size_t)n;
    }
}

/* Compare the response with want; "" when equal, else what differs. */
static void compare(const rb_http_response *r, bool head, const rb_match *want, char *what,
                    size_t cap)
{
    rb_error perr;
    rb_match got;
    char w[256], g[256];
    what[0] = '\0';
    rb_match_format(want, w, sizeof w);
    if (rb_http_response_match(r, &got, &perr) < 0) {
        snprintf(what, cap, "expected %s, got an answer that does not parse: %s", w, perr.message);
        return;
    }
    if (!rb_match_equal(&got, want)) {
        rb_match_format(&got, g, sizeof g);
        snprintf(what, cap, "expected %s, got %s", w, g);
        return;
    }
    if (r->status == 200 && !head) {
        char body[sizeof r->route + 16];
        int n = snprintf(body, sizeof body, "route %s\n", r->route);
        if ((size_t)n != r->content_length || memcmp(body, r->body, (size_t)n) != 0)
            snprintf(what, cap, "expected body 'route %s', got '%.*s'", r->route,
                     (int)(r->content_length > 80 ? 80 : r->content_length), r->body);
    }
}

int rb_http_gate_run(uint16_t port, const rb_request_table *reqs, const rb_match *want,
                     unsigned timeout_ms, rb_http_gate *g, rb_error *err)
{
    memset(g, 0, sizeof *g);
    g->requests = reqs->count;
    gate_conn *c = malloc(sizeof *c);
    if (!c) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    c->fd = -1;
    c->port = port;
    c->timeout_ms = timeout_ms;
    c->len = 0;
    rb_buf req = {0};
    int rc = RB_OK;
    for (size_t i = 0; i < reqs->count && rc == RB_OK; i++) {
        const rb_request *q = &reqs->reqs[i];
        const char *path = rb_request_path(reqs, i);
        if (c->fd < 0) {
            c->fd = rb__http_connect(port, false, timeout_ms, err);
            c->len = 0;
            if (c->fd < 0) rc = c->fd;
        }
        req.len = 0;
        rb_http_format_request(&req, q->method, path, q->len);
        if (rc == RB_OK && req.failed)
            rc = rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        if (rc == RB_OK) rc = send_all(c, req.data, req.len, err);
        rb_http_response r;
        size_t used = 0;
        bool head = q->method == RB_HEAD;
        if (rc == RB_OK) rc = receive(c, head, &r, &used, err);
        if (rc == RB_EFORMAT) { /* an answer, but not HTTP as we know it: a wrong answer */
            rc = RB_OK;
            r.status = 0;
            if (!g->first_what[0]) {
                g->first_wrong = i;
                snprintf(g->first_what, sizeof g->first_what, "%s %.*s (line %zu): %s",
                         rb_method_name(q->method), (int)q->len, path, q->line, err->message);
            }
            close(c->fd); /* the stream cannot be trusted past a malformed answer */
            c->fd = -1;
            continue;
        }
        if (rc < 0) {
            g->io_failed = true;
            g->first_wrong = i;
            char msg[sizeof err->message];
            snprintf(msg, sizeof msg, "%s", err->message);
            rb__error(err, RB_EIO, RB_NO_OFFSET, "request %zu, %s %.*s (line %zu): %s", i + 1,
                      rb_method_name(q->method), q->len > 80 ? 80 : (int)q->len, path, q->line,
                      msg);
            break;
        }
        char what[400];
        compare(&r, head, &want[i], what, sizeof what);
        if (what[0]) {
            if (!g->first_what[0]) {
                g->first_wrong = i;
                snprintf(g->first_what, sizeof g->first_what, "%s %.*s (line %zu): %s",
                         rb_method_name(q->method), q->len > 80 ? 80 : (int)q->len, path, q->line,
                         what);
            }
        } else {
            g->passed++;
        }
        memmove(c->buf, c->buf + used, c->len - used);
        c->len -= used;
        if (r.close) {
            close(c->fd);
            c->fd = -1;
        }
    }
    if (c->fd >= 0) close(c->fd);
    free(c);
    rb_buf_free(&req);
    return rc;
}
