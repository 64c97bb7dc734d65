/*
 * report_html.h — report.html, the bundle as one self-contained page
 * (report_html.c).
 */
#ifndef RB_BENCH_REPORT_HTML_H
#define RB_BENCH_REPORT_HTML_H

#include "bundle.h"

/* report.html's text into out; RB_ENOMEM. */
int rb_bundle_report_html(const rb_bundle *b, rb_buf *out, rb_error *err);

#endif
