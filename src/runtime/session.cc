#include "runtime/session.h"

#include <strings.h>

#include <algorithm>

#include "base/errhandler.h"
#include "base/handles.h"
#include "common/debug.h"
#include "runtime/runtime.h"

namespace ferry::sessions {
namespace {

handle::Table<Session> table;

constexpr const char* kWorld = "mpi://WORLD";
constexpr const char* kSelf = "mpi://SELF";

std::string host_pset() { return "ferry://host/" + runtime::job().hostname; }

bool same_name(const std::string& a, const char* b) { return strcasecmp(a.c_str(), b) == 0; }

}  // namespace

int thread_level_of(const std::string& value) {
  for (int level = MPI_THREAD_SINGLE; level <= MPI_THREAD_MULTIPLE; ++level)
    if (strcasecmp(value.c_str(), thread_level_name(level)) == 0) return level;
  return -1;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    default: return "MPI_THREAD_MULTIPLE";
  }
}

Err init(const Info& info, MPI_Errhandler errhandler, Session** out) {
  int requested = MPI_THREAD_SINGLE;
  if (const std::string* v = info.get("thread_level")) {
    requested = thread_level_of(*v);
    if (requested < 0)
      return fail(MPI_ERR_ARG, "info key thread_level has value \"%s\" (expected MPI_THREAD_SINGLE, "
                               "MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE)",
                  v->c_str());
  }
  int provided = MPI_THREAD_SINGLE;
  if (Err e = runtime::open_session(requested, &provided)) return e;
  auto* s = new Session;
  s->thread_level = provided;
  // MPI-4.0 §11.3.1: the info of a session holds the thread level provided
  // (the key is set even where the user asked for none).
  s->info.set("thread_level", thread_level_name(provided));
  s->errhandler = MPI_ERRHANDLER_NULL;
  errhandlers::set(s->errhandler, errhandler);
  s->handle = handle::make_dynamic(handle::Object::kSession, table.add(s));
  FERRY_DEBUG(kInit, "session 0x%x opened, %s", static_cast<unsigned>(s->handle), thread_level_name(provided));
  *out = s;
  return {};
}

Err finalize(Session* s) {
  table.remove(handle::index_of(s->handle));
  errhandlers::release(s->errhandler);
  delete s;
  return runtime::close_session();
}

Session* find(MPI_Session handle) {
  if (!handle::is_dynamic(handle, handle::Object::kSession)) return nullptr;
  return table.get(handle::index_of(handle));
}

std::vector<std::string> pset_names() { return {kWorld, kSelf, host_pset()}; }

Err pset_members(const std::string& name, groups::Members* out) {
  const pmi::Job& job = runtime::job();
  out->clear();
  if (same_name(name, kWorld)) {
    for (int r = 0; r < job.size; ++r) out->push_back(r);
  } else if (same_name(name, kSelf)) {
    out->push_back(job.rank);
  } else if (same_name(name, host_pset().c_str())) {
    *out = job.local_peers;
    if (out->empty()) out->push_back(job.rank);
    std::sort(out->begin(), out->end());
  } else {
    return fail(MPI_ERR_ARG, "unknown pset_name \"%s\" (this process knows %s, %s and %s)", name.c_str(), kWorld,
                kSelf, host_pset().c_str());
  }
  return {};
}

Err pset_info(const std::string& name, Info* out) {
  groups::Members members;
  if (Err e = pset_members(name, &members)) return e;
  *out = Info{};
  out->set("mpi_size", std::to_string(members.size()));
  return {};
}

}  // namespace ferry::sessions
