// What `cudaenv torch` prints, each format checked by parsing it.
#include <catch2/catch.hpp>

#include <toml++/toml.h>
#include <nlohmann/json.hpp>
#include <regex>

#include "support/shipped_torch_matrix.h"
#include "torch/render.h"
#include "util/strings.h"

using namespace cudaenv;

namespace {

const TorchMatrix& matrix() { return testing::shipped_torch_matrix(); }

struct Case {
  TorchQuery query;
  TorchChoice choice;
  TorchInstall install;
};

Case make_case(const char* cuda, const char* torch, std::vector<std::string> packages = {"torch", "torchvision", "torchaudio"}) {
  Case c;
  c.query.cpu = std::string(cuda) == "cpu";
  if (!c.query.cpu) c.query.cuda = parse_version(cuda);
  c.query.cuda_origin = "--cuda";
  c.query.torch = torch;
  c.query.torch_origin = "--torch";
  c.query.driver = "580.65.06";
  c.query.driver_origin = "--driver";
  c.choice = choose_torch(matrix(), c.query).value();
  c.install = plan_torch_install(matrix(), c.choice, packages, false).value();
  return c;
}

// A requirements line pip accepts: an index option, or a PEP 508 name with an == pin.
bool valid_requirement_line(const std::string& line) {
  static const std::regex option(R"(--(index-url|extra-index-url) https://[A-Za-z0-9./_-]+)");
  static const std::regex pin(R"([A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?==[0-9]+(\.[0-9]+)*(\+[a-z0-9.]+)?)");
  return std::regex_match(line, option) || std::regex_match(line, pin);
}

}  // namespace

TEST_CASE("the pip and uv commands pin all three packages against the cuXY index") {
  Case c = make_case("12.4", "2.5.1");
  CHECK(render_command(Installer::pip, c.install) ==
        "pip install torch==2.5.1+cu124 torchvision==0.20.1+cu124 torchaudio==2.5.1+cu124 --index-url "
        "https://download.pytorch.org/whl/cu124");
  CHECK(render_command(Installer::uv, c.install) ==
        "uv pip install torch==2.5.1+cu124 torchvision==0.20.1+cu124 torchaudio==2.5.1+cu124 --index-url "
        "https://download.pytorch.org/whl/cu124");
  CHECK(render_command(Installer::pip, make_case("cpu", "2.0.0").install) ==
        "pip install torch==2.0.0+cpu torchvision==0.15.1+cpu torchaudio==2.0.1+cpu --index-url "
        "https://download.pytorch.org/whl/cpu");
}

TEST_CASE("packages: any of the three, in a fixed order") {
  auto parsed = parse_torch_packages("torchvision, torch");
  REQUIRE(parsed);
  CHECK(*parsed == std::vector<std::string>{"torch", "torchvision"});
  auto typo = parse_torch_packages("torch,torchvison");
  REQUIRE_FALSE(typo);
  CHECK(typo.error().kind == ErrorKind::usage);
  CHECK_THAT(typo.error().hint, Catch::Contains("did you mean torchvision?"));
  CHECK(render_command(Installer::pip, make_case("11.8", "2.7.1", {"torch"}).install) ==
        "pip install torch==2.7.1+cu118 --index-url https://download.pytorch.org/whl/cu118");
}

TEST_CASE("torchaudio after 2.11: left out with a note by default, an error when asked for") {
  Case c = make_case("13.0", "2.14.0");
  CHECK(render_command(Installer::pip, c.install) ==
        "pip install torch==2.14.0+cu130 torchvision==0.29.0+cu130 --index-url https://download.pytorch.org/whl/cu130");
  REQUIRE(c.install.notes.size() == 1);
  CHECK_THAT(c.install.notes[0], Catch::Contains("torchaudio has no release for torch 2.14.0"));
  auto named = plan_torch_install(matrix(), c.choice, {"torch", "torchaudio"}, true);
  REQUIRE_FALSE(named);
  CHECK_THAT(named.error().message, Catch::Contains("torchaudio has no release for torch 2.14.0"));
}

TEST_CASE("requirements output is an index line plus pins, each a valid pip line") {
  for (const char* cuda : {"12.4", "cpu", "10.2"}) {
    Case c = make_case(cuda, std::string(cuda) == "10.2" ? "1.12.1" : "2.5.1");
    std::string text = render_requirements(c.install);
    INFO(text);
    CHECK(text.back() == '\n');
    std::vector<std::string> lines = split(text, '\n');
    lines.pop_back();
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "--index-url " + c.install.index_url);
    for (const std::string& line : lines) CHECK(valid_requirement_line(line));
  }
  CHECK_FALSE(valid_requirement_line("torch=2.5.1"));
  CHECK_FALSE(valid_requirement_line("--index-url"));
}

