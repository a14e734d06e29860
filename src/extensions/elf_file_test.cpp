// ElfFile, the loader model and the missing-symbol check on shared objects these tests build with
// g++ (skipped where there is none), and on truncated and damaged copies of them.
#include "extensions/elf_file.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "extensions/loader.h"
#include "extensions/scan.h"
#include "extensions/symbols.h"
#include "util/file_system.h"

using namespace cudaenv;
namespace fs = std::filesystem;

namespace {

struct Workshop {
  fs::path dir = fs::temp_directory_path() / ("cudaenv-elf-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()));
  Workshop() { fs::create_directories(dir); }
  ~Workshop() { fs::remove_all(dir); }

  // g++ -shared SOURCE -o NAME FLAGS; false where g++ is missing or fails.
  bool build(const std::string& name, const std::string& source, const std::string& flags = "") const {
    std::ofstream(dir / (name + ".cpp")) << source;
    std::string command = "cd '" + dir.string() + "' && g++ -shared -fPIC -o " + name + " " + name + ".cpp " + flags + " 2>&1";
    return std::system(command.c_str()) == 0;
  }
  std::vector<unsigned char> bytes(const std::string& name) const {
    std::ifstream in(dir / name, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};

bool have_gxx() { return std::system("g++ --version >/dev/null 2>&1") == 0; }

constexpr const char* kLibrary = R"(
#include <string>
namespace c10 { void needs_string(const std::string& s) { (void)s; } int plain(int x) { return x; } }
)";
constexpr const char* kModule = R"(
#include <string>
namespace c10 { void needs_string(const std::string& s); int plain(int x); }
extern "C" __attribute__((weak)) void optional_hook();
extern "C" void PyInit_mod() { c10::needs_string("x"); c10::plain(1); if (optional_hook) optional_hook(); }
)";

}  // namespace

TEST_CASE("ElfFile reads NEEDED, SONAME, RUNPATH and the dynamic symbols of a real shared object") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  fs::create_directories(shop.dir / "lib");
  REQUIRE(shop.build("lib/libc10.so", kLibrary, "-Wl,-soname,libc10.so"));
  REQUIRE(shop.build("mod.cpython-311-x86_64-linux-gnu.so", kModule, "-Llib -lc10 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib'"));
  auto module = ElfFile::open(shop.dir / "mod.cpython-311-x86_64-linux-gnu.so");
  REQUIRE(module);
  CHECK(std::find(module->needed().begin(), module->needed().end(), "libc10.so") != module->needed().end());
  CHECK(module->runpath() == std::vector<std::string>{"$ORIGIN/lib"});
  CHECK(module->rpath().empty());
  CHECK(module->defines("PyInit_mod"));
  CHECK_FALSE(module->defines("PyInit_other"));
  bool weak_hook = false, strong_plain = false;
  for (const ElfSymbol& symbol : module->undefined_symbols()) {
    if (symbol.name == "optional_hook") weak_hook = symbol.weak;
    if (symbol.name == "_ZN3c105plainEi") strong_plain = !symbol.weak;
  }
  CHECK(weak_hook);
  CHECK(strong_plain);
  auto library = ElfFile::open(shop.dir / "lib/libc10.so");
  REQUIRE(library);
  CHECK(library->soname() == "libc10.so");
  CHECK(library->defines("_ZN3c105plainEi"));
  CHECK(library->defined_starting_with("_ZN3c10").size() == 2);
  auto fatbin = module->section(".nv_fatbin");
  REQUIRE(fatbin);
  CHECK_FALSE(*fatbin);
}

TEST_CASE("ElfFile finds symbols without .gnu.hash too") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  REQUIRE(shop.build("libsysv.so", kLibrary, "-Wl,--hash-style=sysv"));
  auto library = ElfFile::open(shop.dir / "libsysv.so");
  REQUIRE(library);
  CHECK(library->defines("_ZN3c105plainEi"));
  CHECK_FALSE(library->defines("_ZN3c105otherEi"));
}

