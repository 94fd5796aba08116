/*
 * Callgrind's client requests for the *_instructions benches, which count
 * the instructions of a stretch of calls under
 * `valgrind --tool=callgrind --instr-atstart=no`: empty where valgrind's
 * header is not installed, so the benches build and run anywhere (they then
 * count nothing).
 */
#pragma once

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(what)
#endif
