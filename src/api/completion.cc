// Completing, freeing, starting and cancelling requests (MPI-3.1 §3.7-3.9).
#include "api/api.h"
#include "io/file.h"
#include "p2p/generalized.h"
#include "p2p/pt2pt.h"
#include "base/request.h"

using namespace ferry;

namespace {

// A handle array passed to a multi-request call: every entry must be
// MPI_REQUEST_NULL or a live request.
bool check_requests(api::Call& call, int count, const MPI_Request handles[]) {
  if (!call.initialized() || !call.count(count)) return false;
  if (count > 0 && !call.not_null(handles, "array_of_requests")) return false;
  for (int i = 0; i < count; ++i) {
    if (handles[i] != MPI_REQUEST_NULL && requests::find(handles[i]) == nullptr)
      return call.fail(MPI_ERR_REQUEST, "invalid request handle 0x%x at index %d", static_cast<unsigned>(handles[i]), i);
  }
  return true;
}

bool check_request(api::Call& call, const MPI_Request* handle) {
  if (!call.initialized() || !call.not_null(handle, "request")) return false;
  if (*handle != MPI_REQUEST_NULL && requests::find(*handle) == nullptr)
    return call.fail(MPI_ERR_REQUEST, "invalid request handle 0x%x", static_cast<unsigned>(*handle));
  return true;
}

// The communicator whose error handler applies to a request's errors.
void use_request_comm(api::Call& call, MPI_Request handle) {
  if (Request* r = requests::find(handle)) call.use_errhandler_of(r->comm);
}

// A failed nonblocking file access raises its error on the file's
// handler, not a communicator's (MPI-3.1 §13.7).
int request_result(api::Call& call, Communicator* c, int code) {
  if (code != MPI_SUCCESS && c != nullptr) {
    if (io::File* f = io::files::of_communicator(c)) call.file(f->handle);
  }
  return call.raise_code(code);
}

Communicator* comm_of(MPI_Request handle) {
  Request* r = requests::find(handle);
  return r != nullptr ? r->comm : nullptr;
}

int in_status_result(api::Call& call, int code) {
  if (code == MPI_ERR_IN_STATUS) {
    call.fail(MPI_ERR_IN_STATUS, "one or more requests failed; see the statuses");
    return call.raise();
  }
  return call.raise_code(code);
}

}  // namespace

extern "C" int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  api::Call call("MPI_Wait");
  if (!check_request(call, request)) return call.raise();
  use_request_comm(call, *request);
  Communicator* c = comm_of(*request);
  return request_result(call, c, pt2pt::wait(request, status));
}
FERRY_ENTRY(Wait)

extern "C" int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  api::Call call("MPI_Test");
  if (!check_request(call, request) || !call.not_null(flag, "flag")) return call.raise();
  use_request_comm(call, *request);
  Communicator* c = comm_of(*request);
  return request_result(call, c, pt2pt::test(request, flag, status));
}
FERRY_ENTRY(Test)

extern "C" int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  api::Call call("MPI_Waitany");
  if (!check_requests(call, count, requests) || !call.not_null(index, "index")) return call.raise();
  return call.raise_code(pt2pt::wait_any(count, requests, index, status));
}
FERRY_ENTRY(Waitany)

extern "C" int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  api::Call call("MPI_Testany");
  if (!check_requests(call, count, requests) || !call.not_null(index, "index") || !call.not_null(flag, "flag"))
    return call.raise();
  return call.raise_code(pt2pt::test_any(count, requests, index, flag, status));
}
FERRY_ENTRY(Testany)

extern "C" int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  api::Call call("MPI_Waitall");
  if (!check_requests(call, count, requests)) return call.raise();
  return in_status_result(call, pt2pt::wait_all(count, requests, statuses));
}
FERRY_ENTRY(Waitall)

extern "C" int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  api::Call call("MPI_Testall");
  if (!check_requests(call, count, requests) || !call.not_null(flag, "flag")) return call.raise();
  return in_status_result(call, pt2pt::test_all(count, requests, flag, statuses));
}
FERRY_ENTRY(Testall)

extern "C" int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  api::Call call("MPI_Waitsome");
  if (!check_requests(call, incount, requests) || !call.not_null(outcount, "outcount") ||
      (incount > 0 && !call.not_null(indices, "array_of_indices")))
    return call.raise();
  return in_status_result(call, pt2pt::wait_some(incount, requests, outcount, indices, statuses));
}
FERRY_ENTRY(Waitsome)

