#include "launcher/pmix/request_service.h"

#include <pmix.h>

#include <utility>

#include "common/debug.h"

namespace ferry::launcher {
namespace {

// Where an answer that comes later (a spawn, a lookup that waits, a
// direct modex) goes: a copy of the request's return address.
struct ReturnAddress {
  uint32_t origin;
  uint64_t id;
  RequestService::Send send;
  void answer(pmix_status_t status, std::string payload) const {
    Reply r;
    r.origin = origin;
    r.id = id;
    r.status = status;
    r.payload = std::move(payload);
    send(encode_reply(r));
  }
};

void spawn_answered(pmix_status_t status, char nspace[], void* cbdata) {
  std::unique_ptr<ReturnAddress> to(static_cast<ReturnAddress*>(cbdata));
  to->answer(status, status == PMIX_SUCCESS && nspace != nullptr ? std::string(nspace) : std::string());
}

void lookup_answered(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void* cbdata) {
  std::unique_ptr<ReturnAddress> to(static_cast<ReturnAddress*>(cbdata));
  to->answer(status, pack_pdata(data, ndata));
}

void modex_answered(pmix_status_t status, char* data, size_t size, void* cbdata) {
  std::unique_ptr<ReturnAddress> to(static_cast<ReturnAddress*>(cbdata));
  // `data` is PMIx's until this returns: copied into the reply.
  to->answer(status, status == PMIX_SUCCESS && data != nullptr ? std::string(data, size) : std::string());
}

}  // namespace

RequestService::RequestService(PmixHost& server, Send send, Spawn spawn, PositionOf position_of)
    : server_(server), send_(std::move(send)), spawn_(std::move(spawn)), position_of_(std::move(position_of)) {}

void RequestService::reply(const Request& request, pmix_status_t status, std::string payload) {
  ReturnAddress{request.origin, request.id, send_}.answer(status, std::move(payload));
}

void RequestService::serve(const Request& r) {
  switch (r.kind) {
    case RequestKind::kSpawn: {
      SpawnParse parsed;
      if (!decode_spawn(r.payload, &parsed)) {
        reply(r, PMIX_ERR_UNPACK_FAILURE);
        return;
      }
      parsed.request.callback = spawn_answered;
      parsed.request.cbdata = new ReturnAddress{r.origin, r.id, send_};
      spawn_(parsed);
      // Answered by now in every case but a bug: never leave it waiting.
      parsed.request.answer(PMIX_ERROR);
      return;
    }
    case RequestKind::kPublish: {
      Unpacked args;
      unpack(r.payload, kInfos, &args);
      reply(r, args.ok ? server_.names().publish(r.proc, args.info, args.ninfo) : PMIX_ERR_UNPACK_FAILURE);
      return;
    }
    case RequestKind::kLookup: {
      Unpacked args;
      unpack(r.payload, kKeys | kInfos, &args);
      if (!args.ok) {
        reply(r, PMIX_ERR_UNPACK_FAILURE);
        return;
      }
      // Perhaps answered at once, perhaps when a publish completes it.
      server_.names().lookup(r.proc, args.key_ptrs.data(), args.info, args.ninfo, lookup_answered,
                             new ReturnAddress{r.origin, r.id, send_});
      return;
    }
    case RequestKind::kUnpublish: {
      Unpacked args;
      bool all = !r.payload.empty() && r.payload[0] == 'A';
      if (!r.payload.empty()) unpack(std::string_view(r.payload).substr(1), kKeys | kInfos, &args);
      if (r.payload.empty() || !args.ok) {
        reply(r, PMIX_ERR_UNPACK_FAILURE);
        return;
      }
      reply(r, server_.names().unpublish(r.proc, all ? nullptr : args.key_ptrs.data(), args.info, args.ninfo));
      return;
    }
    case RequestKind::kFinalized:
      server_.names().forget(r.proc);
      return;
    case RequestKind::kDirectModex: {
      int position = position_of_(r.proc.nspace, int(r.proc.rank));
      FERRY_DEBUG(kLaunch, "direct modex for %s:%u from position %u: at position %d", r.proc.nspace, r.proc.rank,
                  r.origin, position);
      // A server asks only about processes it does not host itself.
      if (position < 0 || position == int(r.origin)) {
        reply(r, PMIX_ERR_NOT_FOUND);
      } else if (position == 0) {
        answer_direct_modex(r, send_);
      } else {
        Request on = r;
        on.target = uint32_t(position);
        send_(encode_request(on));
      }
      return;
    }
  }
  reply(r, PMIX_ERR_NOT_SUPPORTED);
}

void answer_direct_modex(const Request& r, RequestService::Send send) {
  auto* to = new ReturnAddress{r.origin, r.id, std::move(send)};
  pmix_status_t rc = PMIx_server_dmodex_request(&r.proc, modex_answered, to);
  if (rc != PMIX_SUCCESS) modex_answered(rc, nullptr, 0, to);
}

}  // namespace ferry::launcher
