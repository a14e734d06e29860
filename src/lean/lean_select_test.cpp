// The shim's lean resolver (src/lean/lean_select.h) against the full one (core/selection.h,
// core/program.h, core/toolkit_env.h) on the same machines: where the lean one answers, it
// runs the same file with the same environment; what it is unsure of it leaves alone.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>

#include "core/program.h"
#include "core/toolkit_env.h"
#include "lean/lean_select.h"
#include "lean/lean_toml.h"
#include "lean/lean_toolkits.h"
#include "support/memory_file_system.h"
#include "util/strings.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

namespace {

// A FileSystemView as the lean resolver's file system, counting listings.
struct LeanView {
  const FileSystemView& fs;
  int listings = 0;
  lean_fs calls{this, kind, is_executable, read_file, list_dir, read_link, nullptr, nullptr};

  static LeanView& of(void* self) { return *static_cast<LeanView*>(self); }
  static lean_kind kind(void* self, const char* path) {
    switch (of(self).fs.kind(path)) {
      case EntryKind::missing: return LEAN_MISSING;
      case EntryKind::file: return LEAN_FILE;
      case EntryKind::directory: return LEAN_DIRECTORY;
      case EntryKind::other: break;
    }
    return LEAN_OTHER;
  }
  static int is_executable(void* self, const char* path) { return of(self).fs.is_executable(path); }
  static char* read_file(void* self, const char* path, size_t limit, size_t* size) {
    auto text = of(self).fs.read_file(path, limit);
    if (!text) return nullptr;
    char* copy = static_cast<char*>(std::malloc(text->size() + 1));
    std::memcpy(copy, text->data(), text->size());
    *size = text->size();
    return copy;
  }
  static int list_dir(void* self, const char* path, void (*each)(void*, const char*, int), void* context) {
    ++of(self).listings;
    if (of(self).fs.kind(path) != EntryKind::directory) return -1;
    for (const std::string& name : of(self).fs.list_dir(path)) {
      // As d_type tells: every other entry is known to be no link, the rest are asked.
      bool not_a_link = name.size() % 2 == 0 && !of(self).fs.read_link(fs::path(path) / name);
      each(context, name.c_str(), not_a_link);
    }
    return 0;
  }
  static long read_link(void* self, const char* path, char* buffer, size_t size) {
    auto target = of(self).fs.read_link(path);
    if (!target || target->string().size() >= size) return -1;
    std::strcpy(buffer, target->c_str());
    return static_cast<long>(target->string().size());
  }
};

struct Answer {
  std::string program;
  EnvMap env;
  bool operator==(const Answer& other) const = default;
};

const char* const kShim = "/home/u/.cudaenv/shims/nvcc";

// What the full resolver runs, as cudaenv-shim-full does.
std::optional<Answer> full_answer(const FileSystemView& fs, EnvMap env, const fs::path& cwd, const std::string& program) {
  auto layout = layout_for_shim(env, kShim);
  if (!layout) return std::nullopt;
  auto selection = select_toolkit(fs, env, cwd, *layout);
  if (!selection) return std::nullopt;
  auto path = program_for_selection(fs, env, *layout, *selection, program);
  if (!path) return std::nullopt;
  apply_env_change(selection_env_change(*selection), env);
  return Answer{path->string(), env};
}

// What the lean resolver runs, or nullopt when it leaves the case to the full one.
std::optional<Answer> lean_answer(LeanView& view, const std::vector<std::string>& environ_strings, const char* cwd,
                                  const char* program) {
  std::vector<std::string> strings = environ_strings;
  std::vector<char*> environ = c_string_array(strings);
  lean_request request{&view.calls, environ.data(), cwd, kShim, program};
  lean_plan plan;
  std::optional<Answer> answer;
  if (lean_plan_program(&request, &plan)) answer = Answer{plan.program, env_from_environ(plan.envp)};
  lean_plan_free(&plan);
  return answer;
}

std::vector<std::string> strings_of(const EnvMap& env) { return env_to_strings(env); }

// The lean answer, checked against the full one; nullopt where the lean one was unsure.
std::optional<Answer> lean_checked(const FileSystemView& fs, const EnvMap& env, const char* cwd, const char* program = "nvcc") {
  LeanView view{fs};
  auto lean = lean_answer(view, strings_of(env), cwd, program);
  if (!lean) return std::nullopt;
  auto full = full_answer(fs, env, cwd, program);
  REQUIRE(full);
  CHECK(lean->program == full->program);
  CHECK(lean->env == full->env);
  return lean;
}

MemoryFileSystem machine() {
  MemoryFileSystem fs = cudaenv::testing::machine_with_toolkits();
  fs.file(kShim, "shim", true);
  return fs;
}

const EnvMap kBase{{"HOME", "/home/u"}, {"PATH", "/home/u/.cudaenv/shims:/usr/bin:/bin"}, {"TERM", "xterm"}};

EnvMap with(EnvMap env, std::initializer_list<std::pair<const std::string, std::string>> more) {
  for (const auto& [name, value] : more) env[name] = value;
  return env;
}

}  // namespace

