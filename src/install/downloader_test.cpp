#include "install/downloader.h"

#include <unistd.h>
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "install/arriving_file.h"
#include "support/loopback_mirror.h"
#include "util/sha256.h"

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

namespace {

// Reads `file` to its end on a thread of its own, after `delay`: an extraction that lags.
struct SlowReader {
  ArrivingFile& file;
  std::string got;
  bool ended = false;
  std::thread thread;
  SlowReader(ArrivingFile& arriving, std::chrono::milliseconds delay) : file(arriving) {
    thread = std::thread([this, delay] {
      if (!file.wait_begun()) return;
      std::this_thread::sleep_for(delay);
      std::string buffer(1 << 16, '\0');
      while (true) {
        auto n = file.read({reinterpret_cast<std::uint8_t*>(buffer.data()), buffer.size()});
        if (!n) return;
        if (*n == 0) break;
        got.append(buffer, 0, *n);
      }
      ended = true;
    });
  }
  ~SlowReader() {
    file.stop();
    if (thread.joinable()) thread.join();
  }
  void join() { thread.join(); }
};

std::string pseudo_random_bytes(size_t size) {
  std::string bytes(size, '\0');
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (char& c : bytes) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    c = static_cast<char>(x);
  }
  return bytes;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("downloader: a download that outruns its extraction stops growing its .part, and a later run resumes from it",
          "[downloader]") {
  ServedFolder folder;
  const std::string body = pseudo_random_bytes(12 << 20);
  folder.write("files/big.whl", body);
  folder.write("faults", "");
  fs::path log = folder.root / "requests.log";
  LoopbackMirror mirror(folder.root / "files", folder.root / "faults", log);
  REQUIRE_FALSE(mirror.url().empty());
  Sha256 hash;
  hash.update(body.data(), body.size());
  fs::path cache = folder.root / "cache";
  fs::create_directories(cache);
  DownloadJob job{
      .archive = Archive{.name = "big", .url = mirror.url() + "big.whl", .sha256 = hash.finish(), .size = body.size()},
      .destination = cache / "big.whl",
      .in_memory = true};
  DownloadOptions options;
  std::unique_ptr<FILE, int (*)(FILE*)> quiet(std::fopen("/dev/null", "w"), std::fclose);
  REQUIRE(quiet);
  ProgressReporter progress(quiet.get(), false);
  progress.begin({"big"}, {body.size()});

  // Downloads the job while a reader that begins after `delay` reads it: the reader gets each
  // byte once, and the end.
  auto download_while_reading = [&](std::chrono::milliseconds delay) {
    ArrivingFile arriving;
    job.arriving = &arriving;
    SlowReader reader(arriving, delay);
    REQUIRE(download_all({job}, options, progress));
    reader.join();
    job.arriving = nullptr;
    CHECK(reader.ended);
    CHECK(reader.got.size() == body.size());
    CHECK((reader.got == body));  // not printed: 12 MiB
  };
  // Long enough for the transfer to pause (4 MB unread).
  const std::chrono::milliseconds lagging{300};

  SECTION("only to resume: the file stops where the transfer first paused") {
    job.only_to_resume = true;
    download_while_reading(lagging);
    CHECK_FALSE(fs::exists(job.destination));
    std::string part = file_text(part_path(job.destination));
    CHECK(part.size() >= (4u << 20));
    CHECK(part.size() < body.size());
    CHECK((part == body.substr(0, part.size())));

    // The install failed after all: the next run resumes after those bytes, reading them from the
    // file and the rest from the transfer.
    fs::remove(log);
    download_while_reading(std::chrono::milliseconds(0));
    CHECK(file_text(log).find("GET /big.whl range=" + std::to_string(part.size())) != std::string::npos);
  }

  SECTION("a server that cannot resume the file an earlier run left sends it whole, and the reader gets each byte once") {
    job.only_to_resume = true;
    folder.write("cache/big.whl.part", body.substr(0, 1000));
    folder.write("faults", "/big.whl no-range\n");
    download_while_reading(std::chrono::milliseconds(0));
    CHECK(file_text(log) == "GET /big.whl range=1000\nGET /big.whl range=-\n");
  }

  SECTION("... and when it sends other bytes, the download fails and the file is deleted") {
    folder.write("cache/big.whl.part", body.substr(0, 1000));
    folder.write("faults", "/big.whl no-range-corrupt\n");
    ArrivingFile arriving;
    job.arriving = &arriving;
    SlowReader reader(arriving, std::chrono::milliseconds(0));
    auto downloaded = download_all({job}, options, progress);
    REQUIRE_FALSE(downloaded);
    CHECK(downloaded.error().message.find("sent other bytes when its download started again from the first byte") !=
          std::string::npos);
    CHECK_FALSE(fs::exists(part_path(job.destination)));
    arriving.stop();
    reader.join();
    CHECK_FALSE(reader.ended);
    CHECK((reader.got == body.substr(0, 1000)));  // what the file held; nothing of the other bytes
  }

  SECTION("read back from the file: it is made whole however far the extraction lags") {
    job.in_memory = false;
    job.only_to_resume = true;
    download_while_reading(lagging);
    CHECK((file_text(job.destination) == body));
  }

  SECTION("kept: the file is made whole however far the extraction lags") {
    download_while_reading(lagging);
    CHECK((file_text(job.destination) == body));
    CHECK_FALSE(fs::exists(part_path(job.destination)));
  }
}