TEST_CASE("ElfFile ends in a value on every truncation and on damaged headers") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  REQUIRE(shop.build("libc10.so", kLibrary));
  std::vector<unsigned char> whole = shop.bytes("libc10.so");
  REQUIRE(whole.size() > 4096);
  for (std::size_t size = 0; size < whole.size(); size += size < 128 ? 1 : 97) {
    std::vector<unsigned char> cut(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(size));
    auto elf = ElfFile::from_memory(cut, "cut");
    if (!elf) continue;
    for (const ElfSymbol& symbol : elf->undefined_symbols()) (void)elf->defines(symbol.name);
    (void)elf->defines("_ZN3c105plainEi");
    (void)elf->section(".nv_fatbin");
  }
  std::vector<unsigned char> damaged = whole;
  for (std::size_t at = 0x20; at < 0x40; ++at) damaged[at] = 0xFF;  // e_phoff, e_shoff: far past the end
  auto elf = ElfFile::from_memory(damaged, "damaged.so");
  if (elf) CHECK_FALSE(elf->defines("_ZN3c105plainEi"));
  auto text = ElfFile::from_memory(std::vector<unsigned char>{'I', 'N', 'P', 'U', 'T', '(', ')'}, "libc.so");
  REQUIRE_FALSE(text);
  CHECK(text.error().message == "libc.so: not an ELF file");
}

TEST_CASE("the loader model: RPATH before LD_LIBRARY_PATH, RUNPATH after it, $ORIGIN, and what is missing") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  fs::create_directories(shop.dir / "a");
  fs::create_directories(shop.dir / "b");
  REQUIRE(shop.build("a/libc10.so", kLibrary, "-Wl,-soname,libc10.so"));
  REQUIRE(shop.build("b/libc10.so", kLibrary, "-Wl,-soname,libc10.so"));
  REQUIRE(shop.build("rpath.so", kModule, "-La -lc10 -Wl,--disable-new-dtags,-rpath,'$ORIGIN/a'"));
  REQUIRE(shop.build("runpath.so", kModule, "-La -lc10 -Wl,--enable-new-dtags,-rpath,'$ORIGIN/a'"));
  REQUIRE(shop.build("bare.so", kModule, "-La -lc10"));
  LoaderSettings settings;
  settings.library_path = {(shop.dir / "b").string()};
  LoaderModel loader(settings);
  auto found = [&](const char* module) {
    LoadOutcome outcome = loader.load_alone(shop.dir / module);
    REQUIRE(outcome.scope.size() >= 2);
    return outcome.scope[1]->path.parent_path().filename().string();
  };
  CHECK(found("rpath.so") == "a");
  CHECK(found("runpath.so") == "b");
  LoaderSettings plain;
  plain.system_dirs = system_library_dirs("/");  // libstdc++ and libc
  LoaderModel without(plain);
  LoadOutcome bare = without.load_alone(shop.dir / "bare.so");
  CHECK(bare.missing == std::vector<std::string>{"libc10.so"});
  // A soname the process has loaded already is taken as it is.
  without.load(shop.dir / "a/libc10.so", true);
  CHECK(without.load_alone(shop.dir / "bare.so").missing.empty());
}

