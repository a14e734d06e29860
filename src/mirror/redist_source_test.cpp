#include <catch2/catch.hpp>

#include "mirror/redist_source.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("redist source: the mirror's URL ends in '/', and a bad one names where it was set", "[redist_source]") {
  CHECK(*redist_base_url(mirror_setting("", {}, "https://nvidia.example/cuda/redist/")) == "https://nvidia.example/cuda/redist/");
  CHECK(*redist_base_url(mirror_setting("file:///srv/redist", {}, "https://nvidia/")) == "file:///srv/redist/");
  auto from_env = redist_base_url(mirror_setting("", {{"CUDAENV_MIRROR", "ftp://x"}}, "https://nvidia/"));
  REQUIRE_FALSE(from_env.ok());
  CHECK(from_env.error().message == "mirror CUDAENV_MIRROR=ftp://x is not an http://, https:// or file:// URL");
  CHECK(from_env.error().hint.find("set CUDAENV_MIRROR to https://mirror.example/cuda/redist/") != std::string::npos);
  CHECK(from_env.error().kind == ErrorKind::usage);
  auto from_option = redist_base_url(mirror_setting("mirror.example", {}, "https://nvidia/"));
  REQUIRE_FALSE(from_option.ok());
  CHECK(from_option.error().message.find("--mirror mirror.example") != std::string::npos);
}

TEST_CASE("redist source: the source is the option, CUDAENV_SOURCE, the nearest cuda.toml, else redist", "[redist_source]") {
  MemoryFileSystem disk;
  disk.file("/p/cuda.toml", "[cuda]\nversion = \"13.0\"\nsource = \"pypi\"\n").dir("/p/src").dir("/q");
  CHECK(*install_source("", {}, disk, "/p/src") == InstallSource::pypi);
  CHECK(*install_source("", {}, disk, "/q") == InstallSource::redist);
  CHECK(*install_source("redist", {}, disk, "/p/src") == InstallSource::redist);
  CHECK(*install_source("", {{"CUDAENV_SOURCE", "redist"}}, disk, "/p/src") == InstallSource::redist);
  auto bad = install_source("", {{"CUDAENV_SOURCE", "conda"}}, disk, "/q");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "CUDAENV_SOURCE=conda is not a source");
  CHECK(bad.error().kind == ErrorKind::usage);
}

TEST_CASE("redist source: a set source does not read cuda.toml, so a broken one does not stop it", "[redist_source]") {
  MemoryFileSystem disk;
  disk.file("/p/cuda.toml", "[cuda\n");
  CHECK_FALSE(install_source("", {}, disk, "/p").ok());
  CHECK(*install_source("pypi", {}, disk, "/p") == InstallSource::pypi);
  CHECK(*install_source("", {{"CUDAENV_SOURCE", "pypi"}}, disk, "/p") == InstallSource::pypi);
}

TEST_CASE("redist source: the package index is pip's, without a trailing slash", "[redist_source]") {
  MemoryFileSystem disk;
  disk.file("/home/u/.config/pip/pip.conf", "[global]\nindex-url = https://proxy.example/simple/\n");
  EnvMap home{{"HOME", "/home/u"}, {"XDG_CONFIG_DIRS", "/none"}};
  CHECK(*package_index_url("", {{"XDG_CONFIG_DIRS", "/none"}}, disk) == "https://pypi.org/simple");
  CHECK(index_url_setting("", home, disk).origin() == "/home/u/.config/pip/pip.conf");
  CHECK(*package_index_url("", home, disk) == "https://proxy.example/simple");
  CHECK(*package_index_url("https://option.example/simple//", home, disk) == "https://option.example/simple");
  EnvMap variable{{"PIP_INDEX_URL", "https://env.example/simple"}, {"HOME", "/home/u"}};
  CHECK(index_url_setting("", variable, disk).origin() == "PIP_INDEX_URL");
  auto bad = package_index_url("", {{"PIP_INDEX_URL", "pypi.example"}}, disk);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "package index PIP_INDEX_URL=pypi.example is not an http://, https:// or file:// URL");
}

TEST_CASE("redist source: a full label is taken as it is, without asking the folder", "[redist_source]") {
  auto shipped = load_release_catalog(DataFiles::find({}));
  REQUIRE(shipped.ok());
  REQUIRE_FALSE(shipped->releases.empty());
  // An unreachable folder: a full label must not need it.
  ReleaseSource source("/nonexistent/cache", *shipped, "http://127.0.0.1:9/cuda/redist/", FetchSettings{});
  const std::string& label = shipped->releases.front().label;
  CHECK(*source.resolve(label) == label);
  CHECK_FALSE(source.resolve("not-a-version").ok());
}

TEST_CASE("redist source: a command that reads the package index checks https with pip's cert, others the environment's",
          "[redist_source]") {
  MemoryFileSystem disk;
  disk.file("/etc/pip-ca.pem", "pem").file("/env-ca.pem", "pem");
  EnvMap env{{"PIP_CERT", "/etc/pip-ca.pem"}, {"SSL_CERT_FILE", "/env-ca.pem"}, {"CUDAENV_TEXT_TIMEOUT", "7"}};
  auto index = fetch_settings(env, disk, true);
  REQUIRE(index.ok());
  CHECK(index->certificates.file == "/etc/pip-ca.pem");
  CHECK(index->timeouts.text.value == "7");
  auto other = fetch_settings(env, disk, false);
  REQUIRE(other.ok());
  CHECK(other->certificates.file == "/env-ca.pem");
  auto bad = fetch_settings({{"PIP_CERT", "/missing.pem"}}, disk, true);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("pip's CA bundle") == 0);
  CHECK(bad.error().kind == ErrorKind::usage);
  CHECK(fetch_settings({{"PIP_CERT", "/missing.pem"}}, disk, false).ok());  // not read where no index is
}

TEST_CASE("redist source: the pypi source and NCCL read the package index, cuDNN and the redist source do not",
          "[redist_source]") {
  CHECK(reads_package_index(InstallSource::pypi, {}));
  CHECK(reads_package_index(InstallSource::redist, {"cudnn", "nccl@2.28"}));
  CHECK_FALSE(reads_package_index(InstallSource::redist, {"cudnn@9"}));
  CHECK_FALSE(reads_package_index(InstallSource::redist, {}));
}
