#include "launcher/pmix/forwarded_requests.h"

#include <pmix.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "common/debug.h"
#include "launcher/tree/wire.h"

namespace ferry::launcher {
namespace {

// PMIx's data buffer, as a string of bytes.
class Packer {
 public:
  Packer() { PMIX_DATA_BUFFER_CONSTRUCT(&buffer_); }
  ~Packer() { PMIX_DATA_BUFFER_DESTRUCT(&buffer_); }
  // A count, then that many values (none packed for 0).
  void array(const void* src, size_t n, pmix_data_type_t type) {
    ok_ = ok_ && PMIx_Data_pack(nullptr, &buffer_, &n, 1, PMIX_SIZE) == PMIX_SUCCESS;
    if (n > 0) ok_ = ok_ && PMIx_Data_pack(nullptr, &buffer_, const_cast<void*>(src), int32_t(n), type) == PMIX_SUCCESS;
  }
  std::string finish() {
    char* bytes = nullptr;
    size_t size = 0;
    PMIX_DATA_BUFFER_UNLOAD(&buffer_, bytes, size);
    std::string out(bytes != nullptr ? bytes : "", bytes != nullptr ? size : 0);
    std::free(bytes);
    return ok_ ? out : std::string();  // the far end reads an empty payload as bad
  }

 private:
  pmix_data_buffer_t buffer_;
  bool ok_ = true;
};

// Reads what Packer wrote.
class Unpacker {
 public:
  explicit Unpacker(std::string_view bytes) {
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer_);
    if (bytes.empty()) return;
    char* copy = static_cast<char*>(std::malloc(bytes.size()));
    std::memcpy(copy, bytes.data(), bytes.size());
    PMIX_DATA_BUFFER_LOAD(&buffer_, copy, bytes.size());  // the buffer owns it now
  }
  ~Unpacker() { PMIX_DATA_BUFFER_DESTRUCT(&buffer_); }
  bool count(size_t* n) {
    int32_t one = 1;
    return PMIx_Data_unpack(nullptr, &buffer_, n, &one, PMIX_SIZE) == PMIX_SUCCESS && *n < (1u << 20);
  }
  bool values(void* dest, size_t n, pmix_data_type_t type) {
    auto m = int32_t(n);
    return n == 0 || PMIx_Data_unpack(nullptr, &buffer_, dest, &m, type) == PMIX_SUCCESS;
  }

 private:
  pmix_data_buffer_t buffer_;
};

void free_copy(void* p) { std::free(p); }

std::string body_of(wire::Encoder& e) { return e.finish().substr(wire::kFrameHeader); }

}  // namespace

std::string encode_request(const Request& r) {
  return wire::Encoder(wire::Type::kRequest)
      .u32(r.origin)
      .u64(r.id)
      .u32(r.target)
      .u8(uint8_t(r.kind))
      .str(std::string_view(r.proc.nspace, strnlen(r.proc.nspace, PMIX_MAX_NSLEN)))
      .u32(r.proc.rank)
      .str(r.payload)
      .finish();
}

bool decode_request(std::string_view body, Request* r) {
  wire::Decoder d(body);
  r->origin = d.u32();
  r->id = d.u64();
  r->target = d.u32();
  r->kind = RequestKind(d.u8());
  std::string nspace = d.str();
  pmix_rank_t rank = d.u32();
  PMIX_LOAD_PROCID(&r->proc, nspace.c_str(), rank);
  r->payload = d.str();
  return d.ok() && nspace.size() <= PMIX_MAX_NSLEN;
}

std::string encode_reply(const Reply& r) {
  return wire::Encoder(wire::Type::kReply).u32(r.origin).u64(r.id).i32(r.status).str(r.payload).finish();
}

bool decode_reply(std::string_view body, Reply* r) {
  wire::Decoder d(body);
  r->origin = d.u32();
  r->id = d.u64();
  r->status = d.i32();
  r->payload = d.str();
  return d.ok();
}

std::string pack_infos(const pmix_info_t info[], size_t ninfo) {
  Packer p;
  p.array(info, ninfo, PMIX_INFO);
  return p.finish();
}

