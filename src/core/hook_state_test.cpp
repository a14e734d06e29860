#include <catch2/catch.hpp>

#include "core/hook_state.h"

using namespace cudaenv;

TEST_CASE("hook state: without a state the environment is given back as it is") {
  EnvMap env{{"PATH", "/tk/bin:/usr/bin"}, {"HOME", "/home/u"}};
  CHECK(without_hook_changes(env) == env);
}

TEST_CASE("hook state: the hook's entries are reverted, the state dropped, the rest kept") {
  EnvMap env{{"HOME", "/home/u"},
             {"PATH", "/tk/bin:/usr/bin"},
             {kStateVariable, "cudaenv2\nP\tPATH\t/tk/bin\nS\tCUDA_HOME\t/tk\t/opt/cuda\nU\tCUDACXX\t/tk/bin/nvcc\n"},
             {"CUDA_HOME", "/tk"},
             {"CUDACXX", "/tk/bin/nvcc"}};
  CHECK(without_hook_changes(env) == EnvMap{{"HOME", "/home/u"}, {"PATH", "/usr/bin"}, {"CUDA_HOME", "/opt/cuda"}});
}

TEST_CASE("hook state: what the user changed since the hook is theirs, and a list left empty is unset") {
  EnvMap env{{"PATH", "/usr/bin:/tk/bin"},
             {"LD_LIBRARY_PATH", "/tk/lib64"},
             {"CUDA_HOME", "/mine"},
             {kStateVariable, "cudaenv2\nP\tPATH\t/tk/bin\nP\tLD_LIBRARY_PATH\t/tk/lib64\nS\tCUDA_HOME\t/tk\t/opt/cuda\n"}};
  CHECK(without_hook_changes(env) == EnvMap{{"PATH", "/usr/bin"}, {"CUDA_HOME", "/mine"}});
}

TEST_CASE("hook state: a state reads back as written, escapes included, a garbled one owns nothing") {
  HookState state{"12.4 (set by /p/cuda.toml)", "k", {{"PATH", "/a\tb\\c\nd"}}, {{"X", "v", std::nullopt}, {"Y", "1", "0"}}};
  HookState again = parse_state(format_state(state));
  CHECK(again.announced == state.announced);
  CHECK(again.notice_key == "k");
  REQUIRE(again.entries.size() == 1);
  CHECK(again.entries[0].entry == "/a\tb\\c\nd");
  REQUIRE(again.values.size() == 2);
  CHECK(!again.values[0].previous);
  CHECK(again.values[1].previous == "0");
  CHECK(parse_state("cudaenv9\nP\tPATH\t/x\n").entries.empty());
  CHECK(parse_state("!!cudaenv2\nP\tPATH\t/x\n").entries.size() == 1);
  CHECK(parse_state("cudaenv1\nwatch\tline\n\nP\tPATH\t/x\nP\ttoo\tmany\tfields\n").entries.size() == 1);
}
