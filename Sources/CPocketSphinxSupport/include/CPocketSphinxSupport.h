#pragma once
// What the decoder (AudioGraphSpeech's PocketSphinxDecoder) needs from PocketSphinx that its
// API does not offer directly: its log captured and a fatal load survived, a side front end
// measuring the cepstral mean, a language model cut to its most likely words, and malloc's
// freed memory handed back. PocketSphinx's types appear as incomplete structs here (Swift
// sees them as OpaquePointer, as it does through the CPocketSphinx module).
#include <stddef.h>
#include <stdint.h>

struct ps_decoder_s;
struct cmd_ln_s;
struct ngram_model_s;
struct logmath_s;
struct fsg_model_s;

// MARK: log and errors (ErrorCapture.c)

/// Routes PocketSphinx's log here (nothing reaches stderr) and clears the last error.
void ag_ps_capture_log(void);

/// The error-level messages PocketSphinx logged on this thread since `ag_ps_capture_log`,
/// joined by " | " ("" if none).
const char *ag_ps_last_error(void);

/// `ps_init`, except that a fatal error PocketSphinx meets while loading returns NULL with
/// `*fatal` set instead of ending the process. What the failed load allocated is leaked
/// (PocketSphinx has no way to unwind it): a few files and buffers, once per failure.
struct ps_decoder_s *ag_ps_init_guarded(struct cmd_ln_s *config, int *fatal);

/// A JSGF grammar's public rule built into PocketSphinx's word automaton before its empty
/// arcs are joined (`jsgf_build_fsg_raw`), from the file `path` or, when it is NULL, the
/// `text`. NULL when it does not parse or has no public rule, and with `*fatal` set when
/// PocketSphinx met a fatal error (instead of ending the process). Free with `fsg_model_free`.
struct fsg_model_s *ag_jsgf_build_raw_guarded(const char *path, const char *text, int *fatal);

/// Whether PocketSphinx's JSGF parser reads the file `path` or, when it is NULL, the `text`
/// (imports resolved, nothing built); 0 with `*fatal` set after a fatal error.
int ag_jsgf_parses_guarded(const char *path, const char *text, int *fatal);

/// `ag_ps_init_guarded` for a language-model search, in less time: the n-gram model at `lm`
/// is read on a second thread while PocketSphinx loads the acoustic model and dictionary
/// on this one (`config` names no `-lm`), and then becomes the search "_default", selected,
/// as `-lm` would make it (same scores: its log table has the decoder's base and layout).
/// The model keeps using that table without owning it: `*lmath` is to be freed
/// (`logmath_free`) after the decoder. NULL on failure, with `*lm_failed` set when the
/// error `ag_ps_last_error` reports is the n-gram model's (the decoder's own comes first
/// when both fail). With `deferred`, the search is not built: the model read is left in
/// `*deferred` for `ag_ps_set_lm_guarded`, and the decoder has no search until then.
struct ps_decoder_s *ag_ps_init_lm_guarded(struct cmd_ln_s *config, const char *lm, int *fatal, int *lm_failed,
                                           struct logmath_s **lmath, struct ngram_model_s **deferred);

/// Builds the search "_default" over `model` (from `ag_ps_init_lm_guarded`'s `deferred`) and
/// selects it, as `-lm` would; the search holds the model, whose reference this takes either
/// way. 1 on success; 0 on failure (`ag_ps_last_error` says why), with `*fatal` set when
/// PocketSphinx met a fatal error (the decoder is then not to be used or freed).
int ag_ps_set_lm_guarded(struct ps_decoder_s *decoder, struct ngram_model_s *model, int *fatal);

/// Hands memory freed into malloc's arenas back to the system (PocketSphinx allocates and
/// frees per-utterance lattices and tables on the decoding thread).
void ag_release_free_memory(void);

// MARK: cepstral mean (CepstralMeanMeter.c)

/// What a cepstral-mean meter has measured: saved and put back whole when audio it took in
/// turns out not to count.
typedef struct { double sum[64]; long frames; } ag_cmn_meter_state_t;

/// Running cepstral mean of an utterance, measured on a side front end as audio arrives.
typedef struct ag_cmn_meter ag_cmn_meter_t;

/// A meter with the decoder's front-end configuration; NULL if one cannot be made.
ag_cmn_meter_t *ag_cmn_meter_new(struct ps_decoder_s *ps);
void ag_cmn_meter_free(ag_cmn_meter_t *m);
/// Starts a new utterance: sums back to zero.
void ag_cmn_meter_start(ag_cmn_meter_t *m);
/// Starts a new stream: sums back to zero and the front end's noise estimate as made.
void ag_cmn_meter_restart(ag_cmn_meter_t *m);
/// Starts a new utterance keeping what was measured before, weighted as at most `keep`
/// frames, so the mean carries over from utterance to utterance and follows slow changes.
void ag_cmn_meter_continue(ag_cmn_meter_t *m, long keep);
/// Adds `n` 16 kHz samples (no allocation).
void ag_cmn_meter_add(ag_cmn_meter_t *m, const int16_t *samples, size_t n);
/// Sets the decoder's live cepstral mean to the mean measured so far; 0 if none yet.
int ag_cmn_meter_apply(ag_cmn_meter_t *m, struct ps_decoder_s *ps);
/// What the meter has measured so far.
ag_cmn_meter_state_t ag_cmn_meter_get_state(const ag_cmn_meter_t *m);
/// Puts back what was measured when `state` was taken.
void ag_cmn_meter_set_state(ag_cmn_meter_t *m, ag_cmn_meter_state_t state);

/// The decoder's own live cepstral mean (mean, running sum, frame count): taken once a
/// decoder is loaded and put back when it is reused for another stream, so the stream
/// decodes as it would with a fresh load.
typedef struct { float mean[64]; float sum[64]; int32_t frames; int32_t length; } ag_cmn_snapshot_t;
ag_cmn_snapshot_t ag_cmn_snapshot(struct ps_decoder_s *ps);
void ag_cmn_restore(struct ps_decoder_s *ps, const ag_cmn_snapshot_t *snapshot);

// MARK: preview vocabulary (TopWordsModel.c)

/// An n-gram model with its vocabulary cut to the `keep` most likely words (unigram
/// probability) and the sentence markers; the n-grams are shared, not copied. Release with
/// ngram_model_free.
struct ngram_model_s *ag_top_words_lm(struct ngram_model_s *lm, struct cmd_ln_s *config, int32_t keep);
