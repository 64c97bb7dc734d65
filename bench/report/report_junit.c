/*
 * report_junit.c — the run as JUnit XML (--export-junit FILE), the test
 * report format CI services show as test results (GitLab, Jenkins, GitHub
 * Actions through a reporter action).  One testsuite per scenario, one
 * testcase per router in it:
 *
 *   <testsuites name="routebench" tests=".." failures=".." skipped="..">
 *     <testsuite name="params-1000" tests=".." failures=".." skipped="..">
 *       <testcase classname="routebench.params-1000" name="radix">
 *         <system-out>457.37 instructions per lookup; speed ratio ...</system-out>
 *       </testcase>
 *       <testcase classname="routebench.params-1000" name="hashseg">
 *         <failure type="gate" message="speed ratio hashseg/radix 0.895 [...]">
 *           the gate's message</failure>
 *       </testcase>
 *
 * A testcase fails when the gate (pair --fail-below) fails on it: the
 * candidate's testcase in the scenario the gate decided on, or in a last
 * testsuite "geometric mean" when it decided on several; an inconclusive
 * gate is <skipped>.  A router of ours that gave wrong answers fails too
 * (type "wrong-answers"; peers are measured, not held to our semantics).
 * The message holds the speed ratio against the baseline and its 95%
 * interval.  tests/junit.xsd is the schema a test validates it against.
 */
#include "output.h"

#include "base_internal.h"
#include "gate.h"
#include "metric.h"
#include "router.h"

#include <stdio.h>
#include <string.h>

/* text with &, <, >, " escaped (attribute values and element text alike) */
static void put_escaped(rb_buf *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '&':
            rb_buf_puts(out, "&amp;");
            break;
        case '<':
            rb_buf_puts(out, "&lt;");
            break;
        case '>':
            rb_buf_puts(out, "&gt;");
            break;
        case '"':
            rb_buf_puts(out, "&quot;");
            break;
        default:
            /* XML 1.0 has no other control characters than tab, CR, LF */
            if ((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n' && *p != '\r')
                rb_buf_puts(out, "?");
            else
                rb_buf_append(out, p, 1);
        }
    }
}

/* "speed ratio B/A 0.953 [0.931, 0.972]" (exact: no interval). */
static void ratio_text(const char *a, const char *b, double median, double lo, double hi,
                       bool exact, bool too_few, char *buf, size_t cap)
{
    if (exact)
        snprintf(buf, cap, "speed ratio %s/%s %.3f (exact)", b, a, median);
    else if (too_few)
        snprintf(buf, cap, "speed ratio %s/%s %.3f (too few pairs for an interval)", b, a, median);
    else
        snprintf(buf, cap, "speed ratio %s/%s %.3f [%.3f, %.3f] (95%% interval)", b, a, median, lo,
                 hi);
}

/* The gate's verdict on this testcase: 0 none, else RB_GATE_FAILED or
 * RB_GATE_INCONCLUSIVE (passed is no element). */
static int gate_here(const rb_bundle *b, const char *scenario, const char *router)
{
    const rb_bundle_gate *g = &b->gate;
    if (!g->on || strcmp(g->b, router) != 0 || strcmp(g->decided_on, scenario) != 0) return 0;
    return g->outcome == RB_GATE_FAILED || g->outcome == RB_GATE_INCONCLUSIVE ? g->outcome : 0;
}

static void put_gate(rb_buf *out, const rb_bundle *b, int outcome)
{
    const rb_bundle_gate *g = &b->gate;
    const rb_gate_evidence *e = &g->evidence;
    char ratio[256], message[512];
    ratio_text(g->a, g->b, e->median, e->lo, e->hi, e->exact, e->too_few, ratio, sizeof ratio);
    snprintf(message, sizeof message, "%s, threshold %g: gate %s", ratio, g->threshold,
             rb_gate_outcome_name(outcome));
    rb_buf_puts(out, outcome == RB_GATE_FAILED ? "      <failure type=\"gate\" message=\""
                                               : "      <skipped message=\"");
    put_escaped(out, message);
    if (outcome == RB_GATE_FAILED) {
        rb_buf_puts(out, "\">");
        put_escaped(out, g->message);
        rb_buf_puts(out, "</failure>\n");
    } else {
        rb_buf_puts(out, "\"/>\n");
    }
}

/* Are result r's answers wrong (a router of ours)? */
static bool wrong(const rb_bundle *b, const rb_bundle_result *r)
{
    const rb_bundle_router *info = rb_bundle_router_info(b, r->router);
    return r->disagreements && !r->peer_process && !(info && (info->features & RB_FEAT_PEER));
}

