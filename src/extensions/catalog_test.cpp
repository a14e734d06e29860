// manifests/extensions.toml as shipped, and the parser's errors for a broken one: each names
// the file, line and column, and what to write.
#include <catch2/catch.hpp>

#include "extensions/catalog.h"
#include "support/shipped_extension_catalog.h"

using namespace cudaenv;

namespace {

const ExtensionCatalog& shipped() { return testing::shipped_extension_catalog(); }

std::string error_of(const std::string& text) {
  auto parsed = parse_extension_catalog("/m/extensions.toml", text);
  REQUIRE_FALSE(parsed);
  return parsed.error().message;
}

const char* kHead = "[abi]\ncxx11_from = \"2.7.0\"\n";

}  // namespace

TEST_CASE("the shipped catalog knows the extensions of issue 36, each as its project publishes it") {
  const ExtensionCatalog& catalog = shipped();
  CHECK(catalog.cxx11_from == *parse_version("2.7.0"));
  for (const char* name : {"flash-attn", "xformers", "vllm", "deepspeed", "bitsandbytes", "apex", "mamba-ssm", "causal-conv1d",
                           "torchvision", "torchaudio"}) {
    INFO(name);
    CHECK(catalog.find(name) != nullptr);
  }
  CHECK(catalog.find("flash_attn") == catalog.find("Flash-Attn"));
  const ExtensionEntry* flash = catalog.find("flash-attn");
  CHECK(flash->kind == Publishing::wheels);
  CHECK(flash->job_memory_gb == 9);
  CHECK(flash->wheel.find("cu{cuda_major}torch{torch_minor}cxx11abi{cxx11abi}-{python}-{python}-{platform}.whl") !=
        std::string::npos);
  CHECK(catalog.find("xformers")->kind == Publishing::pytorch_index);
  CHECK(catalog.find("apex")->kind == Publishing::source);
  REQUIRE(catalog.find("vllm")->releases.size() == 1);
  CHECK(catalog.find("vllm")->releases[0].torch == *parse_version("2.13.0"));
}

TEST_CASE("a broken catalog is an error at its place in the file") {
  CHECK(error_of("x = 1\n") == "/m/extensions.toml:1:1: unknown key 'x'");
  CHECK(error_of(std::string(kHead)) == "/m/extensions.toml:1:1: no [[package]] tables");
  CHECK(error_of("[[package]]\nname = \"a\"\nkind = \"source\"\nsource = \"a\"\njob_memory_gb = 1\n") ==
        "/m/extensions.toml:1:1: no [abi] table with cxx11_from");
  std::string package = std::string(kHead) + "[[package]]\nname = \"a\"\nsource = \"a\"\njob_memory_gb = 1\n";
  CHECK(error_of(package + "kind = \"conda\"\n") ==
        "/m/extensions.toml:7:8: kind 'conda' is none of pytorch-index, wheels, pypi, source");
  CHECK(error_of(package + "kind = \"wheels\"\nlatest = \"1.0\"\n") == "/m/extensions.toml:3:1: missing key 'wheel'");
  CHECK(error_of(package + "kind = \"wheels\"\nlatest = \"1\"\nwheel = \"https://x/{version}-{abi}.whl\"\n") ==
        "/m/extensions.toml:9:9: wheel holds '{abi}', which is none of {version} {cuda_major} {torch_minor} {cxx11abi} "
        "{python} {platform}");
  CHECK(error_of(package + "kind = \"wheels\"\nlatest = \"1\"\nwheel = \"ftp://x/a.whl\"\n") ==
        "/m/extensions.toml:9:9: wheel 'ftp://x/a.whl' is not an http(s) URL");
  CHECK(error_of(std::string(kHead) + "[[package]]\nname = \"a\"\nkind = \"source\"\nsource = \"a\"\njob_memory_gb = 0\n") ==
        "/m/extensions.toml:7:17: job_memory_gb must be a number of gigabytes between 0.25 and 1024");
  CHECK(error_of(package + "kind = \"source\"\nbuild_env = { \"rm -rf\" = \"1\" }\n") ==
        "/m/extensions.toml:8:15: 'rm -rf' is not an environment variable name (A-Z, 0-9, _)");
  CHECK(error_of(package + "kind = \"source\"\n" +
                 "[[package]]\nname = \"A\"\nkind = \"source\"\nsource = \"a\"\njob_memory_gb = 1\n") ==
        "/m/extensions.toml:8:1: package 'A' is listed twice");
  CHECK(error_of(package + "kind = \"pypi\"\n[[package.release]]\nversion = \"1\"\ntorch = \"2.1\"\ncuda_major = 12\n") ==
        "/m/extensions.toml:10:9: '2.1' is not a version of 3 numbers");
  CHECK(error_of("[abi\n").find("/m/extensions.toml:1:") == 0);
}
