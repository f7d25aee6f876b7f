// PocketSphinx reports problems (a grammar's syntax error and its line, a missing model
// file) only through its log. Swift cannot implement a variadic C callback, so this keeps the
// last error-level messages for the caller and drops everything else, which also keeps
// PocketSphinx's log lines off stderr.
#include "CPocketSphinxSupport.h"
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Per thread: models load on the threads that prepare graphs, several at once (concurrent
// sessions), and PocketSphinx logs on the thread that loads.
static _Thread_local char last_error[1024];

// Where a fatal error jumps to while this thread loads a model (see `ag_ps_init_guarded`).
static _Thread_local jmp_buf *fatal_target;

static void log_callback(void *user_data, err_lvl_t level, const char *format, ...) {
    (void)user_data;
    if (level < ERR_ERROR || format == NULL) return;
    // Messages accumulate, separated by " | ", so the caller can pick the telling one.
    size_t used = strlen(last_error);
    if (used > 0 && used + 4 < sizeof last_error) { strcat(last_error, " | "); used += 3; }
    if (used + 1 >= sizeof last_error) return;
    va_list ap;
    va_start(ap, format);
    vsnprintf(last_error + used, sizeof last_error - used, format, ap);
    va_end(ap);
    size_t n = strlen(last_error);
    while (n > 0 && (last_error[n - 1] == '\n' || last_error[n - 1] == ' ')) last_error[--n] = 0;
    // PocketSphinx calls exit() right after logging a fatal error. While a model loads on
    // this thread, leave for the loader's guard instead, so the host process lives on.
    if (level == ERR_FATAL && fatal_target != NULL) longjmp(*fatal_target, 1);
}

void ag_ps_capture_log(void) {
    last_error[0] = 0;
    err_set_logfp(NULL);
    err_set_callback(log_callback, NULL);
}

const char *ag_ps_last_error(void) { return last_error; }

struct ps_decoder_s *ag_ps_init_guarded(struct cmd_ln_s *config, int *fatal) {
    jmp_buf target;
    ps_decoder_t *volatile decoder = NULL;
    *fatal = 0;
    fatal_target = &target;
    if (setjmp(target) == 0) {
        decoder = ps_init(config);
    } else {
        *fatal = 1;
        decoder = NULL;
    }
    fatal_target = NULL;
    return decoder;
}

void ag_release_free_memory(void) { malloc_trim(0); }
