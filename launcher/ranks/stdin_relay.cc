#include "launcher/ranks/stdin_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace ferry::launcher {

void StdinRelay::start() {
  fd_ = stdin_.rank0_fd();
  if (fd_ == stdin_.null_fd()) {
    end();
    return;
  }
  if (fd_ == 0) {
    // A regular file, which epoll cannot watch and which never blocks.
    char buffer[64 * 1024];
    ssize_t n;
    while ((n = ::read(0, buffer, sizeof buffer)) > 0) send_({buffer, size_t(n)});
    end();
    return;
  }
  ::fcntl(fd_, F_SETFL, O_NONBLOCK);
  loop_.watch(fd_, source_);
}

void StdinRelay::on_readable() {
  if (fd_ < 0) return;
  char buffer[64 * 1024];
  ssize_t n = ::read(fd_, buffer, sizeof buffer);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {
    end();
    return;
  }
  send_({buffer, size_t(n)});
}

void StdinRelay::end() {
  if (fd_ > 0) loop_.unwatch(fd_);
  fd_ = -1;
  send_({});
  stdin_.stop();
}

}  // namespace ferry::launcher
