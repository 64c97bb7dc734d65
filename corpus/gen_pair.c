/*
 * gen_pair.c — a generated pair of tables and the request tables of
 * `corpus requests` (gen_pair.h).
 */
#include "gen_pair.h"

#include "base_internal.h"
#include "file.h"
#include "profile_file.h"

#include <stdio.h>
#include <string.h>

static int out_of_memory(const rb_buf *b, rb_error *err)
{
    return b->failed ? rb__error(err, RB_ENOMEM, RB_NO_OFFSET, "out of memory") : RB_OK;
}

/* The requests of cfg for routes, checked, and their text. */
static int generate_requests(const rb_route_table *routes, const rb_reqgen_config *cfg,
                             rb_request_table *reqs, rb_reqgen_report *rep, rb_buf *text,
                             rb_error *err)
{
    int rc = rb_requests_generate(routes, cfg, reqs, rep, err);
    if (rc == RB_OK) rc = rb_request_table_check_text(reqs, err);
    if (rc < 0) return rc;
    rb_request_table_text(reqs, text);
    return out_of_memory(text, err);
}

/* The requests of the file paths with EXPECTED for routes, and their text. */
static int expect_requests(const rb_route_table *routes, const char *paths, rb_request_table *reqs,
                           rb_reqgen_report *rep, rb_buf *text, rb_error *err)
{
    rb_request_table in;
    int rc = rb_request_table_read(paths, &in, err);
    if (rc < 0) return rc;
    rc = rb_requests_expect(routes, &in, reqs, rep, err);
    rb_request_table_free(&in);
    if (rc == RB_OK) rc = rb_request_table_check_text(reqs, err);
    if (rc < 0) return rc;
    rb_request_table_text(reqs, text);
    return out_of_memory(text, err);
}

int rb_requests_make(const rb_route_table *routes, const rb_reqgen_config *cfg, const char *paths,
                     rb_request_table *reqs, rb_reqgen_report *rep, rb_buf *text, rb_error *err)
{
    return paths ? expect_requests(routes, paths, reqs, rep, text, err)
                 : generate_requests(routes, cfg, reqs, rep, text, err);
}

void rb_requests_summary(const rb_request_table *reqs, const rb_reqgen_report *rep,
                         const rb_reqgen_config *cfg, const char *paths, const char *out,
                         rb_buf *text)
{
    const char *to = strcmp(out, "-") == 0 ? "stdout" : out;
    if (paths)
        rb_buf_printf(text, "%zu requests (the paths of %s) -> %s\n", rep->requests, paths, to);
    else
        rb_buf_printf(text, "%zu requests (seed %llu, %s) -> %s\n", rep->requests,
                      (unsigned long long)cfg->seed, cfg->dist == RB_DIST_ZIPF ? "zipf" : "uniform",
                      to);
    if (!paths)
        rb_buf_printf(text, "  generated: %zu hits, %zu with another method, %zu misses\n",
                      rep->hits, rep->wrong_method, rep->misses);
    rb_buf_printf(text,
                  "  EXPECTED (from linear): %zu found, %zu not found (-1), %zu method not allowed "
                  "(-2)\n",
                  rep->expect_found, rep->expect_not_found, rep->expect_not_allowed);
    if (!paths) {
        rb_buf_printf(text, "  hits taken by a higher-priority route: %zu\n", rep->hits_taken);
        if (rep->misses_matched)
            rb_buf_printf(text, "  misses still matched by a route after 8 mutations: %zu\n",
                          rep->misses_matched);
    }
    rb_buf_printf(text, "  fingerprint requests xxh3:%016llx (for routes xxh3:%016llx)\n",
                  (unsigned long long)rb_request_table_fingerprint(reqs),
                  (unsigned long long)reqs->routes_fp);
}

