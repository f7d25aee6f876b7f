// PocketSphinx's inverse-linear frequency warp (the `warp` parameter) keeps its settings in
// variables of the whole process (sphinxbase's fe_warp_inverse_linear.c). Every front end
// built sets them, a plain one (no `-warp_params`) turning the warp off, and reads them while
// it builds its filter bank; and a build whose parameter text is the last warped build's
// skips setting them. Unguarded, a warped decoder built after a plain one, with the warp of
// a warped one before, heard unwarped, and builds at once could mix their filter banks.
// Here plain builds run together, a warped one runs alone, with the remembered text cleared.
#include "FrontEndWarp.h"
#include <pocketsphinx.h>
#include <pthread.h>

// Exported by libsphinxbase; its header (fe_warp_inverse_linear.h) is not installed.
void fe_warp_inverse_linear_set_parameters(char const *param_str, float sampling_rate);

static pthread_rwlock_t builds = PTHREAD_RWLOCK_INITIALIZER;

void ag_front_end_begin(struct cmd_ln_s *config) {
    if (cmd_ln_str_r(config, "-warp_params") == NULL) {
        pthread_rwlock_rdlock(&builds);
        return;
    }
    pthread_rwlock_wrlock(&builds);
    // "0" is no warp of ours (0.8-1.2) and sets the warp off: the build's own text then differs.
    fe_warp_inverse_linear_set_parameters("0", 16000);
}

void ag_front_end_end(void) { pthread_rwlock_unlock(&builds); }
