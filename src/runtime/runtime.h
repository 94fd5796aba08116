// The runtime's life cycle: MPI_Init wires the job up (PMIx, transports,
// predefined communicators); MPI_Finalize takes it down; a fatal error ends
// the whole job with one clear line.
#pragma once

#include <string>

#include "base/error.h"
#include "pmi/dynamic.h"
#include "pmi/pmix_client.h"

namespace ferry::runtime {

// The world model (MPI_Init, MPI_Finalize) and each session (MPI-4.0
// §11.3) hold the runtime; the first of them starts it. MPI_Finalize takes
// it down unless a session is open, then the last MPI_Session_finalize
// does; a process that used only sessions keeps it up until exit, so that
// sessions can be opened again (MPI-4.0 §11.4.1). Once down, it stays down.
Err init(int requested_thread_level, int* provided);
Err finalize();
Err open_session(int requested_thread_level, int* provided);
Err close_session();

namespace detail {
extern bool up;  // runtime.cc's state; read inline: every MPI call asks (api::Call::initialized)
}
// The runtime is up: the world model or a session holds it.
inline bool active() { return detail::up; }
bool initialized();  // MPI_Init has returned and MPI_Finalize has not been called
bool finalized();
int thread_level();
bool is_main_thread();
const pmi::Job& job();

// Gives peer index `index` (a process of another job, runtime/peers.h) a
// route over the first transport that reaches it.
Err route_adopted(int index, const pmi::ProcessName& name);

// Prints "ferry: rank R: <message>" on stderr, asks the launcher to end the
// job with `exit_code`, and exits. Never returns.
[[noreturn]] void abort_job(int exit_code, const std::string& message);

}  // namespace ferry::runtime
