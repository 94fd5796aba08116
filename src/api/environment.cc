// Environment management (MPI-3.1 §8): init, finalize, abort, versions,
// timers, thread levels, memory allocation.
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "api/api.h"
#include "io/file.h"
#include "progress/progress.h"
#include "rma/alloc_mem.h"
#include "rma/window.h"
#include "runtime/runtime.h"

using namespace ferry;

namespace {

int init(const char* call, int required, int* provided) {
  if (runtime::initialized() || runtime::finalized()) {
    api::Call c(call);
    // There is a world to raise the error on only while initialized.
    if (runtime::initialized()) {
      c.fail(MPI_ERR_OTHER, "MPI is already initialized");
      return c.raise();
    }
    runtime::abort_job(MPI_ERR_OTHER, std::string(call) + ": MPI_Init called after MPI_Finalize");
  }
  int level = MPI_THREAD_SINGLE;
  if (Err e = runtime::init(required, &level)) {
    // Without a runtime there is no error handler: a failed start is fatal,
    // as it is for MPICH and Open MPI.
    runtime::abort_job(e.mpi_class(), std::string(call) + ": " + e.message());
  }
  if (provided != nullptr) *provided = level;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" int PMPI_Init(int* argc, char*** argv) {
  int provided;
  return init("MPI_Init", MPI_THREAD_SINGLE, &provided);
}
FERRY_ENTRY(Init)

extern "C" int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (provided == nullptr) {
    std::fprintf(stderr, "ferry: MPI_Init_thread: provided is NULL\n");
    std::exit(MPI_ERR_ARG);
  }
  return init("MPI_Init_thread", required, provided);
}
FERRY_ENTRY(Init_thread)

extern "C" int PMPI_Finalize(void) {
  api::Call call("MPI_Finalize");
  if (!call.initialized()) return call.raise();
  io::files::finalize_open_files();  // files the program left open (io/file.h)
  rma::windows::finalize();          // windows the program left (rma/window.h)
  Err finalized = runtime::finalize();
  if (finalized.ok()) io::files::after_finalize();
  return call.result(std::move(finalized));
}
FERRY_ENTRY(Finalize)

extern "C" int PMPI_Initialized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = runtime::initialized() || runtime::finalized();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Initialized)

extern "C" int PMPI_Finalized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = runtime::finalized();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Finalized)

extern "C" int PMPI_Abort(MPI_Comm comm, int errorcode) {
  // MPI-3.1 §8.7: Ferry ends the whole job, whatever the communicator.
  char text[128];
  std::snprintf(text, sizeof text, "MPI_Abort called with error code %d", errorcode);
  runtime::abort_job(errorcode, text);
}
FERRY_ENTRY(Abort)

extern "C" int PMPI_Get_processor_name(char* name, int* resultlen) {
  api::Call call("MPI_Get_processor_name");
  if (!call.not_null(name, "name") || !call.not_null(resultlen, "resultlen")) return call.raise();
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  gethostname(host, sizeof host - 1);
  std::snprintf(name, MPI_MAX_PROCESSOR_NAME, "%s", host);
  *resultlen = static_cast<int>(std::strlen(name));
  return MPI_SUCCESS;
}
FERRY_ENTRY(Get_processor_name)

extern "C" int PMPI_Get_version(int* version, int* subversion) {
  if (version == nullptr || subversion == nullptr) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Get_version)

extern "C" int PMPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  int n = std::snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                        "Ferry MPI %s (MPI %d.%d, MPICH ABI 12)", FERRY_VERSION, MPI_VERSION, MPI_SUBVERSION);
  *resultlen = n;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Get_library_version)

extern "C" double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
FERRY_ENTRY(Wtime)

extern "C" double PMPI_Wtick(void) {
  timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  return static_cast<double>(res.tv_sec) + 1e-9 * static_cast<double>(res.tv_nsec);
}
FERRY_ENTRY(Wtick)

extern "C" int PMPI_Query_thread(int* provided) {
  api::Call call("MPI_Query_thread");
  if (!call.initialized() || !call.not_null(provided, "provided")) return call.raise();
  *provided = runtime::thread_level();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Query_thread)

extern "C" int PMPI_Is_thread_main(int* flag) {
  api::Call call("MPI_Is_thread_main");
  if (!call.initialized() || !call.not_null(flag, "flag")) return call.raise();
  *flag = runtime::is_main_thread();
  return MPI_SUCCESS;
}
FERRY_ENTRY(Is_thread_main)

extern "C" int PMPI_Pcontrol(const int level, ...) {
  // MPI-3.1 §14.2.4: no effect unless a profiling library intercepts it.
  return MPI_SUCCESS;
}
FERRY_ENTRY(Pcontrol)

extern "C" int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  api::Call call("MPI_Alloc_mem");
  if (!call.initialized() || !call.not_null(baseptr, "baseptr")) return call.raise();
  if (size < 0) {
    call.fail(MPI_ERR_SIZE, "invalid size %ld (must be >= 0)", static_cast<long>(size));
    return call.raise();
  }
  // Memory that a window on this host can map (rma/alloc_mem.h).
  void* memory = rma::alloc_mem::allocate(static_cast<size_t>(size));
  if (memory == nullptr) {
    call.fail(MPI_ERR_NO_MEM, "cannot allocate %ld bytes", static_cast<long>(size));
    return call.raise();
  }
  *static_cast<void**>(baseptr) = memory;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Alloc_mem)

extern "C" int PMPI_Free_mem(void* base) {
  api::Call call("MPI_Free_mem");
  if (!call.initialized()) return call.raise();
  rma::alloc_mem::release(base);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Free_mem)
