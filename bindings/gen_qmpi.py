#!/usr/bin/env python3
"""Generates QMPI (MPICH 4.0's tool interface) from src/api/mpi_api.txt, the one description of the C API.

  gen_qmpi.py header  <mpi_api.txt> <mpi_qmpi.h>          the enum and the QMPI_<name>_t types
  gen_qmpi.py entries <mpi_api.txt> <entry_points.cc>     libmpi's MPI_<name> entry points
  gen_qmpi.py profile <mpi_api.txt> <profile_wrappers.cc> FERRY_PROFILE's QMPI tool (src/profile/)
  gen_qmpi.py enum-program <mpi_api.txt> <qmpi_enum.c>    prints each enumerator's value (test
                                                           abi_qmpi_enum_matches_mpich builds it
                                                           against both headers)
  gen_qmpi.py header --check <mpi_api.txt> <mpi_qmpi.h>   fails if the file differs from what the
                                                           description gives (test abi_qmpi_h_is_current)

The header is include/mpi/mpi_qmpi.h, kept in the repository (mpi.h includes it, so every compiler
that finds mpi.h finds it too) and checked against the description by the test above.

The entry points (docs/architecture.md, "API entry points"): every described MPI_X is a weak function
of libmpi, so a profiling library's MPI_X still wins (MPI-4.0 §15.2). One that QMPI can intercept tests
its slot of the table of first tools (one load and a branch predicted not taken) and otherwise jumps to
the implementation, PMPI_X, through its hidden twin ferry_impl_MPI_X (api.h FERRY_ENTRY), so the jump
is direct. The slot is set while tools are to be attached or are attached; then the cold path hands the
call to the first tool that registered X, with the address it was called from. The others jump to the
implementation at once.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_api  # noqa: E402


def qmpi_type(f):
    """QMPI_Send_t for MPI_Send, QMPIX_Comm_revoke_t for MPIX_Comm_revoke (MPICH's names)."""
    return "Q" + f.name + "_t"


def parameters(f):
    return ", ".join(p.decl for p in f.params)


def arguments(f):
    return ", ".join(p.name for p in f.params if p.kind != "varargs")


def intercepted(functions):
    return sorted((f for f in functions if f.qmpi >= 0), key=lambda f: f.qmpi)


def header(functions):
    out = ["/* Generated from src/api/mpi_api.txt by bindings/gen_qmpi.py: edit those, not this file.",
           " *",
           " * QMPI, MPICH 4.0's tool interface: the functions a tool can intercept, numbered as MPICH numbers",
           " * them (the numbers are ABI: a tool built against MPICH's mpi.h passes them), and the type of a",
           " * tool's function for each: the call's context, the tool's id, then the MPI arguments. */",
           "#ifndef FERRY_MPI_QMPI_H",
           "#define FERRY_MPI_QMPI_H",
           "",
           "enum QMPI_Functions_enum {"]
    for f in intercepted(functions):
        out.append(f"    {f.qmpi_enumerator},")
    out += ["    MPI_LAST_FUNC_T", "};", ""]
    for f in intercepted(functions):
        params = "QMPI_Context context, int tool_id" + (", " + parameters(f) if f.params else "")
        out.append(f"typedef {f.returns} ({qmpi_type(f)})({params});")
    out += ["", "#endif /* FERRY_MPI_QMPI_H */", ""]
    return "\n".join(out)


def entries(functions):
    out = ["// Generated from src/api/mpi_api.txt by bindings/gen_qmpi.py: libmpi's MPI_ entry points.",
           "// Each is weak (a profiling library's MPI_X wins) and jumps to PMPI_X's hidden twin; one that",
           "// QMPI can intercept first tests its slot in the table of first tools (api/qmpi.h).",
           '#include "api/qmpi.h"',
           '#include "profile/counters.h"',
           "",
           "using ferry::qmpi::Function;",
           "",
           'extern "C" {']
    for f in functions:
        out.append(f'__attribute__((visibility("hidden"))) decltype(P{f.name}) ferry_impl_{f.name};')
    out.append("}")
    out.append("namespace ferry::profile::io {")
    for f in functions:
        if f.qmpi < 0 and profiled_io(f):
            out.append(f"{f.returns} {f.name}({parameters(f) or 'void'});")
    out.append("}")
    out.append("")
    for f in functions:
        params = parameters(f) or "void"
        args = arguments(f)
        if f.qmpi < 0 and profiled_io(f):
            # MPI-IO is outside QMPI (as in MPICH): FERRY_PROFILE reaches it through a flag of its own.
            out += [f'extern "C" __attribute__((weak)) {f.returns} {f.name}({params}) {{',
                    "  if (__builtin_expect(ferry::profile::io_enabled, 0))",
                    f"    return ferry::profile::io::{f.name}({args});",
                    f"  return ferry_impl_{f.name}({args});",
                    "}"]
            continue
        if f.qmpi < 0:
            out.append(f'extern "C" __attribute__((weak)) {f.returns} {f.name}({params}) '
                       f'{{ return ferry_impl_{f.name}({args}); }}')
            continue
        comma_args = (", " + args) if args else ""
        comma_params = (", " + ", ".join(p.decl for p in f.params if p.kind != "varargs")) if args else ""
        # The cold path: attach the tools if that is still to do, then call the first one that
        # registered this function, or the implementation if none did. Its own names end in _ so
        # that no MPI parameter (MPI_T_cvar_get_info has a `scope`) hides them.
        out += [f"static __attribute__((noinline, cold)) {f.returns} qmpi_{f.name}(void* caller_{comma_params}) {{",
                f"  ferry::qmpi::Hook hook_ = ferry::qmpi::first_tool({f.qmpi});",
                f"  if (hook_.function == nullptr) return ferry_impl_{f.name}({args});",
                "  // FERRY_PROFILE's own tool reads neither the calling address nor the tools' storage.",
                "  if (hook_.tool_id == ferry::qmpi::profile_tool_id)",
                f"    return reinterpret_cast<{qmpi_type(f)}*>(hook_.function)(QMPI_Context{{nullptr}}, hook_.tool_id{comma_args});",
                "  ferry::qmpi::CallerScope scope_(caller_);",
                f"  return reinterpret_cast<{qmpi_type(f)}*>(hook_.function)(ferry::qmpi::context(), hook_.tool_id{comma_args});",
                "}",
                f'extern "C" __attribute__((weak)) {f.returns} {f.name}({params}) {{',
                f"  if (__builtin_expect(ferry::qmpi::hooked({f.qmpi}), 0))",
                f"    return qmpi_{f.name}(__builtin_return_address(0){comma_args});",
                f"  return ferry_impl_{f.name}({args});",
                "}"]
    # The end of every chain (QMPI_Get_function's answer past the last tool): the implementation,
    # with the QMPI signature.
    out.append("")
    for f in intercepted(functions):
        params = "QMPI_Context, int" + (", " + parameters(f) if f.params else "")
        out.append(f"static {f.returns} implementation_{f.name}({params}) {{ return ferry_impl_{f.name}({arguments(f)}); }}")
    out.append("")
    out.append("namespace ferry::qmpi {")
    out.append("const Function implementations[MPI_LAST_FUNC_T] = {")
    for f in intercepted(functions):
        out.append(f"    reinterpret_cast<Function>(&implementation_{f.name}),")
    out.append("};")
    out.append("}  // namespace ferry::qmpi")
    out.append("")
    return "\n".join(out)


def profiled_io(f):
    """The MPI-IO functions FERRY_PROFILE counts (all but the handle conversions)."""
    return f.name.startswith("MPI_File_") and f.name not in ("MPI_File_c2f", "MPI_File_f2c")


def param(f, name, direction="in"):
    for p in f.params:
        if p.name == name and p.direction == direction and not p.array:
            return p
    return None


def bytes_expression(f):
    """count x datatype size of the call's (send) buffer argument, or -1 when it moves no data."""
    for count, datatype in (("count", "datatype"), ("sendcount", "sendtype"), ("origin_count", "origin_datatype")):
        if param(f, count) and param(f, datatype) and param(f, datatype).kind == "handle":
            return f"type_bytes({count}, {datatype})"
    if one_sided(f) and param(f, "datatype"):  # MPI_Fetch_and_op, MPI_Compare_and_swap: one element
        return "type_bytes(1, datatype)"
    return "-1"


def one_sided(f):
    """An RMA communication call (Put, Get, Accumulate, ...): it names a target rank of a window."""
    return param(f, "target_rank") is not None and param(f, "win") is not None


# Calls that only read local state and never wait: FERRY_PROFILE counts them but does not time
# them, since two clock reads would cost more than the call (a program that asks MPI_Wtime or
# MPI_Comm_rank in its inner loop would otherwise pay for the profile there).
UNTIMED = ("MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_remote_size", "MPI_Comm_test_inter", "MPI_Wtime",
           "MPI_Wtick", "MPI_Get_count", "MPI_Get_elements", "MPI_Type_size", "MPI_Type_get_extent",
           "MPI_Type_get_true_extent", "MPI_Initialized", "MPI_Finalized", "MPI_Query_thread",
           "MPI_Is_thread_main", "MPI_Group_size", "MPI_Group_rank", "MPI_Status_", "MPI_Aint_",
           "MPI_Get_address", "MPI_Comm_get_attr", "MPI_Get_version", "MPI_Get_library_version",
           "MPI_Get_processor_name", "MPI_Pcontrol")


def untimed(f):
    return any(f.name == u or f.name.startswith(u + "_c") or (u.endswith("_") and f.name.startswith(u))
               for u in UNTIMED)


# Blocking collectives that the profile runs a barrier before, to measure how long each rank waited
# for the last one to arrive (src/profile/late_partners.h); their _c forms too.
SYNCHRONIZED_COLLECTIVES = {
    "MPI_Bcast", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw", "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_scatter",
    "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan", "MPI_Neighbor_allgather", "MPI_Neighbor_allgatherv",
    "MPI_Neighbor_alltoall", "MPI_Neighbor_alltoallv", "MPI_Neighbor_alltoallw"}
# Calls that only wait for others: all their time is waiting.
ALL_WAITING = {"MPI_Barrier", "MPI_Probe", "MPI_Mprobe"}


def late_partner_wrapper(f):
    """The body of the wrappers that measure the late-partner wait (src/profile/late_partners.h), or None."""
    args = arguments(f)
    base = f.name[:-2] if f.name.endswith("_c") else f.name
    head = [f"  int64_t bytes_ = {bytes_expression(f)};"]
    tail = [f"  note_call({f.qmpi}, bytes_);"]
    if base in SYNCHRONIZED_COLLECTIVES:
        # Every call, on every rank alike (the barrier must be), so every call is timed too.
        return head + ["  uint64_t start_ = now();",
                       "  bool synchronized_ = late_partners::synchronize(comm);",
                       "  uint64_t everyone_ = now();",
                       f"  auto result_ = ferry_impl_{f.name}({args});",
                       "  uint64_t end_ = now();"] + tail + [
                       f"  note_time({f.qmpi}, end_ - start_);",
                       f"  if (synchronized_) note_wait({f.qmpi}, everyone_ - start_);",
                       "  return result_;"]
    timed = [f"  bool timed_ = timing_due({f.qmpi});", "  uint64_t start_ = timed_ ? now() : 0;"]
    after = ["  uint64_t end_ = timed_ ? now() : 0;"] + tail + [f"  if (timed_) note_time({f.qmpi}, end_ - start_);"]
    if base in ALL_WAITING:
        return head + timed + [f"  auto result_ = ferry_impl_{f.name}({args});"] + after + [
            f"  if (timed_) note_wait({f.qmpi}, end_ - start_);", "  return result_;"]
    if base == "MPI_Recv":
        # Whole, so that its errors name MPI_Recv; the receive notes when its message was matched.
        return head + timed + [
            "  if (timed_) late_partners::begin_receive();",
            f"  auto result_ = ferry_impl_{f.name}({args});",
            f"  if (timed_) note_wait({f.qmpi}, late_partners::end_receive(start_));"] + after + ["  return result_;"]
    if f.name == "MPI_Wait":
        return head + timed + [
            f"  if (timed_ && request != nullptr) note_wait({f.qmpi}, late_partners::wait_for_match(*request));",
            f"  auto result_ = ferry_impl_{f.name}({args});"] + after + ["  return result_;"]
    return None


def profile(functions):
    """FERRY_PROFILE's QMPI tool (src/profile/counters.h): a wrapper per function that times the
    implementation (every call, or a sample of a short function's: counters.h Sampling) and counts the call, its bytes and, for sends, the destination."""
    qmpi = [f for f in intercepted(functions) if not any(p.kind == "varargs" for p in f.params)]
    io = [f for f in functions if f.qmpi < 0 and profiled_io(f)]
    io_base = max(f.qmpi for f in functions) + 1
    out = ["// Generated from src/api/mpi_api.txt by bindings/gen_qmpi.py profile: FERRY_PROFILE's wrappers.",
           "// Each times the implementation (ferry_impl_X: the profile is the last tool, so nothing comes",
           "// between; every call or a sample, counters.h Sampling) and counts into src/profile/counters.h. Attached by api/qmpi.cc only when",
           "// FERRY_PROFILE is set; the MPI-IO ones are reached through profile::io_enabled.",
           '#include "api/qmpi.h"',
           '#include "base/communicator.h"',
           '#include "base/datatype.h"',
           '#include "base/handles.h"',
           '#include "base/request.h"',
           '#include "rma/window.h"',
           '#include "profile/counters.h"',
           '#include "profile/files.h"',
           '#include "profile/late_partners.h"',
           "",
           'extern "C" {']
    for f in qmpi + io:
        out.append(f'__attribute__((visibility("hidden"))) decltype(P{f.name}) ferry_impl_{f.name};')
    out += ["}", "",
            "namespace ferry::profile {",
            "namespace {",
            "",
            "// Bytes of `count` elements of a type that is not predefined; 0 for a handle that is not a datatype.",
            "__attribute__((noinline)) int64_t derived_type_bytes(MPI_Count count, MPI_Datatype type) {",
            "  const Datatype* t = find_datatype(type);",
            "  return t != nullptr ? int64_t(t->size) * int64_t(count) : 0;",
            "}",
            "",
            "// Bytes of `count` elements of `type`; 0 for a handle that is not a datatype (the call fails).",
            "// A predefined type's handle carries its size in bits 8-15 (MPICH's ABI, base/handles.h): no lookup,",
            "// and inline in every wrapper (a call here was a tenth of the profile's cost per MPI_Send).",
            "inline __attribute__((always_inline)) int64_t type_bytes(MPI_Count count, MPI_Datatype type) {",
            "  if (count <= 0) return 0;",
            "  if (handle::kind_of(type) == handle::kKindBuiltin && handle::object_of(type) == handle::Object::kDatatype)",
            "    return int64_t((uint32_t(type) >> 8) & 0xff) * int64_t(count);",
            "  return derived_type_bytes(count, type);",
            "}",
            "",
            "// A persistent send's message, at its start (MPI_Start, MPI_Startall): counted as sends are.",
            "void note_started(MPI_Request handle) {",
            "  const Request* r = requests::find(handle);",
            "  if (r == nullptr || r->kind != Request::Kind::kSend || !r->persistent || r->partitioned != nullptr ||",
            "      r->comm == nullptr || r->peer < 0 || r->peer >= r->comm->peer_count())",
            "    return;",
            "  note_message(r->comm->world_rank(r->peer), r->bytes);",
            "}",
            "",
            "// The world rank of rank `rank` of `win`'s group, or -1.",
            "int window_peer(MPI_Win win, int rank) {",
            "  const rma::Window* w = rank >= 0 ? rma::windows::find(win) : nullptr;",
            "  return w != nullptr && rank < w->comm->size ? w->comm->world_rank(rank) : -1;",
            "}",
            "",
            "// The world rank of point-to-point rank `rank` of `comm`, or -1 (inline: every send asks).",
            "inline __attribute__((always_inline)) int world_peer(MPI_Comm comm, int rank) {",
            "  Communicator* c = rank >= 0 ? communicators::find(comm) : nullptr;",
            "  return c != nullptr && rank < c->peer_count() ? c->world_rank(rank) : -1;",
            "}",
            "",
            f"constexpr int kNumCalls = {io_base + len(io)};",
            "static_assert(kNumCalls <= kMaxCalls);",
            "const char* const kNames[kNumCalls] = {"]
    names = {f.qmpi: f.name for f in intercepted(functions)}
    names.update({io_base + i: f.name for i, f in enumerate(io)})
    for i in range(io_base + len(io)):
        out.append(f'    "{names[i]}",' if i in names else "    nullptr,")
    out += ["};", ""]
    for f in qmpi:
        params = "QMPI_Context, int" + (", " + parameters(f) if f.params else "")
        args = arguments(f)
        is_send = param(f, "dest") is not None and not f.name.endswith("_init")
        out.append(f"{f.returns} {f.name}({params}) {{")
        if untimed(f):
            out += [f"  note_call({f.qmpi}, {bytes_expression(f)});",
                    f"  return ferry_impl_{f.name}({args});", "}"]
            continue
        if (body := late_partner_wrapper(f)) is not None:
            out += body + ["}"]
            continue
        if f.name == "MPI_Finalize":
            out.append("  finishing();")
        if f.name == "MPI_Session_finalize":
            out.append("  session_finishing();")
        out += [f"  int64_t bytes_ = {bytes_expression(f)};",
                f"  bool timed_ = timing_due({f.qmpi});",
                "  uint64_t start_ = timed_ ? now() : 0;",
                f"  auto result_ = ferry_impl_{f.name}({args});",
                "  uint64_t end_ = timed_ ? now() : 0;"]
        if f.name in ("MPI_Init", "MPI_Init_thread", "MPI_Session_init"):
            out.append("  start(kNames, kNumCalls);")
        out += [f"  note_call({f.qmpi}, bytes_);",
                f"  if (timed_) note_time({f.qmpi}, end_ - start_);"]
        if is_send:
            out.append("  note_message(world_peer(comm, dest), uint64_t(bytes_));")
        if one_sided(f):
            out.append("  if (result_ == MPI_SUCCESS) note_one_sided(window_peer(win, target_rank), uint64_t(bytes_));")
        if f.name == "MPI_Start":
            out.append("  if (result_ == MPI_SUCCESS) note_started(*request);")
        if f.name == "MPI_Startall":
            out.append("  if (result_ == MPI_SUCCESS)")
            out.append("    for (int i = 0; i < count; ++i) note_started(array_of_requests[i]);")
        if f.name == "MPI_Finalize":
            out.append("  finished();")
        if f.name == "MPI_Session_finalize":
            out.append("  session_finished();")
        out += ["  return result_;", "}"]
    out += ["", "}  // namespace", "", "namespace io {", ""]
    for i, f in enumerate(io):
        args = arguments(f)
        index = io_base + i
        data = bytes_expression(f) != "-1" and ("read" in f.name or "write" in f.name)
        out.append(f"{f.returns} {f.name}({parameters(f) or 'void'}) {{")
        if f.name == "MPI_File_close":
            out.append("  MPI_File file_ = fh != nullptr ? *fh : MPI_FILE_NULL;")
        out += [f"  int64_t bytes_ = {bytes_expression(f)};",
                "  uint64_t start_ = now();",
                f"  auto result_ = ferry_impl_{f.name}({args});",
                "  uint64_t ticks_ = now() - start_;",
                f"  note_call({index}, bytes_);",
                f"  note_time({index}, ticks_);  // I/O calls are timed every time: they are long"]
        if f.name == "MPI_File_open":
            out.append("  if (result_ == MPI_SUCCESS) files::opened(*fh, filename, ticks_);")
        elif f.name == "MPI_File_close":
            out += ["  files::note_time(file_, ticks_);", "  files::closing(file_);"]
        elif data:
            write = "true" if "write" in f.name else "false"
            collective = "true" if ("_all" in f.name or "_ordered" in f.name) else "false"
            out.append(f"  files::note_access(fh, {write}, {collective}, uint64_t(bytes_), ticks_);")
        elif param(f, "fh"):
            out.append("  files::note_time(fh, ticks_);")
        out += ["  return result_;", "}"]
    out += ["", "}  // namespace io", "}  // namespace ferry::profile", "",
            "namespace ferry::qmpi {",
            "// The profile tool's init function (api/qmpi.cc): registers every wrapper.",
            "void attach_profile(int tool_id) {"]
    for f in qmpi:
        out.append(f"  QMPI_Register_function(tool_id, {f.qmpi_enumerator}, "
                   f"reinterpret_cast<Function>(&ferry::profile::{f.name}));")
    out += ["  ferry::profile::attach();", "}", "}  // namespace ferry::qmpi", ""]
    return "\n".join(out)


def enum_program(functions):
    out = ["/* Generated by bindings/gen_qmpi.py: prints QMPI's enumerators (test abi_qmpi_enum_matches_mpich). */",
           "#include <stdio.h>", "#include <mpi.h>", "int main(void) {"]
    for f in intercepted(functions):
        out.append(f'  printf("{f.qmpi_enumerator} %d\\n", (int){f.qmpi_enumerator});')
    out += ['  printf("MPI_LAST_FUNC_T %d\\n", (int)MPI_LAST_FUNC_T);',
            '  printf("sizeof(QMPI_Context) %zu\\n", sizeof(QMPI_Context));',
            '  printf("QMPI_MAX_TOOL_NAME_LENGTH %d\\n", QMPI_MAX_TOOL_NAME_LENGTH);',
            "  return 0;", "}", ""]
    return "\n".join(out)


def main(argv):
    check = "--check" in argv
    argv = [a for a in argv if a != "--check"]
    if len(argv) != 4 or argv[1] not in ("header", "entries", "enum-program", "profile"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, description, output = argv[1:]
    try:
        functions, _ = mpi_api.load(description)
    except mpi_api.DescriptionError as e:
        print(f"gen_qmpi.py: {e}", file=sys.stderr)
        return 1
    text = {"header": header, "entries": entries, "enum-program": enum_program, "profile": profile}[mode](functions)
    if check:
        current = open(output).read() if os.path.exists(output) else ""
        if current != text:
            print(f"{output} is not what {description} gives; regenerate it:\n"
                  f"  python3 bindings/gen_qmpi.py header {description} {output}", file=sys.stderr)
            return 1
        print(f"{output} matches {description}")
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
