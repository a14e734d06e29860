#include "install/install_plan.h"

#include "util/json_reader.h"

namespace cudaenv {

nlohmann::ordered_json plan_json(const InstallPlan& plan) {
  nlohmann::ordered_json json;
  json["label"] = plan.label;
  json["source"] = plan.source;
  json["origin"] = plan.origin;
  json["pinned_by"] = {{"url", plan.pinned_by_url}, {"sha256", plan.pinned_by_sha256}};
  json["files"] = nlohmann::ordered_json::array();
  for (const PlannedFile& file : plan.files) {
    nlohmann::ordered_json entry = {{"component", file.component},
                                    {"version", file.version},
                                    {"url", file.url},
                                    {"sha256", file.sha256},
                                    {"size", file.size}};
    if (!file.distribution.empty()) entry["distribution"] = file.distribution;
    json["files"].push_back(std::move(entry));
  }
  return json;
}

Result<InstallPlan> parse_plan(std::string_view text, const std::string& source) {
  CUDAENV_TRY_ASSIGN(auto root, JsonValue::parse(text, source));
  InstallPlan plan;
  const std::pair<const char*, std::string*> plan_fields[] = {
      {"label", &plan.label}, {"source", &plan.source}, {"origin", &plan.origin}};
  for (auto [key, field] : plan_fields) {
    CUDAENV_TRY_ASSIGN(auto value, root.string_at(key));
    *field = std::move(value);
  }
  CUDAENV_TRY_ASSIGN(auto pinned, root.at("pinned_by"));
  auto pinned_url = pinned.string_at("url");
  auto pinned_sha = pinned.string_at("sha256");
  if (!pinned_url) return pinned_url.take_error();
  if (!pinned_sha) return pinned_sha.take_error();
  plan.pinned_by_url = std::move(*pinned_url);
  plan.pinned_by_sha256 = std::move(*pinned_sha);
  CUDAENV_TRY_ASSIGN(auto files, root.at("files"));
  CUDAENV_TRY_ASSIGN(auto entries, files.elements());
  for (const JsonValue& entry : entries) {
    PlannedFile file;
    const std::pair<const char*, std::string*> file_fields[] = {
        {"component", &file.component}, {"version", &file.version}, {"url", &file.url}, {"sha256", &file.sha256}};
    for (auto [key, field] : file_fields) {
      CUDAENV_TRY_ASSIGN(auto value, entry.string_at(key));
      *field = std::move(value);
    }
    CUDAENV_TRY_ASSIGN(auto size, entry.at("size"));
    CUDAENV_TRY_ASSIGN(auto bytes, size.unsigned_integer());
    file.size = bytes;
    CUDAENV_TRY_ASSIGN(auto distribution, entry.optional_string("distribution"));
    file.distribution = distribution.value_or("");
    plan.files.push_back(std::move(file));
  }
  return plan;
}

}  // namespace cudaenv