TEST_CASE("lean selection: the common cases are answered, as the full resolver answers them") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"12.1\"\narch = [\"8.9\", \"9.0+PTX\"]\n");
  fs.file("/home/u/.cudaenv/version", "# default\n\n  12.4  \n");

  auto by_project = lean_checked(fs, kBase, "/home/u/proj/src/deep");
  REQUIRE(by_project);
  CHECK(by_project->program == "/home/u/.cudaenv/versions/12.1.1/bin/nvcc");
  CHECK(by_project->env.at("TORCH_CUDA_ARCH_LIST") == "8.9;9.0+PTX");
  CHECK(by_project->env.at("CUDAARCHS") == "89;90");

  auto by_env = lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "11.8"}}), "/home/u/proj");
  REQUIRE(by_env);
  CHECK(by_env->program == "/home/u/.cudaenv/versions/11.8.0/bin/nvcc");
  CHECK(by_env->env.count("TORCH_CUDA_ARCH_LIST") == 1);  // the project's arch list still counts

  auto by_global = lean_checked(fs, kBase, "/home/u");
  REQUIRE(by_global);
  CHECK(by_global->program == "/home/u/.cudaenv/versions/12.4.1/bin/nvcc");

  auto exact = lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "12.10.0"}}), "/");
  REQUIRE(exact);
  CHECK(exact->env.at("CUDA_HOME") == "/home/u/.cudaenv/versions/12.10.0");

  auto registered = lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "13.0"}}), "/home/u");
  REQUIRE(registered);
  CHECK(registered->program == "/opt/cuda-13/bin/nvcc");
  CHECK(registered->env.at("CUDACXX") == "/opt/cuda-13/bin/nvcc");
}

TEST_CASE("lean selection: PATH and LD_LIBRARY_PATH get the toolkit first, once") {
  MemoryFileSystem fs = machine();
  auto env = with(kBase, {{"CUDAENV_VERSION", "12.4"},
                          {"PATH", "/usr/bin:/home/u/.cudaenv/versions/12.4.1/bin::/bin:"},
                          {"LD_LIBRARY_PATH", "/home/u/.cudaenv/versions/12.4.1/lib64"},
                          {"CUDA_HOME", ""}});
  auto answer = lean_checked(fs, env, "/home/u");
  REQUIRE(answer);
  CHECK(answer->env.at("PATH") == "/home/u/.cudaenv/versions/12.4.1/bin:/usr/bin::/bin:");
  CHECK(answer->env.at("LD_LIBRARY_PATH") == "/home/u/.cudaenv/versions/12.4.1/lib64");
  auto unset = lean_checked(fs, {{"HOME", "/home/u"}, {"CUDAENV_VERSION", "12.4"}}, "/home/u");
  REQUIRE(unset);
  CHECK(unset->env.at("PATH") == "/home/u/.cudaenv/versions/12.4.1/bin");
}

