// Reading a PyTorch wheel index (PEP 503 HTML, PEP 691 JSON, PEP 658 metadata) and bringing the
// shipped table up to date with it.
#include <catch2/catch.hpp>

#include "support/shipped_torch_matrix.h"
#include "torch/choose.h"
#include "torch/discovery.h"
#include "torch/index_parser.h"
#include "torch/render.h"

using namespace cudaenv;

namespace {

// The shape of download.pytorch.org/whl/torch/: one anchor per file, hrefs into the variant folders.
const char* kTorchPage = R"(<!DOCTYPE html>
<html><body><h1>Links for torch</h1>
<a href="/whl/cu121/torch-2.1.2%2Bcu121-cp311-cp311-linux_x86_64.whl#sha256=ab" data-dist-info-metadata="sha256=cd">torch-2.1.2+cu121-cp311-cp311-linux_x86_64.whl</a><br/>
<a href="/whl/cu118/torch-2.1.2%2Bcu118-cp311-cp311-linux_x86_64.whl#sha256=ab">torch-2.1.2+cu118-cp311-cp311-linux_x86_64.whl</a><br/>
<a href="/whl/cpu/torch-2.1.2%2Bcpu-cp310-cp310-win_amd64.whl">torch-2.1.2+cpu-cp310-cp310-win_amd64.whl</a><br/>
<A HREF='/whl/cu132/torch-2.16.0%2Bcu132-cp313-cp313-manylinux_2_28_x86_64.whl' data-core-metadata="true">x</A>
<a href="/whl/cu130/torch-2.16.0%2Bcu130-cp313-cp313-manylinux_2_28_aarch64.whl" data-core-metadata="false">y</a>
<a href="/whl/cu130/torch-2.16.0rc1%2Bcu130-cp313-cp313-linux_x86_64.whl">rc</a>
<a href="/whl/rocm6.2/torch-2.5.1%2Brocm6.2-cp312-cp312-linux_x86_64.whl">rocm</a>
<a href="torch_stable.html">not a wheel</a>
</body></html>)";

TorchIndexSnapshot snapshot_with_2_16() {
  TorchIndexSnapshot snapshot;
  snapshot.base = "http://127.0.0.1:1/whl";
  snapshot.fetched_at = 1000;
  auto files = parse_project_page(kTorchPage);
  snapshot.torch = releases_on_page(files, "torch");
  snapshot.torchvision = {"0.16.2", "0.31.0"};
  snapshot.torchvision_for = {{"2.16.0", "0.31.0"}};
  return snapshot;
}

}  // namespace

TEST_CASE("wheel names: package, public version, local tag, Python tag, platform") {
  auto wheel = parse_wheel_name("torch-2.1.2+cu121-cp311-cp311-linux_x86_64.whl");
  REQUIRE(wheel);
  CHECK(wheel->package == "torch");
  CHECK(wheel->version == "2.1.2");
  CHECK(wheel->local == "cu121");
  CHECK(wheel->python_tag == "cp311");
  CHECK(wheel->platform == "linux_x86_64");
  CHECK(parse_wheel_name("torchvision-0.29.2-1-py3-none-manylinux_2_28_x86_64.whl")->local.empty());
  CHECK_FALSE(parse_wheel_name("torch-2.1.2.tar.gz"));
  CHECK_FALSE(parse_wheel_name("torch-2.1.2-cp311.whl"));
  CHECK_FALSE(parse_wheel_name("--cp311-cp311-x.whl"));
  CHECK(cuda_of_local("cu121")->str() == "12.1");
  CHECK(cuda_of_local("cu92")->str() == "9.2");
  CHECK(cuda_of_local("cu132")->str() == "13.2");
  CHECK_FALSE(cuda_of_local("cpu"));
  CHECK_FALSE(cuda_of_local("rocm6.2"));
  CHECK_FALSE(cuda_of_local("cu1x1"));
}

TEST_CASE("PEP 503 pages: anchors, percent-encoded hrefs, PEP 658/714 metadata attributes") {
  auto files = parse_project_page(kTorchPage);
  REQUIRE(files.size() == 8);
  CHECK(files[0].filename == "torch-2.1.2+cu121-cp311-cp311-linux_x86_64.whl");
  CHECK(files[0].url == "/whl/cu121/torch-2.1.2%2Bcu121-cp311-cp311-linux_x86_64.whl");
  CHECK(files[0].has_metadata);
  CHECK_FALSE(files[1].has_metadata);
  CHECK(files[3].filename == "torch-2.16.0+cu132-cp313-cp313-manylinux_2_28_x86_64.whl");
  CHECK(files[3].has_metadata);
  CHECK_FALSE(files[4].has_metadata);  // data-core-metadata="false"

  auto releases = releases_on_page(files, "torch");
  REQUIRE(releases.size() == 3);  // 2.1.2, 2.5.1 (ROCm only), 2.16.0; never the rc
  CHECK(releases[0].version.str() == "2.1.2");
  CHECK(releases[0].cuda == std::vector<Version>{*parse_version("11.8"), *parse_version("12.1")});
  CHECK(releases[0].cpu);
  CHECK(releases[0].python_tags == std::set<std::string>{"cp310", "cp311"});
  CHECK(releases[1].cuda.empty());
  CHECK(releases[2].version.str() == "2.16.0");
  CHECK(releases[2].cuda == std::vector<Version>{*parse_version("13.0"), *parse_version("13.2")});
  CHECK(releases[2].platforms.count("manylinux_2_28_aarch64"));
}

