#include <catch2/catch.hpp>

#include "core/hook_state.h"
#include "core/selection.h"
#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

namespace {

const Layout kLayout{"/home/u/.cudaenv", std::nullopt};

MemoryFileSystem machine() { return cudaenv::testing::machine_with_toolkits(); }

Result<Selection> select(const MemoryFileSystem& fs, const EnvMap& env, const char* cwd) {
  return select_toolkit(fs, env, cwd, kLayout);
}

// The machine, counting how often a folder is listed.
class CountingView final : public FileSystemView {
 public:
  explicit CountingView(const MemoryFileSystem& fs) : fs_(fs) {}
  EntryKind kind(const fs::path& path) const override { return fs_.kind(path); }
  bool is_executable(const fs::path& path) const override { return fs_.is_executable(path); }
  Result<std::string> read_file(const fs::path& path, std::size_t limit) const override { return fs_.read_file(path, limit); }
  std::vector<std::string> list_dir(const fs::path& path) const override {
    ++listings;
    return fs_.list_dir(path);
  }
  std::optional<fs::path> read_link(const fs::path& path) const override { return fs_.read_link(path); }
  mutable int listings = 0;

 private:
  const MemoryFileSystem& fs_;
};

void check_same(const Toolkit& a, const Toolkit& b) {
  CHECK(a.name == b.name);
  CHECK(a.version == b.version);
  CHECK(a.home == b.home);
  CHECK(a.source == b.source);
  CHECK(a.registered == b.registered);
  CHECK(a.present == b.present);
}

}  // namespace

TEST_CASE("selection: CUDAENV_VERSION beats cuda.toml beats the global file beats system") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"11.8\"\n");
  fs.file("/home/u/.cudaenv/version", "# default\n12.4\n");
  fs.file("/usr/local/cuda/bin/nvcc", "", true);

  auto by_env = select(fs, {{"CUDAENV_VERSION", "12.1"}}, "/home/u/proj/src");
  REQUIRE(by_env.ok());
  CHECK(by_env->toolkit.name == "12.1.1");
  CHECK(by_env->request.origin() == "set by CUDAENV_VERSION");

  auto by_project = select(fs, {}, "/home/u/proj/src/deep");
  REQUIRE(by_project.ok());
  CHECK(by_project->toolkit.name == "11.8.0");
  CHECK(by_project->request.origin() == "set by /home/u/proj/cuda.toml");

  auto by_global = select(fs, {}, "/home/u");
  REQUIRE(by_global.ok());
  CHECK(by_global->toolkit.name == "12.4.1");
  CHECK(by_global->request.origin() == "set by /home/u/.cudaenv/version");

  MemoryFileSystem bare = machine();
  bare.file("/usr/local/cuda/bin/nvcc", "", true);
  auto by_fallback = select(bare, {}, "/home/u");
  REQUIRE(by_fallback.ok());
  CHECK(by_fallback->toolkit.source == ToolkitSource::system);
  CHECK(by_fallback->toolkit.home == "/usr/local/cuda");
  CHECK(by_fallback->request.kind == OriginKind::fallback);
}

TEST_CASE("selection: a version given as an argument (exec --cuda) beats everything") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = 11.8\n");  // broken: a number

  auto given = select_toolkit(fs, {{"CUDAENV_VERSION", "12.1"}}, "/home/u/proj", kLayout, "12.4");
  REQUIRE(given.ok());
  CHECK(given->toolkit.name == "12.4.1");
  CHECK(given->request.origin() == "given as an argument");
  REQUIRE(given->warnings.size() == 1);
  CHECK_THAT(given->warnings[0], Catch::Contains("cuda.toml"));

  auto bad = select_toolkit(fs, {}, "/home/u", kLayout, "twelve!");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("given as an argument"));
}

TEST_CASE("selection: a cuda.toml that pins no version leaves it to the global file") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\narch = [\"8.9\"]\n");
  fs.file("/home/u/.cudaenv/version", "12.4\n");
  auto selection = select(fs, {}, "/home/u/proj");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.name == "12.4.1");
  CHECK(selection->request.kind == OriginKind::global_file);
}

TEST_CASE("selection: an empty CUDAENV_VERSION counts as unset") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"11.8\"\n");
  auto selection = select(fs, {{"CUDAENV_VERSION", ""}}, "/home/u/proj");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.name == "11.8.0");
}

