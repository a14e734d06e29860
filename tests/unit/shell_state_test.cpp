#include <catch2/catch.hpp>

#include "shell/env_diff.h"
#include "core/hook_state.h"
#include "shell/trust.h"

using namespace cudaenv;

TEST_CASE("the hook state survives a round trip, odd characters included") {
  HookState state;
  state.dir = "/home/u/proj";
  state.version_override = "12.4";
  state.watches = {{"/home/u/proj/sub/cuda.toml", std::nullopt}, {"/home/u/proj/cuda.toml", fs::path("/r/cache/stamps/1.2")}};
  state.announced = "12.1.1\tset by /home/u/proj/cuda.toml";
  state.entries = {{"PATH", "/r/versions/12.1.1/bin"}, {"LD_LIBRARY_PATH", "/a\tb\\c\nd"}};
  state.values = {{"CUDA_HOME", "/r/versions/12.1.1", std::string("/opt/cuda")}, {"CUDACXX", "/x/nvcc", std::nullopt}};

  HookState back = parse_state(format_state(state));
  CHECK(back.dir == state.dir);
  CHECK(back.version_override == "12.4");
  REQUIRE(back.watches.size() == 2);
  CHECK(!back.watches[0].stamp);
  CHECK(back.watches[1].stamp == fs::path("/r/cache/stamps/1.2"));
  CHECK(back.announced == state.announced);
  REQUIRE(back.entries.size() == 2);
  CHECK(back.entries[1].entry == "/a\tb\\c\nd");
  REQUIRE(back.values.size() == 2);
  CHECK(back.values[0].previous == std::optional<std::string>("/opt/cuda"));
  CHECK(!back.values[1].previous);
}

TEST_CASE("the shell's part of the state is what the fast path compares") {
  HookState state;
  state.dir = "/p";
  state.watches = {{"/p/cuda.toml", fs::path("/s/1.2")}, {"/cuda.toml", std::nullopt}};
  CHECK(format_state(state) == "cudaenv1\n/p\n\n=/p/cuda.toml\t/s/1.2\n-/cuda.toml\n\n");
}

TEST_CASE("paths the shell cannot compare raw never take the fast path") {
  HookState state;
  state.dir = "/odd\ndir";
  state.watches = {{"/tab\there/cuda.toml", std::nullopt}, {"/x", std::nullopt, true}};
  std::string text = format_state(state);
  CHECK(text.find("cudaenv1\n!/odd\\ndir\n") == 0);
  CHECK(text.find("\n!\n!\n\n") != std::string::npos);
}

TEST_CASE("a stale mark or a garbled state parses as what is left, or nothing") {
  HookState state;
  state.dir = "/p";
  state.entries = {{"PATH", "/tk/bin"}};
  CHECK(parse_state("!" + format_state(state)).entries.size() == 1);
  CHECK(parse_state("!!" + format_state(state)).entries.size() == 1);
  CHECK(parse_state("garbage").entries.empty());
  CHECK(parse_state("").dir.empty());
}

