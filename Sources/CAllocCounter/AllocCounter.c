// Interposes malloc and friends in the benchmark executable so that the render path can be
// proven allocation-free: while a thread-local flag is set, every allocation is counted.
// The real allocator is glibc's, reached through its __libc_* entry points.
#include "CAllocCounter.h"
#include <stddef.h>
#include <stdatomic.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static __thread int counting;
static __thread int64_t count;

static inline void note(void) { if (counting) count++; }

void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { note(); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
int posix_memalign(void **out, size_t align, size_t n) {
    note();
    void *p = __libc_memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t n) { note(); return __libc_memalign(align, n); }

void ag_alloc_counter_begin(void) { count = 0; counting = 1; }
int64_t ag_alloc_counter_end(void) { counting = 0; return count; }
