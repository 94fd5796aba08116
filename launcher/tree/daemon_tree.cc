#include "launcher/tree/daemon_tree.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <algorithm>
#include <cerrno>

#include "common/debug.h"
#include "launcher/clock.h"

namespace ferry::launcher {
namespace {

// A daemon reads its children only while its own link upwards holds less
// than this: what comes from below (a subtree's output, its counter files
// at the end of a profiled job) then waits in the children's sockets and
// links, each bounded the same way, instead of piling up here.
constexpr size_t kUpwardsHoldBytes = 1 << 20;

// Compares without stopping at the first difference, so that the time
// taken says nothing about how much of a guess was right.
bool same_secret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

DaemonTree::DaemonTree(int epoll_fd, uint8_t listen_kind, uint8_t link_kind, const JobPlan& plan,
                       int position, int listen_fd, bool has_local_ranks, Deliver deliver)
    : epoll_fd_(epoll_fd),
      listen_kind_(listen_kind),
      link_kind_(link_kind),
      plan_(plan),
      position_(position),
      listen_fd_(listen_fd),
      has_local_ranks_(has_local_ranks),
      deliver_(std::move(deliver)),
      expected_children_(tree_children(position, plan.fanout, plan.num_daemons)) {
  if (listen_fd_ >= 0) {
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.u64 = listen_kind_;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev);
  }
}

DaemonTree::~DaemonTree() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void DaemonTree::on_event(uint64_t data, uint32_t events) {
  if ((data & 0xff) == listen_kind_) {
    accept_all();
    return;
  }
  int slot = int(data >> 8);
  auto it = links_.find(slot);
  if (it == links_.end()) return;
  DaemonLink& link = *it->second.link;
  if ((events & EPOLLOUT) && !link.on_writable()) {
    lose(slot, "connection lost");
    return;
  }
  if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
    bool alive = link.on_readable([&](wire::Type type, std::string_view body) { on_frame(slot, type, body); });
    // A bad hello is dropped only now: on_frame runs inside the link's
    // on_readable, so the link must outlive it.
    if (it->second.refused) {
      lose(slot, "refused");
      return;
    }
    if (!alive) {
      lose(slot, "connection closed");
      return;
    }
  }
  update_interest(slot);
}

void DaemonTree::accept_all() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a connection that went before we got to it
    tune_daemon_socket(fd);
    int slot = next_slot_++;
    Child child;
    child.link = std::make_unique<DaemonLink>(fd);
    epoll_event ev = {};
    ev.events = EPOLLIN;
    ev.data.u64 = uint64_t(link_kind_) | uint64_t(slot) << 8;
    ::epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
    links_.emplace(slot, std::move(child));
  }
}

void DaemonTree::on_frame(int slot, wire::Type type, std::string_view body) {
  Child& child = links_.at(slot);
  if (child.refused) return;  // whatever followed a bad hello
  if (!child.greeted) {
    wire::Decoder d(body);
    int position = int(d.u32());
    std::string secret = d.str();
    std::string hostname = d.str();
    bool expected = std::find(expected_children_.begin(), expected_children_.end(), position) !=
                    expected_children_.end();
    bool taken = std::any_of(links_.begin(), links_.end(),
                             [&](const auto& l) { return l.second.greeted && l.second.position == position; });
    if (type != wire::Type::kHello || !d.ok() || !same_secret(secret, plan_.secret) || !expected || taken) {
      // Not a daemon of this job: drop it without a word.
      FERRY_DEBUG(kLaunch, "refused a daemon connection (bad hello)");
      child.refused = true;  // on_event drops it once the link is done reading
      return;
    }
    child.greeted = true;
    child.position = position;
    FERRY_DEBUG(kLaunch, "daemon %d (%s) connected", position, hostname.c_str());
    // What was sent down before it got here (a signal, stdin for rank 0).
    if (auto waiting = not_yet_greeted_.find(position); waiting != not_yet_greeted_.end()) {
      child.link->send(waiting->second);
      not_yet_greeted_.erase(waiting);
    }
    return;
  }
  if (type == wire::Type::kFenceData) {
    wire::Decoder d(body);
    uint64_t sequence = d.u64();
    std::string data = d.str();
    contribute(sequence, data);
    return;
  }
  if (type == wire::Type::kSubtreeUp) {
    wire::Decoder d(body);
    subtree_daemons_ += int(d.u32());
    subtree_depth_ = std::max(subtree_depth_, int(d.u32()));
    ++subtree_reports_;
    report_subtree_if_up();
    return;
  }
  // Anything else from below goes on up unchanged.
  if (position_ == 0) {
    deliver_(type, body);
  } else {
    send_up(wire::Encoder(type).raw(body).finish());
  }
}

