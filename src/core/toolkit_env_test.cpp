#include <catch2/catch.hpp>

#include "core/toolkit_env.h"

using namespace cudaenv;

static Toolkit installed(const char* home) {
  Toolkit toolkit;
  toolkit.name = "12.1.1";
  toolkit.home = home;
  return toolkit;
}

TEST_CASE("toolkit env: every variable docs/design.md names, pointing at the toolkit") {
  EnvMap env{{"PATH", "/usr/bin:/bin"}, {"HOME", "/home/u"}};
  apply_env_change(toolkit_env_change(installed("/t/12.1.1"), {}), env);
  CHECK(env["PATH"] == "/t/12.1.1/bin:/usr/bin:/bin");
  CHECK(env["LD_LIBRARY_PATH"] == "/t/12.1.1/lib64");
  CHECK(env["CUDA_HOME"] == "/t/12.1.1");
  CHECK(env["CUDA_PATH"] == "/t/12.1.1");
  CHECK(env["CUDAToolkit_ROOT"] == "/t/12.1.1");
  CHECK(env["CUDACXX"] == "/t/12.1.1/bin/nvcc");
  CHECK(env["HOME"] == "/home/u");
  CHECK(env.count("TORCH_CUDA_ARCH_LIST") == 0);
}

TEST_CASE("toolkit env: arch becomes TORCH_CUDA_ARCH_LIST and CUDAARCHS") {
  EnvMap env;
  apply_env_change(toolkit_env_change(installed("/t"), {"8.9", "9.0a", "8.6+PTX"}), env);
  CHECK(env["TORCH_CUDA_ARCH_LIST"] == "8.9;9.0a;8.6+PTX");
  CHECK(env["CUDAARCHS"] == "89;90a;86");
}

TEST_CASE("toolkit env: the system toolkit changes nothing but arch") {
  Toolkit system = installed("/usr/local/cuda");
  system.source = ToolkitSource::system;
  CHECK(toolkit_env_change(system, {}).empty());
  CHECK(toolkit_env_change(system, {"9.0"}).set.size() == 2);
}

TEST_CASE("toolkit env: prepending moves an existing entry to the front instead of doubling it") {
  CHECK(prepend_entry("", "/a") == "/a");
  CHECK(prepend_entry("/b:/a:/c", "/a") == "/a:/b:/c");
  CHECK(prepend_entry("/a", "/a") == "/a");
}

TEST_CASE("toolkit env: renderings for bash/zsh, fish and JSON") {
  EnvMap env{{"PATH", "/usr/bin"}};
  auto values = changed_values(toolkit_env_change(installed("/t/it's"), {}), env);
  REQUIRE(values.size() == 6);
  CHECK(values[0] == std::make_pair(std::string("PATH"), std::string("/t/it's/bin:/usr/bin")));

  std::string posix = render_exports(values, ShellDialect::posix);
  CHECK_THAT(posix, Catch::Contains("export PATH='/t/it'\\''s/bin:/usr/bin';\n"));
  CHECK_THAT(posix, Catch::Contains("export CUDA_HOME='/t/it'\\''s';\n"));

  std::string fish = render_exports(values, ShellDialect::fish);
  CHECK_THAT(fish, Catch::Contains("set -gx PATH '/t/it\\'s/bin' '/usr/bin';\n"));
  CHECK_THAT(fish, Catch::Contains("set -gx CUDA_PATH '/t/it\\'s';\n"));

  std::string json = render_exports(values, ShellDialect::json);
  CHECK_THAT(json, Catch::StartsWith("{\n  \"PATH\": \"/t/it's/bin:/usr/bin\","));
  CHECK(render_exports({}, ShellDialect::json) == "{}\n");
  // In the order given, not sorted; a path that is not UTF-8 still gives valid JSON.
  CHECK(render_exports({{"Z", "1"}, {"A", "/p/\xff"}}, ShellDialect::json) ==
        "{\n  \"Z\": \"1\",\n  \"A\": \"/p/\xef\xbf\xbd\"\n}\n");
}

TEST_CASE("toolkit env: a host compiler's C and C++ drivers, named either way") {
  auto drivers = [](const char* name) {
    auto found = compiler_drivers(name);
    return found ? found->c + " " + found->cxx : std::string("none");
  };
  CHECK(drivers("gcc-12") == "gcc-12 g++-12");
  CHECK(drivers("g++-12") == "gcc-12 g++-12");
  CHECK(drivers("gcc") == "gcc g++");
  CHECK(drivers("x86_64-linux-gnu-gcc-12") == "x86_64-linux-gnu-gcc-12 x86_64-linux-gnu-g++-12");
  CHECK(drivers("/opt/gcc 11/bin/gcc") == "/opt/gcc 11/bin/gcc /opt/gcc 11/bin/g++");
  CHECK(drivers("clang-17") == "clang-17 clang++-17");
  CHECK(drivers("/usr/lib/llvm-17/bin/clang++") == "/usr/lib/llvm-17/bin/clang /usr/lib/llvm-17/bin/clang++");
  CHECK(drivers("cc") == "cc c++");
  CHECK(drivers("/opt/gcc/bin/c++") == "/opt/gcc/bin/cc /opt/gcc/bin/c++");
  CHECK(drivers("icx") == "none");
  CHECK(drivers("/opt/gcc-12/bin/nvc") == "none");  // the folder's name is no compiler's
}

TEST_CASE("toolkit env: the project's host compiler and the extras join the toolkit's change") {
  Selection selection{Request{}, installed("/t/12.4.1"), CudaToml{}, {}};
  selection.project->host_compiler = "gcc-12";
  EnvMap env{{"CC", "cc"}};
  apply_env_change(selection_env_change(selection, SelectionExtras{"cu124", {}}), env);
  CHECK(env["NVCC_CCBIN"] == "g++-12");  // nvcc links with it: the C++ driver
  CHECK(env["CUDAHOSTCXX"] == "g++-12");
  CHECK(env["CC"] == "gcc-12");
  CHECK(env["CXX"] == "g++-12");
  CHECK(env["UV_TORCH_BACKEND"] == "cu124");
  CHECK(env["CUDA_HOME"] == "/t/12.4.1");
  // The shim's change: no extras; and a project without a compiler leaves CC alone.
  selection.project->host_compiler.reset();
  EnvMap plain{{"CC", "cc"}};
  apply_env_change(selection_env_change(selection), plain);
  CHECK(plain["CC"] == "cc");
  CHECK(plain.count("NVCC_CCBIN") == 0);
  CHECK(plain.count("UV_TORCH_BACKEND") == 0);
}
