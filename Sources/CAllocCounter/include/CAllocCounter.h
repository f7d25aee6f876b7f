#pragma once
#include <stdint.h>

/// Starts counting heap allocations made on the calling thread.
void ag_alloc_counter_begin(void);
/// Stops counting on the calling thread and returns how many allocations were made.
int64_t ag_alloc_counter_end(void);
