// QMPI, MPICH 4.0's tool interface: which tool an MPI_X call goes to first.
//
// Tools are named in MPIR_CVAR_QMPI_TOOL_LIST (or FERRY_QMPI_TOOL_LIST), "a:b:a": ids 1, 2, 3 in
// that order, a name twice being two instances. Each registers its name and an init function from a
// constructor (QMPI_Register_tool_name); at the first MPI call the tools are attached: each listed
// instance's init function runs with its id and registers the functions it intercepts. An MPI_X
// call then goes to the instance with the lowest id that registered X, which passes it on with
// QMPI_Get_function: to the next instance that did, and past the last to the implementation.
//
// The generated MPI_X entry points (bindings/gen_qmpi.py) read their slot of `first`: nullptr when
// no tool takes X (one load, then the implementation); FERRY_PROFILE's wrapper of X when it is the
// only tool that takes X (a direct call of that wrapper); else the cold path through first_tool().
#pragma once

#include <atomic>

#include "mpi.h"

namespace ferry::qmpi {

using Function = void (*)(void);

struct Hook {
  Function function;  // the tool's QMPI_X_t, nullptr: the implementation
  int tool_id;
};

// Per QMPI_Functions_enum value: the first tool's function, or nullptr. Until the tools are
// attached every slot holds a marker, so that the first call of any MPI_X takes the cold path.
struct FirstTools {
  Function function[MPI_LAST_FUNC_T];
  int tool_id[MPI_LAST_FUNC_T];
};
extern FirstTools first;

// Relaxed: a slot is set before the program's first MPI call returns (MPI_Init's, or any
// call's that attaches the tools), and a thread calls MPI only after the program has ordered its
// calls after that one.
inline Function first_function(int function) {
  return std::atomic_ref<Function>(first.function[function]).load(std::memory_order_relaxed);
}
inline bool hooked(int function) { return first_function(function) != nullptr; }

// Attaches the tools if that is still to do, then answers the first tool for `function`.
Hook first_tool(int function);

// The context passed to tools: the storage each registered (QMPI_Get_tool_storage).
QMPI_Context context();

// While a tool runs: the address the program called MPI_X from (QMPI_Get_calling_address).
class CallerScope {
 public:
  explicit CallerScope(void* caller);
  ~CallerScope();
  CallerScope(const CallerScope&) = delete;
  CallerScope& operator=(const CallerScope&) = delete;

 private:
  void* previous_;
};

// FERRY_PROFILE's tool: registers its wrappers (generated, bindings/gen_qmpi.py profile).
void attach_profile(int tool_id);
// Its id in the tool list, or -1: the entry points call it without the context and the calling
// address, which it does not read (a few nanoseconds per call).
extern int profile_tool_id;

// The implementation of each function with the QMPI signature (generated): the end of every chain.
extern const Function implementations[MPI_LAST_FUNC_T];

}  // namespace ferry::qmpi