TEST_CASE("selection: prefixes pick the newest match, compared numerically") {
  MemoryFileSystem fs = machine();
  struct Case {
    const char* request;
    const char* chosen;
  };
  for (const Case& c : std::vector<Case>{{"12", "12.10.0"},
                                         {"12.1", "12.1.1"},
                                         {"12.1.0", "12.1.0"},
                                         {"12.9", "12.9.0"},
                                         {"11", "11.8.0"},
                                         {"13", "13.0"},
                                         {"13.0", "13.0"}}) {
    INFO(c.request);
    auto selection = select(fs, {{"CUDAENV_VERSION", c.request}}, "/");
    REQUIRE(selection.ok());
    CHECK(selection->toolkit.name == c.chosen);
  }
}

TEST_CASE("selection: a registered toolkit resolves to its target") {
  MemoryFileSystem fs = machine();
  auto selection = select(fs, {{"CUDAENV_VERSION", "13"}}, "/");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.registered);
  CHECK(selection->toolkit.home == "/opt/cuda-13");
}

TEST_CASE("selection: a version that is not installed lists the installed ones and the nearest") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"12.3\"\n");
  auto selection = select(fs, {}, "/home/u/proj");
  REQUIRE_FALSE(selection.ok());
  CHECK(selection.error().message == "CUDA 12.3 is not installed (set by /home/u/proj/cuda.toml)");
  CHECK(selection.error().hint ==
        "installed: 11.8.0, 12.1.0, 12.1.1, 12.4.1, 12.9.0, 12.10.0, 13.0\n"
        "nearest match: 12.4.1 (`cudaenv use 12.4.1`)\n"
        "to install it: cudaenv install 12.3");
}

TEST_CASE("selection: the nearest match is suggested with the command that asked") {
  MemoryFileSystem fs = machine();
  std::vector<Toolkit> toolkits = list_toolkits(fs, kLayout);
  auto hint = [&](Request request) { return not_installed_error(request, toolkits).hint; };
  CHECK_THAT(hint({"12.3", OriginKind::argument, {}, "prefix"}), Catch::Contains("(`cudaenv prefix 12.4.1`)"));
  CHECK_THAT(hint({"12.3", OriginKind::argument, {}, "exec --cuda"}), Catch::Contains("(`cudaenv exec --cuda 12.4.1`)"));
  CHECK_THAT(hint({"12.3", OriginKind::environment, {}}), Catch::Contains("(`cudaenv shell 12.4.1`)"));
  CHECK_THAT(hint({"12.3", OriginKind::global_file, "/home/u/.cudaenv/version"}), Catch::Contains("(`cudaenv global 12.4.1`)"));
  std::string uninstall = hint({"12.3", OriginKind::argument, {}, "uninstall"});
  CHECK_THAT(uninstall, Catch::StartsWith("installed: "));
  CHECK_THAT(uninstall, !Catch::Contains("nearest") && !Catch::Contains("install 12.3"));
}

TEST_CASE("selection: a nearest match of another CUDA major says so") {
  MemoryFileSystem fs;
  for (const char* version : {"11.8.0", "13.0.0"}) {
    fs.file(std::string("/home/u/.cudaenv/versions/") + version + "/bin/nvcc", "", true);
  }
  auto error = not_installed_error({"12.1", OriginKind::argument, {}, "use"}, list_toolkits(fs, kLayout));
  CHECK_THAT(error.hint, Catch::Contains("nearest match: 13.0.0, but that is CUDA 13, not 12 (`cudaenv use 13.0.0`)"));
}

TEST_CASE("selection: a broken cuda.toml is an error unless CUDAENV_VERSION decides") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = 12.1\n");
  auto broken = select(fs, {}, "/home/u/proj");
  REQUIRE_FALSE(broken.ok());
  CHECK_THAT(broken.error().message, Catch::StartsWith("/home/u/proj/cuda.toml:2:11:"));
  auto overridden = select(fs, {{"CUDAENV_VERSION", "12.4"}}, "/home/u/proj");
  REQUIRE(overridden.ok());
  CHECK(overridden->toolkit.name == "12.4.1");
  CHECK(overridden->warnings.size() == 1);
}

