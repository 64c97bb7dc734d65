/*
 * http_load.c — the open-loop generator of `routebench http`: latency at a
 * fixed offered rate, corrected for coordinated omission.
 *
 * Why not wrk's Lua delay()?  wrk schedules a delayed request with its
 * event loop's millisecond timers, far coarser than the gaps between
 * requests at tens of thousands per second, and it starts a request's
 * latency clock when the request is written, so a server that stalls
 * simply receives fewer requests and the stall never shows in the
 * percentiles (coordinated omission).  wrk2 fixed both; Debian does not
 * package it.  So this is a small generator of our own with the same
 * correction:
 *
 *   due(k) = t0 + k / rate                       the schedule, fixed up front
 *   request k goes on connection k mod C, as soon as it is due and that
 *   connection's previous response is in (one request in flight a
 *   connection: HTTP/1.1 without pipelining)
 *   latency(k) = time its response is complete - due(k)
 *
 * so a request held back behind a slow one is charged from the moment it
 * should have been sent.  The loop sleeps in ppoll() with nanosecond
 * timeouts (timer slack set to 1 ns meanwhile), sends from pre-formatted
 * buffers, and checks every answer against the expected one, so
 * unexpected statuses and wrong answers are counted exactly.  Percentiles
 * are exact (every latency kept; type-7 quantiles from stats.h).
 */
#define _GNU_SOURCE
#include "http.h"

#include "base_internal.h"
#include "clock.h"
#include "verify.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct load_conn {
    int fd;
    bool busy;        /* a request in flight */
    uint64_t k;       /* the request in flight, or the next one due */
    uint64_t sent_ns; /* when it was written */
    size_t len;
    char buf[16384];
} load_conn;

typedef struct load_state {
    const rb_load_config *cfg;
    load_conn *conns;
    char **reqbuf; /* formatted requests, one per table entry */
    size_t *reqlen;
    uint64_t total, t0; /* due(k) = t0 + k * 1e9 / rate */
    double interval_ns;
    double *lat_us;
    rb_load_result *out;
} load_state;

static uint64_t due(const load_state *s, uint64_t k)
{
    return s->t0 + (uint64_t)((double)k * s->interval_ns);
}

static int open_conn(load_state *s, load_conn *c, rb_error *err)
{
    c->fd = rb__http_connect(s->cfg->port, false, 0, err);
    c->len = 0;
    c->busy = false;
    if (c->fd < 0) {
        s->out->err_connect++;
        return c->fd;
    }
    return RB_OK;
}

