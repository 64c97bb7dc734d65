/*
 * http_proc.c — the child processes of `routebench http` (servers, wrk):
 * started pinned to a CPU in a process group of their own, so one kill
 * reaches everything they started; killed by the kernel if routebench
 * dies (PR_SET_PDEATHSIG); stopped with SIGTERM, then SIGKILL after a
 * grace period, and always reaped.  Their stderr goes to a file whose
 * tail the caller shows when something goes wrong.
 */
#define _GNU_SOURCE
#include "http.h"
#include "program.h"

#include "base_internal.h"
#include "clock.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child_exec(char *const *argv, int cpu, int out_fd, int err_fd, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127); /* the parent died before prctl */
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((size_t)cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set) != 0) _exit(126);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    execv(argv[0], argv);
    static const char msg[] = "exec failed\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(127);
}

int rb_http_spawn(char *const *argv, int cpu, bool want_stdout, const char *err_path,
                  rb_http_child *c, rb_error *err)
{
    memset(c, 0, sizeof c[0]);
    c->out_fd = -1;
    c->err_path = strdup(err_path);
    if (!c->err_path) return rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory");
    int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (err_fd < 0) {
        int e = errno;
        rb_http_child_free(c);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "cannot create %s: %s", err_path, strerror(e));
    }
    int pipe_fd[2] = {-1, -1};
    if (want_stdout ? pipe2(pipe_fd, O_CLOEXEC) != 0
                    : (pipe_fd[1] = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
        int e = errno;
        close(err_fd);
        rb_http_child_free(c);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "pipe: %s", strerror(e));
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) child_exec(argv, cpu, pipe_fd[1], err_fd, parent);
    int e = errno;
    close(err_fd);
    close(pipe_fd[1]);
    if (pid < 0) {
        if (pipe_fd[0] >= 0) close(pipe_fd[0]);
        rb_http_child_free(c);
        return rb__error(err, RB_EIO, RB_NO_OFFSET, "fork: %s", strerror(e));
    }
    setpgid(pid, pid); /* also here, so the group exists before we signal it */
    c->pid = pid;
    c->out_fd = pipe_fd[0];
    return RB_OK;
}

int rb_http_read_line(rb_http_child *c, const char *prefix, unsigned timeout_ms, char *line,
                      size_t cap, rb_error *err)
{
    uint64_t deadline = (rb__monotonic_ns() / 1000000u) + timeout_ms;
    size_t n = 0, plen = strlen(prefix);
    line[0] = '\0';
    for (;;) {
        uint64_t now = (rb__monotonic_ns() / 1000000u);
        if (now >= deadline)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "no '%s' line within %u ms", prefix,
                             timeout_ms);
        struct pollfd pfd = {c->out_fd, POLLIN, 0};
        int pr = poll(&pfd, 1, (int)(deadline - now));
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) continue;
        char ch;
        ssize_t r = read(c->out_fd, &ch, 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            return rb__error(err, RB_EIO, RB_NO_OFFSET, "it closed its output before a '%s' line",
                             prefix);
        if (ch == '\n') {
            line[n] = '\0';
            if (strncmp(line, prefix, plen) == 0) return RB_OK;
            n = 0;
        } else if (n + 1 < cap) {
            line[n++] = ch;
        }
    }
}

bool rb_http_child_exited(rb_http_child *c, int *status)
{
    if (c->pid <= 0) return true;
    siginfo_t info;
    memset(&info, 0, sizeof info);
    if (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0)
        return false;
    /* Not reaped yet, so the group id cannot have been reused: end
     * whatever else the child started, then reap it. */
    kill(-c->pid, SIGKILL);
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(c->pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    c->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
               (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    if (status) *status = st;
    c->pid = 0;
    return true;
}

bool rb_http_child_wait(rb_http_child *c, unsigned timeout_ms, int *status)
{
    uint64_t deadline = (rb__monotonic_ns() / 1000000u) + timeout_ms;
    for (;;) {
        if (rb_http_child_exited(c, status)) return true;
        if ((rb__monotonic_ns() / 1000000u) >= deadline) return false;
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

void rb_http_child_stop(rb_http_child *c, unsigned grace_ms, int *status)
{
    if (c->pid > 0) {
        kill(-c->pid, SIGTERM);
        if (!rb_http_child_wait(c, grace_ms, status)) {
            int st = 0;
            rb__reap_child(c->pid, 0, true, &st); /* no more grace: the group is killed */
            if (status) *status = st;
            c->pid = 0;
        }
    }
    if (c->out_fd >= 0) close(c->out_fd);
    c->out_fd = -1;
}

void rb_http_child_stderr(const rb_http_child *c, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!c->err_path || cap < 2) return;
    FILE *f = fopen(c->err_path, "rb");
    if (!f) return;
    size_t want = cap - 1 < RB_HTTP_TAIL ? cap - 1 : RB_HTTP_TAIL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        if (size > (long)want)
            fseek(f, size - (long)want, SEEK_SET);
        else
            rewind(f);
    }
    size_t n = fread(buf, 1, want, f);
    buf[n] = '\0';
    fclose(f);
}

double rb_http_child_cpu_s(const rb_http_child *c)
{
    if (c->pid <= 0) return c->cpu_s;
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)c->pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* fields after the command name, which is in parentheses and may hold spaces */
    const char *p = strrchr(buf, ')');
    unsigned long long utime = 0, stime = 0;
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                     &stime) != 2)
        return -1;
    long tck = sysconf(_SC_CLK_TCK);
    return (double)(utime + stime) / (double)(tck > 0 ? tck : 100);
}

void rb_http_describe_status(int status, char *buf, size_t cap)
{
    if (WIFEXITED(status))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(buf, cap, "stopped (wait status %d)", status);
}

void rb_http_child_free(rb_http_child *c)
{
    free(c->err_path);
    c->err_path = NULL;
}