TEST_CASE("pyproject output loads as TOML with an explicit uv index and a source per package") {
  Case c = make_case("12.8", "2.8.0");
  std::string text = render_pyproject(c.install);
  toml::parse_result parsed = toml::parse(text);
  INFO(text);
  REQUIRE(parsed);
  toml::table& root = parsed.table();
  auto* dependencies = root.at_path("project.dependencies").as_array();
  REQUIRE(dependencies);
  // The local pin where the index's wheels carry it; the public release on macOS, where they do not.
  CHECK(dependencies->size() == 6);
  CHECK(dependencies->at(0).value_or(std::string()) == "torch==2.8.0+cu128; sys_platform == 'linux' or sys_platform == 'win32'");
  CHECK(dependencies->at(1).value_or(std::string()) == "torch==2.8.0; sys_platform == 'darwin'");
  CHECK(dependencies->at(2).value_or(std::string()) ==
        "torchvision==0.23.0+cu128; sys_platform == 'linux' or sys_platform == 'win32'");
  auto* index = root.at_path("tool.uv.index[0]").as_table();
  REQUIRE(index);
  CHECK(index->at("name").value_or(std::string()) == "pytorch-cu128");
  CHECK(index->at("url").value_or(std::string()) == "https://download.pytorch.org/whl/cu128");
  CHECK(index->at("explicit").value_or(false));
  for (const char* package : {"torch", "torchvision", "torchaudio"}) {
    INFO(package);
    auto* source = root.at_path(std::string("tool.uv.sources.") + package + "[0]").as_table();
    REQUIRE(source);
    CHECK(source->at("index").value_or(std::string()) == "pytorch-cu128");
    CHECK(source->at("marker").value_or(std::string()) == "sys_platform == 'linux' or sys_platform == 'win32'");
  }

  toml::parse_result cpu = toml::parse(render_pyproject(make_case("cpu", "2.14.0").install));
  REQUIRE(cpu);
  CHECK(cpu.table().at_path("tool.uv.index[0].name").value_or(std::string()) == "pytorch-cpu");
  CHECK_FALSE(cpu.table().at_path("tool.uv.sources.torch[0].marker"));
  CHECK_FALSE(cpu.table().at_path("tool.uv.sources.torchaudio"));
}

TEST_CASE("JSON output carries every field of the choice") {
  Case c = make_case("12.5", "2.14.0");
  auto json = nlohmann::ordered_json::parse(render_json({c.query, c.choice, c.install, Installer::uv}));
  // The fields in the order render_json writes them, as every --json keeps them.
  REQUIRE(json.size() > 3);
  CHECK(json.begin().key() == "torch");
  CHECK(std::next(json.begin()).key() == "torchvision");
  CHECK(std::next(json.begin(), 3).key() == "packages");
  CHECK(json["torch"] == "2.14.0");
  CHECK(json["torchvision"] == "0.29.0");
  CHECK(json["torchaudio"].is_null());
  CHECK(json["packages"] == nlohmann::ordered_json({{"torch", "2.14.0+cu126"}, {"torchvision", "0.29.0+cu126"}}));
  CHECK(json["match"] == "nearest_minor");
  CHECK(json["variant"] == "cu126");
  CHECK(json["variant_cuda"] == "12.6");
  CHECK(json["release_variants"] == nlohmann::ordered_json({"cu126", "cu130", "cu132"}));
  CHECK(json["pypi_default"] == "cu130");
  CHECK(json["release_python_tags"].empty());  // the shipped table knows no wheels
  CHECK(json["origins"]["release"] == "shipped table");
  CHECK(json["origins"]["index_url"] == "shipped table");
  CHECK(json["variant_is_pypi_default"] == false);
  CHECK(json["cuda"] == "12.5");
  CHECK(json["cuda_origin"] == "--cuda");
  CHECK(json["torch_request"] == "2.14.0");
  CHECK(json["torch_origin"] == "--torch");
  CHECK(json["driver"] == "580.65.06");
  CHECK(json["driver_origin"] == "--driver");
  CHECK(json["min_driver"] == "525.60.13");
  CHECK(json["index_name"] == "pytorch-cu126");
  CHECK(json["index_url"] == "https://download.pytorch.org/whl/cu126");
  CHECK(json["installer"] == "uv");
  CHECK(json["command"] ==
        "uv pip install torch==2.14.0+cu126 torchvision==0.29.0+cu126 --index-url https://download.pytorch.org/whl/cu126");
  CHECK(json["requirements"] == nlohmann::ordered_json({"--index-url https://download.pytorch.org/whl/cu126",
                                                        "torch==2.14.0+cu126", "torchvision==0.29.0+cu126"}));
  CHECK(json["warnings"].size() == 1);
  CHECK(json["notes"].size() == 1);  // torchaudio left out

  auto cpu = nlohmann::json::parse(render_json(
      {make_case("cpu", "2.5.1").query, make_case("cpu", "2.5.1").choice, make_case("cpu", "2.5.1").install, Installer::pip}));
  CHECK(cpu["variant"] == "cpu");
  CHECK(cpu["variant_cuda"].is_null());
  CHECK(cpu["cuda"].is_null());
  CHECK(cpu["min_driver"].is_null());
}
