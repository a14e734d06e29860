#include <catch2/catch.hpp>

#include "install/downloader.h"

using namespace cudaenv;

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
