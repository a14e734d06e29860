#include <catch2/catch.hpp>

#include "shell/hook.h"
#include "support/memory_file_system.h"
#include "util/strings.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

namespace {

// Plays the shell: runs the `export NAME='v';` / `unset NAME;` statements the hook
// prints (values may span lines and hold '\'' escapes).
void apply_posix(const std::string& code, EnvMap& env) {
  size_t at = 0;
  auto read_until = [&](char end) {
    size_t stop = code.find(end, at);
    std::string text = code.substr(at, stop - at);
    at = stop + 1;
    return text;
  };
  while (at < code.size()) {
    if (code[at] == '\n') {
      ++at;
    } else if (code.compare(at, 6, "unset ") == 0) {
      at += 6;
      env.erase(read_until(';'));
    } else {
      REQUIRE(code.compare(at, 7, "export ") == 0);
      at += 7;
      std::string name = read_until('=');
      std::string value;
      while (code[at] == '\'') {
        ++at;
        value += read_until('\'');
        if (code.compare(at, 2, "\\'") != 0) break;
        value += '\'';
        at += 2;
      }
      REQUIRE(code[at] == ';');
      ++at;
      env[name] = value;
    }
  }
}

struct Fixture {
  MemoryFileSystem fs;
  Layout layout{"/r", std::nullopt};
  EnvMap env{{"PATH", "/usr/bin"}, {"HOME", "/home/u"}};
  bool trusted = false;
  HookEffects effects{[this](const fs::path& path) {
                        // A stamp named after the content stands in for the mtime.
                        if (fs.kind(path) == EntryKind::missing) return Watch{path, std::nullopt};
                        return Watch{path,
                                     fs::path("/stamp/" + std::to_string(std::hash<std::string>()(
                                                              fs.kind(path) == EntryKind::file ? *fs.read_file(path) : "dir")))};
                      },
                      [this](const CudaToml&) { return trusted; }};

  Fixture() {
    fs.file("/r/versions/12.1.1/bin/nvcc", "", true).file("/r/versions/12.4.1/bin/nvcc", "", true);
    fs.file("/p/cuda.toml", "[cuda]\nversion = \"12.1\"\narch = [\"8.9\"]\n").dir("/p/sub").dir("/home/u");
  }

  std::vector<std::string> cd(const fs::path& dir) {
    HookResult result = run_hook(fs, env, dir, layout, effects, ShellDialect::posix);
    apply_posix(result.code, env);
    return result.messages;
  }
};

}  // namespace

TEST_CASE("entering a project applies its toolkit and says so once") {
  Fixture f;
  CHECK(f.cd("/home/u").empty());
  auto messages = f.cd("/p");
  REQUIRE(messages.size() == 1);
  CHECK(messages[0] == "cudaenv: CUDA 12.1.1 (cuda.toml)");
  CHECK(f.env["PATH"] == "/r/versions/12.1.1/bin:/usr/bin");
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.1.1");
  CHECK(f.env["TORCH_CUDA_ARCH_LIST"] == "8.9");
  CHECK(f.cd("/p/sub").empty());
  CHECK(f.cd("/p/sub").empty());
}

TEST_CASE("leaving a project restores the environment and keeps the user's additions") {
  Fixture f;
  f.env["CUDA_HOME"] = "/opt/cuda";
  f.cd("/p");
  f.env["PATH"] = "/mine:" + f.env["PATH"];
  auto messages = f.cd("/home/u");
  CHECK(f.env["PATH"] == "/mine:/usr/bin");
  CHECK(f.env["CUDA_HOME"] == "/opt/cuda");
  CHECK(f.env.count("TORCH_CUDA_ARCH_LIST") == 0);
  CHECK(f.env.count("LD_LIBRARY_PATH") == 0);
  REQUIRE(messages.size() == 1);
  CHECK(messages[0] == "cudaenv: no CUDA toolkit selected");
}

TEST_CASE("CUDAENV_VERSION takes precedence over cuda.toml, CUDAENV_QUIET silences the line") {
  Fixture f;
  f.env["CUDAENV_VERSION"] = "12.4";
  f.env["CUDAENV_QUIET"] = "1";
  CHECK(f.cd("/p").empty());
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.4.1");
  CHECK(f.env["TORCH_CUDA_ARCH_LIST"] == "8.9");  // the arch list still comes from cuda.toml
}

TEST_CASE("a broken cuda.toml is reported once per change of the file") {
  Fixture f;
  f.fs.file("/p/cuda.toml", "[cuda]\nversion = \n");
  auto first = f.cd("/p");
  REQUIRE(!first.empty());
  CHECK(first[0].find("cudaenv: error: /p/cuda.toml:2:") == 0);
  CHECK(f.env.count("CUDA_HOME") == 0);
  CHECK(f.cd("/p/sub").empty());
  f.fs.file("/p/cuda.toml", "[cuda]\nversion = \n# still broken\n");
  CHECK(!f.cd("/p/sub").empty());
}

TEST_CASE("[env] waits for trust, with a notice that says how") {
  Fixture f;
  f.fs.file("/p/cuda.toml", "[cuda]\nversion = \"12.1\"\n[env]\nNCCL_DEBUG = \"INFO\"\n");
  auto messages = f.cd("/p");
  REQUIRE(messages.size() == 2);
  CHECK(messages[0] == "cudaenv: /p/cuda.toml sets [env] (NCCL_DEBUG), not applied: run `cudaenv trust` to allow it");
  CHECK(f.env.count("NCCL_DEBUG") == 0);
  CHECK(f.cd("/p/sub").empty());
  f.trusted = true;
  CHECK(f.cd("/p").empty());
  CHECK(f.env["NCCL_DEBUG"] == "INFO");
  f.cd("/home/u");
  CHECK(f.env.count("NCCL_DEBUG") == 0);
}

