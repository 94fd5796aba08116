#include "base/context_id.h"

#include <thread>

#include "mpi.h"

namespace ferry::context_ids {

Allocator::Allocator() {
  for (uint32_t& w : free_) w = ~0u;
}

void Allocator::begin(Attempt& a, uint32_t words[]) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!a.need) {
    // Taking part only: the mask must not narrow anybody's choice.
    for (int i = 0; i < kMaskWords; ++i) words[i] = ~0u;
    words[kMaskWords] = 1;
    return;
  }
  for (int i = 0; i < kMessageWords; ++i) words[i] = 0;
  a.own_eager = a.own_mask = false;
  if (a.round == 0) {
    // First round: the eager part if it is free here, else nothing. Never
    // the main part: not every process may have joined yet.
    if (!eager_lent_) {
      eager_lent_ = true;
      a.own_eager = true;
      for (int i = 0; i < kEagerWords; ++i) words[i] = free_[i];
    }
    return;  // words[kMaskWords] == 0: an empty result means "try again"
  }
  bool first_in_line = waiting_.empty() || a.priority <= *waiting_.begin();
  if (!lent_ && first_in_line) {
    lent_ = true;
    a.own_mask = true;
    for (int i = kEagerWords; i < kMaskWords; ++i) words[i] = free_[i];
    words[kMaskWords] = 1;
    return;
  }
  // Another agreement has the main part (or a higher-priority one waits
  // for it): an empty contribution makes this round fail everywhere.
  if (!a.registered) {
    waiting_.insert(a.priority);
    a.registered = true;
  }
}

void Allocator::give_back(Attempt& a) {
  if (a.own_eager) eager_lent_ = false;
  if (a.own_mask) lent_ = false;
  a.own_eager = a.own_mask = false;
}

Allocator::Outcome Allocator::finish(Attempt& a, const uint32_t words[], uint32_t* slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  give_back(a);
  ++a.round;
  int found = -1;
  for (int i = 0; i < kMaskWords && found < 0; ++i)
    if (words[i] != 0) found = i * 32 + __builtin_ctz(words[i]);
  Outcome outcome = Outcome::kRetry;
  if (found >= 0) {
    // A nonzero result means every process lent the part the bit is in (or
    // takes no slot): bit `found` is free here, and nobody else took a slot
    // of that part while it was lent to us.
    if (a.need) {
      uint32_t s = static_cast<uint32_t>(found);
      free_[s / 32] &= ~(1u << (s % 32));
      *slot = s;
    }
    outcome = Outcome::kDone;
  } else if (words[kMaskWords] != 0) {
    outcome = Outcome::kExhausted;
  }
  if (outcome != Outcome::kRetry && a.registered) {
    waiting_.erase(waiting_.find(a.priority));
    a.registered = false;
  }
  return outcome;
}

void Allocator::abandon(Attempt& a) {
  std::lock_guard<std::mutex> lock(mutex_);
  give_back(a);
  if (a.registered) waiting_.erase(waiting_.find(a.priority));
  a.registered = false;
}

Err Allocator::agree(uint64_t priority, bool need, const AllreduceBand& allreduce, uint32_t* slot) {
  Attempt a;
  a.priority = priority;
  a.need = need;
  uint32_t words[kMessageWords];
  for (int round = 0;; ++round) {
    begin(a, words);
    if (Err e = allreduce(words, kMessageWords)) {
      abandon(a);
      return e;
    }
    switch (finish(a, words, slot)) {
      case Outcome::kDone:
        return {};
      case Outcome::kExhausted:
        return fail(MPI_ERR_OTHER, "no context id is free at every process (%u communicators per process at most)",
                    kSlots);
      case Outcome::kRetry:
        // Another agreement holds the slots somewhere; its allreduce is
        // progressing meanwhile (any waiting thread drives the engine).
        if (round > 1) std::this_thread::yield();
        break;
    }
  }
}

void Allocator::release(uint32_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_[slot / 32] |= 1u << (slot % 32);
}

void Allocator::reserve(uint32_t slot) {
  std::lock_guard<std::mutex> lock(mutex_);
  free_[slot / 32] &= ~(1u << (slot % 32));
}

bool Allocator::is_free(uint32_t slot) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return (free_[slot / 32] >> (slot % 32)) & 1u;
}

uint32_t Allocator::limit() const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (int i = kMaskWords - 1; i >= 0; --i)
    if (free_[i] != ~0u) return static_cast<uint32_t>(i * 32 + 32 - __builtin_clz(~free_[i]));
  return 0;
}

size_t Allocator::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return waiting_.size();
}

}  // namespace ferry::context_ids