TEST_CASE("lean selection: the root comes from CUDAENV_ROOT, the shims folder, or HOME") {
  MemoryFileSystem fs = machine();
  fs.file("/srv/cudaenv/versions/12.2.0/bin/nvcc", "", true);
  auto explicit_root = lean_checked(fs, with(kBase, {{"CUDAENV_ROOT", "/srv/cudaenv"}, {"CUDAENV_VERSION", "12"}}), "/");
  REQUIRE(explicit_root);
  CHECK(explicit_root->program == "/srv/cudaenv/versions/12.2.0/bin/nvcc");
  CHECK(explicit_root->env.at("CUDAENV_ROOT") == "/srv/cudaenv");
  // Without CUDAENV_ROOT or HOME, the shim's folder /home/u/.cudaenv/shims names the root.
  auto derived = lean_checked(fs, {{"CUDAENV_VERSION", "12.9"}}, "/");
  REQUIRE(derived);
  CHECK(derived->program == "/home/u/.cudaenv/versions/12.9.0/bin/nvcc");
  CHECK(derived->env.count("CUDAENV_ROOT") == 0);  // for finding toolkits, not for the program
}

TEST_CASE("lean selection: the shared root's toolkits, shadowed by the user's of the same name") {
  MemoryFileSystem fs = machine();
  fs.file("/opt/shared/versions/12.4.1/bin/nvcc", "", true);
  fs.file("/opt/shared/versions/12.6.0/bin/nvcc", "", true);
  EnvMap env = with(kBase, {{"CUDAENV_SYSTEM_ROOT", "/opt/shared"}});
  auto shared = lean_checked(fs, with(env, {{"CUDAENV_VERSION", "12.6"}}), "/");
  REQUIRE(shared);
  CHECK(shared->program == "/opt/shared/versions/12.6.0/bin/nvcc");
  auto user = lean_checked(fs, with(env, {{"CUDAENV_VERSION", "12.4.1"}}), "/");
  REQUIRE(user);
  CHECK(user->program == "/home/u/.cudaenv/versions/12.4.1/bin/nvcc");
  auto newest = lean_checked(fs, with(env, {{"CUDAENV_VERSION", "12"}}), "/");
  REQUIRE(newest);
  CHECK(newest->program == "/home/u/.cudaenv/versions/12.10.0/bin/nvcc");
}

TEST_CASE("lean selection: versions equal in number go to the first name, as in the listing") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/.cudaenv/versions/12.09.0/bin/nvcc", "", true);
  auto answer = lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "12.9"}}), "/");
  REQUIRE(answer);
  CHECK(answer->program == "/home/u/.cudaenv/versions/12.09.0/bin/nvcc");
}

TEST_CASE("lean selection: errors, system and unusual cases are left to the full resolver") {
  MemoryFileSystem fs = machine();
  fs.file("/usr/local/cuda/bin/nvcc", "", true);
  fs.file("/home/u/broken/cuda.toml", "[cuda]\nversion = 12.1\n");
  fs.file("/home/u/.cudaenv/versions/12.5.0/lib64/x", "");  // no bin/
  fs.symlink("/home/u/.cudaenv/versions/rel", "../../elsewhere");
  fs.file("/home/u/elsewhere/bin/nvcc", "", true);
  LeanView view{fs};
  auto unsure = [&](const EnvMap& env, const char* cwd, const char* program = "nvcc") {
    return !lean_answer(view, strings_of(env), cwd, program);
  };
  CHECK(unsure(kBase, "/home/u"));                                          // system, no nvcc on PATH
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "system"}}), "/"));         // the same
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12.3"}}), "/"));           // not installed
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "../x"}}), "/"));           // not a request
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12.5"}}), "/"));           // no bin/ any more
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "rel"}}), "/"));            // a relative link
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12.4"}}), "/", "ptxas"));  // not in the toolkit
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12.4"}}), "/", "cudaenv-shim"));
  CHECK(unsure(kBase, "/home/u/broken"));  // a broken cuda.toml
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12.4"}}), "/home/u/broken"));
  CHECK(unsure(with(kBase, {{"CUDAENV_ROOT", "rel/root"}, {"CUDAENV_VERSION", "12"}}), "/"));
  CHECK(unsure(with(kBase, {{"CUDAENV_ROOT", "/home/u/.cudaenv/"}, {"CUDAENV_VERSION", "12"}}), "/"));
  CHECK(unsure(with(kBase, {{"CUDAENV_VERSION", "12"}}), "/home/u/./proj"));
  // An environment the full resolver would tidy: a name twice, an entry without '='.
  CHECK_FALSE(lean_answer(view, {"HOME=/home/u", "CUDAENV_VERSION=12", "HOME=/x"}, "/", "nvcc"));
  CHECK_FALSE(lean_answer(view, {"HOME=/home/u", "CUDAENV_VERSION=12", "junk"}, "/", "nvcc"));
}

