#include <catch2/catch.hpp>

#include "modules/modulefile.h"

using namespace cudaenv;

static Toolkit toolkit_at(const char* home) {
  Toolkit toolkit;
  toolkit.name = "12.1.1";
  toolkit.home = home;
  return toolkit;
}

TEST_CASE("modulefile: Lmod sets the toolkit environment and conflicts with other CUDA modules") {
  auto text = render_modulefile(toolkit_at("/opt/cuda 12"), ModuleFormat::lmod, "test");
  REQUIRE(text.ok());
  CHECK_THAT(*text, Catch::Contains("family(\"cuda\")\nconflict(\"cuda\")\n"));
  CHECK_THAT(*text, Catch::Contains("prepend_path(\"PATH\", [==[/opt/cuda 12/bin]==])\n"));
  CHECK_THAT(*text, Catch::Contains("prepend_path(\"LD_LIBRARY_PATH\", [==[/opt/cuda 12/lib64]==])\n"));
  for (const char* name : {"CUDA_HOME", "CUDA_PATH", "CUDAToolkit_ROOT"}) {
    CHECK_THAT(*text, Catch::Contains(std::string("setenv(\"") + name + "\", [==[/opt/cuda 12]==])\n"));
  }
  CHECK_THAT(*text, Catch::Contains("setenv(\"CUDACXX\", [==[/opt/cuda 12/bin/nvcc]==])\n"));
  CHECK(modulefile_name(toolkit_at("/x"), ModuleFormat::lmod) == "cuda/12.1.1.lua");
}

TEST_CASE("modulefile: Tcl starts with the magic line and braces its values") {
  auto text = render_modulefile(toolkit_at("/opt/cuda"), ModuleFormat::tcl, "test");
  REQUIRE(text.ok());
  CHECK_THAT(*text, Catch::StartsWith("#%Module1.0\n"));
  CHECK_THAT(*text, Catch::Contains("conflict cuda\n"));
  CHECK_THAT(*text, Catch::Contains("prepend-path PATH {/opt/cuda/bin}\n"));
  CHECK_THAT(*text, Catch::Contains("setenv CUDA_HOME {/opt/cuda}\n"));
  CHECK(modulefile_name(toolkit_at("/x"), ModuleFormat::tcl) == "cuda/12.1.1");
}

TEST_CASE("modulefile: paths that cannot be quoted are refused, not mangled") {
  CHECK_FALSE(render_modulefile(toolkit_at("/opt/{cuda}"), ModuleFormat::tcl, "t").ok());
  CHECK_FALSE(render_modulefile(toolkit_at("/opt/a\\b"), ModuleFormat::tcl, "t").ok());
  CHECK_FALSE(render_modulefile(toolkit_at("/opt/say\"hi\""), ModuleFormat::tcl, "t").ok());
  CHECK_FALSE(render_modulefile(toolkit_at("/opt/a\nb"), ModuleFormat::lmod, "t").ok());
  CHECK_FALSE(render_modulefile(toolkit_at("/opt/a\rb"), ModuleFormat::lmod, "t").ok());
  CHECK(render_modulefile(toolkit_at("/opt/{cuda}"), ModuleFormat::lmod, "t").ok());
  CHECK(render_modulefile(toolkit_at("/opt/$x [y] 'z'"), ModuleFormat::tcl, "t").ok());
}

TEST_CASE("modulefile: Lua takes any path, with a long-bracket level the path cannot close") {
  auto text = render_modulefile(toolkit_at("/opt/x]==]y]===]z"), ModuleFormat::lmod, "t");
  REQUIRE(text.ok());
  CHECK_THAT(*text, Catch::Contains("setenv(\"CUDA_HOME\", [====[/opt/x]==]y]===]z]====])\n"));
  // A path ending in "]==" would close "[==[" early with the bracket's own "]==]".
  text = render_modulefile(toolkit_at("/opt/odd]=="), ModuleFormat::lmod, "t");
  REQUIRE(text.ok());
  CHECK_THAT(*text, Catch::Contains("setenv(\"CUDA_HOME\", [===[/opt/odd]==]===])\n"));
  CHECK_THAT(*text, Catch::Contains("whatis([===[Name: CUDA toolkit]===])"));  // one level for the whole file
}