TEST_CASE("leaving removes exactly the entries cudaenv added") {
  EnvMap env{{"PATH", "/usr/bin"}, {"LD_LIBRARY_PATH", "/user/lib"}};
  EnvChange change;
  change.prepend = {{"PATH", "/tk/bin"}, {"LD_LIBRARY_PATH", "/tk/lib64"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(env["PATH"] == "/tk/bin:/usr/bin");
  // The user adds entries on both sides of ours while inside.
  env["PATH"] = "/user/front:" + env["PATH"] + ":/user/back";
  EnvMap left = revert_owned(env, owned.entries, owned.values);
  CHECK(left["PATH"] == "/user/front:/usr/bin:/user/back");
  CHECK(left["LD_LIBRARY_PATH"] == "/user/lib");
}

TEST_CASE("the environment before the hook: what its exported state says it added, taken away") {
  EnvMap env{{"PATH", "/shims:/usr/bin"}, {"CUDA_HOME", "/user/cuda"}};
  const EnvMap before = env;
  EnvChange change;
  change.set = {{"CUDA_HOME", "/tk"}};
  change.prepend = {{"PATH", "/tk/bin"}};
  OwnedChange owned = apply_owned(change, env);
  HookState state;
  state.entries = owned.entries;
  state.values = owned.values;
  env[kStateVariable] = format_state(state);
  CHECK(without_hook_changes(env) == before);
  CHECK(without_hook_changes(before) == before);
}

TEST_CASE("an entry already on the list is added in front and only that copy removed") {
  EnvMap env{{"PATH", "/a:/tk/bin:/b"}};
  EnvChange change;
  change.prepend = {{"PATH", "/tk/bin"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(env["PATH"] == "/tk/bin:/a:/tk/bin:/b");
  CHECK(revert_owned(env, owned.entries, owned.values)["PATH"] == "/a:/tk/bin:/b");
}

TEST_CASE("a list cudaenv created is unset again on leaving") {
  EnvMap env;
  EnvChange change;
  change.prepend = {{"LD_LIBRARY_PATH", "/tk/lib64"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(revert_owned(env, owned.entries, owned.values).count("LD_LIBRARY_PATH") == 0);
}

TEST_CASE("overridden variables get their old values back unless the user changed them") {
  EnvMap env{{"CUDA_HOME", "/opt/cuda"}};
  EnvChange change;
  change.set = {{"CUDA_HOME", "/tk"}, {"CUDACXX", "/tk/bin/nvcc"}, {"CUDAARCHS", "89"}};
  OwnedChange owned = apply_owned(change, env);
  env["CUDAARCHS"] = "90";  // the user's own choice, made inside the project
  EnvMap left = revert_owned(env, owned.entries, owned.values);
  CHECK(left["CUDA_HOME"] == "/opt/cuda");
  CHECK(left.count("CUDACXX") == 0);
  CHECK(left["CUDAARCHS"] == "90");
}

TEST_CASE("a variable set twice (toolkit, then [env]) is restored through both") {
  EnvMap env{{"CUDA_HOME", "/orig"}};
  EnvChange change;
  change.set = {{"CUDA_HOME", "/tk"}, {"CUDA_HOME", "/from-env-table"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(env["CUDA_HOME"] == "/from-env-table");
  CHECK(revert_owned(env, owned.entries, owned.values)["CUDA_HOME"] == "/orig");
}

TEST_CASE("the update names only variables that changed, in each shell's syntax") {
  EnvMap before{{"A", "1"}, {"B", "same"}, {"GONE", "x"}};
  EnvMap after{{"A", "2"}, {"B", "same"}, {"LD_LIBRARY_PATH", "/a:/b"}};
  std::vector<std::string> names{"A", "B", "GONE", "LD_LIBRARY_PATH", "A"};
  CHECK(render_env_update(before, after, names, ShellDialect::posix) ==
        "unset GONE;\nexport A='2';\nexport LD_LIBRARY_PATH='/a:/b';\n");
  CHECK(render_env_update(before, after, names, ShellDialect::fish) ==
        "set -e -g GONE;\nset -gx A '2';\nset -gx LD_LIBRARY_PATH '/a' '/b';\n");
}

TEST_CASE("trust keys hash the path and the contents, direnv style") {
  // sha256("/p/cuda.toml\n[cuda]\n"), computed independently with sha256sum.
  CHECK(trust_key("/p/cuda.toml", "[cuda]\n") == "c96323ba5aa144925d37f27c3ca9e9211bcf9c7ed23eb97ed65ddf06f3522ed8");
  CHECK(trust_key("/p/cuda.toml", "[cuda]\n") != trust_key("/q/cuda.toml", "[cuda]\n"));
  CHECK(trust_key("/p/cuda.toml", "[cuda]\n") != trust_key("/p/cuda.toml", "[cuda]\n#"));
}
