#include "install/downloader.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/loopback_mirror.h"

using namespace cudaenv;
using cudaenv::testing::LoopbackMirror;
namespace fs = std::filesystem;

namespace {

struct ServedFolder {
  fs::path root = fs::temp_directory_path() / ("cudaenv-downloader-" + std::to_string(::getpid()));
  ServedFolder() { fs::create_directories(root / "files"); }
  ~ServedFolder() { fs::remove_all(root); }
  void write(const std::string& name, const std::string& text) const { std::ofstream(root / name) << text; }
};

}  // namespace

TEST_CASE("downloader: a file the server says it has not is an error of its own kind", "[downloader]") {
  ServedFolder folder;
  folder.write("files/page.html", "<a href=\"x.whl\">x.whl</a>");
  folder.write("faults", "/gone.html 410\n/broken.html 500\n");
  LoopbackMirror mirror(folder.root / "files", folder.root / "faults");
  REQUIRE_FALSE(mirror.url().empty());
  DownloadOptions options;
  options.tries = 1;

  auto page = fetch_text(mirror.url() + "page.html", options);
  REQUIRE(page);
  CHECK(*page == "<a href=\"x.whl\">x.whl</a>");

  auto missing = fetch_text(mirror.url() + "missing.html", options);
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == ErrorKind::not_on_server);
  CHECK(missing.error().message == "cannot download " + mirror.url() + "missing.html: HTTP 404");

  auto gone = fetch_text(mirror.url() + "gone.html", options);
  REQUIRE_FALSE(gone);
  CHECK(gone.error().kind == ErrorKind::not_on_server);
  CHECK(gone.error().message.find("HTTP 410") != std::string::npos);

  // A server that fails, or none at all, says nothing of whether the file exists.
  auto broken = fetch_text(mirror.url() + "broken.html", options);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().kind == ErrorKind::failure);
  CHECK(broken.error().message.find("HTTP 500") != std::string::npos);
  auto unreachable = fetch_text("http://127.0.0.1:9/page.html", options);
  REQUIRE_FALSE(unreachable);
  CHECK(unreachable.error().kind == ErrorKind::failure);
}

TEST_CASE("downloader: the deadlines are the command's settings, checked where a download uses them", "[downloader]") {
  FetchTimeouts defaults;
  CHECK(text_timeout(defaults)->count() == 60);
  CHECK(transfer_deadline(0, defaults)->count() == 600);
  CHECK(transfer_deadline(256 * 1024 * 100, defaults)->count() == 700);

  FetchTimeouts set = fetch_timeouts({{"CUDAENV_TEXT_TIMEOUT", "5"}, {"CUDAENV_DOWNLOAD_TIMEOUT", "90"}});
  CHECK(text_timeout(set)->count() == 5);
  CHECK(transfer_deadline(1ull << 40, set)->count() == 90);
}

TEST_CASE("downloader: a deadline that is no number of seconds is an error naming the variable and its value", "[downloader]") {
  auto text = text_timeout(fetch_timeouts({{"CUDAENV_TEXT_TIMEOUT", "1m"}}));
  REQUIRE_FALSE(text.ok());
  CHECK(text.error().message == "CUDAENV_TEXT_TIMEOUT='1m' is not a number of seconds");
  CHECK(text.error().hint.find("CUDAENV_TEXT_TIMEOUT=300") != std::string::npos);
  auto transfer = transfer_deadline(1, fetch_timeouts({{"CUDAENV_DOWNLOAD_TIMEOUT", "soon"}}));
  REQUIRE_FALSE(transfer.ok());
  CHECK(transfer.error().message == "CUDAENV_DOWNLOAD_TIMEOUT='soon' is not a number of seconds");
  CHECK_FALSE(text_timeout(fetch_timeouts({{"CUDAENV_TEXT_TIMEOUT", "0"}})).ok());
  CHECK_FALSE(text_timeout(fetch_timeouts({{"CUDAENV_TEXT_TIMEOUT", "99999999"}})).ok());
}
TEST_CASE("downloader: https is checked against the certificates its options carry", "[downloader]") {
  ServedFolder folder;
  folder.write("faults", "");
  LoopbackMirror mirror(folder.root / "files", folder.root / "faults");
  REQUIRE_FALSE(mirror.url().empty());
  std::string https = "https://" + mirror.url().substr(std::string("http://").size()) + "page.html";
  // Each transfer names the certificates of its own options: the environment each was found in.
  for (const char* variable : {"SSL_CERT_FILE", "CURL_CA_BUNDLE"}) {
    std::string missing = (folder.root / (std::string(variable) + ".pem")).string();
    DownloadOptions options;
    options.tries = 1;
    options.fetch.certificates = find_ca_certificates({{variable, missing}}, RealFileSystem());
    auto page = fetch_text(https, options);
    REQUIRE_FALSE(page);
    CHECK(page.error().message.find("the certificates checked against were " + std::string(variable) + "=" + missing) !=
          std::string::npos);
  }
}
