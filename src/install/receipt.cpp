#include "install/receipt.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "util/json_reader.h"
#include "util/url.h"

namespace cudaenv {

namespace {

nlohmann::ordered_json archive_json(const Archive& archive) {
  nlohmann::ordered_json entry = {{"name", archive.name},
                                  {"version", archive.version},
                                  {"url", archive.url},
                                  {"sha256", archive.sha256},
                                  {"size", archive.size}};
  if (!archive.distribution.empty()) {
    entry["distribution"] = archive.distribution;
    entry["wheel"] = std::filesystem::path(strip_url_query(archive.url)).filename().string();
  }
  return entry;
}

// An entry of "components"; nullopt where a field has the wrong type or the name is missing.
std::optional<Archive> archive_of(const JsonValue& entry) {
  auto name = entry.string_at("name");
  auto version = entry.optional_string("version");
  auto url = entry.optional_string("url");
  auto sha256 = entry.optional_string("sha256");
  auto distribution = entry.optional_string("distribution");
  auto size = entry.find("size");
  if (!name || !version || !url || !sha256 || !distribution || !size) return std::nullopt;
  Archive archive{.name = *name,
                  .version = version->value_or(""),
                  .url = url->value_or(""),
                  .sha256 = sha256->value_or(""),
                  .distribution = distribution->value_or("")};
  if (*size) {
    auto bytes = (*size)->unsigned_integer();
    if (!bytes) return std::nullopt;
    archive.size = *bytes;
  }
  return archive;
}

}  // namespace

std::string render_receipt(const InstallRequest& request, const InstallPlan& plan, const LibraryContents& libraries) {
  nlohmann::ordered_json receipt;
  receipt["label"] = request.label;
  receipt["profile"] = request.profile;
  receipt["platform"] = request.platform;
  receipt["origin"] = plan.origin;
  receipt["source"] = source_name(plan.source);
  receipt[plan.source == InstallSource::pypi ? "metapackage" : "manifest"] = {{"url", plan.pinned_by_url},
                                                                              {"sha256", plan.pinned_by_sha256}};
  receipt["components"] = nlohmann::ordered_json::array();
  for (const Archive& archive : plan.files) {
    nlohmann::ordered_json entry = archive_json(archive);
    // So that replacing or removing the library takes exactly these away.
    if (auto added = libraries.find(archive.name); added != libraries.end()) entry["files"] = added->second;
    receipt["components"].push_back(std::move(entry));
  }
  return json_text(receipt);
}

std::optional<InstallReceipt> parse_receipt(std::string_view text, const std::string& path) {
  auto root = JsonValue::parse(text, path);
  if (!root) return std::nullopt;
  auto profile = root->optional_string("profile");
  auto components = root->find("components");
  if (!profile || !components) return std::nullopt;
  InstallReceipt receipt{.profile = profile->value_or("")};
  if (!*components) return receipt;
  auto entries = (*components)->elements();
  if (!entries) return std::nullopt;
  for (const JsonValue& entry : *entries) {
    auto archive = archive_of(entry);
    if (!archive) return std::nullopt;
    receipt.archives.push_back(std::move(*archive));
  }
  return receipt;
}

}  // namespace cudaenv