TEST_CASE("selection: system skips the shims folder on PATH") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/.cudaenv/shims/nvcc", "", true);
  fs.file("/usr/lib/cuda/bin/nvcc", "", true);
  EnvMap env{{"PATH", "/home/u/.cudaenv/shims/:/usr/lib/cuda/bin:/usr/bin"}, {"CUDAENV_VERSION", "system"}};
  auto selection = select(fs, env, "/");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.home == "/usr/lib/cuda");
}

TEST_CASE("selection: system is not the toolkit the shell hook put first on PATH") {
  MemoryFileSystem fs = machine();
  fs.file("/usr/lib/cuda/bin/nvcc", "", true);
  fs.file("/usr/lib/cuda/include/cuda.h", "");
  HookState state;
  state.entries = {{"PATH", "/home/u/.cudaenv/versions/12.4.1/bin"}};
  EnvMap env{{"PATH", "/home/u/.cudaenv/versions/12.4.1/bin:/home/u/.cudaenv/shims:/usr/lib/cuda/bin:/usr/bin"},
             {"CUDAENV_VERSION", "system"},
             {kStateVariable, format_state(state)}};
  auto selection = select(fs, env, "/home/u/proj");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.home == "/usr/lib/cuda");
}

TEST_CASE("selection: no system toolkit at all is an error with the fix") {
  MemoryFileSystem fs = machine();
  auto selection = select(fs, {{"PATH", "/usr/bin"}}, "/");
  REQUIRE_FALSE(selection.ok());
  CHECK_THAT(selection.error().message, Catch::StartsWith("no system CUDA toolkit"));
  CHECK_THAT(selection.error().hint, Catch::Contains("cudaenv install"));
}

TEST_CASE("selection: the user's root shadows the shared root, and both are listed") {
  MemoryFileSystem fs = machine();
  fs.file("/opt/cudaenv/versions/12.4.1/bin/nvcc", "", true);
  fs.file("/opt/cudaenv/versions/12.6.3/bin/nvcc", "", true);
  Layout layout{"/home/u/.cudaenv", fs::path("/opt/cudaenv")};
  auto toolkits = list_toolkits(fs, layout);
  auto find = [&](const std::string& name) {
    return *std::find_if(toolkits.begin(), toolkits.end(), [&](const Toolkit& t) { return t.name == name; });
  };
  CHECK(find("12.4.1").source == ToolkitSource::user_root);
  CHECK(find("12.6.3").source == ToolkitSource::shared_root);
  CHECK(find("12.6.3").home == "/opt/cudaenv/versions/12.6.3");
  auto selection = select_toolkit(fs, {{"CUDAENV_VERSION", "12"}}, "/", layout);
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.name == "12.10.0");
}

TEST_CASE("selection: the global file may hold comments and blank lines") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/.cudaenv/version", "\n# chosen by cudaenv global\n  12.9  \n");
  auto selection = select(fs, {}, "/");
  REQUIRE(selection.ok());
  CHECK(selection->toolkit.name == "12.9.0");
}

TEST_CASE("selection: a path-like request from the environment is refused") {
  MemoryFileSystem fs = machine();
  auto selection = select(fs, {{"CUDAENV_VERSION", "../../../usr"}}, "/");
  REQUIRE_FALSE(selection.ok());
  CHECK_THAT(selection.error().message, Catch::Contains("is not a version"));
}

TEST_CASE("selection: system follows nvcc symlinks and ignores wrapper scripts outside a toolkit") {
  MemoryFileSystem fs = machine();
  fs.file("/usr/lib/nvidia-cuda-toolkit/bin/nvcc", "", true).file("/usr/lib/nvidia-cuda-toolkit/include/cuda.h");
  fs.symlink("/usr/bin/nvcc", "../lib/nvidia-cuda-toolkit/bin/nvcc");
  auto linked = find_system_toolkit(fs, {{"PATH", "/usr/bin"}}, kLayout.shims_dir());
  REQUIRE(linked);
  CHECK(linked->home == "/usr/lib/nvidia-cuda-toolkit");

  MemoryFileSystem wrapped = machine();
  wrapped.file("/usr/local/bin/nvcc", "#!/bin/sh\nexec /usr/local/cuda/bin/nvcc", true);
  wrapped.file("/usr/local/cuda/bin/nvcc", "", true);
  auto system = find_system_toolkit(wrapped, {{"PATH", "/usr/local/bin"}}, kLayout.shims_dir());
  REQUIRE(system);
  CHECK(system->home == "/usr/local/cuda");
}

