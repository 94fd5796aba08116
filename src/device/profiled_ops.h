// FERRY_CUDA_PROFILE=1: every call of the device table timed, and at
// MPI_Finalize one line per call that ran: how often and how long it took
// (mean and total), on stderr, per process.
//
// A diagnostic for the GPU paths' fixed costs: a small GPU message is a
// handful of driver calls (a stream wait, a copy, its wait), and which of
// them takes the time differs between drivers, with MPS and without; this
// answers it on the machine at hand without a profiler. The wrapped table
// adds two clock reads per call, so it is off by default.
#pragma once

#include "device/device.h"

namespace ferry::device {

// The table that times each call of `inner` (one per process: the timings
// are kept in static storage).
const Ops* profiled(const Ops* inner);

// Prints the timings gathered so far and starts again from zero.
void print_profile();

}  // namespace ferry::device
