/*
 * test_output_file.c — where an output goes, checked before the work
 * (bench/report/output_file.h): stdout and a new file in a writable
 * directory can be written; a directory, a missing directory and a file
 * as a directory cannot, each said starting with the path.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "output_file.h"

Test(output_file, what_can_be_written)
{
    rb_error err;
    cr_expect_eq(rb_output_check_file("-", &err), RB_OK);
    cr_expect_eq(rb_output_check_file("/tmp/rb_output_file_test.json", &err), RB_OK, "%s",
                 err.message);
    cr_expect_lt(rb_output_check_file("/tmp", &err), 0);
    cr_expect_str_eq(err.message, "/tmp is a directory, not a file");
    cr_expect_lt(rb_output_check_file("/nonexistent-dir/x.json", &err), 0);
    cr_expect_str_eq(err.message,
                     "/nonexistent-dir/x.json: directory /nonexistent-dir: No such file or "
                     "directory");
    cr_expect_lt(rb_output_check_file("/etc/hostname/x.json", &err), 0);
    cr_expect(strncmp(err.message, "/etc/hostname/x.json: ", 22) == 0, "%s", err.message);
}

Test(output_file, bundle_files_name_report_html_first)
{
    rb_bundle b;
    rb_bundle_init(&b);
    rb_buf out = {0};
    rb_bundle_files_text("DIR", &b, &out);
    cr_expect_str_eq(out.data, "report: DIR/report.html (open it in a browser)\n"
                               "  beside summary.json, trials.csv, report.md\n");
    rb_buf_free(&out);
    rb_bundle_free(&b);
}