/* Send request c->k on c (blocking write: a few dozen bytes on loopback). */
static void send_next(load_state *s, load_conn *c, uint64_t now)
{
    size_t i = (size_t)(c->k % s->cfg->reqs->count);
    const char *p = s->reqbuf[i];
    size_t n = s->reqlen[i];
    while (n) {
        ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            s->out->err_write++;
            close(c->fd);
            c->fd = -1;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
    c->busy = true;
    c->sent_ns = now;
}

/* A connection's request k failed (error or timeout): count it as done. */
static void fail_request(load_state *s, load_conn *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    c->busy = false;
    c->k += s->cfg->connections;
}

static void on_readable(load_state *s, load_conn *c, uint64_t *last_done)
{
    ssize_t n = recv(c->fd, c->buf + c->len, sizeof c->buf - c->len, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
        s->out->err_read++;
        fail_request(s, c);
        return;
    }
    c->len += (size_t)n;
    size_t i = (size_t)(c->k % s->cfg->reqs->count);
    rb_http_response r;
    size_t used = 0;
    rb_error perr;
    int pr = rb_http_response_parse(c->buf, c->len, s->cfg->reqs->reqs[i].method == RB_HEAD, &r,
                                    &used, &perr);
    if (pr == 0) return;
    if (pr < 0) {
        s->out->err_read++;
        fail_request(s, c);
        return;
    }
    uint64_t now = rb__monotonic_ns();
    *last_done = now;
    double lat = (double)(now - due(s, c->k)) / 1e3;
    s->lat_us[s->out->completed++] = lat;
    switch (r.status) {
    case 200:
        s->out->status_200++;
        break;
    case 404:
        s->out->status_404++;
        break;
    case 405:
        s->out->status_405++;
        break;
    default:
        s->out->status_other++;
    }
    rb_match got;
    if (rb_http_response_match(&r, &got, &perr) < 0 || !rb_match_equal(&got, &s->cfg->want[i]))
        s->out->wrong++;
    memmove(c->buf, c->buf + used, c->len - used);
    c->len -= used;
    c->busy = false;
    c->k += s->cfg->connections;
    if (r.close) {
        close(c->fd);
        c->fd = -1;
    }
}

static int format_requests(load_state *s, rb_error *err)
{
    const rb_request_table *t = s->cfg->reqs;
    s->reqbuf = calloc(t->count, sizeof *s->reqbuf);
    s->reqlen = calloc(t->count, sizeof *s->reqlen);
    if (!s->reqbuf || !s->reqlen) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    for (size_t i = 0; i < t->count; i++) {
        rb_buf b = {0};
        rb_http_format_request(&b, t->reqs[i].method, rb_request_path(t, i), t->reqs[i].len);
        if (b.failed) {
            rb_buf_free(&b);
            return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
        }
        s->reqbuf[i] = b.data;
        s->reqlen[i] = b.len;
    }
    return RB_OK;
}

static void percentiles(load_state *s)
{
    rb_load_result *o = s->out;
    size_t n = (size_t)o->completed;
    if (n == 0) return;
    double *scratch = malloc(n * sizeof *scratch);
    if (!scratch) return;
    rb_stats_quantile(s->lat_us, n, 0.50, &o->p50_us, scratch);
    rb_stats_quantile(s->lat_us, n, 0.90, &o->p90_us, scratch);
    rb_stats_quantile(s->lat_us, n, 0.99, &o->p99_us, scratch);
    rb_stats_quantile(s->lat_us, n, 0.999, &o->p999_us, scratch);
    o->max_us = scratch[n - 1];
    free(scratch);
}

/* The main loop: until every scheduled request is answered or failed. */
static int run_schedule(load_state *s, rb_error *err)
{
    const rb_load_config *cfg = s->cfg;
    unsigned nc = cfg->connections;
    struct pollfd *pfd = calloc(nc, sizeof *pfd);
    unsigned *which = calloc(nc, sizeof *which);
    if (!pfd || !which) {
        free(pfd);
        free(which);
        return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    }
    uint64_t timeout_ns = (uint64_t)cfg->timeout_ms * 1000000u;
    uint64_t last_done = 0, finished = 0;
    int rc = RB_OK;
    while (finished < nc) {
        uint64_t now = rb__monotonic_ns(), wake = UINT64_MAX;
        unsigned np = 0;
        finished = 0;
        for (unsigned j = 0; j < nc; j++) {
            load_conn *c = &s->conns[j];
            if (!c->busy && c->k >= s->total) {
                finished++;
                continue;
            }
            if (c->busy && now - c->sent_ns > timeout_ns) {
                s->out->err_timeout++;
                fail_request(s, c);
                if (s->out->err_timeout >= nc) { /* every connection timed out: a hang */
                    rc = rb__error(err, RB_EIO, RB_NO_OFFSET,
                                   "the server stopped answering (%llu requests unanswered "
                                   "for %u ms)",
                                   (unsigned long long)s->out->err_timeout, cfg->timeout_ms);
                    break;
                }
            }
            if (!c->busy && c->k < s->total) {
                uint64_t d = due(s, c->k);
                if (d <= now) {
                    if (c->fd < 0 && open_conn(s, c, err) < 0) {
                        /* count every request of this connection as failed */
                        if (s->out->completed == 0 && s->out->err_connect > nc) {
                            rc = RB_EIO;
                            break;
                        }
                        c->k += nc;
                        continue;
                    }
                    send_next(s, c, now);
                    if (!c->busy) {
                        c->k += nc;
                        continue;
                    }
                } else if (d < wake) {
                    wake = d;
                    continue;
                } else {
                    continue;
                }
            }
            if (c->busy) {
                pfd[np].fd = c->fd;
                pfd[np].events = POLLIN;
                which[np++] = j;
                uint64_t limit = c->sent_ns + timeout_ns;
                if (limit < wake) wake = limit;
            }
        }
        if (rc < 0 || finished == nc) break;
        now = rb__monotonic_ns();
        struct timespec ts = {0, 0};
        if (wake != UINT64_MAX && wake > now) {
            uint64_t d = wake - now;
            ts.tv_sec = (time_t)(d / 1000000000u);
            ts.tv_nsec = (long)(d % 1000000000u);
        }
        int pr = ppoll(pfd, np, wake == UINT64_MAX ? NULL : &ts, NULL);
        if (pr < 0 && errno != EINTR) {
            rc = rb__error(err, RB_EIO, RB_NO_OFFSET, "ppoll: %s", strerror(errno));
            break;
        }
        for (unsigned q = 0; pr > 0 && q < np; q++)
            if (pfd[q].revents) on_readable(s, &s->conns[which[q]], &last_done);
    }
    free(pfd);
    free(which);
    if (rc == RB_EIO && !err->message[0])
        rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot connect to 127.0.0.1:%u", cfg->port);
    double span = last_done > s->t0 ? (double)(last_done - s->t0) / 1e9 : 0;
    s->out->achieved_rate = span > 0 ? (double)s->out->completed / span : 0;
    return rc;
}

int rb_load_run(const rb_load_config *cfg, rb_load_result *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    if (!(cfg->rate > 0) || !(cfg->duration_s > 0) || cfg->connections == 0 || !cfg->reqs->count ||
        cfg->rate * cfg->duration_s > 1e9)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                         "open-loop run needs rate > 0, duration > 0, connections >= 1");
    load_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.out = out;
    s.total = (uint64_t)(cfg->rate * cfg->duration_s);
    if (s.total < 1) s.total = 1;
    s.interval_ns = 1e9 / cfg->rate;
    out->scheduled = s.total;
    err->message[0] = '\0';
    s.conns = calloc(cfg->connections, sizeof *s.conns);
    s.lat_us = malloc((size_t)s.total * sizeof *s.lat_us);
    int rc = s.conns && s.lat_us ? format_requests(&s, err)
                                 : rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int old_slack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
    for (unsigned j = 0; rc == RB_OK && j < cfg->connections; j++) {
        s.conns[j].fd = -1;
        s.conns[j].k = j;
        rc = open_conn(&s, &s.conns[j], err);
    }
    if (rc == RB_OK) {
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        s.t0 = rb__monotonic_ns() + 1000000u; /* 1 ms from now: the connections are open */
        rc = run_schedule(&s, err);
        if (old_slack > 0) prctl(PR_SET_TIMERSLACK, (unsigned long)old_slack, 0, 0, 0);
        percentiles(&s);
    }
    for (unsigned j = 0; s.conns && j < cfg->connections; j++)
        if (s.conns[j].fd >= 0) close(s.conns[j].fd);
    for (size_t i = 0; s.reqbuf && i < cfg->reqs->count; i++) free(s.reqbuf[i]);
    free(s.reqbuf);
    free(s.reqlen);
    free(s.conns);
    free(s.lat_us);
    return rc;
}