TEST_CASE("PEP 691 JSON pages: files with filename, url and core-metadata") {
  const char* page = R"({"meta": {"api-version": "1.1"}, "name": "torchvision", "files": [
    {"filename": "torchvision-0.31.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl",
     "url": "https://proxy.example/whl/cu130/torchvision-0.31.0%2Bcu130-cp313-cp313-manylinux_2_28_x86_64.whl",
     "hashes": {"sha256": "00"}, "core-metadata": {"sha256": "11"}},
    {"filename": "torchvision-0.30.0+cu130-cp313-cp313-win_amd64.whl", "url": "../cu130/x.whl", "dist-info-metadata": false},
    {"filename": 5, "url": "y"}, "garbage", {"url": ""}]})";
  auto files = parse_project_page(page);
  REQUIRE(files.size() == 3);
  CHECK(files[0].has_metadata);
  CHECK_FALSE(files[1].has_metadata);
  CHECK(files[2].filename == "y");
  auto releases = releases_on_page(files, "torchvision");
  REQUIRE(releases.size() == 2);
  CHECK(releases[1].version.str() == "0.31.0");
}

TEST_CASE("hostile pages: garbage, truncation and huge attributes end in no files, never a crash") {
  for (const char* text : {"", "<", "<a", "<a href", "<a href=\"", "<a href=>", "{", "{\"files\": 3}", "{\"files\": [[[]]]}",
                           "<a href=\"torch-2.1.2+cu121-cp311-cp311-x.whl\"", "&#99999999999;<a x=&amp", "\x00\xff<a\x00>"}) {
    INFO(text);
    auto files = parse_project_page(text);
    CHECK(releases_on_page(files, "torch").empty());
  }
  std::string long_page = "<a href=\"" + std::string(1 << 20, 'x') + "\">";
  CHECK(parse_project_page(long_page).size() == 1);
}

TEST_CASE("core metadata: Requires-Dist torch==X pairs a torchvision or torchaudio with its torch") {
  CHECK(required_torch("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.31.0+cu130\nRequires-Dist: numpy\n"
                       "Requires-Dist: torch==2.16.0\n\nRequires-Dist: torch==9.9.9\n") == std::optional<std::string>("2.16.0"));
  CHECK(required_torch("Requires-Dist: torch (==2.1.2+cu121)\r\n") == std::optional<std::string>("2.1.2"));
  CHECK_FALSE(required_torch("Requires-Dist: torch>=2.14.0\n"));  // the stable-ABI builds: no pairing
  CHECK_FALSE(required_torch("Requires-Dist: torchaudio==2.1.2\n"));
  CHECK_FALSE(required_torch("Requires-Dist: torch==2.1.2; extra == \"x\"\n"));
  CHECK_FALSE(required_torch("Requires-Dist: torch==2.1\n"));
  CHECK_FALSE(required_torch(""));
}

TEST_CASE("relative hrefs resolve against the page, as pip does") {
  CHECK(resolve_url("http://h:1/whl/torch/", "/whl/cu121/t.whl") == "http://h:1/whl/cu121/t.whl");
  CHECK(resolve_url("http://h:1/whl/torch/", "../cu121/t.whl") == "http://h:1/whl/cu121/t.whl");
  CHECK(resolve_url("http://h:1/whl/torch/", "t.whl") == "http://h:1/whl/torch/t.whl");
  CHECK(resolve_url("http://h:1/a/", "../../../t.whl") == "http://h:1/t.whl");
  CHECK(resolve_url("http://h:1/whl/torch/", "https://other/t.whl") == "https://other/t.whl");
}

TEST_CASE("a remote page leads only to remote files, as pip") {
  CHECK_FALSE(may_follow("https://h/simple/x/", "file:///etc/passwd"));
  CHECK_FALSE(may_follow("HTTP://h/simple/x/", "FILE:///w.whl"));
  CHECK_FALSE(may_follow("http://h/simple/x/", "ftp://h/w.whl"));
  CHECK(may_follow("http://h/simple/x/", "HTTPS://other/w.whl"));
  CHECK(may_follow("file:///srv/simple/x/", "file:///srv/files/w.whl"));
  CHECK(may_follow("file:///srv/simple/x/", "https://h/w.whl"));
}

