#include "io/round_messages.h"

#include "base/datatype.h"
#include "coll/collectives.h"

namespace ferry::io {

namespace {
MPI_Count as_count(uint64_t n) { return static_cast<MPI_Count>(n); }
}  // namespace

void RoundMessages::recv(void* data, uint64_t bytes, int source) {
  batch_.recv(data, as_count(bytes), find_datatype(MPI_BYTE), source);
}
void RoundMessages::send(const void* data, uint64_t bytes, int dest) {
  batch_.send(data, as_count(bytes), find_datatype(MPI_BYTE), dest);
}
void RoundMessages::recv_words(uint64_t* words, uint64_t n, int source) {
  batch_.recv(words, as_count(n), find_datatype(MPI_UINT64_T), source);
}
void RoundMessages::send_words(const uint64_t* words, uint64_t n, int dest) {
  batch_.send(words, as_count(n), find_datatype(MPI_UINT64_T), dest);
}

Err exchange_counts(Communicator* c, const std::vector<int64_t>& out, std::vector<int64_t>* in) {
  in->resize(out.size());
  const Datatype* word = find_datatype(MPI_INT64_T);
  return coll::alltoall(out.data(), 2, word, in->data(), 2, word, c);
}

}  // namespace ferry::io
