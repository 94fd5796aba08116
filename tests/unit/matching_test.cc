// MatchingEngine: which posted receive an arriving message finds, and which
// unexpected message a new receive finds (MPI-3.1 §3.5: non-overtaking; the
// oldest match wins, wildcards included).
#include "p2p/matching.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "base/communicator.h"
#include "base/request.h"
#include "mpi.h"

namespace ferry::p2p {
namespace {

constexpr uint32_t kContext = 0;

class MatchingTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (Request* r : requests_) requests::release(r);
    // The engine frees what is still queued when it is destroyed; take the
    // test's messages back first, so each is freed once.
    for (uint32_t context : {0u, 1u, kContext})
      while (engine_.find_unexpected(context, MPI_ANY_SOURCE, MPI_ANY_TAG, true) != nullptr) {
      }
  }

  // A receive request for (source, tag); the engine only reads peer and tag.
  Request* receive(int source, int tag) {
    Request* r = requests::acquire();
    r->kind = Request::Kind::kRecv;
    r->comm = &comm_;
    r->peer = source;
    r->tag = tag;
    requests_.push_back(r);
    return r;
  }

  // An unexpected message from `source` with `tag`, owned by the test.
  UnexpectedMessage* message(int source, int tag) {
    auto m = std::make_unique<UnexpectedMessage>();
    m->header.type = PacketType::kEager;
    m->header.source = source;
    m->header.tag = tag;
    messages_.push_back(std::move(m));
    return messages_.back().get();
  }

  MatchingEngine engine_;
  Communicator comm_;
  std::vector<Request*> requests_;
  std::vector<std::unique_ptr<UnexpectedMessage>> messages_;
};

TEST_F(MatchingTest, ArrivingMessageTakesTheOldestMatchingPostedReceive) {
  Request* first = receive(1, 7);
  Request* second = receive(1, 7);
  Request* third = receive(1, 7);
  engine_.post(kContext, first);
  engine_.post(kContext, second);
  engine_.post(kContext, third);

  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), first);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), second);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), third);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), nullptr);
}

TEST_F(MatchingTest, ArrivingMessageSkipsPostedReceivesWithAnotherEnvelope) {
  Request* other_tag = receive(1, 8);
  Request* other_source = receive(2, 7);
  Request* wanted = receive(1, 7);
  engine_.post(kContext, other_tag);
  engine_.post(kContext, other_source);
  engine_.post(kContext, wanted);

  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), wanted);
  // The skipped receives are still posted, in their order.
  EXPECT_EQ(engine_.take_posted(kContext, 2, 7), other_source);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 8), other_tag);
}

TEST_F(MatchingTest, NoPostedReceiveMatchesAMessageWithAnotherTagOrSource) {
  engine_.post(kContext, receive(1, 7));
  EXPECT_EQ(engine_.take_posted(kContext, 1, 8), nullptr);
  EXPECT_EQ(engine_.take_posted(kContext, 2, 7), nullptr);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), requests_[0]);
}

TEST_F(MatchingTest, PostedAnySourceReceiveMatchesEverySource) {
  Request* any = receive(MPI_ANY_SOURCE, 7);
  engine_.post(kContext, any);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 8), nullptr);  // the tag still counts
  EXPECT_EQ(engine_.take_posted(kContext, 5, 7), any);
}

TEST_F(MatchingTest, PostedAnyTagReceiveMatchesEveryTagButOnlyItsSource) {
  Request* any = receive(3, MPI_ANY_TAG);
  engine_.post(kContext, any);
  EXPECT_EQ(engine_.take_posted(kContext, 4, 0), nullptr);  // the source still counts
  EXPECT_EQ(engine_.take_posted(kContext, 3, 12345), any);
}

TEST_F(MatchingTest, PostedFullWildcardMatchesAnything) {
  Request* any = receive(MPI_ANY_SOURCE, MPI_ANY_TAG);
  engine_.post(kContext, any);
  EXPECT_EQ(engine_.take_posted(kContext, 9, 0), any);
}