TEST_CASE("lean selection: no version set, or \"system\", runs the system toolkit's program") {
  MemoryFileSystem fs = machine();
  fs.file("/usr/local/cuda/bin/nvcc", "", true);
  fs.file("/usr/local/cuda/bin/ptxas", "", true);
  fs.file("/opt/sys/bin/nvcc", "", true);
  fs.file("/home/u/arch/cuda.toml", "[cuda]\narch = [\"9.0\"]\n");
  const std::string path = "/home/u/.cudaenv/shims:/usr/local/cuda/bin:/usr/bin";
  auto fallback = lean_checked(fs, with(kBase, {{"PATH", path}}), "/home/u");
  REQUIRE(fallback);
  CHECK(fallback->program == "/usr/local/cuda/bin/nvcc");  // past the shim, first on PATH
  CHECK(fallback->env.count("CUDA_HOME") == 0);            // the system toolkit's own setup stays
  auto arch = lean_checked(fs, with(kBase, {{"PATH", path}}), "/home/u/arch", "ptxas");
  REQUIRE(arch);
  CHECK(arch->program == "/usr/local/cuda/bin/ptxas");
  CHECK(arch->env.at("CUDAARCHS") == "90");
  auto named = lean_checked(fs, with(kBase, {{"PATH", "/opt/sys/bin:" + path}, {"CUDAENV_VERSION", "system"}}), "/");
  REQUIRE(named);
  CHECK(named->program == "/opt/sys/bin/nvcc");
  fs.file("/home/u/.cudaenv/version", "system\n");
  CHECK(lean_checked(fs, with(kBase, {{"PATH", path}}), "/"));
  // Only /usr/local/cuda makes a system toolkit where PATH has no nvcc: gcc is still found.
  fs.file("/usr/bin/gcc", "", true);
  auto gcc = lean_checked(fs, kBase, "/", "gcc");
  REQUIRE(gcc);
  CHECK(gcc->program == "/usr/bin/gcc");

  LeanView view{fs};
  auto unsure = [&](const EnvMap& env, const char* program = "nvcc") {
    return !lean_answer(view, strings_of(env), "/", program);
  };
  CHECK(unsure(with(kBase, {{"PATH", path}, {"__CUDAENV_STATE", ""}})));  // the hook's entries
  CHECK(unsure(with(kBase, {{"PATH", "bin:" + path}})));                  // a relative folder
  CHECK(unsure(with(kBase, {{"PATH", "/usr/local/cuda/bin/:/usr/bin"}})));
  CHECK(unsure(with(kBase, {{"PATH", "/home/u/.cudaenv/shims/:/usr/local/cuda/bin"}})));
  CHECK(unsure(with(kBase, {{"PATH", path}}), "cuobjdump"));  // on no PATH folder: an error
  fs.file("/usr/local/cuda/bin/cudaenv-shim-full", "", true);
  CHECK(unsure(with(kBase, {{"PATH", path}}), "cudaenv-shim-full"));  // the full resolver refuses the name
  CHECK(unsure({{"HOME", "/home/u"}}));                               // no PATH
  MemoryFileSystem bare = machine();
  bare.file("/usr/bin/gcc", "", true);
  LeanView bare_view{bare};
  CHECK_FALSE(lean_answer(bare_view, strings_of(kBase), "/", "gcc"));  // no system toolkit at all
}

