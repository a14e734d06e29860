// pip's configuration files, read as pip reads them for its index-url.
#include <catch2/catch.hpp>

#include "install/pip_config.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("pip's configuration: files in pip's order, [install] over [global]") {
  MemoryFileSystem fs;
  EnvMap env{{"HOME", "/h"}, {"VIRTUAL_ENV", "/v"}, {"PIP_CONFIG_FILE", "/p.conf"}};
  auto paths_of = [](const std::vector<std::filesystem::path>& files) {
    std::vector<std::string> out;
    for (const auto& file : files) out.push_back(file.string());
    return out;
  };
  CHECK(paths_of(pip_config_files(env, fs)) == std::vector<std::string>{"/etc/xdg/pip/pip.conf", "/etc/pip.conf",
                                                                        "/h/.pip/pip.conf", "/h/.config/pip/pip.conf",
                                                                        "/v/pip.conf", "/p.conf"});
  fs.file("/p.conf", "[global]\nindex-url = https://env-file\n");  // an existing PIP_CONFIG_FILE: no user files
  CHECK(paths_of(pip_config_files(env, fs)) ==
        std::vector<std::string>{"/etc/xdg/pip/pip.conf", "/etc/pip.conf", "/v/pip.conf", "/p.conf"});
  CHECK(pip_config_files({{"HOME", "/h"}, {"PIP_CONFIG_FILE", "/dev/null"}}, fs).empty());
  CHECK(pip_config_files({{"HOME", "/h"}, {"XDG_CONFIG_HOME", "/x"}, {"XDG_CONFIG_DIRS", "/a:/b"}}, fs).size() == 5);

  fs.file("/etc/pip.conf", "[global]\nindex-url = https://global\n");
  fs.file("/h/.config/pip/pip.conf", "[install]\nindex-url = https://user\n");
  fs.file("/v/pip.conf", "[global]\ntimeout = 3\n");
  EnvMap plain{{"HOME", "/h"}, {"VIRTUAL_ENV", "/v"}};
  CHECK(pip_index_url(plain, fs)->value == "https://user");
  CHECK(pip_index_url(plain, fs)->kind == OriginKind::global_file);
  CHECK(pip_index_url(plain, fs)->origin() == "/h/.config/pip/pip.conf");
  CHECK(pip_index_url(env, fs)->value == "https://env-file");
  env["PIP_INDEX_URL"] = "https://variable";
  CHECK(pip_index_url(env, fs)->value == "https://variable");
  CHECK(pip_index_url(env, fs)->origin() == "PIP_INDEX_URL");
  CHECK(!pip_index_url({{"HOME", "/nobody"}}, MemoryFileSystem()));

  CHECK(pip_config_index_url("[global]\nindex-url = https://g/simple\n") == "https://g/simple");
  CHECK(pip_config_index_url("[install]\nindex_url: https://i\n[global]\nindex-url=https://g\n") == "https://i");
  CHECK(pip_config_index_url("# [global]\n[global]\n; index-url = x\ntimeout = 60\n[list]\nindex-url = l\n") == std::nullopt);
  CHECK(pip_config_index_url("index-url = outside a section\n") == std::nullopt);
  CHECK(pip_config_index_url("[GLOBAL]\r\nIndex-URL = https://crlf\r\n") == "https://crlf");
}