TEST_F(MatchingTest, WildcardReceiveKeepsItsPlaceInPostingOrder) {
  // MPI-3.1 §3.5: a wildcard receive posted before a specific one matches first.
  Request* wildcard = receive(MPI_ANY_SOURCE, MPI_ANY_TAG);
  Request* specific = receive(1, 7);
  engine_.post(kContext, wildcard);
  engine_.post(kContext, specific);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), wildcard);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), specific);

  // ... and a specific receive posted first wins over a later wildcard.
  Request* specific2 = receive(1, 7);
  Request* wildcard2 = receive(MPI_ANY_SOURCE, MPI_ANY_TAG);
  engine_.post(kContext, specific2);
  engine_.post(kContext, wildcard2);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), specific2);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), wildcard2);
}

TEST_F(MatchingTest, NewReceiveFindsTheOldestMatchingUnexpectedMessage) {
  UnexpectedMessage* a = message(1, 7);
  UnexpectedMessage* b = message(1, 7);
  engine_.add_unexpected(kContext, a);
  engine_.add_unexpected(kContext, b);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), a);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), b);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), nullptr);
}

TEST_F(MatchingTest, WildcardReceiveFindsTheOldestUnexpectedMessageOfAnyEnvelope) {
  UnexpectedMessage* from2 = message(2, 5);
  UnexpectedMessage* from1 = message(1, 7);
  UnexpectedMessage* from1_tag9 = message(1, 9);
  engine_.add_unexpected(kContext, from2);
  engine_.add_unexpected(kContext, from1);
  engine_.add_unexpected(kContext, from1_tag9);

  EXPECT_EQ(engine_.find_unexpected(kContext, 1, MPI_ANY_TAG, true), from1);
  EXPECT_EQ(engine_.find_unexpected(kContext, MPI_ANY_SOURCE, 9, true), from1_tag9);
  EXPECT_EQ(engine_.find_unexpected(kContext, MPI_ANY_SOURCE, MPI_ANY_TAG, true), from2);
  EXPECT_EQ(engine_.unexpected_count(), 0u);
}

TEST_F(MatchingTest, UnexpectedMessageWithAnotherEnvelopeIsNotFound) {
  engine_.add_unexpected(kContext, message(1, 7));
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 8, true), nullptr);
  EXPECT_EQ(engine_.find_unexpected(kContext, 2, 7, true), nullptr);
  EXPECT_EQ(engine_.find_unexpected(kContext, 2, MPI_ANY_TAG, true), nullptr);
  EXPECT_EQ(engine_.unexpected_count(), 1u);
}

TEST_F(MatchingTest, FindWithoutRemoveLeavesTheMessageQueued) {
  UnexpectedMessage* m = message(1, 7);
  engine_.add_unexpected(kContext, m);
  EXPECT_EQ(engine_.find_unexpected(kContext, MPI_ANY_SOURCE, MPI_ANY_TAG, false), m);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, false), m);
  EXPECT_EQ(engine_.unexpected_count(), 1u);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), m);
  EXPECT_EQ(engine_.unexpected_count(), 0u);
}

TEST_F(MatchingTest, ContextsIsolatePostedReceives) {
  Request* in_context_2 = receive(MPI_ANY_SOURCE, MPI_ANY_TAG);
  engine_.post(2, in_context_2);
  EXPECT_EQ(engine_.take_posted(0, 1, 7), nullptr);
  EXPECT_EQ(engine_.take_posted(3, 1, 7), nullptr);
  EXPECT_EQ(engine_.take_posted(2, 1, 7), in_context_2);
}

TEST_F(MatchingTest, ContextsIsolateUnexpectedMessages) {
  UnexpectedMessage* in_context_1 = message(1, 7);
  engine_.add_unexpected(1, in_context_1);
  EXPECT_EQ(engine_.find_unexpected(0, MPI_ANY_SOURCE, MPI_ANY_TAG, true), nullptr);
  EXPECT_EQ(engine_.find_unexpected(40, MPI_ANY_SOURCE, MPI_ANY_TAG, true), nullptr);
  EXPECT_EQ(engine_.find_unexpected(1, 1, 7, true), in_context_1);
}

TEST_F(MatchingTest, QueuesSurviveGrowingTheContextTable) {
  // Touching a high context resizes the table; what was queued before stays.
  Request* r = receive(1, 7);
  UnexpectedMessage* m = message(2, 3);
  engine_.post(0, r);
  engine_.add_unexpected(1, m);
  EXPECT_EQ(engine_.take_posted(1000, 1, 7), nullptr);
  EXPECT_EQ(engine_.take_posted(0, 1, 7), r);
  EXPECT_EQ(engine_.find_unexpected(1, 2, 3, true), m);
}

