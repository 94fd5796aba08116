// Large data apart from its request or answer (rma/active_message_parts.h,
// kDataApartBytes): where the receiving side puts it, and what a lost one
// becomes.
#include <cstring>

#include "base/type_pack.h"
#include "p2p/pt2pt.h"
#include "rma/active_message.h"
#include "rma/active_message_parts.h"
#include "rma/window.h"

namespace ferry::rma {

using namespace wire;

std::vector<Run> Service::runs_of(const Incoming& in) {
  WireRequest h;
  std::memcpy(&h, in.data.data(), sizeof h);
  std::vector<Run> runs(h.runs);
  if (h.runs > 0) std::memcpy(runs.data(), in.data.data() + sizeof h, h.runs * sizeof(Run));
  return runs;
}

void Service::receive_apart(Incoming& in, char* into, uint64_t bytes, int tag) {
  in.direct = into != nullptr;
  if (into == nullptr) {
    in.payload.reset(new char[bytes]);  // uninitialised: the receive writes all of it
    into = in.payload.get();
  }
  (void)pt2pt::irecv(into, static_cast<MPI_Count>(bytes), &bytes_type(), in.source, tag, w_.comm, &in.data_r);
}

bool Service::receive_data_apart(Incoming& in) {
  WireRequest h;
  std::memcpy(&h, in.data.data(), sizeof h);
  if (h.data_apart == 0) return false;
  // A put of one run inside the window lands where it belongs; anything
  // else (accumulates, several runs, a run outside: its error still needs
  // the data taken off the wire) in a buffer of its own.
  std::vector<Run> runs = runs_of(in);
  char* into = nullptr;
  if (static_cast<OpKind>(h.kind) == OpKind::kPut && runs.size() == 1 && runs[0].bytes == h.data_bytes &&
      check_runs(runs).ok())
    into = reinterpret_cast<char*>(runs[0].address);
  receive_apart(in, into, h.data_bytes, kTagData);
  return true;
}

bool Service::receive_reply_apart(Incoming& in) {
  WireReply h;
  std::memcpy(&h, in.data.data(), sizeof h);
  if (h.data_apart == 0) return false;
  // Into the result buffer when it is dense and takes all of it; else
  // aside, to be unpacked (or dropped: an answer nobody waits for).
  char* into = nullptr;
  auto it = pending_.find(h.id);
  if (it != pending_.end() && it->second->result != nullptr && it->second->bytes == h.bytes) {
    const Pending& p = *it->second;
    into = const_cast<char*>(type::dense_run(*p.type, p.result, static_cast<uint64_t>(p.count)));
  }
  receive_apart(in, into, h.bytes, kTagReplyData);
  return true;
}

Err Service::data_lost(const Request& r, int peer) {
  if (r.error == MPI_SUCCESS) return {};
  return fail(error_code::class_of(r.error), "the data of a one-sided operation from rank %d did not arrive: %s", peer,
              error_code::text(r.error).c_str());
}

}  // namespace ferry::rma
