#include <catch2/catch.hpp>

#include "core/cuda_toml.h"
#include "core/target.h"

using namespace cudaenv;

static const fs::path kFile = "/r/targets/a100.toml";

static Target a100() {
  Target target;
  target.name = "a100";
  target.driver = *parse_driver_version("535.104.05");
  target.cuda = parse_version("12.2");
  target.gpus = {{"NVIDIA A100-SXM4-80GB", ComputeCapability(8, 0)},
                 {"NVIDIA A100-SXM4-80GB", ComputeCapability(8, 0)},
                 {"NVIDIA H100 80GB HBM3", ComputeCapability(9, 0)}};
  target.saved_from = "probed on node17";
  return target;
}

TEST_CASE("target: a rendered file reads back as the same target") {
  Target saved = a100();
  saved.gpus.push_back({"say \"hi\"\n\x1b[31m", ComputeCapability(7, 5)});  // a driver's name is text, quoted
  saved.gpus.push_back({"", ComputeCapability(8, 9)});                      // written by hand
  auto read = parse_target(kFile, render_target(saved));
  REQUIRE(read.ok());
  CHECK(read->name == "a100");
  CHECK(read->path == kFile);
  CHECK(read->driver.text == "535.104.05");
  CHECK(read->cuda == parse_version("12.2"));
  CHECK(read->saved_from == "probed on node17");
  REQUIRE(read->gpus.size() == 5);
  CHECK(read->gpus[0].name == "NVIDIA A100-SXM4-80GB");
  CHECK(read->gpus[2].capability == ComputeCapability(9, 0));
  CHECK(read->gpus[3].name == saved.gpus[3].name);
  CHECK(read->gpus[4].name.empty());
}

TEST_CASE("target: the variables it exports, none the user set") {
  Target target = a100();
  auto variables = target_variables(target, {}, false);
  std::vector<std::pair<std::string, std::string>> expected = {{"TORCH_CUDA_ARCH_LIST", "8.0;9.0"},
                                                               {"CUDAARCHS", "80;90"},
                                                               {"UV_CUDA_DRIVER_VERSION", "535.104.05"},
                                                               {"CONDA_OVERRIDE_CUDA", "12.2"},
                                                               {"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.2"},
                                                               {"NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "9.0"}};
  CHECK(variables == expected);
  // cuda.toml's arch wins for the arch lists; a variable the user set is theirs (an empty one is
  // unset, as everywhere in cudaenv).
  auto kept = target_variables(target, {{"UV_CUDA_DRIVER_VERSION", "550.54.14"}, {"CONDA_OVERRIDE_CUDA", "11.8"}}, true);
  std::vector<std::pair<std::string, std::string>> rest = {{"NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION", "12.2"},
                                                           {"NV_VARIANT_PROVIDER_FORCE_SM_ARCH", "9.0"}};
  CHECK(kept == rest);
  // A driver written by hand, no CUDA known and no GPUs: only the driver.
  Target bare;
  bare.driver = *parse_driver_version("580.65.06");
  CHECK(target_variables(bare, {}, false) ==
        std::vector<std::pair<std::string, std::string>>{{"UV_CUDA_DRIVER_VERSION", "580.65.06"}});
}

TEST_CASE("target: names are file names without surprises") {
  for (const char* good : {"a100", "H100-80GB", "node.17", "x_y"}) CHECK(is_valid_target_name(good));
  for (const char* bad : {"", ".", "..", ".hidden", "-x", "a/b", "a b", "a\nb", "ä"}) CHECK_FALSE(is_valid_target_name(bad));
  CHECK_FALSE(is_valid_target_name(std::string(65, 'a')));
  CHECK(invalid_target_name("a/b", "CUDAENV_TARGET").message == "CUDAENV_TARGET: \"a/b\" is not a target name");
}

TEST_CASE("target: a bad file is an error naming the file and the place") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"", "/r/targets/a100.toml: no [driver] version"},
      {"[driver]\ncuda = \"12.2\"\n", "/r/targets/a100.toml:1:2: [driver] has no version"},
      {"[driver]\nversion = \"five\"\n", "/r/targets/a100.toml:2:11: [driver] version \"five\" is not an NVIDIA driver version"},
      {"[driver]\nversion = 535\n", "/r/targets/a100.toml:2:11: [driver] version must be a string, not an integer"},
      {"[driver]\nversion = \"535.1\"\ncuda = \"12\"\n",
       "/r/targets/a100.toml:3:8: [driver] cuda \"12\" is not a CUDA major.minor"},
      {"driver = 1\n", "/r/targets/a100.toml:1:1: driver must be a table, not an integer"},
      {"gpus = 3\n[driver]\nversion = \"535.1\"\n",
       "/r/targets/a100.toml:1:1: gpus must be an array of tables ([[gpus]]), not an integer"},
      {"[driver]\nversion = \"535.1\"\n[[gpus]]\nname = \"A\"\n",
       "/r/targets/a100.toml:3:1: a [[gpus]] entry has no compute_capability"},
      {"[driver]\nversion = \"535.1\"\n[[gpus]]\ncompute_capability = \"8\"\n",
       "/r/targets/a100.toml:4:22: [[gpus]] compute_capability \"8\" is not a compute capability"},
      {"[driver]\nversion = \"535.1\"\n[[gpus]]\ncompute_capability = \"800.0\"\n",
       "/r/targets/a100.toml:4:22: [[gpus]] compute_capability \"800.0\" is not a compute capability"},
      {"[driver]\nversion = \"535.1\"\n[[gpus]]\ncompute_capability = \"8.0\"\nspeed = 1\n",
       "/r/targets/a100.toml:5:1: unknown key 'gpus.speed'"},
      {"owner = \"x\"\n", "/r/targets/a100.toml:1:1: unknown key 'owner'"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    auto read = parse_target(kFile, c.text);
    REQUIRE_FALSE(read.ok());
    CHECK(read.error().message == c.message);
    CHECK_FALSE(read.error().hint.empty());
  }
  std::string many = "[driver]\nversion = \"535.1\"\n";
  for (int i = 0; i < 65; ++i) many += "[[gpus]]\ncompute_capability = \"8.0\"\n";
  auto refused = parse_target(kFile, many);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message == "/r/targets/a100.toml:3:3: gpus lists 65 GPUs, more than the 64 any machine has");
}

TEST_CASE("cuda.toml: [target] name selects a saved target") {
  auto parsed = parse_cuda_toml("/p/cuda.toml", "[cuda]\nversion = \"12.4\"\n[target]\nname = \"a100\"\n");
  REQUIRE(parsed.ok());
  CHECK(parsed->target == "a100");
  auto bad = parse_cuda_toml("/p/cuda.toml", "[target]\nname = \"../x\"\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "/p/cuda.toml:2:8: [target] name \"../x\" is not a target name");
}
