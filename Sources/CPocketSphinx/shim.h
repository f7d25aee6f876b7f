#pragma once
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// PocketSphinx reports problems (a grammar's syntax error and its line, a missing model
// file) only through its log. Swift cannot implement a variadic C callback, so this shim
// keeps the last error-level message for the caller and drops everything else, which also
// keeps PocketSphinx's log lines off stderr.
static inline char *ag_ps_error_storage(void) {
    static char buffer[1024];
    return buffer;
}

static void ag_ps_log_callback(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    if (level < ERR_ERROR || format == NULL) return;
    // Messages accumulate, separated by " | ", so the caller can pick the telling one.
    char *b = ag_ps_error_storage();
    size_t used = strlen(b);
    if (used > 0 && used + 4 < 1024) { strcat(b, " | "); used += 3; }
    if (used + 1 >= 1024) return;
    va_list ap;
    va_start(ap, format);
    vsnprintf(b + used, 1024 - used, format, ap);
    va_end(ap);
    size_t n = strlen(b);
    while (n > 0 && (b[n - 1] == '\n' || b[n - 1] == ' ')) b[--n] = 0;
}

/// Routes PocketSphinx's log into the shim (nothing reaches stderr) and clears the last error.
static inline void ag_ps_capture_log(void) {
    ag_ps_error_storage()[0] = 0;
    err_set_logfp(NULL);
    err_set_callback(ag_ps_log_callback, NULL);
}

/// The last error-level message PocketSphinx logged since `ag_ps_capture_log` ("" if none).
static inline const char *ag_ps_last_error(void) { return ag_ps_error_storage(); }