TEST_CASE("lean selection: with 1000 toolkits an exact name lists nothing, a prefix lists once") {
  MemoryFileSystem fs = machine();
  for (int i = 1; i < 1000; ++i) fs.file("/home/u/.cudaenv/versions/11." + std::to_string(i) + ".0/bin/nvcc", "", true);
  LeanView view{fs};
  auto exact = lean_answer(view, strings_of(with(kBase, {{"CUDAENV_VERSION", "11.500.0"}})), "/", "nvcc");
  REQUIRE(exact);
  CHECK(view.listings == 0);
  auto prefix = lean_answer(view, strings_of(with(kBase, {{"CUDAENV_VERSION", "11"}})), "/", "nvcc");
  REQUIRE(prefix);
  CHECK(view.listings == 1);
  CHECK(prefix->program == "/home/u/.cudaenv/versions/11.999.0/bin/nvcc");
  CHECK(lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "11"}}), "/"));
  CHECK(lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "11.42"}}), "/"));
  fs.file("/home/u/.cudaenv/versions/012.99.0/bin/nvcc", "", true);  // 12 in number
  fs.file("/home/u/.cudaenv/versions/1200000000.0/bin/nvcc", "", true);
  auto other_major = lean_checked(fs, with(kBase, {{"CUDAENV_VERSION", "12"}}), "/");
  REQUIRE(other_major);
  CHECK(other_major->program == "/home/u/.cudaenv/versions/012.99.0/bin/nvcc");
}

TEST_CASE("lean selection: a 1 MB cuda.toml gives the same answer as a small one") {
  MemoryFileSystem fs = machine();
  std::string text = "[cuda]\nversion = \"12.1\"\n[env]\n";
  for (int i = 0; text.size() < 1000000; ++i) text += "VARIABLE_" + std::to_string(i) + " = \"some value\"\n";
  fs.file("/home/u/proj/cuda.toml", text);
  auto answer = lean_checked(fs, kBase, "/home/u/proj/src");
  REQUIRE(answer);
  CHECK(answer->program == "/home/u/.cudaenv/versions/12.1.1/bin/nvcc");
}

