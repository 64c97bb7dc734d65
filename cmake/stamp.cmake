# stamp.cmake — the build's commit stamp, run by the build (not by
# configure; CMakeLists.txt, "commit stamp"):
#   cmake -DSRC=<source dir> -DOUT=<generated .c> -P stamp.cmake
# The stamp is the commit's 12-digit hash, with "-dirty" when a tracked file
# differs from it, or "unknown" outside a git checkout.  OUT is rewritten
# only when the stamp changed, so a build with the same stamp recompiles
# nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE commit RESULT_VARIABLE rc
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT rc EQUAL 0 OR NOT commit)
  set(commit unknown)
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SRC}
                  OUTPUT_VARIABLE changes ERROR_QUIET)
  if(changes)
    string(APPEND commit -dirty)
  endif()
endif()
set(text "/* Generated at build time by cmake/stamp.cmake: do not edit. */
#include \"build_stamp.h\"

const char *rb__build_commit(void)
{
    return \"${commit}\";
}
")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
