#include "device/device.h"

#include "common/config.h"
#include "common/debug.h"
#include "device/cuda_driver.h"
#include "device/ipc_exports.h"
#include "device/kernels.h"
#include "device/memory_cache.h"
#include "device/profiled_ops.h"
#include "device/staging.h"

namespace ferry::device {

const Ops* installed = nullptr;

namespace {
MemoryCache* cache = nullptr;
bool profiling = false;  // FERRY_CUDA_PROFILE: the table is device/profiled_ops.h's
}  // namespace

std::optional<Mode> mode_from_config() {
  std::string v = config::value("FERRY_CUDA");
  if (v == "auto") return Mode::kAuto;
  if (v == "on") return Mode::kOn;
  if (v == "off") return Mode::kOff;
  return std::nullopt;
}

bool load(Mode mode, std::string* error) {
  if (installed != nullptr || mode == Mode::kOff) return true;
  std::string why;
  const Ops* ops = cuda::open_driver(&why);
  if (ops == nullptr) {
    if (mode == Mode::kOn) {
      *error = "FERRY_CUDA=on, but " + why;
      return false;
    }
    FERRY_DEBUG(kCuda, "no CUDA: %s; device buffers are not supported, host buffers as usual", why.c_str());
    return true;
  }
  profiling = config::integer("FERRY_CUDA_PROFILE") != 0;
  install(profiling ? profiled(ops) : ops);
  FERRY_DEBUG(kCuda, "CUDA driver loaded: device buffers supported");
  return true;
}

void install(const Ops* ops) {
  staging::reset();
  kernels::reset();
  forget_exports();
  delete cache;
  cache = ops != nullptr ? new MemoryCache(ops) : nullptr;
  installed = ops;
}

void unload() {
  // The driver library stays open (the program uses it too); what Ferry
  // made with it is given back.
  if (installed == nullptr) return;
  staging::reset();
  kernels::reset();
  forget_exports();
  cache->clear();
  if (profiling) print_profile();
}

PointerInfo describe(const void* p) {
  if (installed == nullptr || p == nullptr) return PointerInfo{};
  int error = 0;
  PointerInfo info = cache->lookup(p, &error);
  if (error != 0) FERRY_DEBUG(kCuda, "%s", error_text("cuPointerGetAttributes", error).c_str());
  return info;
}

PointerInfo describe_fresh(const void* p, int* error) {
  if (installed == nullptr || p == nullptr) return PointerInfo{};
  return cache->refresh(p, error);
}

Memory memory_of(const void* p) {
  // Host buffers, by far the most asked about, without building an answer.
  if (installed == nullptr || p == nullptr || cache->known_host(p)) return Memory::kHost;
  return describe(p).memory;
}

std::string error_text(const char* call, int code) {
  const char* text = installed != nullptr ? installed->error_string(code) : "no device interface";
  return std::string(call) + ": " + text + " (error " + std::to_string(code) + ")";
}

}  // namespace ferry::device