std::string pack_keys(char** keys) {
  size_t n = 0;
  while (keys != nullptr && keys[n] != nullptr) ++n;
  Packer p;
  p.array(keys, n, PMIX_STRING);
  return p.finish();
}

std::string pack_pdata(const pmix_pdata_t data[], size_t ndata) {
  Packer p;
  p.array(data, ndata, PMIX_PDATA);
  return p.finish();
}

Unpacked::~Unpacked() {
  if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
  if (pdata != nullptr) PMIX_PDATA_FREE(pdata, ndata);
}

void unpack(std::string_view payload, unsigned what, Unpacked* out) {
  Unpacker u(payload);
  size_t n = 0;
  if (what & kKeys) {
    out->ok = out->ok && u.count(&n);
    std::vector<char*> raw(n, nullptr);
    out->ok = out->ok && u.values(raw.data(), n, PMIX_STRING);
    for (char* k : raw) {
      if (k != nullptr) out->keys.emplace_back(k);
      std::free(k);
    }
    for (std::string& k : out->keys) out->key_ptrs.push_back(k.data());
    out->key_ptrs.push_back(nullptr);
  }
  if (what & kInfos) {
    n = 0;
    out->ok = out->ok && u.count(&n);
    if (out->ok && n > 0) {
      PMIX_INFO_CREATE(out->info, n);
      out->ninfo = n;
      out->ok = u.values(out->info, n, PMIX_INFO);
    }
  }
  if (what & kPdata) {
    n = 0;
    out->ok = out->ok && u.count(&n);
    if (out->ok && n > 0) {
      PMIX_PDATA_CREATE(out->pdata, n);
      out->ndata = n;
      out->ok = u.values(out->pdata, n, PMIX_PDATA);
    }
  }
}

std::string encode_spawn(const SpawnParse& parsed) {
  const SpawnRequest& r = parsed.request;
  wire::Encoder e(wire::Type::kRequest);  // the type is dropped: a payload
  e.str(parsed.problem).i32(parsed.status).str(r.parent_nspace).i32(r.parent_rank).u32(uint32_t(r.apps.size()));
  for (const SpawnApp& a : r.apps) encode_app(e, a);
  return body_of(e);
}

bool decode_spawn(std::string_view payload, SpawnParse* parsed) {
  wire::Decoder d(payload);
  SpawnRequest& r = parsed->request;
  parsed->problem = d.str();
  parsed->status = d.i32();
  r.parent_nspace = d.str();
  r.parent_rank = d.i32();
  uint32_t napps = std::min<uint32_t>(d.u32(), 1u << 12);
  for (uint32_t i = 0; i < napps && d.ok(); ++i) r.apps.push_back(decode_app(d));
  return d.ok();
}

// ---- The asking side ---------------------------------------------------

ForwardedRequests::ForwardedRequests() : next_id_(uint64_t(::getpid()) << 32 | 1) {}

std::string ForwardedRequests::send(RequestKind kind, const pmix_proc_t& proc, std::string payload, void* callback,
                                    void* cbdata) {
  Request r;
  r.kind = kind;
  r.proc = proc;
  r.payload = std::move(payload);
  {
    std::lock_guard lock(mutex_);
    r.origin = position_;
    r.id = next_id_++;
    if (callback != nullptr) waiting_[r.id] = Waiting{kind, callback, cbdata};
  }
  FERRY_DEBUG(kLaunch, "forwarding request %llu (kind %d) of %s:%u to mpirun", (unsigned long long)r.id, int(kind),
              proc.nspace, proc.rank);
  return encode_request(r);
}

std::string ForwardedRequests::spawn(const SpawnParse& parsed, pmix_spawn_cbfunc_t callback, void* cbdata) {
  pmix_proc_t parent;
  PMIX_LOAD_PROCID(&parent, parsed.request.parent_nspace.c_str(), pmix_rank_t(parsed.request.parent_rank));
  return send(RequestKind::kSpawn, parent, encode_spawn(parsed), reinterpret_cast<void*>(callback), cbdata);
}

std::string ForwardedRequests::publish(const pmix_proc_t& proc, const pmix_info_t info[], size_t ninfo,
                                       pmix_op_cbfunc_t callback, void* cbdata) {
  return send(RequestKind::kPublish, proc, pack_infos(info, ninfo), reinterpret_cast<void*>(callback), cbdata);
}

