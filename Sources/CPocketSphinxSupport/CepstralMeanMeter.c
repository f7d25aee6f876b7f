// A running cepstral mean measured on a front end of its own (PocketSphinx's is left
// undisturbed), so a single live pass can normalise an utterance like a whole-utterance one.
#include "CPocketSphinxSupport.h"
#include "FrontEndWarp.h"
#include <pocketsphinx.h>
#include <sphinxbase/ckd_alloc.h>
#include <sphinxbase/cmn.h>
#include <sphinxbase/fe.h>
#include <sphinxbase/feat.h>

struct ag_cmn_meter {
    fe_t *fe;
    mfcc_t **cep;  // scratch: `cap` frames
    int cap, ncep;
    ag_cmn_meter_state_t state;
};

ag_cmn_meter_t *ag_cmn_meter_new(struct ps_decoder_s *ps) {
    ag_front_end_begin(ps_get_config(ps));
    fe_t *fe = fe_init_auto_r(ps_get_config(ps));
    ag_front_end_end();
    if (!fe) return NULL;
    ag_cmn_meter_t *m = (ag_cmn_meter_t *)ckd_calloc(1, sizeof(ag_cmn_meter_t));
    m->fe = fe;
    m->ncep = fe_get_output_size(fe);
    if (m->ncep > 64) m->ncep = 64;
    m->cap = 64;
    m->cep = (mfcc_t **)ckd_calloc_2d(m->cap + 1, fe_get_output_size(fe), sizeof(mfcc_t));
    return m;
}

void ag_cmn_meter_free(ag_cmn_meter_t *m) {
    if (!m) return;
    fe_free(m->fe);
    ckd_free_2d(m->cep);
    ckd_free(m);
}

void ag_cmn_meter_start(ag_cmn_meter_t *m) {
    fe_start_utt(m->fe);
    for (int c = 0; c < m->ncep; c++) m->state.sum[c] = 0;
    m->state.frames = 0;
}

void ag_cmn_meter_restart(ag_cmn_meter_t *m) {
    fe_start_stream(m->fe);
    ag_cmn_meter_start(m);
}

void ag_cmn_meter_continue(ag_cmn_meter_t *m, long keep) {
    fe_start_utt(m->fe);
    if (m->state.frames > keep && keep > 0) {
        double scale = (double)keep / (double)m->state.frames;
        for (int c = 0; c < m->ncep; c++) m->state.sum[c] *= scale;
        m->state.frames = keep;
    }
}

void ag_cmn_meter_add(ag_cmn_meter_t *m, const int16_t *samples, size_t n) {
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

int ag_cmn_meter_apply(ag_cmn_meter_t *m, struct ps_decoder_s *ps) {
    if (m->state.frames <= 0) return 0;
    mfcc_t mean[64];
    for (int c = 0; c < m->ncep; c++) mean[c] = (mfcc_t)(m->state.sum[c] / (double)m->state.frames);
    cmn_live_set(ps_get_feat(ps)->cmn_struct, mean);
    return 1;
}

ag_cmn_meter_state_t ag_cmn_meter_get_state(const ag_cmn_meter_t *m) { return m->state; }

void ag_cmn_meter_set_state(ag_cmn_meter_t *m, ag_cmn_meter_state_t state) { m->state = state; }

_Static_assert(sizeof(mfcc_t) == sizeof(float), "floating-point PocketSphinx features");

ag_cmn_snapshot_t ag_cmn_snapshot(struct ps_decoder_s *ps) {
    ag_cmn_snapshot_t s = {0};
    cmn_t *cmn = ps_get_feat(ps)->cmn_struct;
    if (!cmn) return s;
    s.length = cmn->veclen > 64 ? 64 : cmn->veclen;
    for (int c = 0; c < s.length; c++) {
        s.mean[c] = cmn->cmn_mean[c];
        s.sum[c] = cmn->sum[c];
    }
    s.frames = cmn->nframe;
    return s;
}

void ag_cmn_restore(struct ps_decoder_s *ps, const ag_cmn_snapshot_t *s) {
    cmn_t *cmn = ps_get_feat(ps)->cmn_struct;
    if (!cmn || s->length != (cmn->veclen > 64 ? 64 : cmn->veclen)) return;
    for (int c = 0; c < s->length; c++) {
        cmn->cmn_mean[c] = s->mean[c];
        cmn->sum[c] = s->sum[c];
    }
    cmn->nframe = s->frames;
}