/* By shape: the routes, the command that makes them again, what they are. */
static int by_shape(const rb_gen_pair_config *c, rb_gen_pair *p, char *command, size_t cap,
                    rb_error *err)
{
    int rc = rb_corpus_generate(&c->g, &p->routes, err);
    unsigned version = rb_gen_generator(&c->g);
    snprintf(command, cap,
             "routebench corpus gen --routes %zu --seed %llu --shape %s%s --generator v%u",
             c->g.routes, (unsigned long long)c->g.seed, rb_gen_shape_name(c->g.shape),
             c->g.no_conflicts ? " --no-conflicts" : "", version);
    snprintf(p->what, sizeof p->what, "shape %s%s, generator v%u, seed %llu",
             rb_gen_shape_name(c->g.shape), c->g.no_conflicts ? ", no conflicts" : "", version,
             (unsigned long long)c->g.seed);
    return rc;
}

/* Like a routes file (v3: its tree) or a profile (v1, v2: its counts). */
static int like(const rb_gen_pair_config *c, rb_gen_pair *p, char *command, size_t cap,
                rb_error *err)
{
    rb_profile profile;
    bool json = false;
    int rc = rb_profile_read(c->like, &profile, &json, err);
    if (rc < 0) return rc;
    unsigned model = c->g.generator ? c->g.generator : json ? RB_LIKE_V2 : RB_LIKE_V3;
    rb_like_config lc = {c->g.routes, c->g.seed, model, c->param_syntax};
    snprintf(p->what, sizeof p->what, "like %s, seed %llu", c->like, (unsigned long long)c->g.seed);
    if (model == RB_LIKE_V3) {
        rb_route_table src;
        if (json)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "--generator v3 copies a routes table's tree, and %s is a profile "
                             "(counts only): use v2, or give the routes file",
                             c->like);
        if (c->param_syntax)
            return rb__error(err, RB_EINVAL, RB_NO_OFFSET,
                             "--param-syntax needs --generator v2 (v3 keeps the source's syntax)");
        rc = rb_route_table_read(c->like, &src, err);
        if (rc < 0) return rc;
        rc = rb_corpus_generate_like_table(&src, &lc, &p->routes, &p->like, err);
        rb_route_table_free(&src);
        snprintf(command, cap,
                 "routebench corpus gen --routes %zu --seed %llu --like %s --generator v3\n"
                 "(a table of %llu routes, xxh3:%016llx; its tree, synthetic words)",
                 c->g.routes, (unsigned long long)c->g.seed, c->like,
                 (unsigned long long)profile.routes, (unsigned long long)profile.fingerprint);
        return rc;
    }
    if (model > RB_LIKE_V2)
        return rb__error(err, RB_EINVAL, RB_NO_OFFSET, "--generator v3 needs --like");
    rc = rb_corpus_generate_like(&profile, &lc, &p->routes, &p->like, err);
    snprintf(command, cap,
             "routebench corpus gen --routes %zu --seed %llu --like %s --generator v%u%s\n"
             "(a profile of %llu routes, xxh3:%016llx; synthetic words)",
             c->g.routes, (unsigned long long)c->g.seed, c->like, model,
             model == RB_LIKE_V1            ? ""
             : rc == RB_OK && p->like.brace ? " --param-syntax brace"
                                            : " --param-syntax colon",
             (unsigned long long)profile.routes, (unsigned long long)profile.fingerprint);
    return rc;
}

int rb_gen_pair_make(const rb_gen_pair_config *cfg, rb_gen_pair *out, rb_error *err)
{
    memset(out, 0, sizeof *out);
    char command[600], header[800];
    int rc = cfg->like ? like(cfg, out, command, sizeof command, err)
                       : by_shape(cfg, out, command, sizeof command, err);
    if (rc < 0) return rc;
    snprintf(header, sizeof header,
             "%s\n%zu routes, every (method, shape) distinct; fingerprint xxh3:%016llx", command,
             out->routes.count, (unsigned long long)rb_route_table_fingerprint(&out->routes));
    rc = rb_route_table_check_text(&out->routes, err);
    if (rc < 0) return rc;
    rb_route_table_text(&out->routes, header, &out->routes_text);
    if (out_of_memory(&out->routes_text, err) < 0) return RB_ENOMEM;
    rb_reqgen_config q = cfg->q;
    q.seed = cfg->g.seed;
    return generate_requests(&out->routes, &q, &out->reqs, &out->rep, &out->requests_text, err);
}

