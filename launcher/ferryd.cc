// ferryd, the node daemon: one runs on every other host of a job, so
// that mpirun starts the daemons at the top of the daemon tree, and every
// daemon those below it (through ssh or a launch agent), each as
//   ferryd --position P --parent ADDR[,ADDR...] --port PORT
// with the job plan on stdin ("<bytes>\n<plan>", the job secret inside, so
// that it never shows in a process listing). It connects to its parent in
// the daemon tree and says hello with the secret, prints its ready line
// (that it is up, and where its own children reach it: the addresses it
// passes them itself), and detaches: the command that
// started it ends, and the daemon lives on until the job ends (see
// node_daemon.h). Anything that goes wrong before the ready line is printed
// on stderr, for mpirun to quote.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/debug.h"
#include "launcher/job_plan.h"
#include "launcher/start/daemon_start.h"
#include "launcher/tree/daemon_link.h"
#include "launcher/tree/node_daemon.h"
#include "launcher/tree/wire.h"

namespace {

using namespace ferry::launcher;

// Per address tried: long enough for a loaded network, short enough that a
// wrong address does not hold up the job.
constexpr int kConnectTimeoutMs = 5000;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "ferryd: %s\n", message.c_str());
  std::exit(1);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool read_exactly(int fd, char* out, size_t n) {
  while (n > 0) {
    ssize_t got = ::read(fd, out, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    out += got;
    n -= size_t(got);
  }
  return true;
}

JobPlan read_plan() {
  std::string length_line;
  char c;
  while (read_exactly(0, &c, 1) && c != '\n') length_line += c;
  char* end = nullptr;
  unsigned long length = std::strtoul(length_line.c_str(), &end, 10);
  if (length_line.empty() || *end != '\0' || length > (64ul << 20)) die("no job plan on stdin");
  std::string bytes(length, '\0');
  if (!read_exactly(0, bytes.data(), length)) die("the job plan on stdin is cut short");
  JobPlan plan;
  if (!decode_plan(bytes, &plan)) die("the job plan on stdin is not one of this Ferry build");
  return plan;
}

void redirect_to_null(int fd) {
  int null_fd = ::open("/dev/null", O_RDWR);
  if (null_fd >= 0 && null_fd != fd) {
    ::dup2(null_fd, fd);
    ::close(null_fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int position = -1, port = 0;
  std::string parent;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string option = argv[i];
    if (option == "--position") position = std::atoi(argv[i + 1]);
    else if (option == "--parent") parent = argv[i + 1];
    else if (option == "--port") port = std::atoi(argv[i + 1]);
    else die("unknown option " + option + " (ferryd is started by mpirun)");
  }
  if (position <= 0 || parent.empty() || port <= 0) die("usage: ferryd --position P --parent ADDRS --port PORT");
  ::signal(SIGPIPE, SIG_IGN);

  JobPlan plan = read_plan();
  // mpirun's settings (FERRY_*, -x variables) hold for the daemon and its
  // ranks as they do on mpirun's host.
  for (const auto& [name, value] : plan.environment) ::setenv(name.c_str(), value.c_str(), 1);
  ferry::debug::configure();
  int node = plan.node_at(position);
  if (node < 0) die("position " + std::to_string(position) + " is not in the job plan");
  ferry::debug::set_identity(("ferryd " + plan.nodes[size_t(node)].host).c_str());

  int listen_fd = -1, listen_port = 0;
  if (!tree_children(position, plan.fanout, plan.num_daemons).empty()) {
    try {
      listen_fd = listen_for_daemons(&listen_port);
    } catch (const std::exception& e) {
      die(e.what());
    }
  }
  std::string error;
  int parent_fd = connect_to_parent(split(parent, ','), port, kConnectTimeoutMs, &error);
  if (parent_fd < 0) die(error);
  char hostname[256] = {};
  ::gethostname(hostname, sizeof hostname - 1);
  std::string hello =
      wire::Encoder(wire::Type::kHello).u32(uint32_t(position)).str(plan.secret).str(hostname).finish();
  if (::send(parent_fd, hello.data(), hello.size(), MSG_NOSIGNAL) != ssize_t(hello.size()))
    die("cannot greet mpirun's side: " + std::string(strerror(errno)));

  std::vector<std::string> addresses = reachable_addresses(local_address_of(parent_fd));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) die(std::string("fork: ") + strerror(errno));
  if (pid > 0) {
    // The starting command ends here; the daemon goes on in the child.
    std::printf("%s\n", ready_line(listen_port > 0 ? listen_port : 1, addresses).c_str());
    std::fflush(stdout);
    ::_exit(0);
  }
  ::setsid();
  // What the daemon (or a library in it) prints from now on goes to mpirun
  // through the tree, FERRY_DEBUG lines included.
  redirect_to_null(0);
  int diagnostics[2];
  if (::pipe2(diagnostics, O_CLOEXEC) == 0) {
    ::dup2(diagnostics[1], 1);
    ::dup2(diagnostics[1], 2);
    ::close(diagnostics[1]);
    ::fcntl(diagnostics[0], F_SETFL, O_NONBLOCK);
  } else {
    redirect_to_null(1);
    redirect_to_null(2);
    diagnostics[0] = -1;
  }
  std::string listen_addresses;
  for (const std::string& a : addresses) listen_addresses += (listen_addresses.empty() ? "" : ",") + a;
  run_node_daemon(plan, position, parent_fd, listen_fd, listen_addresses, listen_port, diagnostics[0]);
}
