#include <catch2/catch.hpp>

#include "core/hook_state.h"
#include "shell/env_diff.h"
#include "shell/fast_path.h"
#include "shell/trust.h"

using namespace cudaenv;

// What the hook leaves on leaving: `env` without what `owned` records, through the exported state.
static EnvMap left_with(EnvMap env, const OwnedChange& owned) {
  HookState state;
  state.entries = owned.entries;
  state.values = owned.values;
  env[kStateVariable] = format_state(state);
  return without_hook_changes(env);
}

TEST_CASE("the hook state survives a round trip, odd characters included") {
  HookState state;
  state.announced = "12.1.1\tset by /home/u/proj/cuda.toml";
  state.entries = {{"PATH", "/r/versions/12.1.1/bin"}, {"LD_LIBRARY_PATH", "/a\tb\\c\nd"}};
  state.values = {{"CUDA_HOME", "/r/versions/12.1.1", std::string("/opt/cuda")}, {"CUDACXX", "/x/nvcc", std::nullopt}};

  HookState back = parse_state(format_state(state));
  CHECK(back.announced == state.announced);
  REQUIRE(back.entries.size() == 2);
  CHECK(back.entries[1].entry == "/a\tb\\c\nd");
  REQUIRE(back.values.size() == 2);
  CHECK(back.values[0].previous == std::optional<std::string>("/opt/cuda"));
  CHECK(!back.values[1].previous);
}

TEST_CASE("a state an older cudaenv wrote, stale mark and watch lines included, still parses") {
  std::string old = "!cudaenv1\n/p\n\n=/p/cuda.toml\t/s/1.2\n-/cuda.toml\n!\n\nA\t12.1.1\nP\tPATH\t/tk/bin\n";
  HookState state = parse_state(old);
  CHECK(state.announced == "12.1.1");
  REQUIRE(state.entries.size() == 1);
  CHECK(state.entries[0].entry == "/tk/bin");
}

TEST_CASE("a garbled state parses as nothing owned") {
  HookState state;
  state.entries = {{"PATH", "/tk/bin"}};
  CHECK(format_state(state) == "cudaenv2\nP\tPATH\t/tk/bin\n");
  CHECK(parse_state("garbage").entries.empty());
  CHECK(parse_state("").entries.empty());
}

TEST_CASE("a state's odd records are skipped and its escapes read back as written") {
  HookState state =
      parse_state("cudaenv2\nN\tkey\nP\tPATH\nP\tPATH\t/a\t/b\nQ\tx\tY\nS\tV\tnew\t\nU\tW\ta\\qb\\\nA\tx\\\\y\\tz\n\n");
  CHECK(state.announced == "x\\y\tz");
  CHECK(state.notice_key == "key");
  CHECK(state.entries.empty());
  REQUIRE(state.values.size() == 2);
  CHECK(state.values[0].previous == std::optional<std::string>(""));
  CHECK(state.values[1].value == "aqb\\");
  CHECK(!state.values[1].previous);
  CHECK(format_state(state) == "cudaenv2\nA\tx\\\\y\\tz\nN\tkey\nS\tV\tnew\t\nU\tW\taqb\\\\\n");
}

TEST_CASE("the fast path's variables: folders first, the fixed watches after, every path quoted") {
  FastPath fast;
  fast.dir = "/p/it's";
  fast.scope = "/p";
  fast.folders = {{"/p/it's/cuda.toml", std::nullopt}};
  fast.fixed = {{"/p/cuda.toml", fs::path("/s/1.2")}, {"/r/versions", fs::path("/s/3.4")}};
  CHECK(render_fast_path(fast, ShellDialect::posix) ==
        "_cudaenv_dir='/p/it'\\''s'; _cudaenv_version=''; _cudaenv_target=''; _cudaenv_scope='/p';\n"
        "_cudaenv_fixed=( '!' '-e' '/p/cuda.toml' '-o' '/p/cuda.toml' '-nt' '/s/1.2' '-o' '/p/cuda.toml' '-ot' '/s/1.2'"
        " '-o' '!' '-e' '/r/versions' '-o' '/r/versions' '-nt' '/s/3.4' '-o' '/r/versions' '-ot' '/s/3.4' );\n"
        "_cudaenv_changed=( '-e' '/p/it'\\''s/cuda.toml' '-o' \"${_cudaenv_fixed[@]}\" );\n_cudaenv_ready=1;\n");
  fast.folders.clear();
  fast.fixed.resize(1);
  fast.scope = "/";
  CHECK(render_fast_path(fast, ShellDialect::fish) ==
        "set -g __cudaenv_dir '/p/it\\'s'; set -g __cudaenv_version ''; set -g __cudaenv_target ''; set -g __cudaenv_scope '';\n"
        "set -g __cudaenv_fixed '!' '-e' '/p/cuda.toml' '-o' '/p/cuda.toml' '-nt' '/s/1.2' '-o' '/p/cuda.toml' '-ot' '/s/1.2';\n"
        "set -g __cudaenv_changed $__cudaenv_fixed;\nset -g __cudaenv_ready 1;\n");
}

TEST_CASE("a watch the shell cannot compare turns the fast path off") {
  FastPath fast;
  fast.dir = "/p";
  fast.scope = "/p";
  fast.fixed = {{"/p/cuda.toml", std::nullopt, true}};
  CHECK(render_fast_path(fast, ShellDialect::posix) == "unset _cudaenv_ready;\n");
  fast.fixed = {{"relative/cuda.toml", std::nullopt}};
  CHECK(render_fast_path(fast, ShellDialect::fish) == "set -e -g __cudaenv_ready;\n");
  fast.fixed.clear();
  CHECK(render_fast_path(fast, ShellDialect::posix) == "unset _cudaenv_ready;\n");
}

TEST_CASE("leaving removes exactly the entries cudaenv added") {
  EnvMap env{{"PATH", "/usr/bin"}, {"LD_LIBRARY_PATH", "/user/lib"}};
  EnvChange change;
  change.prepend = {{"PATH", "/tk/bin"}, {"LD_LIBRARY_PATH", "/tk/lib64"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(env["PATH"] == "/tk/bin:/usr/bin");
  // The user adds entries on both sides of ours while inside.
  env["PATH"] = "/user/front:" + env["PATH"] + ":/user/back";
  EnvMap left = left_with(env, owned);
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
  CHECK(left_with(env, owned)["PATH"] == "/a:/tk/bin:/b");
}

TEST_CASE("a list cudaenv created is unset again on leaving") {
  EnvMap env;
  EnvChange change;
  change.prepend = {{"LD_LIBRARY_PATH", "/tk/lib64"}};
  OwnedChange owned = apply_owned(change, env);
  CHECK(left_with(env, owned).count("LD_LIBRARY_PATH") == 0);
}

TEST_CASE("overridden variables get their old values back unless the user changed them") {
  EnvMap env{{"CUDA_HOME", "/opt/cuda"}};
  EnvChange change;
  change.set = {{"CUDA_HOME", "/tk"}, {"CUDACXX", "/tk/bin/nvcc"}, {"CUDAARCHS", "89"}};
  OwnedChange owned = apply_owned(change, env);
  env["CUDAARCHS"] = "90";  // the user's own choice, made inside the project
  EnvMap left = left_with(env, owned);
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
  CHECK(left_with(env, owned)["CUDA_HOME"] == "/orig");
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