TEST_F(MatchingTest, UnpostRemovesOnlyThatReceive) {
  Request* a = receive(1, 7);
  Request* b = receive(1, 7);
  Request* c = receive(1, 7);
  engine_.post(kContext, a);
  engine_.post(kContext, b);
  engine_.post(kContext, c);

  EXPECT_TRUE(engine_.unpost(kContext, b));
  EXPECT_FALSE(engine_.unpost(kContext, b));  // not posted any more
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), a);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), c);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), nullptr);
}

TEST_F(MatchingTest, UnpostFailsForAReceiveNeverPostedOrInAnotherContext) {
  Request* r = receive(1, 7);
  EXPECT_FALSE(engine_.unpost(kContext, r));
  engine_.post(5, r);
  EXPECT_FALSE(engine_.unpost(kContext, r));
  EXPECT_TRUE(engine_.unpost(5, r));
  EXPECT_EQ(engine_.take_posted(5, 1, 7), nullptr);
}

TEST_F(MatchingTest, UnpostOfHeadAndTailKeepsTheQueueUsable) {
  Request* a = receive(1, 7);
  Request* b = receive(1, 7);
  engine_.post(kContext, a);
  engine_.post(kContext, b);
  EXPECT_TRUE(engine_.unpost(kContext, b));  // the tail
  EXPECT_TRUE(engine_.unpost(kContext, a));  // the head, now alone
  Request* c = receive(1, 7);
  engine_.post(kContext, c);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), c);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), nullptr);
}

TEST_F(MatchingTest, UnexpectedCountFollowsAddsFindsAndRemovesAcrossContexts) {
  EXPECT_EQ(engine_.unexpected_count(), 0u);
  UnexpectedMessage* a = message(1, 1);
  UnexpectedMessage* b = message(1, 2);
  UnexpectedMessage* c = message(1, 3);
  engine_.add_unexpected(0, a);
  engine_.add_unexpected(1, b);
  engine_.add_unexpected(0, c);
  EXPECT_EQ(engine_.unexpected_count(), 3u);

  engine_.find_unexpected(0, 1, 1, false);
  EXPECT_EQ(engine_.unexpected_count(), 3u);
  EXPECT_EQ(engine_.find_unexpected(0, 1, 1, true), a);
  EXPECT_EQ(engine_.unexpected_count(), 2u);
  engine_.remove_unexpected(1, b);
  EXPECT_EQ(engine_.unexpected_count(), 1u);
  EXPECT_EQ(engine_.find_unexpected(1, MPI_ANY_SOURCE, MPI_ANY_TAG, true), nullptr);
  EXPECT_EQ(engine_.find_unexpected(0, MPI_ANY_SOURCE, MPI_ANY_TAG, true), c);
  EXPECT_EQ(engine_.unexpected_count(), 0u);
}

TEST_F(MatchingTest, RemovingAMiddleUnexpectedMessageKeepsTheOthersInOrder) {
  UnexpectedMessage* a = message(1, 7);
  UnexpectedMessage* b = message(1, 7);
  UnexpectedMessage* c = message(1, 7);
  engine_.add_unexpected(kContext, a);
  engine_.add_unexpected(kContext, b);
  engine_.add_unexpected(kContext, c);
  engine_.remove_unexpected(kContext, b);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), a);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), c);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), nullptr);
}

// Keyed mode (MPI-4.0 §7.4.4 assertions no_any_source and no_any_tag): lanes by (source, tag).
class KeyedMatchingTest : public MatchingTest {
 protected:
  void SetUp() override {
    comm_.context = kContext;
    comm_.assert_no_any_source = true;
    comm_.assert_no_any_tag = true;
  }
};

TEST_F(KeyedMatchingTest, ArrivingMessageFindsItsReceiveAmongManyTags) {
  std::vector<Request*> posted;
  for (int tag = 0; tag < 100; ++tag) {
    posted.push_back(receive(1, tag));
    engine_.post(kContext, posted.back());
  }
  for (int tag = 99; tag >= 0; --tag) EXPECT_EQ(engine_.take_posted(kContext, 1, tag), posted[static_cast<size_t>(tag)]);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 0), nullptr);
}

