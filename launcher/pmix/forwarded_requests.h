// PMIx requests that a server cannot answer alone, and their way through
// the daemon tree. Published names and spawned jobs live in mpirun
// (name_service.h, spawned_jobs.h), so a node daemon's server sends its
// clients' PMIx_Spawn, _Publish, _Lookup and _Unpublish up to mpirun; a
// server asked for the data of a process it does not host (PMIx's direct
// modex: a parent reading the contact card of a child on another host)
// sends the question to mpirun, which passes it to the host that runs that
// process. The answer comes back down to the server that asked, which calls
// its client's PMIx callback.
//
// A request is a wire::Type::kRequest frame, an answer a kReply frame; the
// PMIx arguments inside are packed with PMIx's own encoding
// (PMIx_Data_pack), so every value type PMIx knows travels unchanged.
#pragma once

#include <pmix_server.h>

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/spawned/spawn_request.h"

namespace ferry::launcher {

enum class RequestKind : uint8_t { kSpawn = 1, kPublish, kLookup, kUnpublish, kFinalized, kDirectModex };

struct Request {
  uint32_t origin = 0;  // tree position of the server that asked (0: mpirun)
  uint64_t id = 0;      // that server's number for it
  uint32_t target = 0;  // where it is answered: 0 mpirun, else a daemon (direct modex)
  RequestKind kind = RequestKind::kSpawn;
  pmix_proc_t proc{};   // the client that asked; for a direct modex, the process whose data is wanted
  std::string payload;  // the arguments, packed
};
std::string encode_request(const Request& r);  // a whole kRequest frame
bool decode_request(std::string_view body, Request* r);

struct Reply {
  uint32_t origin = 0;
  uint64_t id = 0;
  pmix_status_t status = PMIX_SUCCESS;
  std::string payload;  // kSpawn: the namespace; kLookup: packed pdata; kDirectModex: the data blob
};
std::string encode_reply(const Reply& r);  // a whole kReply frame
bool decode_reply(std::string_view body, Reply* r);

// PMIx arrays packed with PMIx_Data_pack, and read back. Unpacked arrays
// are owned by the holder.
std::string pack_infos(const pmix_info_t info[], size_t ninfo);
std::string pack_keys(char** keys);  // NULL-terminated; NULL packs as none
std::string pack_pdata(const pmix_pdata_t data[], size_t ndata);
struct Unpacked {
  Unpacked() = default;
  ~Unpacked();
  Unpacked(const Unpacked&) = delete;
  Unpacked& operator=(const Unpacked&) = delete;
  pmix_info_t* info = nullptr;
  size_t ninfo = 0;
  std::vector<std::string> keys;
  std::vector<char*> key_ptrs;  // keys as a NULL-terminated array
  pmix_pdata_t* pdata = nullptr;
  size_t ndata = 0;
  bool ok = true;
};
// `payload` is what the pack_* calls above wrote, in this order: some of
// keys, infos, pdata (each present or not, as `what` says).
enum Packed : unsigned { kKeys = 1, kInfos = 2, kPdata = 4 };
void unpack(std::string_view payload, unsigned what, Unpacked* out);

// SpawnParse without its callback, for the trip to mpirun.
std::string encode_spawn(const SpawnParse& parsed);
bool decode_spawn(std::string_view payload, SpawnParse* parsed);

// The requests a server sent and is waiting for, by id; each returns the
// kRequest frame to send (the caller hands it to the event loop). Called
// from PMIx's thread and the event loop: locked.
class ForwardedRequests {
 public:
  ForwardedRequests();
  void set_position(uint32_t position) { position_ = position; }

  std::string spawn(const SpawnParse& parsed, pmix_spawn_cbfunc_t callback, void* cbdata);
  std::string publish(const pmix_proc_t& proc, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t callback,
                      void* cbdata);
  std::string lookup(const pmix_proc_t& proc, char** keys, const pmix_info_t info[], size_t ninfo,
                     pmix_lookup_cbfunc_t callback, void* cbdata);
  std::string unpublish(const pmix_proc_t& proc, char** keys, const pmix_info_t info[], size_t ninfo,
                        pmix_op_cbfunc_t callback, void* cbdata);
  // No answer: mpirun drops the names the process kept till its end.
  std::string finalized(const pmix_proc_t& proc);
  std::string direct_modex(const pmix_proc_t& proc, const pmix_info_t info[], size_t ninfo,
                           pmix_modex_cbfunc_t callback, void* cbdata);

  // The answer to one of them: its client's callback is called.
  void complete(const Reply& reply);
  // Nobody will answer (the job ends, the link to mpirun is gone): every
  // waiting client gets an error instead of waiting forever.
  void fail_all();

 private:
  struct Waiting {
    RequestKind kind;
    void* callback;  // the PMIx callback of the kind's type
    void* cbdata;
  };
  std::string send(RequestKind kind, const pmix_proc_t& proc, std::string payload, void* callback, void* cbdata);
  static void answer(const Waiting& w, const Reply& reply);

  std::mutex mutex_;
  uint32_t position_ = 0;
  // Numbered from this process's pid up: a late answer to a request of an
  // earlier attempt (--max-restarts starts new daemons at the same
  // positions) matches nothing here.
  uint64_t next_id_;
  std::map<uint64_t, Waiting> waiting_;
};

}  // namespace ferry::launcher
