#include <catch2/catch.hpp>

#include "util/url.h"

using namespace cudaenv;

TEST_CASE("strip_url_query: what names the file a URL serves") {
  CHECK(strip_url_query("https://h/simple/a-1.whl?token=x#sha256=ab") == "https://h/simple/a-1.whl");
  CHECK(strip_url_query("https://h/a.tar.xz#frag?not-a-query") == "https://h/a.tar.xz");
  CHECK(strip_url_query("https://h/a.tar.xz") == "https://h/a.tar.xz");
}