TEST_CASE("selection: an exact name opens its folder without listing, a prefix lists once") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"12.4.1\"\n");
  CountingView view(fs);
  auto exact = select_toolkit(view, {}, "/home/u/proj/src", kLayout);
  REQUIRE(exact.ok());
  CHECK(exact->toolkit.name == "12.4.1");
  CHECK(view.listings == 0);

  auto prefix = select_toolkit(view, {{"CUDAENV_VERSION", "12.1"}}, "/home/u/proj/src", kLayout);
  REQUIRE(prefix.ok());
  CHECK(prefix->toolkit.name == "12.1.1");
  CHECK(view.listings == 1);

  // `versions` lists, then selects with the same index: still one listing.
  view.listings = 0;
  ToolkitIndex index(view, kLayout);
  CHECK(index.all().size() == 7);
  auto listed = select_toolkit(view, {{"CUDAENV_VERSION", "12"}}, "/", kLayout, index);
  REQUIRE(listed.ok());
  CHECK(listed->toolkit.name == "12.10.0");
  CHECK(index.find("11.8.0"));
  CHECK(view.listings == 1);
}

TEST_CASE("selection: with 1000 toolkits a prefix lists once and reads only the entry it picks") {
  MemoryFileSystem fs = machine();
  for (int i = 1; i < 1000; ++i) fs.file("/home/u/.cudaenv/versions/11." + std::to_string(i) + ".0/bin/nvcc", "", true);
  fs.file("/home/u/.cudaenv/versions/012.99.0/bin/nvcc", "", true);  // 12 in number
  fs.file("/home/u/.cudaenv/versions/1200000000.0/bin/nvcc", "", true);
  CountingView view(fs);
  auto prefix = select_toolkit(view, {{"CUDAENV_VERSION", "11"}}, "/", kLayout);
  REQUIRE(prefix.ok());
  CHECK(prefix->toolkit.name == "11.999.0");
  CHECK(view.listings == 1);
  auto other_major = select_toolkit(view, {{"CUDAENV_VERSION", "12"}}, "/", kLayout);
  REQUIRE(other_major.ok());
  CHECK(other_major->toolkit.name == "012.99.0");
}

TEST_CASE("selection: versions equal in number go to the first name, as listed") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/.cudaenv/versions/12.09.0/bin/nvcc", "", true);
  auto answer = select(fs, {{"CUDAENV_VERSION", "12.9"}}, "/");
  REQUIRE(answer.ok());
  CHECK(answer->toolkit.name == "12.09.0");
  ToolkitIndex index(fs, kLayout);
  REQUIRE(index.all().size() == 8);
  auto listed = select_toolkit(fs, {{"CUDAENV_VERSION", "12.9"}}, "/", kLayout, index);
  REQUIRE(listed.ok());
  CHECK(listed->toolkit.name == "12.09.0");
}

TEST_CASE("selection: an exact lookup finds what the listing finds, in both roots") {
  MemoryFileSystem fs = machine();
  fs.file("/opt/cudaenv/versions/12.4.1/bin/nvcc", "", true);
  fs.file("/opt/cudaenv/versions/12.6.3/bin/nvcc", "", true);
  fs.symlink("/home/u/.cudaenv/versions/gone", "/opt/removed");
  fs.file("/home/u/.cudaenv/versions/.12.8.0.staging/bin/nvcc", "", true);
  Layout layout{"/home/u/.cudaenv", fs::path("/opt/cudaenv")};
  auto listed = list_toolkits(fs, layout);
  REQUIRE(listed.size() == 9);
  ToolkitIndex direct(fs, layout);
  for (const Toolkit& toolkit : listed) {
    INFO(toolkit.name);
    auto found = direct.find(toolkit.name);
    REQUIRE(found);
    check_same(*found, toolkit);
  }
  CHECK(direct.find("12.4.1")->source == ToolkitSource::user_root);
  CHECK(direct.find("12.6.3")->source == ToolkitSource::shared_root);
  CHECK_FALSE(direct.find("gone")->present);
  CHECK_FALSE(direct.find(".12.8.0.staging"));
  CHECK_FALSE(direct.find("12.9"));
  CHECK_FALSE(direct.find("../versions/12.9.0"));

  auto gone = select_toolkit(fs, {{"CUDAENV_VERSION", "gone"}}, "/", layout);
  REQUIRE_FALSE(gone.ok());
  CHECK_THAT(gone.error().message, Catch::Contains("which has no bin/ folder any more"));
}