static void put_testcase(rb_buf *out, const rb_bundle *b, const rb_bundle_scenario *s,
                         const rb_bundle_result *r)
{
    char text[512], ratio[256] = "the baseline";
    const rb_bundle_pair *p = rb_bundle_find_pair(s, b->baseline, r->router);
    if (p)
        ratio_text(b->baseline, r->router, p->r.median, p->r.lo, p->r.hi,
                   rb_metric_exact(b->metric), p->r.too_few, ratio, sizeof ratio);
    snprintf(text, sizeof text, "%.2f %s per lookup; %s", r->median_ns, rb_metric_unit(b->metric),
             ratio);
    rb_buf_puts(out, "    <testcase classname=\"routebench.");
    put_escaped(out, s->name);
    rb_buf_puts(out, "\" name=\"");
    put_escaped(out, r->router);
    rb_buf_puts(out, "\">\n");
    int gate = gate_here(b, s->name, r->router);
    if (gate) put_gate(out, b, gate);
    if (wrong(b, r)) {
        rb_buf_printf(out,
                      "      <failure type=\"wrong-answers\" message=\"%llu answers differ from "
                      "EXPECTED\"/>\n",
                      (unsigned long long)r->disagreements);
    }
    rb_buf_puts(out, "      <system-out>");
    put_escaped(out, text);
    rb_buf_puts(out, "</system-out>\n    </testcase>\n");
}

static void put_suite(rb_buf *out, const rb_bundle *b, const rb_bundle_scenario *s)
{
    size_t failures = 0, skipped = 0;
    for (size_t k = 0; k < s->nresults; k++) {
        int gate = gate_here(b, s->name, s->results[k].router);
        failures += gate == RB_GATE_FAILED || wrong(b, &s->results[k]);
        skipped += gate == RB_GATE_INCONCLUSIVE;
    }
    rb_buf_puts(out, "  <testsuite name=\"");
    put_escaped(out, s->name);
    rb_buf_printf(out, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
                  s->nresults, failures, skipped);
    for (size_t k = 0; k < s->nresults; k++) put_testcase(out, b, s, &s->results[k]);
    rb_buf_puts(out, "  </testsuite>\n");
}

/* The gate decided on the geometric mean: a testsuite of its own. */
static void put_geomean_suite(rb_buf *out, const rb_bundle *b)
{
    const rb_bundle_gate *g = &b->gate;
    int outcome =
        g->outcome == RB_GATE_FAILED || g->outcome == RB_GATE_INCONCLUSIVE ? g->outcome : 0;
    rb_buf_printf(out,
                  "  <testsuite name=\"geometric mean\" tests=\"1\" failures=\"%d\" errors=\"0\" "
                  "skipped=\"%d\">\n",
                  outcome == RB_GATE_FAILED, outcome == RB_GATE_INCONCLUSIVE);
    rb_buf_puts(out, "    <testcase classname=\"routebench.geometric mean\" name=\"");
    put_escaped(out, g->b);
    rb_buf_puts(out, "\">\n");
    if (outcome) put_gate(out, b, outcome);
    rb_buf_puts(out, "      <system-out>");
    put_escaped(out, g->message);
    rb_buf_puts(out, "</system-out>\n    </testcase>\n  </testsuite>\n");
}

static int render_junit(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    (void)err;
    bool geomean = b->gate.on && strncmp(b->gate.decided_on, "geometric mean", 14) == 0;
    size_t tests = geomean, failures = 0, skipped = 0;
    for (size_t i = 0; i < b->nscenarios; i++)
        for (size_t k = 0; k < b->scenarios[i].nresults; k++) {
            int gate = gate_here(b, b->scenarios[i].name, b->scenarios[i].results[k].router);
            tests++;
            failures += gate == RB_GATE_FAILED || wrong(b, &b->scenarios[i].results[k]);
            skipped += gate == RB_GATE_INCONCLUSIVE;
        }
    if (geomean) {
        failures += b->gate.outcome == RB_GATE_FAILED;
        skipped += b->gate.outcome == RB_GATE_INCONCLUSIVE;
    }
    rb_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    rb_buf_printf(out,
                  "<testsuites name=\"routebench\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                  "skipped=\"%zu\">\n",
                  tests, failures, skipped);
    for (size_t i = 0; i < b->nscenarios; i++) put_suite(out, b, &b->scenarios[i]);
    if (geomean) put_geomean_suite(out, b);
    rb_buf_puts(out, "</testsuites>\n");
    return RB_OK;
}

const rb_output rb__output_junit = {
    "junit",
    "--export-junit",
    NULL,
    "write the run as JUnit XML to FILE, for CI test reports: a testcase per router and "
    "scenario, failed when the gate (pair --fail-below) fails on it, its speed ratio and "
    "interval in the message",
    render_junit,
    NULL,
    false};