extern "C" int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                             MPI_Status statuses[]) {
  api::Call call("MPI_Testsome");
  if (!check_requests(call, incount, requests) || !call.not_null(outcount, "outcount") ||
      (incount > 0 && !call.not_null(indices, "array_of_indices")))
    return call.raise();
  return in_status_result(call, pt2pt::test_some(incount, requests, outcount, indices, statuses));
}
FERRY_ENTRY(Testsome)

extern "C" int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  api::Call call("MPI_Request_get_status");
  if (!check_request(call, &request) || !call.not_null(flag, "flag")) return call.raise();
  return call.raise_code(pt2pt::peek(request == MPI_REQUEST_NULL ? nullptr : requests::find(request), flag, status));
}
FERRY_ENTRY(Request_get_status)

extern "C" int PMPI_Request_free(MPI_Request* request) {
  api::Call call("MPI_Request_free");
  if (!check_request(call, request)) return call.raise();
  if (*request == MPI_REQUEST_NULL) {
    call.fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
    return call.raise();
  }
  use_request_comm(call, *request);
  return call.raise_code(pt2pt::free_request(request));
}
FERRY_ENTRY(Request_free)

extern "C" int PMPI_Cancel(MPI_Request* request) {
  api::Call call("MPI_Cancel");
  if (!check_request(call, request)) return call.raise();
  if (*request == MPI_REQUEST_NULL) {
    call.fail(MPI_ERR_REQUEST, "request is MPI_REQUEST_NULL");
    return call.raise();
  }
  return call.raise_code(pt2pt::cancel(requests::find(*request)));
}
FERRY_ENTRY(Cancel)

extern "C" int PMPI_Start(MPI_Request* request) {
  api::Call call("MPI_Start");
  if (!check_request(call, request)) return call.raise();
  Request* r = *request == MPI_REQUEST_NULL ? nullptr : requests::find(*request);
  if (r == nullptr || !r->persistent) {
    call.fail(MPI_ERR_REQUEST, "request is not a persistent request");
    return call.raise();
  }
  call.use_errhandler_of(r->comm);
  return call.result(pt2pt::start(r));
}
FERRY_ENTRY(Start)

extern "C" int PMPI_Startall(int count, MPI_Request requests[]) {
  api::Call call("MPI_Startall");
  if (!check_requests(call, count, requests)) return call.raise();
  for (int i = 0; i < count; ++i) {
    Request* r = requests::find(requests[i]);
    if (r == nullptr || !r->persistent) {
      call.fail(MPI_ERR_REQUEST, "request at index %d is not a persistent request", i);
      return call.raise();
    }
  }
  for (int i = 0; i < count; ++i) {
    Request* r = requests::find(requests[i]);
    if (Err e = pt2pt::start(r)) {
      // The failing request's communicator's handler, as MPI_Start uses.
      call.use_errhandler_of(r->comm);
      return call.result(std::move(e));
    }
  }
  return MPI_SUCCESS;
}
FERRY_ENTRY(Startall)

// Generalized requests (MPI-3.1 §12.2).
extern "C" int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                                   MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                                   MPI_Request* request) {
  api::Call call("MPI_Grequest_start");
  if (!call.initialized() || !call.not_null(request, "request")) return call.raise();
  *request = generalized::start(GeneralizedOps{query_fn, free_fn, cancel_fn, extra_state})->handle;
  return MPI_SUCCESS;
}
FERRY_ENTRY(Grequest_start)

extern "C" int PMPI_Grequest_complete(MPI_Request request) {
  api::Call call("MPI_Grequest_complete");
  if (!check_request(call, &request)) return call.raise();
  Request* r = request == MPI_REQUEST_NULL ? nullptr : requests::find(request);
  if (r == nullptr || r->kind != Request::Kind::kGeneralized) {
    call.fail(MPI_ERR_REQUEST, "request 0x%x is not a generalized request (MPI_Grequest_start)",
              static_cast<unsigned>(request));
    return call.raise();
  }
  generalized::complete(r);
  return MPI_SUCCESS;
}
FERRY_ENTRY(Grequest_complete)