int rb_gen_pair_write(const rb_gen_pair *p, const char *routes_path, const char *requests_path,
                      rb_error *err)
{
    rb_file_staged sq = {0}, sr = {0};
    int rc = rb_file_stage(requests_path, p->requests_text.data, p->requests_text.len, &sq, err);
    if (rc == RB_OK)
        rc = rb_file_stage(routes_path, p->routes_text.data, p->routes_text.len, &sr, err);
    if (rc == RB_OK) rc = rb_file_commit_pair(&sq, &sr, err);
    rb_file_discard(&sq);
    rb_file_discard(&sr);
    return rc;
}

/* How the like generator made the table. */
static void like_summary(const rb_like_report *r, size_t routes, rb_buf *b)
{
    if (r->tree) {
        rb_buf_printf(b, "  the tree of a table of %llu routes, words synthetic",
                      (unsigned long long)r->profile_routes);
        if (r->prefix[0])
            rb_buf_printf(b, "; its shared prefix %s kept as it is (%llu routes below it)",
                          r->prefix, (unsigned long long)r->prefix_routes);
        rb_buf_printf(b,
                      "\n  grown by resources: %u copies of its %u resources (the last one in "
                      "part)\n",
                      r->copies, r->resources);
        return;
    }
    rb_buf_printf(b, "  a profile of %llu routes: its depths (1..%u), kinds, methods and fan-out\n",
                  (unsigned long long)r->profile_routes, r->max_depth);
    if (r->growth_milli > 1000)
        rb_buf_printf(b,
                      "  grown as APIs grow: %u.%02u times the children at the top level that "
                      "grows, %u.%02u below %u more levels; %u children of / (the profile has "
                      "%u), at most %u under one prefix\n",
                      r->top_growth_milli / 1000, r->top_growth_milli % 1000 / 10,
                      r->growth_milli / 1000, r->growth_milli % 1000 / 10,
                      r->grown_levels ? r->grown_levels - 1 : 0, r->root_fanout,
                      r->profile_root_fanout, r->max_fanout);
    else if (r->root_fanout > r->profile_root_fanout)
        rb_buf_printf(b,
                      "  fan-out widened at the root to hold %zu routes at the profile's depths: "
                      "%u children of / (the profile has %u), at most %u under one prefix\n",
                      routes, r->root_fanout, r->profile_root_fanout, r->max_fanout);
    else
        rb_buf_printf(b, "  %u children of / (the profile has %u), at most %u under one prefix\n",
                      r->root_fanout, r->profile_root_fanout, r->max_fanout);
    if (r->demoted)
        rb_buf_printf(b,
                      "  %llu catch-alls, '**' or globs made static words (no room for them as "
                      "leaves)\n",
                      (unsigned long long)r->demoted);
    if (r->demoted_templates)
        rb_buf_printf(b, "  %llu templates made static words (no room for them as leaves)\n",
                      (unsigned long long)r->demoted_templates);
}

void rb_gen_pair_summary(const rb_gen_pair *p, const rb_gen_pair_config *cfg,
                         const char *routes_path, const char *requests_path, rb_buf *out)
{
    rb_buf_printf(out, "%zu routes (%s) -> %s\n", p->routes.count, p->what, routes_path);
    if (cfg->like) like_summary(&p->like, cfg->g.routes, out);
    rb_buf_printf(out, "  fingerprint routes xxh3:%016llx\n",
                  (unsigned long long)rb_route_table_fingerprint(&p->routes));
    rb_reqgen_config q = cfg->q;
    q.seed = cfg->g.seed;
    rb_requests_summary(&p->reqs, &p->rep, &q, NULL, requests_path, out);
}

void rb_gen_pair_free(rb_gen_pair *p)
{
    rb_buf_free(&p->routes_text);
    rb_buf_free(&p->requests_text);
    rb_request_table_free(&p->reqs);
    rb_route_table_free(&p->routes);
}