TEST_CASE("the hook watches the folders where a nearer cuda.toml would take over") {
  Fixture f;
  HookResult result = run_hook(f.fs, f.env, "/p/sub", f.layout, f.effects, ShellDialect::posix);
  const FastPath& fast = result.fast_path;
  CHECK(fast.dir == "/p/sub");
  CHECK(fast.scope == "/p");
  REQUIRE(fast.folders.size() == 1);
  CHECK(fast.folders[0].path == "/p/sub/cuda.toml");
  CHECK(!fast.folders[0].stamp);
  REQUIRE(fast.fixed.size() == 3);
  CHECK(fast.fixed[0].path == "/p/cuda.toml");
  CHECK(fast.fixed[0].stamp);
  // The global file decides too once the project file pins nothing (`use --unset`).
  CHECK(fast.fixed[1].path == "/r/version");
  CHECK(fast.fixed[2].path == "/r/versions");
}

TEST_CASE("outside any project the scope is / and the global file decides") {
  Fixture f;
  f.fs.dir("/home/u/a/b");
  HookResult result = run_hook(f.fs, f.env, "/home/u/a/b", f.layout, f.effects, ShellDialect::posix);
  const FastPath& fast = result.fast_path;
  CHECK(fast.scope == "/");
  REQUIRE(fast.folders.size() == 4);
  CHECK(fast.folders[0].path == "/home/u/a/b/cuda.toml");
  CHECK(fast.folders[3].path == "/home/cuda.toml");
  REQUIRE(fast.fixed.size() == 3);
  CHECK(fast.fixed[0].path == "/cuda.toml");
  CHECK(!fast.fixed[0].stamp);
  CHECK(fast.fixed[1].path == "/r/version");
  f.env["CUDAENV_VERSION"] = "12.4";
  CHECK(run_hook(f.fs, f.env, "/home/u/a/b", f.layout, f.effects, ShellDialect::posix).fast_path.fixed.size() == 2);
}

TEST_CASE("a huge [env] is refused once, and the state stays under the kernel's limit") {
  Fixture f;
  std::string toml = "[cuda]\nversion = \"12.1\"\n[env]\n";
  for (int i = 0; i < 20000; ++i) toml += "VARIABLE_" + std::to_string(i) + " = \"some value " + std::to_string(i) + "\"\n";
  f.fs.file("/p/cuda.toml", toml);
  f.trusted = true;
  auto messages = f.cd("/p");
  REQUIRE(messages.size() >= 2);
  CHECK_THAT(messages[0], Catch::Contains("the [env] of /p/cuda.toml (20000 variables) is too large for the shell"));
  CHECK_THAT(messages[0], Catch::Contains("[env] not applied"));
  CHECK(f.env.count("VARIABLE_0") == 0);
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.1.1");
  for (const auto& [name, value] : f.env) CHECK(name.size() + value.size() < kStateLimit);
  CHECK(f.cd("/p/sub").empty());
  CHECK(f.cd("/p").empty());

  f.trusted = false;  // untrusted: the notice names ten and counts the rest
  f.fs.file("/p/cuda.toml", toml + "# edited\n");
  messages = f.cd("/p");
  REQUIRE_FALSE(messages.empty());
  CHECK_THAT(messages[0], Catch::EndsWith("VARIABLE_9 and 19990 more), not applied: run `cudaenv trust` to allow it"));
}

TEST_CASE("one [env] value too large for the state is refused too, and a huge own variable stops all") {
  Fixture f;
  f.fs.file("/p/cuda.toml", "[cuda]\nversion = \"12.1\"\n[env]\nBIG = \"" + std::string(100000, 'x') + "\"\n");
  f.trusted = true;
  auto messages = f.cd("/p");
  REQUIRE_FALSE(messages.empty());
  CHECK_THAT(messages[0], Catch::Contains("(1 variable) is too large for the shell"));
  CHECK(f.env.count("BIG") == 0);
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.1.1");
  f.cd("/home/u");

  // The toolkit's own record holds CUDA_HOME's previous value: one this large cannot be kept.
  f.fs.file("/p/cuda.toml", "[cuda]\nversion = \"12.1\"\n");
  f.env["CUDA_HOME"] = "/" + std::string(70000, 'y');
  messages = f.cd("/p");
  REQUIRE_FALSE(messages.empty());
  CHECK_THAT(messages[0], Catch::StartsWith("cudaenv: the toolkit's environment is too large for the shell"));
  CHECK(f.env["CUDA_HOME"].size() == 70001);
  CHECK(f.env[kStateVariable].size() < kStateLimit);
}

TEST_CASE("an [env] that fits is applied in full") {
  Fixture f;
  std::string toml = "[cuda]\nversion = \"12.1\"\n[env]\n";
  for (int i = 0; i < 200; ++i) toml += "VARIABLE_" + std::to_string(i) + " = \"value\"\n";
  f.fs.file("/p/cuda.toml", toml);
  f.trusted = true;
  f.cd("/p");
  CHECK(f.env["VARIABLE_199"] == "value");
}

TEST_CASE("a project file that pins no version leaves the toolkit to the global file") {
  Fixture f;
  f.fs.file("/r/version", "12.4\n");
  f.fs.file("/q/cuda.toml", "[torch]\nversion = \"2.1.2\"\n");
  f.cd("/q");
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.4.1");
}

TEST_CASE("a shell start in a folder with only a global default says nothing") {
  Fixture f;
  f.fs.file("/r/version", "12.4\n");
  CHECK(f.cd("/home/u").empty());
  CHECK(f.env["CUDA_HOME"] == "/r/versions/12.4.1");
}
