// The FERRY_* settings registry (common/config.h): defaults, environment
// overrides, integer suffixes, flags, and validate()'s reports.
#include "common/config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace ferry::config {
namespace {

// Each test starts with no FERRY_* variable set and leaves the environment as
// it found it.
class ConfigTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      std::string entry(*e);
      size_t eq = entry.find('=');
      if (entry.rfind("FERRY_", 0) != 0 && !is_alias(entry.substr(0, eq))) continue;
      saved_.emplace_back(entry.substr(0, eq), eq == std::string::npos ? "" : entry.substr(eq + 1));
    }
    for (auto& [name, value] : saved_) unsetenv(name.c_str());
  }
  void TearDown() override {
    for (const std::string& name : set_) unsetenv(name.c_str());
    for (auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  static bool is_alias(const std::string& name) {
    for (const Setting& s : all_settings())
      if (!s.alias.empty() && s.alias == name) return true;
    return false;
  }
  void set(const std::string& name, const std::string& value) {
    setenv(name.c_str(), value.c_str(), 1);
    set_.push_back(name);
  }

 private:
  std::vector<std::pair<std::string, std::string>> saved_;
  std::vector<std::string> set_;
};

TEST_F(ConfigTest, RegistryHoldsUniqueFerryNamesWithDocs) {
  std::set<std::string_view> names;
  for (const Setting& s : all_settings()) {
    EXPECT_TRUE(s.name.starts_with("FERRY_")) << s.name;
    EXPECT_FALSE(s.doc.empty()) << s.name;
    EXPECT_TRUE(names.insert(s.name).second) << "registered twice: " << s.name;
  }
  for (const char* expected : {"FERRY_DEBUG", "FERRY_WAIT", "FERRY_SPIN_US", "FERRY_TCP_EAGER_LIMIT",
                               "FERRY_TCP_FAMILY", "FERRY_TCP_INTERFACE", "FERRY_CONNECT_TIMEOUT"})
    EXPECT_EQ(names.count(expected), 1u) << expected;
}

TEST_F(ConfigTest, UnsetSettingsHaveTheirDefaults) {
  EXPECT_EQ(value("FERRY_TCP_EAGER_LIMIT"), "65536");
  EXPECT_EQ(integer("FERRY_TCP_EAGER_LIMIT"), 65536);
  EXPECT_EQ(integer("FERRY_CONNECT_TIMEOUT"), 30);
  EXPECT_EQ(integer("FERRY_SPIN_US"), 200);
  EXPECT_EQ(value("FERRY_WAIT"), "auto");
  EXPECT_EQ(value("FERRY_TCP_FAMILY"), "auto");
  EXPECT_EQ(value("FERRY_DEBUG"), "");
  EXPECT_EQ(validate(), std::nullopt);
}

TEST_F(ConfigTest, ValueOfEverySettingIsItsDefaultWhenUnset) {
  for (const Setting& s : all_settings()) EXPECT_EQ(value(s.name), s.default_value) << s.name;
}

TEST_F(ConfigTest, EnvironmentOverridesTheDefault) {
  set("FERRY_WAIT", "spin");
  set("FERRY_TCP_EAGER_LIMIT", "1024");
  EXPECT_EQ(value("FERRY_WAIT"), "spin");
  EXPECT_EQ(value("FERRY_TCP_EAGER_LIMIT"), "1024");
  EXPECT_EQ(integer("FERRY_TCP_EAGER_LIMIT"), 1024);
  // Others keep their defaults.
  EXPECT_EQ(integer("FERRY_SPIN_US"), 200);
}

// MPICH's name for a setting (its alias) sets it when Ferry's own name is unset; Ferry's wins.
TEST_F(ConfigTest, AliasSetsTheSettingUnlessItsOwnNameDoes) {
  EXPECT_EQ(value("FERRY_QMPI_TOOL_LIST"), "");
  set("MPIR_CVAR_QMPI_TOOL_LIST", "a:b");
  EXPECT_EQ(value("FERRY_QMPI_TOOL_LIST"), "a:b");
  set("FERRY_QMPI_TOOL_LIST", "c");
  EXPECT_EQ(value("FERRY_QMPI_TOOL_LIST"), "c");
  EXPECT_EQ(validate(), std::nullopt);
}

// is_set: the environment (own name or alias) or a tool set it, not the default.
TEST_F(ConfigTest, IsSetSaysWhetherTheEnvironmentOrAToolSetIt) {
  EXPECT_FALSE(is_set("FERRY_COLL_SHM_CELL"));
  set("FERRY_COLL_SHM_CELL", "16k");  // the default's value, set all the same
  EXPECT_TRUE(is_set("FERRY_COLL_SHM_CELL"));
  EXPECT_FALSE(is_set("FERRY_QMPI_TOOL_LIST"));
  set("MPIR_CVAR_QMPI_TOOL_LIST", "a");
  EXPECT_TRUE(is_set("FERRY_QMPI_TOOL_LIST"));
  EXPECT_FALSE(is_set("FERRY_SPIN_US"));
  ferry::config::set("FERRY_SPIN_US", "50");
  EXPECT_TRUE(is_set("FERRY_SPIN_US"));
}

TEST_F(ConfigTest, IntegerSuffixesArePowersOf1024) {
  const std::pair<const char*, int64_t> cases[] = {
      {"4k", 4096},           {"4K", 4096},          {"4kb", 4096},        {"4KB", 4096},
      {"2m", 2 << 20},        {"2M", 2 << 20},       {"3g", int64_t{3} << 30}, {"1G", int64_t{1} << 30},
      {"0k", 0},              {"64", 64},            {"-5", -5},           {"1024g", int64_t{1} << 40},
  };
  for (auto [text, expected] : cases) {
    set("FERRY_TCP_EAGER_LIMIT", text);
    EXPECT_EQ(integer("FERRY_TCP_EAGER_LIMIT"), expected) << text;
    EXPECT_EQ(validate(), std::nullopt) << text;
  }
}

TEST_F(ConfigTest, MalformedIntegerYieldsTheDefault) {
  for (const char* text : {"12q", "k", "4kk", "4 k", "0x10", "", "-", "1.5", "99999999999999999999", "9999999999999g"}) {
    set("FERRY_TCP_EAGER_LIMIT", text);
    EXPECT_EQ(integer("FERRY_TCP_EAGER_LIMIT"), 65536) << '"' << text << '"';
  }
}

TEST_F(ConfigTest, ValidateReportsAMalformedNumberWithNameAndValue) {
  set("FERRY_SPIN_US", "12q");
  auto report = validate();
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("FERRY_SPIN_US"), std::string::npos) << *report;
  EXPECT_NE(report->find("12q"), std::string::npos) << *report;
}