std::string ForwardedRequests::lookup(const pmix_proc_t& proc, char** keys, const pmix_info_t info[], size_t ninfo,
                                      pmix_lookup_cbfunc_t callback, void* cbdata) {
  return send(RequestKind::kLookup, proc, pack_keys(keys) + pack_infos(info, ninfo),
              reinterpret_cast<void*>(callback), cbdata);
}

std::string ForwardedRequests::unpublish(const pmix_proc_t& proc, char** keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_op_cbfunc_t callback, void* cbdata) {
  // No keys (NULL) means all of the process's names: a flag before them.
  std::string all = keys == nullptr ? "A" : "K";
  return send(RequestKind::kUnpublish, proc, all + pack_keys(keys) + pack_infos(info, ninfo),
              reinterpret_cast<void*>(callback), cbdata);
}

std::string ForwardedRequests::finalized(const pmix_proc_t& proc) {
  return send(RequestKind::kFinalized, proc, "", nullptr, nullptr);
}

std::string ForwardedRequests::direct_modex(const pmix_proc_t& proc, const pmix_info_t info[], size_t ninfo,
                                            pmix_modex_cbfunc_t callback, void* cbdata) {
  return send(RequestKind::kDirectModex, proc, pack_infos(info, ninfo), reinterpret_cast<void*>(callback), cbdata);
}

void ForwardedRequests::answer(const Waiting& w, const Reply& reply) {
  pmix_status_t status = reply.status;
  switch (w.kind) {
    case RequestKind::kSpawn: {
      pmix_nspace_t ns;
      PMIX_LOAD_NSPACE(ns, reply.payload.c_str());
      reinterpret_cast<pmix_spawn_cbfunc_t>(w.callback)(status, status == PMIX_SUCCESS ? ns : nullptr, w.cbdata);
      break;
    }
    case RequestKind::kPublish:
    case RequestKind::kUnpublish:
      reinterpret_cast<pmix_op_cbfunc_t>(w.callback)(status, w.cbdata);
      break;
    case RequestKind::kLookup: {
      Unpacked found;
      if (!reply.payload.empty()) unpack(reply.payload, kPdata, &found);
      if (!found.ok) status = PMIX_ERR_UNPACK_FAILURE;
      // PMIx packs the reply for its client inside the callback.
      reinterpret_cast<pmix_lookup_cbfunc_t>(w.callback)(status, found.ok ? found.pdata : nullptr,
                                                         found.ok ? found.ndata : 0, w.cbdata);
      break;
    }
    case RequestKind::kDirectModex: {
      char* copy = nullptr;
      if (status == PMIX_SUCCESS && !reply.payload.empty()) {
        copy = static_cast<char*>(std::malloc(reply.payload.size()));
        std::memcpy(copy, reply.payload.data(), reply.payload.size());
      }
      // PMIx gives the copy back through the release function when done.
      reinterpret_cast<pmix_modex_cbfunc_t>(w.callback)(
          status, copy, copy != nullptr ? reply.payload.size() : 0, w.cbdata,
          copy != nullptr ? free_copy : nullptr, copy);
      break;
    }
    case RequestKind::kFinalized: break;
  }
}

void ForwardedRequests::complete(const Reply& reply) {
  Waiting w;
  {
    std::lock_guard lock(mutex_);
    auto it = waiting_.find(reply.id);
    if (it == waiting_.end()) return;  // failed already
    w = it->second;
    waiting_.erase(it);
  }
  FERRY_DEBUG(kLaunch, "request %llu answered: %s", (unsigned long long)reply.id, PMIx_Error_string(reply.status));
  answer(w, reply);
}

void ForwardedRequests::fail_all() {
  std::map<uint64_t, Waiting> all;
  {
    std::lock_guard lock(mutex_);
    all.swap(waiting_);
  }
  for (auto& [id, w] : all) {
    Reply r;
    r.id = id;
    r.status = PMIX_ERR_JOB_TERMINATED;
    answer(w, r);
  }
}

}  // namespace ferry::launcher