TEST_CASE("missing_symbols names what nothing defines, and sees the other C++ ABI") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  fs::create_directories(shop.dir / "old");
  fs::create_directories(shop.dir / "new");
  REQUIRE(shop.build("old/libc10.so", kLibrary, "-D_GLIBCXX_USE_CXX11_ABI=0 -Wl,-soname,libc10.so"));
  REQUIRE(shop.build("new/libc10.so", "namespace c10 { int plain(int x) { return x; } }", "-Wl,-soname,libc10.so"));
  REQUIRE(shop.build("mod.so", kModule, "-D_GLIBCXX_USE_CXX11_ABI=1 -Lold -lc10 -Wl,-rpath,'$ORIGIN/old'"));
  REQUIRE(shop.build("mod_new.so", kModule, "-D_GLIBCXX_USE_CXX11_ABI=1 -Lold -lc10 -Wl,-rpath,'$ORIGIN/new'"));
  LoaderSettings settings;
  settings.system_dirs = system_library_dirs("/");
  LoaderModel loader(settings);
  LoadOutcome outcome = loader.load_alone(shop.dir / "mod.so");
  REQUIRE(outcome.missing.empty());
  auto missing = missing_symbols(*outcome.scope.front(), outcome.scope, loader.global_scope());
  REQUIRE(missing);
  CHECK(missing->count == 1);
  CHECK(missing->example ==
        "c10::needs_string(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)");
  CHECK(missing->other_abi);
  LoadOutcome other = loader.load_alone(shop.dir / "mod_new.so");
  auto lacking = missing_symbols(*other.scope.front(), other.scope, loader.global_scope());
  REQUIRE(lacking);
  CHECK_FALSE(lacking->other_abi);
}

TEST_CASE("scan_extensions groups modules by package and leaves libraries and plain modules out") {
  if (!have_gxx()) {
    WARN("g++ is not installed: nothing to build the ELF files with");
    return;
  }
  Workshop shop;
  fs::path site = shop.dir / "site";
  fs::create_directories(site / "torch/lib");
  fs::create_directories(site / "pkg");
  fs::create_directories(site / "pkg-1.0+cu124torch2.4.dist-info");
  REQUIRE(shop.build("site/torch/lib/libc10.so", kLibrary, "-Wl,-soname,libc10.so"));
  REQUIRE(shop.build("site/pkg/mod.cpython-311-x86_64-linux-gnu.so", kModule, "-Lsite/torch/lib -lc10"));
  REQUIRE(shop.build("site/pkg/plain.cpython-311-x86_64-linux-gnu.so", "extern \"C\" void PyInit_plain() {}"));
  // Needs a c10 symbol but no torch library (the other ABI, linked --as-needed): inspected too.
  REQUIRE(shop.build("site/lone.so", "namespace c10 { int plain(int); }\nextern \"C\" void PyInit_lone() { c10::plain(1); }"));
  std::ofstream(site / "pkg-1.0+cu124torch2.4.dist-info/RECORD") << "pkg/mod.cpython-311-x86_64-linux-gnu.so,,\n";
  std::ofstream(site / "pkg-1.0+cu124torch2.4.dist-info/METADATA") << "Name: pkg\nVersion: 1.0+cu124torch2.4\n";
  ScanRequest request;
  request.sys_path = {site, "", "relative"};
  request.torch_dir = site / "torch";
  request.machine_root = "/";  // the system's libstdc++ and libc
  ExtensionScan scan;
  scan.archs = {ComputeCapability(9, 0)};
  scan_extensions(RealFileSystem(), request, scan);
  CHECK(scan.ran);
  CHECK(scan.module_count == 2);
  REQUIRE(scan.packages.size() == 2);
  auto named = [&](const std::string& name) {
    auto found =
        std::find_if(scan.packages.begin(), scan.packages.end(), [&](const ExtensionPackage& p) { return p.name == name; });
    REQUIRE(found != scan.packages.end());
    return *found;
  };
  ExtensionPackage lone = named("lone");
  CHECK(lone.name == "lone");
  REQUIRE(lone.modules.size() == 1);
  REQUIRE(lone.modules.front().missing_symbols);
  CHECK(lone.modules.front().missing_symbols->example == "c10::plain(int)");
  ExtensionPackage package = named("pkg");
  CHECK(package.name == "pkg");
  CHECK(package.built_for_torch == "2.4");
  CHECK(package.built_for_cuda == "12.4");
  REQUIRE(package.modules.size() == 1);
  // torch's libc10 is not loaded in the modelled process (no libtorch_global_deps, no _C): the
  // module's NEEDED libc10.so is found nowhere.
  REQUIRE(package.modules.front().missing_libraries.size() == 1);
  CHECK(package.modules.front().missing_libraries.front().soname == "libc10.so");
  CHECK_FALSE(package.modules.front().kernels);
}