TEST_F(ConfigTest, ValidateReportsEveryKindOfMalformedNumber) {
  for (const char* text : {"12q", "k", "m", "-k", "4kk", "0x10", "", "1.5", "99999999999999999999",
                           "9999999999999g"}) {
    set("FERRY_CONNECT_TIMEOUT", text);
    EXPECT_TRUE(validate().has_value()) << "FERRY_CONNECT_TIMEOUT=\"" << text << "\" was accepted";
  }
}

TEST_F(ConfigTest, SuffixWithoutDigitsIsNotANumber) {
  // "k" alone is no number; it must not read as 0 (a zero connect timeout or
  // eager limit is a silent misconfiguration).
  set("FERRY_TCP_EAGER_LIMIT", "k");
  EXPECT_EQ(integer("FERRY_TCP_EAGER_LIMIT"), 65536);
  EXPECT_TRUE(validate().has_value());
}

TEST_F(ConfigTest, ValidateReportsAnUnknownFerryName) {
  set("FERRY_EAGER_LIMT", "4k");  // a typo
  auto report = validate();
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("FERRY_EAGER_LIMT"), std::string::npos) << *report;
  EXPECT_NE(report->find("unknown"), std::string::npos) << *report;
}

TEST_F(ConfigTest, ValidateIgnoresVariablesOutsideFerrysPrefix) {
  set("NOT_FERRY_SETTING", "x");
  set("FERRYX", "x");
  EXPECT_EQ(validate(), std::nullopt);
}

// The launcher sets no FERRY_* variable of its own for ranks, so a
// FERRY_LAUNCH_ name is a setting like any other: a typo is reported.
TEST_F(ConfigTest, ValidateReportsALaunchSettingTypo) {
  set("FERRY_LAUNCH_FANOUTT", "4");
  auto report = validate();
  ASSERT_TRUE(report.has_value());
  EXPECT_NE(report->find("FERRY_LAUNCH_FANOUTT"), std::string::npos) << *report;
  EXPECT_NE(report->find("unknown"), std::string::npos) << *report;
}

TEST_F(ConfigTest, ValidateAcceptsTheLaunchSettings) {
  set("FERRY_LAUNCH_FANOUT", "4");
  set("FERRY_LAUNCH_TIMEOUT", "10");
  EXPECT_EQ(validate(), std::nullopt);
}

TEST_F(ConfigTest, ValidateAcceptsTextForNonNumericSettings) {
  set("FERRY_DEBUG", "p2p,tcp");
  set("FERRY_TCP_INTERFACE", "eth0");
  EXPECT_EQ(validate(), std::nullopt);
}

TEST_F(ConfigTest, FlagAcceptsTheUsualSpellings) {
  for (const char* yes : {"1", "yes", "YES", "true", "True", "on", "ON"}) {
    set("FERRY_TCP_INTERFACE", yes);
    EXPECT_TRUE(flag("FERRY_TCP_INTERFACE")) << yes;
  }
  for (const char* no : {"0", "no", "No", "false", "FALSE", "off", "Off", ""}) {
    set("FERRY_TCP_INTERFACE", no);
    EXPECT_FALSE(flag("FERRY_TCP_INTERFACE")) << no;
  }
}

TEST_F(ConfigTest, FlagWithAnUnreadableValueFallsBackToTheDefault) {
  set("FERRY_TCP_INTERFACE", "maybe");  // default "" reads as false
  EXPECT_FALSE(flag("FERRY_TCP_INTERFACE"));
}

TEST_F(ConfigTest, UnsetFlagIsItsDefault) { EXPECT_FALSE(flag("FERRY_DEBUG")); }

TEST_F(ConfigTest, EnvironmentReadsOtherVariables) {
  set("FERRY_TEST_OTHER_VARIABLE", "hello");  // any name: environment() is not the registry
  EXPECT_EQ(environment("FERRY_TEST_OTHER_VARIABLE"), "hello");
  unsetenv("FERRY_TEST_OTHER_VARIABLE");
  EXPECT_EQ(environment("FERRY_TEST_OTHER_VARIABLE"), std::nullopt);
}

TEST_F(ConfigTest, AskingForAnUnregisteredSettingAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH((void)value("FERRY_NOT_REGISTERED"), "FERRY_NOT_REGISTERED is not registered");
}

}  // namespace
}  // namespace ferry::config