namespace {

// lean_list_toolkits() against list_toolkits() on the same machine (through `view` where
// given): the same entries, in the same order; nullopt where the lean listing is unsure.
std::optional<size_t> lean_listing_checked(const FileSystemView& fs, const EnvMap& env, LeanView* through = nullptr) {
  LeanView plain{fs};
  LeanView& view = through ? *through : plain;
  std::vector<std::string> strings = strings_of(env);
  std::vector<char*> environ = c_string_array(strings);
  lean_request request{&view.calls, environ.data(), "/", nullptr, ""};
  lean_plan memory{};
  lean_roots roots;
  lean_toolkits lean;
  std::optional<size_t> count;
  if (lean_find_roots(&request, &memory, &roots) && lean_list_toolkits(&view.calls, &roots, &memory, &lean)) {
    auto layout = layout_from_env(env);
    REQUIRE(layout);
    std::vector<Toolkit> full = list_toolkits(fs, *layout);
    REQUIRE(full.size() == lean.count);
    for (size_t i = 0; i < lean.count; ++i) {
      const lean_toolkit& toolkit = lean.items[i];
      INFO("entry " << i << ": " << full[i].name);
      CHECK(toolkit.name == full[i].name);
      CHECK(toolkit.home == full[i].home.string());
      CHECK((toolkit.root == 0 ? ToolkitSource::user_root : ToolkitSource::shared_root) == full[i].source);
      CHECK(bool(toolkit.registered) == full[i].registered);
      CHECK(bool(toolkit.present) == full[i].present);
    }
    count = lean.count;
  }
  lean_plan_free(&memory);
  return count;
}

// lean_select_toolkit() against select_toolkit(): the same toolkit and origin, or unsure.
bool lean_selection_agrees(const FileSystemView& fs, const EnvMap& env, const char* cwd) {
  LeanView view{fs};
  std::vector<std::string> strings = strings_of(env);
  std::vector<char*> environ = c_string_array(strings);
  lean_request request{&view.calls, environ.data(), cwd, nullptr, ""};
  lean_plan memory{};
  lean_selection lean;
  bool answered = lean_select_toolkit(&request, &memory, &lean);
  if (answered) {
    auto layout = layout_from_env(env);
    REQUIRE(layout);
    auto full = select_toolkit(fs, env, cwd, *layout);
    REQUIRE(full);
    CHECK(full->warnings.empty());
    CHECK(lean.name == full->toolkit.name);
    CHECK(lean.home == full->toolkit.home.string());
    CHECK((lean.root == 0 ? ToolkitSource::user_root : ToolkitSource::shared_root) == full->toolkit.source);
    std::string origin =
        lean.origin == LEAN_ORIGIN_ENVIRONMENT ? "set by CUDAENV_VERSION" : std::string("set by ") + lean.origin_file;
    CHECK(origin == full->request.origin());
  }
  lean_plan_free(&memory);
  return answered;
}

}  // namespace

// A file system with the optional calls a disk with caches has (lean_fs.h): they give what
// list_dir and read_file give, counting calls, or (`toml_unsure`) refuse every cuda.toml.
struct CachedView : LeanView {
  std::vector<std::string> versions_listed;
  std::vector<std::string> cache_dirs;
  bool toml_unsure = false;
  explicit CachedView(const FileSystemView& view) : LeanView{view} {
    calls.self = this;
    calls.list_versions = list_versions;
    calls.read_cuda_toml = read_cuda_toml;
  }
  static CachedView& cached(void* self) { return *static_cast<CachedView*>(static_cast<LeanView*>(self)); }
  static int list_versions(void* self, const char* path, void (*each)(void*, const char*, int), void* context) {
    cached(self).versions_listed.push_back(path);
    return list_dir(self, path, each, context);
  }
  static int read_cuda_toml(void* self, const char* path, const char* cache_dir, lean_cuda_toml* out, char** text) {
    cached(self).cache_dirs.push_back(cache_dir);
    size_t size = 0;
    *text = read_file(self, path, LEAN_SMALL_FILE_LIMIT, &size);
    return !cached(self).toml_unsure && *text && lean_read_cuda_toml(*text, size, out);
  }
};

TEST_CASE("lean selection: a file system's versions/ listing and cuda.toml reader, where it has them") {
  MemoryFileSystem fs = machine();
  fs.file("/opt/shared/versions/12.6.0/bin/nvcc", "", true);
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"12\"\narch = [\"8.9\"]\n");
  EnvMap env = with(kBase, {{"CUDAENV_SHARED_ROOT", "/opt/shared"}});
  auto full = full_answer(fs, env, "/home/u/proj", "nvcc");
  REQUIRE(full);
  CachedView view{fs};
  auto lean = lean_answer(view, strings_of(env), "/home/u/proj", "nvcc");
  REQUIRE(lean);
  CHECK(lean->program == full->program);
  CHECK(lean->env == full->env);
  CHECK(view.versions_listed == std::vector<std::string>{"/home/u/.cudaenv/versions", "/opt/shared/versions"});
  CHECK(view.listings == 2);  // through list_versions, once per root
  CHECK(view.cache_dirs == std::vector<std::string>{"/home/u/.cudaenv/cache"});
  // Unsure of the cuda.toml: unsure of the answer.
  view.toml_unsure = true;
  CHECK_FALSE(lean_answer(view, strings_of(env), "/home/u/proj", "nvcc"));
  // The lean versions list through it too, as list_toolkits() lists.
  view.versions_listed.clear();
  auto listed = lean_listing_checked(fs, env, &view);
  REQUIRE(listed);
  CHECK(*listed > 2);
  CHECK(view.versions_listed == std::vector<std::string>{"/home/u/.cudaenv/versions", "/opt/shared/versions"});
}