TEST_F(KeyedMatchingTest, ReceivesOfOneEnvelopeStayInPostingOrder) {
  Request* first = receive(1, 7);
  Request* second = receive(1, 7);
  engine_.post(kContext, first);
  engine_.post(kContext, second);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), first);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 7), second);
}

TEST_F(KeyedMatchingTest, UnexpectedMessagesOfOneEnvelopeStayInArrivalOrder) {
  engine_.post(kContext, receive(2, 1));  // enters exact mode
  UnexpectedMessage* a = message(1, 7);
  UnexpectedMessage* b = message(1, 8);
  UnexpectedMessage* c = message(1, 7);
  engine_.add_unexpected(kContext, a);
  engine_.add_unexpected(kContext, b);
  engine_.add_unexpected(kContext, c);
  EXPECT_EQ(engine_.unexpected_count(), 3u);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), a);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), c);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, true), nullptr);
  EXPECT_EQ(engine_.unexpected_count(), 1u);
  EXPECT_EQ(engine_.take_posted(kContext, 2, 1), requests_[0]);
}

TEST_F(KeyedMatchingTest, AWildcardAfterAllFindsTheOldestMessageInArrivalOrder) {
  engine_.post(kContext, receive(3, 3));
  UnexpectedMessage* later_tag = message(1, 9);
  UnexpectedMessage* other = message(2, 7);
  UnexpectedMessage* again = message(1, 7);
  engine_.add_unexpected(kContext, later_tag);
  engine_.add_unexpected(kContext, other);
  engine_.add_unexpected(kContext, again);
  // A wildcard (the library's own, on a duplicate) moves everything back.
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, MPI_ANY_TAG, true), later_tag);
  EXPECT_EQ(engine_.find_unexpected(kContext, MPI_ANY_SOURCE, 7, true), other);
  EXPECT_EQ(engine_.find_unexpected(kContext, MPI_ANY_SOURCE, MPI_ANY_TAG, true), again);
  EXPECT_EQ(engine_.take_posted(kContext, 3, 3), requests_[0]);
}

TEST_F(KeyedMatchingTest, UnpostWorksInKeyedMode) {
  Request* a = receive(1, 1);
  Request* b = receive(1, 2);
  engine_.post(kContext, a);
  engine_.post(kContext, b);
  EXPECT_TRUE(engine_.unpost(kContext, a));
  EXPECT_EQ(engine_.take_posted(kContext, 1, 1), nullptr);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 2), b);
}

// Lanes by source only (mpi_assert_no_any_source alone): MPI_ANY_TAG still
// works within a source, in posting and arrival order.
class SourceKeyedMatchingTest : public MatchingTest {
 protected:
  void SetUp() override {
    comm_.context = kContext;
    comm_.assert_no_any_source = true;
  }
};

TEST_F(SourceKeyedMatchingTest, AnyTagReceiveKeepsItsPlaceAmongItsSourcesReceives) {
  Request* specific = receive(1, 5);
  Request* any_tag = receive(1, MPI_ANY_TAG);
  Request* other_source = receive(2, MPI_ANY_TAG);
  engine_.post(kContext, specific);
  engine_.post(kContext, any_tag);
  engine_.post(kContext, other_source);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 9), any_tag);
  EXPECT_EQ(engine_.take_posted(kContext, 2, 5), other_source);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 5), specific);
  EXPECT_EQ(engine_.take_posted(kContext, 1, 5), nullptr);
}

TEST_F(SourceKeyedMatchingTest, AnyTagReceiveFindsItsSourcesOldestMessage) {
  engine_.post(kContext, receive(3, 3));  // enters keyed mode
  UnexpectedMessage* from2 = message(2, 7);
  UnexpectedMessage* first = message(1, 8);
  UnexpectedMessage* second = message(1, 7);
  engine_.add_unexpected(kContext, from2);
  engine_.add_unexpected(kContext, first);
  engine_.add_unexpected(kContext, second);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, 7, false), second);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, MPI_ANY_TAG, true), first);
  EXPECT_EQ(engine_.find_unexpected(kContext, 1, MPI_ANY_TAG, true), second);
  EXPECT_EQ(engine_.find_unexpected(kContext, 2, MPI_ANY_TAG, true), from2);
  EXPECT_EQ(engine_.unexpected_count(), 0u);
  EXPECT_EQ(engine_.take_posted(kContext, 3, 3), requests_[0]);
}