void DaemonTree::lose(int slot, const std::string& reason) {
  Child child = std::move(links_.at(slot));
  links_.erase(slot);
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, child.link->fd(), nullptr);
  if (!child.greeted) return;
  FERRY_DEBUG(kLaunch, "daemon %d: %s", child.position, reason.c_str());
  std::string frame = wire::Encoder(wire::Type::kNodeLost).u32(uint32_t(child.position)).str(reason).finish();
  if (position_ == 0) {
    deliver_(wire::Type::kNodeLost, std::string_view(frame).substr(wire::kFrameHeader));
  } else {
    send_up(frame);
  }
}

void DaemonTree::update_interest(int slot) {
  auto it = links_.find(slot);
  if (it == links_.end()) return;
  // EPOLLHUP and EPOLLERR come all the same: a child that goes is noticed.
  bool hold = parent_ != nullptr && parent_->queued() >= kUpwardsHoldBytes;
  epoll_event ev = {};
  ev.events = (hold ? 0u : uint32_t(EPOLLIN)) | (it->second.link->wants_write() ? EPOLLOUT : 0u);
  ev.data.u64 = uint64_t(link_kind_) | uint64_t(slot) << 8;
  ::epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, it->second.link->fd(), &ev);
}

void DaemonTree::parent_drained() {
  if (parent_ == nullptr || parent_->queued() >= kUpwardsHoldBytes) return;
  for (auto& [slot, child] : links_) update_interest(slot);
}

void DaemonTree::send_up(const std::string& frame) {
  if (position_ == 0) {
    deliver_(wire::Type(uint8_t(frame[4])), std::string_view(frame).substr(wire::kFrameHeader));
  } else if (parent_ != nullptr) {
    parent_->send(frame);
  }
}

void DaemonTree::pass_down(const std::string& frame) {
  for (int position : expected_children_) send_to_child(position, frame);
}

void DaemonTree::send_to_child(int position, const std::string& frame) {
  for (auto& [slot, child] : links_)
    if (child.greeted && child.position == position) {
      child.link->send(frame);
      if (child.link->wants_write()) update_interest(slot);
      return;
    }
  // A child that is started but has not said hello yet (its connection
  // waits to be accepted): it gets the frame when it does.
  not_yet_greeted_[position] += frame;
}

void DaemonTree::send_toward(int position, const std::string& frame) {
  int child = position;
  while (child > 0 && tree_parent(child, plan_.fanout) != position_) child = tree_parent(child, plan_.fanout);
  if (child > 0) send_to_child(child, frame);
}

void DaemonTree::local_fence(std::string data, FenceReply reply) {
  uint64_t sequence = local_fences_++;
  // Direct modex: the host's own server keeps its ranks' data, and the other
  // hosts ask for it when a rank first needs it (request_service.cc).
  if (plan_.direct_modex) data.clear();
  local_replies_[sequence] = reply;
  contribute(sequence, data);
}

void DaemonTree::contribute(uint64_t sequence, std::string_view data) {
  Fence& fence = fences_[sequence];
  fence.data.append(data);
  int expected = int(expected_children_.size()) + (has_local_ranks_ ? 1 : 0);
  if (++fence.contributions < expected) return;
  std::string all = std::move(fence.data);
  fences_.erase(sequence);
  if (position_ == 0) {
    pass_down(wire::Encoder(wire::Type::kFenceRelease).u64(sequence).str(all).finish());
    release_fence(sequence, all);
  } else {
    send_up(wire::Encoder(wire::Type::kFenceData).u64(sequence).str(all).finish());
  }
}

void DaemonTree::release_fence(uint64_t sequence, const std::string& all_data) {
  auto it = local_replies_.find(sequence);
  if (it == local_replies_.end()) return;
  PmixHost::complete_fence(it->second, all_data, true);
  local_replies_.erase(it);
}

void DaemonTree::fail_fences() {
  for (auto& [sequence, reply] : local_replies_) PmixHost::complete_fence(reply, "", false);
  local_replies_.clear();
}

void DaemonTree::report_subtree_if_up() {
  if (subtree_reported_ || subtree_reports_ < int(expected_children_.size())) return;
  subtree_reported_ = true;
  int daemons = subtree_daemons_ + (position_ == 0 ? 0 : 1);
  int depth = subtree_depth_ + (position_ == 0 ? 0 : 1);
  std::string frame = wire::Encoder(wire::Type::kSubtreeUp).u32(uint32_t(daemons)).u32(uint32_t(depth)).finish();
  send_up(frame);
}

int DaemonTree::connected_children() const {
  return int(std::count_if(links_.begin(), links_.end(), [](const auto& l) { return l.second.greeted; }));
}

void DaemonTree::drain(int timeout_ms) {
  double deadline = monotonic_ms() + timeout_ms;
  for (auto& [slot, child] : links_) {
    while (child.link->wants_write() && monotonic_ms() < deadline) {
      pollfd p = {child.link->fd(), POLLOUT, 0};
      ::poll(&p, 1, int(deadline - monotonic_ms()) + 1);
      if (!child.link->on_writable()) break;
    }
  }
}

}  // namespace ferry::launcher
