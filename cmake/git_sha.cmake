# Writes OUT: `#define PZ_GIT_SHA "<commit>"` for the checkout at SRC ("unknown" outside git). Run
# at every build (CMakeLists.txt, target pz_git_sha), so that a binary records the commit it was
# built from, not the one of the last configure; OUT is rewritten only when the commit changed, so
# an unchanged commit recompiles nothing.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SRC}
                OUTPUT_VARIABLE sha OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT sha)
  set(sha "unknown")
endif()
set(text "#define PZ_GIT_SHA \"${sha}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
