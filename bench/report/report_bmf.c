/*
 * report_bmf.c — every router's per-lookup figure in Bencher Metric Format
 * (--export-bmf FILE), the JSON that continuous-benchmarking services
 * read to track a figure from commit to commit (`bencher run --adapter
 * json`; the shape is documented at bencher.dev, "Bencher Metric Format"):
 *
 *   {
 *     "params-1000/radix": {
 *       "latency": {"value": 41.2, "lower_value": 40.8, "upper_value": 43.9}
 *     },
 *     ...
 *   }
 *
 * One benchmark per scenario and router ("SCENARIO/ROUTER"; another
 * condition keeps its suffix: "small (latency, cold)/radix"), one measure:
 * the median per lookup, its lowest and highest trial as the bounds.  The
 * measure names the metric: latency (Bencher's built-in measure, in ns)
 * for time; instructions for the counted and hardware instructions and
 * estimated-cycles for cycles-est, measures Bencher creates on first use.  Chosen over github-action-benchmark's
 * customSmallerIsBetter list because it carries the bounds as numbers
 * (that list has a value and a free-text range) and names its measure, so
 * a time run and an instruction run never land on one line.
 */
#include "output.h"

#include "base_internal.h"
#include "metric.h"

#include <stdio.h>
#include <string.h>

static void put_string(rb_buf *out, const char *a, const char *b)
{
    rb_buf_puts(out, "\"");
    for (int part = 0; part < 2; part++) {
        const char *text = part ? b : a;
        for (const char *p = text; p && *p; p++) {
            unsigned char c = (unsigned char)*p;
            if (c == '"' || c == '\\')
                rb_buf_printf(out, "\\%c", c);
            else if (c < 0x20)
                rb_buf_printf(out, "\\u%04x", c);
            else
                rb_buf_append(out, p, 1);
        }
        if (!part && b) rb_buf_puts(out, "/");
    }
    rb_buf_puts(out, "\"");
}

static const char *measure_of(int metric)
{
    switch (metric) {
    case RB_METRIC_INSTRUCTIONS:
    case RB_METRIC_HW_INSTRUCTIONS:
        return "instructions";
    case RB_METRIC_CYCLES_EST:
        return "estimated-cycles";
    default:
        return "latency";
    }
}

static int render_bmf(const rb_bundle *b, rb_buf *out, rb_error *err)
{
    (void)err;
    const char *measure = measure_of(b->metric);
    size_t n = 0;
    rb_buf_puts(out, "{");
    for (size_t i = 0; i < b->nscenarios; i++) {
        const rb_bundle_scenario *s = &b->scenarios[i];
        for (size_t k = 0; k < s->nresults; k++) {
            const rb_bundle_result *r = &s->results[k];
            rb_buf_puts(out, n++ ? ",\n  " : "\n  ");
            put_string(out, s->name, r->router);
            rb_buf_printf(out,
                          ": {\"%s\": {\"value\": %.17g, \"lower_value\": %.17g, "
                          "\"upper_value\": %.17g}}",
                          measure, r->median_ns, r->min_ns, r->max_ns);
        }
    }
    rb_buf_puts(out, n ? "\n}\n" : "}\n");
    return RB_OK;
}

const rb_output rb__output_bmf = {
    "bmf",
    "--export-bmf",
    NULL,
    "write every router's per-lookup figure to FILE in Bencher Metric Format (JSON), for "
    "continuous benchmarking: SCENARIO/ROUTER, the median with the lowest and highest trial",
    render_bmf,
    NULL,
    false};
