// PocketSphinx reports problems (a grammar's syntax error and its line, a missing model
// file) only through its log. Swift cannot implement a variadic C callback, so this keeps the
// last error-level messages for the caller and drops everything else, which also keeps
// PocketSphinx's log lines off stderr.
#include "CPocketSphinxSupport.h"
#include "FrontEndWarp.h"
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/jsgf.h>
#include <malloc.h>
#include <pthread.h>
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

// Runs `body(arg)` on this thread; a fatal error PocketSphinx meets inside returns here
// instead of ending the process. 1 if one did (what `body` had allocated is leaked).
static int run_guarded(void (*body)(void *), void *arg) {
    jmp_buf target;
    volatile int fatal = 0;
    fatal_target = &target;
    if (setjmp(target) == 0) {
        body(arg);
    } else {
        fatal = 1;
    }
    fatal_target = NULL;
    return fatal;
}

struct init { struct cmd_ln_s *config; ps_decoder_t *decoder; };
static void init_decoder(void *arg) {
    struct init *i = arg;
    i->decoder = ps_init(i->config);
}

struct ps_decoder_s *ag_ps_init_guarded(struct cmd_ln_s *config, int *fatal) {
    struct init i = {.config = config};
    ag_front_end_begin(config);
    *fatal = run_guarded(init_decoder, &i);
    ag_front_end_end();
    return *fatal ? NULL : i.decoder;
}

// The n-gram model read on a thread of its own (see `ag_ps_init_lm_guarded`).
struct lm_read {
    struct cmd_ln_s *config;
    const char *path;
    logmath_t *lmath;
    ngram_model_t *model;
    char error[sizeof last_error];
};

static void read_lm_model(void *arg) {
    struct lm_read *r = arg;
    // The table PocketSphinx's own load makes for its acoustic model and searches.
    r->lmath = logmath_init(cmd_ln_float32_r(r->config, "-logbase"), 0, cmd_ln_boolean_r(r->config, "-bestpath"));
    if (r->lmath != NULL) r->model = ngram_model_read(r->config, r->path, NGRAM_AUTO, r->lmath);
}

static void *read_lm(void *arg) {
    struct lm_read *r = arg;
    last_error[0] = 0;
    if (run_guarded(read_lm_model, r)) r->model = NULL;
    memcpy(r->error, last_error, sizeof r->error);
    return NULL;
}

struct set_lm { ps_decoder_t *decoder; ngram_model_t *model; int ok; };
static void set_lm_search(void *arg) {
    struct set_lm *s = arg;
    // As `-lm` makes it: the search "_default" over the model, selected.
    s->ok = ps_set_lm(s->decoder, "_default", s->model) == 0 && ps_set_search(s->decoder, "_default") == 0;
}

struct ps_decoder_s *ag_ps_init_lm_guarded(struct cmd_ln_s *config, const char *lm, int *fatal, int *lm_failed,
                                           struct logmath_s **lmath, struct ngram_model_s **deferred) {
    struct lm_read r = {.config = config, .path = lm};
    pthread_t reader;
    int threaded = pthread_create(&reader, NULL, read_lm, &r) == 0;
    if (!threaded) read_lm(&r);
    ps_decoder_t *decoder = ag_ps_init_guarded(config, fatal);
    if (threaded) pthread_join(reader, NULL);
    *lmath = NULL;
    // The error reported is the decoder's own when it has one, else the n-gram model's.
    *lm_failed = r.model == NULL && (decoder != NULL || last_error[0] == 0);
    if (decoder == NULL || r.model == NULL) {
        if (r.model != NULL) ngram_model_free(r.model);
        if (r.lmath != NULL) logmath_free(r.lmath);
        if (decoder != NULL) ps_free(decoder);
        if (*lm_failed) memcpy(last_error, r.error, sizeof last_error);
        return NULL;
    }
    if (deferred != NULL) {
        *deferred = r.model;
        *lmath = r.lmath;
        return decoder;
    }
    struct set_lm s = {.decoder = decoder, .model = r.model};
    *fatal = run_guarded(set_lm_search, &s);
    ngram_model_free(r.model);  // the search holds it
    if (*fatal) return NULL;
    if (!s.ok) {
        ps_free(decoder);
        logmath_free(r.lmath);
        return NULL;
    }
    *lmath = r.lmath;
    return decoder;
}

int ag_ps_set_lm_guarded(struct ps_decoder_s *decoder, struct ngram_model_s *model, int *fatal) {
    struct set_lm s = {.decoder = decoder, .model = model};
    last_error[0] = 0;
    *fatal = run_guarded(set_lm_search, &s);
    ngram_model_free(model);  // the search holds it
    return !*fatal && s.ok;
}

void ag_release_free_memory(void) { malloc_trim(0); }

// A JSGF grammar parsed, and with `build` its public rule's automaton built before empty arcs
// are joined; PocketSphinx ends the process on some grammars (a weight over 1 on an empty arc).
struct jsgf_raw { const char *path, *text; int build, parsed; fsg_model_t *fsg; };
static logmath_t *raw_logmath;
static pthread_once_t raw_logmath_once = PTHREAD_ONCE_INIT;
static void make_raw_logmath(void) { raw_logmath = logmath_init(1.0001, 0, 0); }

static void build_jsgf_raw(void *arg) {
    struct jsgf_raw *r = arg;
    jsgf_t *grammar = r->path != NULL ? jsgf_parse_file(r->path, NULL) : jsgf_parse_string(r->text, NULL);
    if (grammar == NULL) return;
    r->parsed = 1;
    jsgf_rule_t *rule = r->build ? jsgf_get_public_rule(grammar) : NULL;
    if (rule != NULL && raw_logmath != NULL) r->fsg = jsgf_build_fsg_raw(grammar, rule, raw_logmath, 1.0);
    jsgf_grammar_free(grammar);
}

struct fsg_model_s *ag_jsgf_build_raw_guarded(const char *path, const char *text, int *fatal) {
    pthread_once(&raw_logmath_once, make_raw_logmath);
    struct jsgf_raw r = {.path = path, .text = text, .build = 1};
    *fatal = run_guarded(build_jsgf_raw, &r);
    return *fatal ? NULL : r.fsg;
}

int ag_jsgf_parses_guarded(const char *path, const char *text, int *fatal) {
    struct jsgf_raw r = {.path = path, .text = text};
    *fatal = run_guarded(build_jsgf_raw, &r);
    return !*fatal && r.parsed;
}
