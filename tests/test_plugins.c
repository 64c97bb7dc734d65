/*
 * test_plugins.c — router plugins (bench/measure/plugins.h): the example plugin
 * (examples/plugin/segscan.c) and this build's librouters.so load, their
 * routers resolve by NAME and NAME@LIB and agree with linear; two copies
 * of one build load side by side without sharing code; a plugin built for
 * the previous ABI version loads and verifies; a library without the entry
 * symbol or built for a newer ABI is a clear RB_EABI error; a FIFO, device
 * or directory as a library is refused at once; the CLI's list and verify
 * take --router-lib and NAME@LIB.
 */
#include "library_id.h"
#include "plugins.h"
#include "rb_test.h"
#include "shipped.h"
#include "verify.h"

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int run(const char *args, char *out, size_t cap);

/* Verify ops on shipped corpus `name`; expect full agreement. */
static void expect_agrees(const rb_router_ops *ops, const char *label, const char *name)
{
    char rpath[4096], qpath[4096];
    rb_route_table routes;
    rb_request_table reqs;
    rb_error err;
    cr_assert_eq(
        rb_route_table_read(rbt_data_path(name, "routes", rpath, sizeof rpath), &routes, &err),
        RB_OK, "%s", err.message);
    cr_assert_eq(
        rb_request_table_read(rbt_data_path(name, "requests", qpath, sizeof qpath), &reqs, &err),
        RB_OK, "%s", err.message);
    rb_verify_report rep;
    cr_assert_eq(rb_verify(ops, &routes, rpath, &reqs, &rep, &err), RB_OK, "%s: %s", label,
                 err.message);
    cr_expect_eq(rep.refused, 0u, "%s on %s: %s", label, name, rep.first_refusal.message);
    cr_expect_eq(rep.agree_linear, rep.requests, "%s on %s: %zu/%zu agree with linear", label, name,
                 rep.agree_linear, rep.requests);
    cr_expect_eq(rep.agree_expected, rep.requests, "%s on %s: %zu/%zu agree with EXPECTED", label,
                 name, rep.agree_expected, rep.requests);
    rb_route_table_free(&routes);
    rb_request_table_free(&reqs);
}

/* Rule: the example plugin's routers appear (count, name, library) and
 * agree with linear on every shipped corpus without globs. */
