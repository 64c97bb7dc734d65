/*
 * output_file.h — where an output goes, checked before the work that
 * makes it (as rb_bundle_prepare_dir checks a bundle directory, report.h),
 * and what a written bundle directory holds, as the terminal names it.
 * Nothing here prints.
 */
#ifndef RB_REPORT_OUTPUT_FILE_H
#define RB_REPORT_OUTPUT_FILE_H

#include "buf.h"
#include "bundle.h"

/* Can a file be created at path: not a symbolic link that file.h refuses,
 * not a directory, and its directory exists and is writable (a stream such
 * as /dev/stdout: writable in place)?  "-" (stdout) always can.  RB_EIO or
 * RB_EINVAL with a message that starts with path (the caller names the
 * option before it). */
int rb_output_check_file(const char *path, rb_error *err);

/* "report: DIR/report.html (open it in a browser)", then the other files
 * of the bundle written from b (the charts with something to plot). */
void rb_bundle_files_text(const char *dir, const rb_bundle *b, rb_buf *out);

#endif
