// The CUDA driver as a device::Ops table, opened with dlopen.
#pragma once

#include <string>

#include "device/device.h"

namespace ferry::device::cuda {

// Opens libcuda.so.1, resolves the entry points and calls cuInit(0).
// Returns the table, or nullptr with `error` saying what is missing (the
// library, an entry point, or a driver that cuInit refuses, with its text).
const Ops* open_driver(std::string* error);

}  // namespace ferry::device::cuda