Test(plugins, example_plugin_loads_and_agrees, .timeout = 300)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_assert_eq(rb_plugins_load(&p, RB_EXAMPLE_PLUGIN, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_plugins_count(&p), 1u);
    cr_expect_str_eq(rb_ops_name(rb_plugins_ops(&p, 0)), "segscan");
    cr_expect_str_eq(rb_plugins_lib(&p, 0), RB_EXAMPLE_PLUGIN);
    cr_expect_eq(rb_ops_features(rb_plugins_ops(&p, 0)), RB_FEAT_PARAMS | RB_FEAT_CATCHALL);

    /* plain name: not a built-in, found among loaded plugins */
    const rb_router_ops *ops;
    cr_assert_eq(rb_router_spec_resolve(&p, "segscan", &ops, &err), RB_OK, "%s", err.message);
    cr_expect_eq(ops, rb_plugins_ops(&p, 0));
    /* NAME@LIB: the same library is not loaded twice */
    cr_assert_eq(rb_router_spec_resolve(&p, "segscan@" RB_EXAMPLE_PLUGIN, &ops, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(ops, rb_plugins_ops(&p, 0));
    cr_expect_eq(rb_plugins_count(&p), 1u);
    cr_expect_eq(rb_plugins_load(&p, RB_EXAMPLE_PLUGIN, &err), RB_OK);
    cr_expect_eq(rb_plugins_count(&p), 1u);

    for (size_t c = 0; c < rb_shipped_count(); c++)
        if (rbt_shipped_fits(c, rb_ops_features(ops)))
            expect_agrees(ops, "segscan", rb_shipped_name(c));
    rb_plugins_close(&p);
    cr_expect_eq(rb_plugins_count(&p), 0u);
}

/* Copy file from to to (for a second "build" of librouters.so). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    cr_assert(in && out, "copy %s -> %s", from, to);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) cr_assert_eq(fwrite(buf, 1, n, out), n);
    fclose(in);
    cr_assert_eq(fclose(out), 0);
}

/* Rule: librouters.so exports every built-in router through the entry
 * symbol and nothing else; two copies of it (two "builds") load side by
 * side, and NAME@LIB runs each copy's own code, not the host's. */
Test(plugins, two_builds_side_by_side, .timeout = 300)
{
    char dir[] = "/tmp/rb_plugins_XXXXXX";
    cr_assert(mkdtemp(dir));
    char copy[256];
    snprintf(copy, sizeof copy, "%s/librouters.so", dir);
    copy_file(RB_BUILTIN_PLUGIN, copy);

    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    const rb_router_ops *a, *b;
    cr_assert_eq(rb_router_spec_resolve(&p, "linear@" RB_BUILTIN_PLUGIN, &a, &err), RB_OK, "%s",
                 err.message);
    char spec[300];
    snprintf(spec, sizeof spec, "linear@%s", copy);
    cr_assert_eq(rb_router_spec_resolve(&p, spec, &b, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_plugins_count(&p), 2 * rb_registry_count(), "every built-in, twice");
    cr_expect_neq(a, b, "two builds must be two ops tables");
    cr_expect_neq(a, rb_registry_find("linear"), "linear@lib must not be the host's linear");
    cr_expect_neq(b, rb_registry_find("linear"));
    cr_expect_neq(a->lookup, b->lookup, "each build runs its own code");
    /* a plain name still means the built-in */
    const rb_router_ops *host;
    cr_assert_eq(rb_router_spec_resolve(&p, "linear", &host, &err), RB_OK);
    cr_expect_eq(host, rb_registry_find("linear"));

    /* nothing but the entry symbol is exported */
    void *h = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
    cr_assert(h, "%s", dlerror());
    cr_expect(dlsym(h, RB_PLUGIN_SYMBOL) != NULL);
    cr_expect(dlsym(h, "rb_router_create") == NULL, "librouters.so exports rb_router_create");
    cr_expect(dlsym(h, "rb_registry_at") == NULL, "librouters.so exports rb_registry_at");
    cr_expect(dlsym(h, "rb__linear_ops") == NULL, "librouters.so exports rb__linear_ops");
    dlclose(h);

    expect_agrees(a, "linear@build", "github");
    expect_agrees(b, "linear@copy", "semantics");
    rb_plugins_close(&p);
    unlink(copy);
    rmdir(dir);
}

/* Rule: a library without RB_PLUGIN_SYMBOL is refused with RB_EABI and a
 * message naming the symbol; the set is unchanged. */
Test(plugins, missing_symbol_is_a_clear_error)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_expect_eq(rb_plugins_load(&p, RB_NO_SYMBOL_PLUGIN, &err), RB_EABI);
    cr_expect(strstr(err.message, RB_PLUGIN_SYMBOL) != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "not a routebench plugin") != NULL, "%s", err.message);
    cr_expect_eq(rb_plugins_count(&p), 0u);
    cr_expect_eq(p.nlibs, 0u);
    rb_plugins_close(&p);
}

/* Rule: an ops table newer than the host's ABI is refused with RB_EABI and
 * a message naming the router and the versions; the set is unchanged. */
Test(plugins, newer_abi_is_a_clear_error)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_expect_eq(rb_plugins_load(&p, RB_BAD_ABI_PLUGIN, &err), RB_EABI);
    char want[120];
    snprintf(want, sizeof want, "router 'future' was built for router ABI %u",
             RB_ROUTER_ABI_VERSION + 1);
    cr_expect(strstr(err.message, want) != NULL, "%s", err.message);
    snprintf(want, sizeof want, "(ABI 1 to %u)", RB_ROUTER_ABI_VERSION);
    cr_expect(strstr(err.message, want) != NULL, "%s", err.message);
    cr_expect_eq(rb_plugins_count(&p), 0u);
    const rb_router_ops *ops;
    cr_expect_eq(rb_router_spec_resolve(&p, "future@" RB_BAD_ABI_PLUGIN, &ops, &err), RB_EABI);
    cr_expect_null(ops);
    rb_plugins_close(&p);
}

/* Rule: the ABI grows by appending, so a plugin built for an older
 * version (a table without `check`) loads, its routers work and verify,
 * and the fields it lacks are NULL in the host's copy: rb_router_check has
 * nothing to run and says RB_OK.  (Under ASan a read past the plugin's
 * shorter table would be a global-buffer-overflow.)  It was written
 * before templates: though it copies linear's features, it is refused
 * them (RB_EUNSUPPORTED) and never sees an RB_SEG_TEMPLATE. */