TEST_CASE("snapshots round-trip through the cache file, anything else is refused") {
  TorchIndexSnapshot snapshot = snapshot_with_2_16();
  snapshot.failed_at = 2000;
  snapshot.failure = "cannot download x";
  std::string text = render_snapshot(snapshot);
  auto again = parse_snapshot(text);
  REQUIRE(again);
  CHECK(render_snapshot(*again) == text);
  CHECK(again->torch.size() == 3);
  CHECK(again->torchvision_for.at("2.16.0") == "0.31.0");
  CHECK(again->failed_at == 2000);
  for (const char* bad : {"", "{}", "[]", "{\"format\": 2, \"base\": \"x\"}", "{\"format\": 1}",
                          "{\"format\": 1, \"base\": \"x\", \"torch\": [{\"version\": \"2.1\"}]}"}) {
    INFO(bad);
    CHECK_FALSE(parse_snapshot(bad));
  }
}

TEST_CASE("merge: a release the table lacks is offered, paired through metadata, torchaudio omitted") {
  const TorchMatrix& shipped = testing::shipped_torch_matrix();
  TorchMatrix merged = merge_index(shipped, snapshot_with_2_16(), "index");
  REQUIRE(merged.releases.size() == 2);  // only the index's releases with CUDA builds
  const TorchRelease& known = merged.releases[0];
  CHECK(known.torch.str() == "2.1.2");
  CHECK(known.torchvision == "0.16.2");
  CHECK(known.pairing_origin == "shipped table");
  CHECK(known.origin == "index");
  CHECK(known.experimental == std::vector<Version>{*parse_version("12.1")});
  const TorchRelease& added = merged.releases[1];
  CHECK(added.torch.str() == "2.16.0");
  CHECK(added.torchvision == "0.31.0");
  CHECK_FALSE(added.torchaudio);
  CHECK(added.pairing_origin == "index (wheel metadata)");

  TorchQuery query;
  query.cuda = parse_version("13.2");
  query.cuda_origin = "--cuda";
  query.torch_origin = "the newest that fits";
  query.driver = "580.65.06";
  query.driver_origin = "--driver";
  auto choice = choose_torch(merged, query);
  REQUIRE(choice);
  CHECK(choice->release.torch.str() == "2.16.0");
  auto install = plan_torch_install(merged, *choice, {"torch", "torchvision", "torchaudio"}, false);
  REQUIRE(install);
  CHECK(render_command(Installer::pip, *install) ==
        "pip install torch==2.16.0+cu132 torchvision==0.31.0+cu132 --index-url https://download.pytorch.org/whl/cu132");

  TorchIndexSnapshot unpaired_snapshot = snapshot_with_2_16();
  unpaired_snapshot.torchvision_for.clear();
  TorchMatrix bare = merge_index(shipped, unpaired_snapshot, "cache");
  auto plan = plan_torch_install(bare, *choose_torch(bare, query), {"torch", "torchvision"}, false);
  REQUIRE(plan);
  CHECK(plan->pins.size() == 1);
  CHECK(bare.releases[1].origin == "cache");

  CHECK(merge_index(shipped, TorchIndexSnapshot{}, "index").releases.size() == shipped.releases.size());
  CHECK(unpaired(shipped, {"0.16.2", "0.31.0"}, false) == std::vector<std::string>{"0.31.0"});
}

TEST_CASE("index pages give each file's sha256, size and yanked state") {
  std::string hex(64, 'A');
  auto html = parse_project_page("<a href=\"../../files/a-1.0-py3-none-any.whl#sha256=" + hex +
                                 "\">a</a><a href=\"b-1.0-py3-none-any.whl#md5=00\" data-yanked=\"\">b</a>");
  REQUIRE(html.size() == 2);
  CHECK(html[0].sha256 == std::string(64, 'a'));
  CHECK(html[0].url == "../../files/a-1.0-py3-none-any.whl");
  CHECK(html[0].size == 0);
  CHECK(html[1].sha256.empty());
  CHECK(html[1].yanked);
  auto json = parse_project_page(R"({"files": [
      {"filename": "a-1.0-py3-none-any.whl", "url": "https://f/a.whl", "hashes": {"sha256": ")" +
                                 hex +
                                 R"("}, "size": 2656, "yanked": false},
      {"filename": "b-1.0-py3-none-any.whl", "url": "https://f/b.whl", "hashes": {"sha256": "short"}, "yanked": "broken"}]})");
  REQUIRE(json.size() == 2);
  CHECK(json[0].sha256 == std::string(64, 'a'));
  CHECK(json[0].size == 2656);
  CHECK(!json[0].yanked);
  CHECK(json[1].sha256.empty());
  CHECK(json[1].yanked);
}
