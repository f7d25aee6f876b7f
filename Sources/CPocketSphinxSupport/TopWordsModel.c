// A language model cut to its most likely words, for the recognizer's cheaper preview search.
#include "CPocketSphinxSupport.h"
#include <pocketsphinx.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/ngram_model.h>
#include <stdlib.h>
#include <string.h>

typedef struct { int32 score; int32 wid; } scored_word_t;

static int by_score_descending(const void *a, const void *b) {
    int32 x = ((const scored_word_t *)a)->score, y = ((const scored_word_t *)b)->score;
    return (x < y) - (x > y);
}

struct ngram_model_s *ag_top_words_lm(struct ngram_model_s *lm, struct cmd_ln_s *config, int32_t keep) {
    int32 n = (int32)ngram_model_get_counts(lm)[0];
    scored_word_t *ranked = (scored_word_t *)ckd_calloc(n, sizeof(*ranked));
    for (int32 w = 0; w < n; w++) {
        int32 used;
        ranked[w].score = ngram_ng_score(lm, w, NULL, 0, &used);
        ranked[w].wid = w;
    }
    qsort(ranked, n, sizeof(*ranked), by_score_descending);
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
