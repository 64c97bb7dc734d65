/*
 * test_build.c — the provenance a build carries: its commit stamp is the
 * checkout's commit at build time (not at configure time, so it follows new
 * commits without a reconfigure), with "-dirty" exactly when tracked files
 * differ from it; the bundle records that stamp; librouters.so answers the
 * same stamp through RB_PLUGIN_BUILD_SYMBOL; and the bundle's `sanitized`
 * flag is set for ASan, TSan and fuzz builds.  The expected values come
 * from git and from the compiler, never from the code under test.
 */
#include "build_stamp.h"
#include "plugins.h"
#include "rb_test.h"
#include "sysinfo.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* The first line git prints for args in the source tree, or false. */
static bool git_line(const char *args, char *out, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "git -C '%s' %s 2>/dev/null", RB_SOURCE_DIR, args);
    FILE *f = popen(cmd, "r");
    if (!f) return false;
    out[0] = '\0';
    bool got = fgets(out, (int)cap, f) != NULL;
    int status = pclose(f);
    out[strcspn(out, "\n")] = '\0';
    (void)got; /* no output is an answer too (status: nothing changed) */
    return status == 0;
}

/* Rule: the stamp is HEAD's 12-digit hash, plus "-dirty" exactly when a
 * tracked file differs from HEAD (as `git status` sees it). */
Test(build, stamp_is_the_commit_built_with_dirty_marker)
{
    char head[64], change[256];
    if (!git_line("rev-parse --short=12 HEAD", head, sizeof head) || !head[0]) {
        cr_expect_str_eq(rb__build_commit(), "unknown");
        cr_skip("not a git checkout: the stamp is \"unknown\"");
    }
    cr_assert(git_line("status --porcelain --untracked-files=no", change, sizeof change));
    char want[80];
    snprintf(want, sizeof want, "%s%s", head, change[0] ? "-dirty" : "");
    cr_expect_str_eq(rb__build_commit(), want,
                     "stamp %s, checkout %s (built before the last commit or edit?)",
                     rb__build_commit(), want);
}

/* Rule: a result bundle names the build's stamp, and says "sanitized" for
 * every sanitizer build (ASan+UBSan, TSan, fuzz), as the compiler reports. */
Test(build, bundle_records_the_stamp_and_sanitizers)
{
    bool sanitized = false;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    sanitized = true;
#endif
#endif
    rb_bundle b;
    rb_bundle_init(&b);
    rb_sysinfo_fill(&b);
    cr_expect_str_eq(b.commit, rb__build_commit());
    cr_expect_eq(b.sanitized, sanitized, "bundle says sanitized=%d, the compiler %d", b.sanitized,
                 sanitized);
    rb_bundle_free(&b);
}

/* Rule: librouters.so names its build through RB_PLUGIN_BUILD_SYMBOL (the
 * stamp of the build that made it, this one); a plugin that does not
 * export the symbol has build "". */
Test(build, librouters_names_its_build)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_assert_eq(rb_plugins_load(&p, RB_BUILTIN_PLUGIN, &err), RB_OK, "%s", err.message);
    cr_assert_gt(rb_plugins_count(&p), 0u);
    cr_expect_str_eq(rb_plugins_build(&p, 0), rb__build_commit());
    cr_assert_eq(rb_plugins_load(&p, RB_EXAMPLE_PLUGIN, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(rb_plugins_build(&p, rb_plugins_count(&p) - 1), "");
    rb_plugins_close(&p);
}
