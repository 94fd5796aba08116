// The one registry of Ferry's tunables (FERRY_* environment variables).
//
// Every setting is declared once, in config.cc, with its default and a doc
// string; `ferry_info` prints them all. Nothing else in Ferry reads the
// environment: other components ask this registry (shared/STYLE.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ferry::config {

struct Setting {
  std::string_view name;           // e.g. "FERRY_DEBUG"
  std::string_view default_value;  // text form, as a user would write it
  std::string_view doc;            // one line for ferry_info and the README
  // Another variable that sets it when this one is not set: MPICH's name for the same setting,
  // so that a job set up for MPICH behaves alike (MPIR_CVAR_QMPI_TOOL_LIST).
  std::string_view alias = {};
};

// All registered settings, in declaration order.
std::span<const Setting> all_settings();

// The value of a registered setting: the environment's if set (its own name,
// else its alias), else the default. Asking for an unregistered name is a programming error (aborts).
std::string value(std::string_view name);

// Whether the environment (its own name or its alias) or a tool set it:
// for a default that depends on what the caller knows of the machine.
bool is_set(std::string_view name);
// Replaces a setting's value for the rest of this process, as if the
// environment had said `text` (MPI_T_cvar_write, MPI-4.0 §15.3.6); whoever
// read the setting before keeps what it read, so the caller decides which
// settings may change when (base/tool_variables.cc).
void set(std::string_view name, std::string text);

// Integer value; accepts k, m, g suffixes (powers of 1024). A malformed value
// is reported by validate(); here it yields the default.
int64_t integer(std::string_view name);

// Boolean value: 1/0, yes/no, true/false, on/off.
bool flag(std::string_view name);

// Checks every FERRY_* variable in the environment: unknown names (typos) and
// malformed values. Returns a message naming the variable, or nothing.
std::optional<std::string> validate();

// A variable that is not Ferry's own (PATH, HOME, SLURM_*, ...), for the few
// places that must see one. Kept here so that the environment is read in one
// place.
std::optional<std::string> environment(const char* name);

}  // namespace ferry::config