Test(plugins, previous_abi_version_loads_and_verifies, .timeout = 300)
{
    cr_assert_gt(RB_ROUTER_ABI_VERSION, 1u, "abi_v1.c is an older version than this one");
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    const rb_router_ops *ops;
    cr_assert_eq(rb_router_spec_resolve(&p, "linear_v1@" RB_ABI_V1_PLUGIN, &ops, &err), RB_OK, "%s",
                 err.message);
    cr_expect_eq(ops->abi_version, 1u);
    rb_router *r;
    cr_assert_eq(rb_router_create_ops(ops, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_null(rb__router_ops(r)->check, "a version 1 table has no check");
    cr_assert_eq(rb_router_add(r, RB_GET, "/users/:id", 10, 7, &err), RB_OK, "%s", err.message);
    cr_assert_eq(rb_router_build(r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_router_check(r, &err), RB_OK);
    rb_match m;
    cr_expect_eq(rb_router_lookup(r, RB_GET, "/users/42", 9, &m), RB_FOUND);
    cr_expect_eq(m.route_id, 7u);
    rb_router_destroy(r);
    cr_expect_neq(ops->features & RB_FEAT_TEMPLATE, 0u, "the table claims linear's features");
    cr_expect_eq(rb_ops_features(ops) & RB_FEAT_TEMPLATE, 0u, "the host does not honour it");
    cr_assert_eq(rb_router_create_ops(ops, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_router_add(r, RB_GET, "/f/{id}.json", 12, 0, &err), RB_EUNSUPPORTED);
    cr_expect_eq(err.offset, 3u, "%s", err.message);
    rb_router_destroy(r);
    for (size_t c = 0; c < rb_shipped_count(); c++) /* those without templates */
        if (rbt_shipped_fits(c, rb_ops_features(ops)))
            expect_agrees(ops, "linear_v1", rb_shipped_name(c));
    rb_plugins_close(&p);

    char out[16384];
    cr_expect_eq(
        run("verify --router linear_v1@" RB_ABI_V1_PLUGIN " --corpus static", out, sizeof out), 0,
        "%s", out);
}

/* Rule: RB_FEAT_TEMPLATE is honoured only in a table of ABI version 3 or
 * later: a version 2 table with the bit (written before the bit had a
 * meaning) is refused templates at the template's byte and keeps
 * everything else. */
Test(plugins, templates_reach_only_tables_of_abi_3_or_later)
{
    rb_router_ops ops = *rb_registry_find("linear");
    cr_assert_eq(ops.abi_version, 3u);
    cr_assert_neq(ops.features & RB_FEAT_TEMPLATE, 0u);
    ops.abi_version = 2;
    cr_expect_eq(rb_ops_features(&ops), ops.features & ~RB_FEAT_TEMPLATE);
    rb_router *r;
    rb_error err;
    cr_assert_eq(rb_router_create_ops(&ops, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_router_add(r, RB_GET, "/a/:x/img-{id}.png", 18, 0, &err), RB_EUNSUPPORTED);
    cr_expect_eq(err.offset, 6u, "%s", err.message);
    cr_expect(strstr(err.message, "template") != NULL, "%s", err.message);
    cr_expect_eq(rb_router_add(r, RB_GET, "/a/:x/*.png", 11, 1, &err), RB_OK, "%s", err.message);
    rb_router_destroy(r);
    ops.abi_version = 3;
    cr_assert_eq(rb_router_create_ops(&ops, NULL, &r, &err), RB_OK, "%s", err.message);
    cr_expect_eq(rb_router_add(r, RB_GET, "/a/:x/img-{id}.png", 18, 0, &err), RB_OK, "%s",
                 err.message);
    rb_router_destroy(r);
}

/* Rule: version 0 is no ABI version: refused with RB_EABI, like a table
 * without a required function. */
Test(plugins, version_zero_or_incomplete_table_is_refused)
{
    rb_router_ops ops = *rb_registry_find("linear");
    rb_router *r;
    rb_error err;
    ops.abi_version = 0;
    cr_expect_eq(rb_router_create_ops(&ops, NULL, &r, &err), RB_EABI);
    cr_expect(strstr(err.message, "ABI 0") != NULL, "%s", err.message);
    cr_expect_null(r);
    ops = *rb_registry_find("linear");
    ops.lookup = NULL;
    cr_expect_eq(rb_router_create_ops(&ops, NULL, &r, &err), RB_EABI);
    cr_expect(strstr(err.message, "incomplete") != NULL, "%s", err.message);
}

/* Rule: spec errors are values with messages: a missing file (RB_EIO), a
 * name the library lacks (RB_ENOTFOUND, listing what it has), a malformed
 * spec and NAME@LIB without a plugin set (RB_EINVAL), an unknown name. */
Test(plugins, spec_errors)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    const rb_router_ops *ops;
    cr_expect_eq(rb_router_spec_resolve(&p, "radix@/nonexistent/librouters.so", &ops, &err),
                 RB_EIO);
    cr_expect(strstr(err.message, "/nonexistent/librouters.so") != NULL, "%s", err.message);
    cr_expect_eq(rb_router_spec_resolve(&p, "nope@" RB_EXAMPLE_PLUGIN, &ops, &err), RB_ENOTFOUND);
    cr_expect(strstr(err.message, "it has: segscan") != NULL, "%s", err.message);
    cr_expect_eq(rb_router_spec_resolve(&p, "linear@", &ops, &err), RB_EINVAL);
    cr_expect_eq(rb_router_spec_resolve(&p, "@" RB_EXAMPLE_PLUGIN, &ops, &err), RB_EINVAL);
    cr_expect_eq(rb_router_spec_resolve(NULL, "segscan@" RB_EXAMPLE_PLUGIN, &ops, &err), RB_EINVAL);
    cr_expect_eq(rb_router_spec_resolve(&p, "no-such-router", &ops, &err), RB_ENOTFOUND);
    cr_expect_eq(rb_router_spec_resolve(NULL, "linear", &ops, &err), RB_OK);
    cr_expect_eq(ops, rb_registry_find("linear"));
    rb_plugins_close(&p);
}

/* Run a routebench command line; returns the exit status, output in out. */
static int run(const char *args, char *out, size_t cap)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", RB_ROUTEBENCH_EXE, args);
    FILE *f = popen(cmd, "r");
    cr_assert(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    int status = pclose(f);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Rule: the CLI lists plugin routers as NAME@LIB, verifies them by spec,
 * and turns a bad --router-lib into a usage error (2) with the reason. */
Test(plugins, cli_list_and_verify, .timeout = 300)
{
    char out[16384];
    cr_expect_eq(run("list --router-lib " RB_EXAMPLE_PLUGIN, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "segscan@" RB_EXAMPLE_PLUGIN) != NULL, "%s", out);
    cr_expect_eq(
        run("verify --router segscan@" RB_EXAMPLE_PLUGIN " --corpus github", out, sizeof out), 0,
        "%s", out);
    cr_expect(strstr(out, "4096/4096 agree with EXPECTED, 4096/4096 with linear") != NULL, "%s",
              out);
    cr_expect_eq(run("verify --router-lib " RB_EXAMPLE_PLUGIN " --router segscan --corpus gplus",
                     out, sizeof out),
                 0, "%s", out);
    cr_expect_eq(run("verify --router-lib " RB_BAD_ABI_PLUGIN " --all", out, sizeof out), 2, "%s",
                 out);
    cr_expect(strstr(out, "ABI") != NULL, "%s", out);
    cr_expect_eq(run("list --router-lib " RB_NO_SYMBOL_PLUGIN, out, sizeof out), 2, "%s", out);
    cr_expect(strstr(out, RB_PLUGIN_SYMBOL) != NULL, "%s", out);
}

/* Regression 154: a plugin router named with a newline and an ESC byte was
 * accepted and printed raw by `list`, and `run` measured it, then failed
 * writing trials.csv.  Its library is refused at load, the message showing
 * the name escaped and the offset of the first bad byte. */
Test(plugins, regression_154_a_router_name_with_control_bytes_is_refused_at_load)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_expect_eq(rb_plugins_load(&p, RB_BADNAME_PLUGIN, &err), RB_EABI);
    cr_expect(strstr(err.message, "evil\\x0aname\\x1b[31m") != NULL, "%s", err.message);
    cr_expect(strstr(err.message, "0x0a at offset 4") != NULL, "%s", err.message);
    cr_expect(strchr(err.message, '\n') == NULL && strchr(err.message, 0x1b) == NULL,
              "the message carries the raw bytes: %s", err.message);
    cr_expect_eq(rb_plugins_count(&p), 0u);
    rb_plugins_close(&p);
    char out[16384];
    cr_expect_eq(run("list --router-lib " RB_BADNAME_PLUGIN, out, sizeof out), 2, "%s", out);
    cr_expect(strchr(out, 0x1b) == NULL, "list printed the raw name: %s", out);
}

/* A plugin router's summary was not checked as its name is: a newline,
 * an ESC and a '|' went raw into `list` and broke report.md's router
 * table.  Its library is refused at load, naming the byte and offset. */
Test(plugins, regression_237_a_summary_with_control_bytes_is_refused_at_load)
{
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_expect_eq(rb_plugins_load(&p, RB_BADSUMMARY_PLUGIN, &err), RB_EABI);
    cr_expect(strstr(err.message, "0x0a at offset 8") != NULL, "%s", err.message);
    cr_expect(strchr(err.message, '\n') == NULL && strchr(err.message, 0x1b) == NULL,
              "the message carries the raw bytes: %s", err.message);
    cr_expect_eq(rb_plugins_count(&p), 0u);
    rb_plugins_close(&p);
    char out[16384];
    cr_expect_eq(run("list --router-lib " RB_BADSUMMARY_PLUGIN, out, sizeof out), 2, "%s", out);
    cr_expect(strchr(out, 0x1b) == NULL, "list printed the raw summary: %s", out);
}

/* Regression 155: a plugin router named like a built-in (radix) shadowed
 * nothing and got no warning: the plain name silently meant the built-in.
 * Loading it warns and names the spec that reaches it. */
Test(plugins, regression_155_a_plugin_named_like_a_builtin_is_reached_as_name_at_lib)
{
    char out[16384];
    cr_expect_eq(run("list --router-lib " RB_SHADOW_PLUGIN, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "warning") != NULL && strstr(out, "radix@" RB_SHADOW_PLUGIN) != NULL,
              "no warning naming radix@LIB: %s", out);
    rb_plugins p;
    rb_plugins_init(&p);
    rb_error err;
    cr_assert_eq(rb_plugins_load(&p, RB_SHADOW_PLUGIN, &err), RB_OK, "%s", err.message);
    cr_expect_str_eq(rb_plugins_shadowed(&p, 0), "a built-in router");
    const rb_router_ops *ops;
    cr_assert_eq(rb_router_spec_resolve(&p, "radix", &ops, &err), RB_OK);
    cr_expect_eq(ops, rb_registry_find("radix"), "the plain name must stay the built-in");
    cr_assert_eq(rb_router_spec_resolve(&p, "radix@" RB_SHADOW_PLUGIN, &ops, &err), RB_OK);
    cr_expect_eq(ops, rb_plugins_ops(&p, 0));
    rb_plugins_close(&p);
    /* the example plugin's segscan shadows nothing: no warning */
    cr_expect_eq(run("list --router-lib " RB_EXAMPLE_PLUGIN, out, sizeof out), 0, "%s", out);
    cr_expect(strstr(out, "warning") == NULL, "%s", out);
}

/* Rule: a plugin library given as a FIFO, a device or a directory is
 * refused at once, naming what it is: loading it (dlopen would block on
 * the FIFO) and identifying it for the bundle (the hash would read
 * /dev/zero without end).  A regular file is identified by its bytes. */
Test(plugins, a_special_file_as_plugin_library_is_refused_at_once, .timeout = 60)
{
    char *dir = rbt_tmpdir();
    char fifo[4096], plain[4096];
    snprintf(fifo, sizeof fifo, "%s/lib.so", dir);
    snprintf(plain, sizeof plain, "%s/plain.so", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    FILE *f = fopen(plain, "wb");
    cr_assert(f);
    fputs("twelve bytes", f);
    fclose(f);

    const char *special[] = {fifo, "/dev/zero", dir};
    const char *kind[] = {"a FIFO", "a character device", "a directory"};
    for (size_t i = 0; i < 3; i++) {
        rb_plugins p;
        rb_plugins_init(&p);
        rb_error err;
        cr_expect_eq(rb_plugins_load(&p, special[i], &err), RB_EIO, "%s", special[i]);
        cr_expect(strstr(err.message, kind[i]) != NULL, "%s", err.message);
        cr_expect_eq(p.nlibs, 0u);
        rb_plugins_close(&p);

        rb_bundle_library id;
        cr_expect_eq(rb_library_identify("x@lib", special[i], NULL, &id, &err), RB_EIO, "%s",
                     special[i]);
        cr_expect(strstr(err.message, kind[i]) != NULL, "%s", err.message);
        cr_expect(strstr(err.message, "not a regular file") != NULL, "%s", err.message);
    }

    rb_bundle_library id;
    rb_error err;
    cr_expect_eq(rb_library_identify("x@lib", plain, "abc", &id, &err), RB_OK, "%s", err.message);
    cr_expect_eq(id.size, 12u);
    cr_expect_str_eq(id.commit, "abc");
    rbt_remove_tree(dir);
    free(dir);
}