TEST_CASE("lean listing: the toolkits list_toolkits() lists, in its order") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/.cudaenv/versions/12.09.0/bin/nvcc", "", true);  // equal in number to 12.9.0
  fs.file("/home/u/.cudaenv/versions/my-cuda/bin/nvcc", "", true);
  fs.file("/home/u/.cudaenv/versions/alpha/bin/nvcc", "", true);
  fs.dir("/home/u/.cudaenv/versions/12.5.0");                    // no bin/
  fs.dir("/home/u/.cudaenv/versions/.staging-12.8/bin");         // hidden
  fs.symlink("/home/u/.cudaenv/versions/gone", "/opt/removed");  // dangling
  fs.file("/opt/shared/versions/12.4.1/bin/nvcc", "", true);     // shadowed by the user's
  fs.file("/opt/shared/versions/10.2/bin/nvcc", "", true);
  fs.file("/opt/site/bin/nvcc", "", true);
  fs.symlink("/opt/shared/versions/site", "/opt/site");
  CHECK(lean_listing_checked(fs, kBase) == 12);
  CHECK(lean_listing_checked(fs, with(kBase, {{"CUDAENV_SHARED_ROOT", "/opt/shared"}})) == 14);
  CHECK(lean_listing_checked(fs, with(kBase, {{"CUDAENV_SYSTEM_ROOT", "/opt/shared"}})) == 14);
  CHECK(lean_listing_checked(fs, with(kBase, {{"CUDAENV_SHARED_ROOT", "/home/u/.cudaenv"}})) == 12);
  CHECK(lean_listing_checked(fs, with(kBase, {{"CUDAENV_ROOT", "/nowhere"}})) == 0);
  for (int i = 1; i < 1000; ++i) fs.dir("/home/u/.cudaenv/versions/11." + std::to_string(i) + ".0/bin");
  CHECK(lean_listing_checked(fs, kBase) == 1010);  // 11.8.0 was there
  fs.symlink("/home/u/.cudaenv/versions/rel", "../../elsewhere");
  CHECK_FALSE(lean_listing_checked(fs, kBase));  // list_toolkits() normalises a relative link
}

TEST_CASE("lean selection: the toolkit and origin `current` and `versions` show") {
  MemoryFileSystem fs = machine();
  fs.file("/home/u/proj/cuda.toml", "[cuda]\nversion = \"12.1\"\n");
  fs.file("/home/u/warned/cuda.toml", "[cuda]\nversion = \"12.1\"\ncolour = \"red\"\n");
  fs.file("/home/u/.cudaenv/version", "12.4\n");
  fs.file("/opt/shared/versions/12.6.0/bin/nvcc", "", true);
  CHECK(lean_selection_agrees(fs, kBase, "/home/u/proj/src/deep"));
  CHECK(lean_selection_agrees(fs, kBase, "/home/u"));
  CHECK(lean_selection_agrees(fs, with(kBase, {{"CUDAENV_VERSION", "13.0"}}), "/home/u/proj"));
  CHECK(lean_selection_agrees(fs, with(kBase, {{"CUDAENV_SHARED_ROOT", "/opt/shared"}, {"CUDAENV_VERSION", "12.6"}}), "/"));
  // A cuda.toml with a warning: the full program prints it.
  CHECK_FALSE(lean_selection_agrees(fs, kBase, "/home/u/warned"));
  CHECK_FALSE(lean_selection_agrees(fs, with(kBase, {{"CUDAENV_VERSION", "system"}}), "/"));
}
