#pragma once
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <sphinxbase/cmd_ln.h>
#include <sphinxbase/logmath.h>
#include <setjmp.h>
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

// Where a fatal error jumps to while this thread loads a model (see `ag_ps_init_guarded`).
static inline jmp_buf **ag_ps_fatal_target(void) {
    static _Thread_local jmp_buf *target;
    return &target;
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
    // PocketSphinx calls exit() right after logging a fatal error. While a model loads on
    // this thread, leave for the loader's guard instead, so the host process lives on.
    if (level == ERR_FATAL && *ag_ps_fatal_target() != NULL) longjmp(**ag_ps_fatal_target(), 1);
}

/// Routes PocketSphinx's log into the shim (nothing reaches stderr) and clears the last error.
static inline void ag_ps_capture_log(void) {
    ag_ps_error_storage()[0] = 0;
    err_set_logfp(NULL);
    err_set_callback(ag_ps_log_callback, NULL);
}

/// `ps_init`, except that a fatal error PocketSphinx meets while loading returns NULL with
/// `*fatal` set instead of ending the process. What the failed load allocated is leaked
/// (PocketSphinx has no way to unwind it): a few files and buffers, once per failure.
static inline ps_decoder_t *ag_ps_init_guarded(cmd_ln_t *config, int *fatal) {
    jmp_buf target;
    ps_decoder_t *volatile decoder = NULL;
    *fatal = 0;
    *ag_ps_fatal_target() = &target;
    if (setjmp(target) == 0) {
        decoder = ps_init(config);
    } else {
        *fatal = 1;
        decoder = NULL;
    }
    *ag_ps_fatal_target() = NULL;
    return decoder;
}

/// The last error-level message PocketSphinx logged since `ag_ps_capture_log` ("" if none).
static inline const char *ag_ps_last_error(void) { return ag_ps_error_storage(); }

#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/ckd_alloc.h>

// What a cepstral-mean meter has measured: saved and put back whole when audio it took in
// turns out not to count.
typedef struct { double sum[64]; long frames; } ag_cmn_meter_state_t;

// Running cepstral mean of an utterance, measured on a side front end as audio arrives.
typedef struct {
    fe_t *fe;
    mfcc_t **cep;      // scratch: `cap` frames
    int cap, ncep;
    ag_cmn_meter_state_t state;
} ag_cmn_meter_t;

static inline ag_cmn_meter_t *ag_cmn_meter_new(ps_decoder_t *ps) {
    fe_t *fe = fe_init_auto_r(ps_get_config(ps));
    if (!fe) return NULL;
    ag_cmn_meter_t *m = (ag_cmn_meter_t *)ckd_calloc(1, sizeof(ag_cmn_meter_t));
    m->fe = fe;
    m->ncep = fe_get_output_size(fe);
    if (m->ncep > 64) m->ncep = 64;
    m->cap = 64;
    m->cep = (mfcc_t **)ckd_calloc_2d(m->cap + 1, fe_get_output_size(fe), sizeof(mfcc_t));
    return m;
}

static inline void ag_cmn_meter_free(ag_cmn_meter_t *m) {
    if (!m) return;
    fe_free(m->fe);
    ckd_free_2d(m->cep);
    ckd_free(m);
}

// Starts a new utterance: sums back to zero.
static inline void ag_cmn_meter_start(ag_cmn_meter_t *m) {
    fe_start_utt(m->fe);
    for (int c = 0; c < m->ncep; c++) m->state.sum[c] = 0;
    m->state.frames = 0;
}

// Starts a new utterance keeping what was measured before, weighted as at most `keep`
// frames, so the mean carries over from utterance to utterance and follows slow changes.
static inline void ag_cmn_meter_continue(ag_cmn_meter_t *m, long keep) {
    fe_start_utt(m->fe);
    if (m->state.frames > keep && keep > 0) {
        double scale = (double)keep / (double)m->state.frames;
        for (int c = 0; c < m->ncep; c++) m->state.sum[c] *= scale;
        m->state.frames = keep;
    }
}

// Adds `n` samples (no allocation).
static inline void ag_cmn_meter_add(ag_cmn_meter_t *m, const int16 *samples, size_t n) {
    const int16 *p = samples;
    size_t left = n;
    while (left > 0) {
        int32 got = m->cap;
        size_t before = left;
        if (fe_process_frames(m->fe, &p, &left, m->cep, &got, NULL) < 0) return;
        for (int f = 0; f < got; f++)
            for (int c = 0; c < m->ncep; c++) m->state.sum[c] += m->cep[f][c];
        m->state.frames += got;
        if (got == 0 && left == before) break;
    }
}

// Sets the decoder's live cepstral mean to the mean measured so far; 0 if none yet.
static inline int ag_cmn_meter_apply(ag_cmn_meter_t *m, ps_decoder_t *ps) {
    if (m->state.frames <= 0) return 0;
    mfcc_t mean[64];
    for (int c = 0; c < m->ncep; c++) mean[c] = (mfcc_t)(m->state.sum[c] / (double)m->state.frames);
    cmn_live_set(ps_get_feat(ps)->cmn_struct, mean);
    return 1;
}


#include <sphinxbase/ngram_model.h>
#include <stdlib.h>

typedef struct { int32 score; int32 wid; } ag_scored_word_t;

static int ag_by_score_descending(const void *a, const void *b) {
    int32 x = ((const ag_scored_word_t *)a)->score, y = ((const ag_scored_word_t *)b)->score;
    return (x < y) - (x > y);
}

// The language model of a search (`ps_get_lm`) with its vocabulary cut to the `keep` most
// likely words (unigram probability) and the sentence markers; the n-grams are shared, not
// copied. NULL if the search's set does not hold the one model PocketSphinx names "default".
// Release with ngram_model_free.
static inline ngram_model_t *ag_top_words_lm(ngram_model_t *set, cmd_ln_t *config, int32 keep) {
    ngram_model_t *lm = ngram_model_set_lookup(set, "default");
    if (!lm) return NULL;
    int32 n = (int32)ngram_model_get_counts(lm)[0];
    ag_scored_word_t *ranked = (ag_scored_word_t *)ckd_calloc(n, sizeof(*ranked));
    for (int32 w = 0; w < n; w++) {
        int32 used;
        ranked[w].score = ngram_ng_score(lm, w, NULL, 0, &used);
        ranked[w].wid = w;
    }
    qsort(ranked, n, sizeof(*ranked), ag_by_score_descending);
    const char **words = (const char **)ckd_calloc(keep + 2, sizeof(*words));
    int32 k = 0;
    words[k++] = "<s>";
    words[k++] = "</s>";
    for (int32 i = 0; i < n && k < keep + 2; i++) {
        const char *w = ngram_word(lm, ranked[i].wid);
        if (w && strcmp(w, "<s>") != 0 && strcmp(w, "</s>") != 0) words[k++] = w;
    }
    char *name = "default";
    ngram_model_t *cut = ngram_model_set_init(config, &lm, &name, NULL, 1);
    if (cut) ngram_model_set_map_words(cut, words, k);
    ckd_free(words);
    ckd_free(ranked);
    return cut;
}

#include <malloc.h>

// Hands memory freed into malloc's arenas back to the system (PocketSphinx allocates and
// frees per-utterance lattices and tables on the decoding thread).
static inline void ag_release_free_memory(void) { malloc_trim(0); }