TEST(EnvelopeMatches, WildcardsApplyOnlyOnTheReceiveSide) {
  EXPECT_TRUE(envelope_matches(MPI_ANY_SOURCE, MPI_ANY_TAG, 3, 4));
  EXPECT_TRUE(envelope_matches(3, 4, 3, 4));
  EXPECT_FALSE(envelope_matches(3, 4, 3, 5));
  EXPECT_FALSE(envelope_matches(3, 4, 2, 4));
  // A message never carries a wildcard; a specific receive does not match one.
  EXPECT_FALSE(envelope_matches(3, 4, MPI_ANY_SOURCE, 4));
  EXPECT_FALSE(envelope_matches(3, 4, 3, MPI_ANY_TAG));
}

// Unexpected eager payloads: freed ones of up to 64 KiB are kept and taken
// again by a later message they can hold (no free and malloc per message at
// the top of the heap), a larger one is not kept, and every payload holds
// its message.
TEST(MatchingPayloadTest, FreedPayloadsAreTakenAgainByMessagesTheyHold) {
  MatchingEngine engine;
  PacketHeader h{};
  h.type = PacketType::kEager;
  h.payload_bytes = 49152;
  UnexpectedMessage* first = engine.make_unexpected(h, 1);
  ASSERT_NE(first->data, nullptr);
  EXPECT_GE(first->data_capacity, h.payload_bytes);
  std::memset(first->data, 7, h.payload_bytes);  // the whole payload is writable
  void* kept = first->data;
  engine.free_unexpected(first);
  h.payload_bytes = 60000;  // another size that the kept (64 KiB) payload holds
  UnexpectedMessage* second = engine.make_unexpected(h, 1);
  EXPECT_EQ(second->data, kept) << "the freed payload is taken again";
  std::memset(second->data, 8, h.payload_bytes);
  h.payload_bytes = 100;  // past the inline bytes, below what is kept: malloc'ed as before
  UnexpectedMessage* small = engine.make_unexpected(h, 1);
  EXPECT_NE(small->data, kept);
  EXPECT_EQ(small->data_capacity, 100u);
  engine.free_unexpected(small);
  engine.free_unexpected(second);
  h.payload_bytes = 200 * 1024;  // beyond what is kept: a payload of its own, freed when done
  UnexpectedMessage* large = engine.make_unexpected(h, 1);
  EXPECT_NE(large->data, kept);
  EXPECT_EQ(large->data_capacity, h.payload_bytes);
  std::memset(large->data, 9, h.payload_bytes);
  engine.free_unexpected(large);
}

// With the kept payloads full of smaller ones, a larger one freed takes the
// place of one of them; a message takes the smallest kept one that holds it.
TEST(MatchingPayloadTest, TheLargerPayloadsAreKept) {
  MatchingEngine engine;
  PacketHeader h{};
  h.type = PacketType::kEager;
  std::vector<UnexpectedMessage*> smalls;
  h.payload_bytes = 5000;
  for (int i = 0; i < 12; ++i) smalls.push_back(engine.make_unexpected(h, 1));
  h.payload_bytes = 50000;
  UnexpectedMessage* big = engine.make_unexpected(h, 1);
  for (UnexpectedMessage* m : smalls) engine.free_unexpected(m);
  void* big_payload = big->data;
  engine.free_unexpected(big);
  UnexpectedMessage* again = engine.make_unexpected(h, 1);
  EXPECT_EQ(again->data, big_payload) << "a large payload is kept over a small one";
  h.payload_bytes = 5000;
  UnexpectedMessage* fitting = engine.make_unexpected(h, 1);
  EXPECT_EQ(fitting->data_capacity, 8192u) << "the smallest kept payload that holds it";
  engine.free_unexpected(fitting);
  engine.free_unexpected(again);
}

}  // namespace
}  // namespace ferry::p2p
