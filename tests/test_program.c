/*
 * test_program.c — program.h: finding a program to start, and reaping a
 * child within a time budget.
 */
#include "program.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child_sleeping(unsigned seconds, int code)
{
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        if (seconds) sleep(seconds);
        _exit(code);
    }
    return pid;
}

/* A child that exits within the budget is reaped with its exit status. */
Test(program, reap_child_returns_the_exit_status_within_the_budget)
{
    int status = -1;
    cr_assert_eq(rb__reap_child(child_sleeping(0, 3), 5000, false, &status), 1);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 3, "status %d", status);
    cr_assert_eq(rb__reap_child(child_sleeping(0, 4), RB_REAP_FOREVER, false, &status), 1);
    cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 4, "status %d", status);
}

/* A child past its budget is killed with SIGKILL and reaped: no zombie. */
Test(program, reap_child_kills_a_child_past_its_budget)
{
    int status = -1;
    pid_t pid = child_sleeping(60, 0);
    cr_assert_eq(rb__reap_child(pid, 20, false, &status), 0);
    cr_expect(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "status %d", status);
    cr_expect_eq(waitpid(pid, &status, WNOHANG), -1, "the child was not reaped");
}

/* Not a child of ours: -1 at once, never a kill. */
Test(program, reap_child_refuses_a_process_that_is_not_a_child)
{
    int status = 0;
    cr_expect_eq(rb__reap_child(getppid(), 20, false, &status), -1);
}

/* A name with a '/' is a path; else the first executable in PATH. */
Test(program, find_program_searches_path_and_takes_a_path_as_it_is)
{
    char buf[256];
    cr_assert(rb__find_program("/bin/sh", buf, sizeof buf));
    cr_expect_str_eq(buf, "/bin/sh");
    setenv("PATH", "/nonexistent:/bin", 1);
    cr_assert(rb__find_program("sh", buf, sizeof buf));
    cr_expect_str_eq(buf, "/bin/sh");
    cr_expect(!rb__find_program("no-such-program-here", buf, sizeof buf));
    cr_expect(!rb__find_program("sh", buf, 4)); /* does not fit */
}
