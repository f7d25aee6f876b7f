#include "CFlite.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static ag_flite_api api;
static const char *why;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *flite = dlopen("libflite.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!flite) { why = dlerror(); return; }
#define AG_FIND(f) if (!(api.f = (__typeof__(f) *)dlsym(flite, #f))) { why = dlerror(); return; }
    AG_FLITE_FUNCTIONS(AG_FIND)
    void *lexicon = dlopen("libflite_cmulex.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lexicon) { why = dlerror(); return; }
    if (!(api.cmu_lex_init = (__typeof__(cmu_lex_init) *)dlsym(lexicon, "cmu_lex_init"))) why = dlerror();
}

const ag_flite_api *ag_flite_load(const char **failure) {
    pthread_once(&once, load);
    *failure = why;
    return why ? NULL : &api;
}