TEST_CASE("a failed selection keeps its request, a broken cuda.toml leaves none") {
  MemoryFileSystem fs = machine();
  SelectionOutcome missing = select_or_fail(fs, {{"CUDAENV_VERSION", "12.7"}}, "/home/u", kLayout, ToolkitIndex(fs, kLayout));
  const auto* failed = std::get_if<FailedSelection>(&missing);
  REQUIRE(failed);
  CHECK(failed->error.message == "CUDA 12.7 is not installed (set by CUDAENV_VERSION)");
  REQUIRE(failed->request);
  CHECK(failed->request->value == "12.7");
  CHECK(failed->request->kind == OriginKind::environment);

  fs.file("/home/u/proj/cuda.toml", "[cuda\n");
  SelectionOutcome broken = select_or_fail(fs, {}, "/home/u/proj", kLayout, ToolkitIndex(fs, kLayout));
  failed = std::get_if<FailedSelection>(&broken);
  REQUIRE(failed);
  CHECK_THAT(failed->error.message, Catch::Contains("/home/u/proj/cuda.toml"));
  CHECK_FALSE(failed->request);

  SelectionOutcome good = select_or_fail(fs, {{"CUDAENV_VERSION", "12.1"}}, "/home/u", kLayout, ToolkitIndex(fs, kLayout));
  REQUIRE(std::get_if<Selection>(&good));
  CHECK(std::get<Selection>(good).toolkit.name == "12.1.1");
}

TEST_CASE("the shared root is CUDAENV_SHARED_ROOT, or its old name CUDAENV_SYSTEM_ROOT") {
  auto both = layout_from_env({{"HOME", "/home/u"}, {"CUDAENV_SHARED_ROOT", "/opt/new"}, {"CUDAENV_SYSTEM_ROOT", "/opt/old"}});
  REQUIRE(both);
  CHECK(both->shared_root == fs::path("/opt/new"));
  auto old_name = layout_from_env({{"HOME", "/home/u"}, {"CUDAENV_SYSTEM_ROOT", "/opt/old"}});
  REQUIRE(old_name);
  CHECK(old_name->shared_root == fs::path("/opt/old"));
  auto relative = layout_from_env({{"HOME", "/home/u"}, {"CUDAENV_SYSTEM_ROOT", "opt"}});
  REQUIRE_FALSE(relative);
  CHECK(relative.error().message == "CUDAENV_SYSTEM_ROOT='opt' is not an absolute path");
  CHECK_FALSE(layout_from_env({{"HOME", "/home/u"}})->shared_root);
}

TEST_CASE("a setting is the option, else the variable, else cuda.toml, else the default, and says which") {
  SettingPlaces places{"--profile", "CUDAENV_PROFILE", "profile"};
  EnvMap env{{"CUDAENV_PROFILE", "torch"}};
  Setting option = pick_setting(places, "full", env, std::string("minimal"), "/p/cuda.toml", "minimal");
  CHECK(option.value == "full");
  CHECK(option.origin() == "--profile");
  CHECK(option.as_written() == "--profile full");
  Setting variable = pick_setting(places, "", env, std::string("minimal"), "/p/cuda.toml", "minimal");
  CHECK(variable.origin() == "CUDAENV_PROFILE");
  CHECK(variable.as_written() == "CUDAENV_PROFILE=torch");
  CHECK(variable.how_to_set("full") == "set CUDAENV_PROFILE to full");
  Setting file = pick_setting(places, "", {{"CUDAENV_PROFILE", ""}}, std::string("torch"), "/p/cuda.toml", "minimal");
  CHECK(file.origin() == "/p/cuda.toml");
  CHECK(file.as_written("profile") == "profile = \"torch\" in /p/cuda.toml");
  Setting fallback = pick_setting(places, "", {}, std::nullopt, {}, "minimal");
  CHECK(fallback.value == "minimal");
  CHECK(fallback.origin() == "default");
  CHECK(fallback.as_written() == "the default minimal");
  // A place the setting cannot be given is never read.
  CHECK(pick_setting({"--jobs"}, "", {{"CUDAENV_JOBS", "8"}}, std::nullopt, {}, "4").value == "4");
}
