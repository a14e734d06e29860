#include "extensions/symbols.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "util/strings.h"

namespace cudaenv {

namespace {

// Bounds on the other-ABI search, which demangles torch's symbols that share a missing one's prefix.
constexpr std::size_t kAbiChecked = 32;       // missing symbols looked for under the other ABI
constexpr std::size_t kAbiCandidates = 4096;  // torch symbols demangled for one of them

bool from_python(const std::string& name) { return starts_with(name, "Py") || starts_with(name, "_Py"); }

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// The mangled name up to its first mention of std (St, Ss, NSt...): the part both ABIs spell alike.
std::string abi_free_prefix(const std::string& name) {
  std::size_t cut = std::min(name.find("St"), name.find("Ss"));
  if (cut != std::string::npos && cut > 0 && name[cut - 1] == 'N') --cut;
  return name.substr(0, cut);
}

// Whether some object of `scope` defines `name` under the other C++ ABI.
bool defined_under_other_abi(const std::string& name, const std::vector<const LoadedObject*>& scope) {
  std::string prefix = abi_free_prefix(name);
  if (prefix.size() < 6 || prefix == name) return false;  // no std in it: the ABI cannot be why
  std::string wanted = abi_neutral(demangled(name));
  for (const LoadedObject* object : scope) {
    std::vector<std::string> candidates = object->elf.defined_starting_with(prefix);
    if (candidates.size() > kAbiCandidates) candidates.resize(kAbiCandidates);
    for (const std::string& candidate : candidates) {
      if (candidate != name && abi_neutral(demangled(candidate)) == wanted) return true;
    }
  }
  return false;
}

}  // namespace

std::string demangled(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> text(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  return status == 0 && text ? std::string(text.get()) : name;
}

std::string abi_neutral(std::string name) {
  replace_all(name, "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string");
  replace_all(name, "std::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string");
  replace_all(name, "std::__cxx11::", "std::");
  return name;
}

std::optional<MissingSymbols> missing_symbols(const LoadedObject& module, const std::vector<const LoadedObject*>& scope,
                                              const std::vector<const LoadedObject*>& global) {
  std::vector<std::string> missing;
  for (const ElfSymbol& symbol : module.elf.undefined_symbols()) {
    if (symbol.weak || from_python(symbol.name)) continue;
    auto defines = [&](const LoadedObject* object) { return object != &module && object->elf.defines(symbol.name); };
    if (std::any_of(global.begin(), global.end(), defines) || std::any_of(scope.begin(), scope.end(), defines)) continue;
    missing.push_back(symbol.name);
  }
  if (missing.empty()) return std::nullopt;
  MissingSymbols result;
  result.count = missing.size();
  // A C++ symbol says more than a C one.
  auto shown = std::find_if(missing.begin(), missing.end(), [](const std::string& name) { return starts_with(name, "_Z"); });
  result.example = demangled(shown == missing.end() ? missing.front() : *shown);
  std::size_t checked = std::min(missing.size(), kAbiChecked);
  result.other_abi = std::all_of(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(checked),
                                 [&](const std::string& name) { return defined_under_other_abi(name, scope); });
  return result;
}

}  // namespace cudaenv
