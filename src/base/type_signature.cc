#include "base/type_signature.h"

#include <utility>

namespace ferry::type {

uint64_t Signature::elements_in(uint64_t bytes) const {
  if (body_bytes == 0) return 0;
  if (parts.empty()) return bytes / basic_size;
  uint64_t whole = bytes / body_bytes;
  uint64_t rest = bytes % body_bytes;
  uint64_t n = whole * body_elements;
  for (const Signature& p : parts) {
    if (rest < p.bytes()) return n + p.elements_in(rest);
    n += p.elements();
    rest -= p.bytes();
  }
  return n;
}

MPI_Datatype Signature::single_basic() const { return count > 0 && parts.empty() ? basic : MPI_DATATYPE_NULL; }

Signature basic_elements(MPI_Datatype basic, uint64_t size, uint64_t count) {
  Signature s;
  s.count = count;
  s.basic = basic;
  s.basic_size = size;
  s.body_bytes = size;
  s.body_elements = 1;
  return s;
}

Signature repeat(Signature s, uint64_t count) {
  s.count *= count;
  return s;
}

Signature sequence(std::vector<Signature> parts) {
  std::vector<Signature> body;
  auto add = [&body](Signature p) {
    if (p.elements() == 0) return;
    if (!body.empty() && body.back().parts.empty() && p.parts.empty() && body.back().basic == p.basic) {
      body.back().count += p.count;
      return;
    }
    body.push_back(std::move(p));
  };
  for (Signature& p : parts) {
    if (p.count == 1 && !p.parts.empty()) {
      for (Signature& q : p.parts) add(std::move(q));
    } else {
      add(std::move(p));
    }
  }
  if (body.empty()) return Signature{};
  if (body.size() == 1) return std::move(body[0]);
  Signature s;
  s.count = 1;
  for (const Signature& p : body) {
    s.body_bytes += p.bytes();
    s.body_elements += p.elements();
  }
  s.parts = std::move(body);
  return s;
}

}  // namespace ferry::type
