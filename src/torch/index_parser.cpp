#include "torch/index_parser.h"

#include <algorithm>

#include "util/html.h"
#include "util/json_reader.h"
#include "util/strings.h"

namespace cudaenv {

namespace {

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string strip_fragment(const std::string& url) { return url.substr(0, url.find_first_of("#?")); }

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) { return hex_digit(c) >= 0; });
}

// PEP 503: "<url>#sha256=<hex>" (other hash names give no sha256).
std::string fragment_sha256(const std::string& url) {
  size_t hash = url.find('#');
  if (hash == std::string::npos) return {};
  std::string fragment = url.substr(hash + 1);
  if (!starts_with(fragment, "sha256=") || !is_sha256_hex(fragment.substr(7))) return {};
  return ascii_lower(fragment.substr(7));
}

std::string filename_of(const std::string& url) {
  std::string path = strip_fragment(url);
  return percent_decode(path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1));
}

// PEP 714: data-core-metadata, or the older data-dist-info-metadata; "false" means none.
bool announces_metadata(const HtmlAttributes& attributes) {
  for (const char* name : {"data-core-metadata", "data-dist-info-metadata"}) {
    auto found = attributes.find(name);
    if (found != attributes.end() && found->second != "false") return true;
  }
  return false;
}

std::vector<IndexFile> parse_html_page(std::string_view body) {
  std::vector<IndexFile> files;
  for (const HtmlAttributes& attributes : html_anchors(body)) {
    auto href = attributes.find("href");
    if (href == attributes.end() || href->second.empty()) continue;
    IndexFile file{filename_of(href->second),
                   strip_fragment(href->second),
                   announces_metadata(attributes),
                   fragment_sha256(href->second),
                   0,
                   attributes.count("data-yanked") > 0};
    if (!file.filename.empty()) files.push_back(std::move(file));
  }
  return files;
}

bool json_announces_metadata(const JsonValue& file) {
  for (const char* name : {"core-metadata", "dist-info-metadata"}) {
    auto member = file.find(name);
    if (!member || !*member) continue;
    auto flag = (*member)->boolean();
    if (!flag || *flag) return true;  // a hash object, or true
  }
  return false;
}

std::optional<std::vector<IndexFile>> parse_json_page(std::string_view body) {
  auto document = JsonValue::parse(body, "index page");
  if (!document || !document->is_object()) return std::nullopt;
  std::vector<IndexFile> files;
  auto list = document->at("files");
  if (!list) return files;
  auto elements = list->elements();
  if (!elements) return files;
  for (const JsonValue& entry : *elements) {
    if (!entry.is_object()) continue;
    auto url = entry.string_at("url");
    if (!url || url->empty()) continue;
    auto name = entry.string_at("filename");
    IndexFile file{
        name ? *name : filename_of(*url), strip_fragment(*url), json_announces_metadata(entry), fragment_sha256(*url), 0, false};
    if (auto hashes = entry.at("hashes")) {
      auto sha256 = hashes->string_at("sha256");
      if (sha256 && is_sha256_hex(*sha256)) file.sha256 = ascii_lower(*sha256);
    }
    if (auto size = entry.at("size")) {
      if (auto bytes = size->unsigned_integer()) file.size = *bytes;
    }
    if (auto yanked = entry.at("yanked")) {
      auto flag = yanked->boolean();  // false, or a reason string
      file.yanked = !flag || *flag;
    }
    if (!file.filename.empty()) files.push_back(std::move(file));
  }
  return files;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::optional<WheelName> parse_wheel_name(std::string_view filename) {
  if (!filename.ends_with(".whl")) return std::nullopt;
  std::vector<std::string> parts = split(filename.substr(0, filename.size() - 4), '-');
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;
  for (const std::string& part : parts) {
    if (part.empty()) return std::nullopt;
  }
  WheelName wheel;
  wheel.package = ascii_lower(parts[0]);
  std::replace(wheel.package.begin(), wheel.package.end(), '-', '_');
  size_t plus = parts[1].find('+');
  wheel.version = parts[1].substr(0, plus);
  if (plus != std::string::npos) wheel.local = parts[1].substr(plus + 1);
  wheel.python_tag = parts[parts.size() - 3];
  wheel.platform = parts.back();
  return wheel;
}

std::vector<IndexFile> parse_project_page(std::string_view body) {
  std::string_view start = trim(body.substr(0, 64));
  if (starts_with(start, "{")) {
    if (auto files = parse_json_page(body)) return *files;
  }
  return parse_html_page(body);
}

std::optional<std::string> required_torch(std::string_view metadata) {
  for (std::string_view line : split(metadata, '\n')) {
    line = trim(line);
    if (line.empty()) break;  // the headers end at the first blank line; the description follows
    if (!starts_with(ascii_lower(line.substr(0, 14)), "requires-dist:")) continue;
    std::string requirement = ascii_lower(trim(line.substr(14)));
    if (requirement.find(';') != std::string::npos) continue;  // an extra or a marker: not the pairing
    if (!starts_with(requirement, "torch") || requirement.size() == 5) continue;
    std::string rest;
    for (char c : requirement.substr(5)) {
      if (c != ' ' && c != '(' && c != ')') rest += c;
    }
    if (!starts_with(rest, "==") || rest.find(',') != std::string::npos) continue;
    std::string version = rest.substr(2, rest.find('+') == std::string::npos ? std::string::npos : rest.find('+') - 2);
    auto parsed = parse_version(version);
    if (parsed && parsed->parts.size() == 3) return parsed->str();
  }
  return std::nullopt;
}

std::optional<Version> cuda_of_local(std::string_view local) {
  if (!starts_with(local, "cu") || local.size() < 4 || local.size() > 5 || !all_digits(local.substr(2))) return std::nullopt;
  std::string digits(local.substr(2));
  return parse_version(digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1));
}

std::vector<IndexRelease> releases_on_page(const std::vector<IndexFile>& files, std::string_view package) {
  std::map<Version, IndexRelease> found;
  for (const IndexFile& file : files) {
    auto wheel = parse_wheel_name(file.filename);
    if (!wheel || wheel->package != package) continue;
    auto version = parse_version(wheel->version);
    if (!version || version->parts.size() != 3) continue;  // rc, dev and post releases are not offered
    IndexRelease& release = found[*version];
    release.version = *version;
    if (wheel->local == "cpu") release.cpu = true;
    if (auto cuda = cuda_of_local(wheel->local)) {
      if (std::find(release.cuda.begin(), release.cuda.end(), *cuda) == release.cuda.end()) release.cuda.push_back(*cuda);
    }
    release.python_tags.insert(wheel->python_tag);
    release.platforms.insert(wheel->platform);
  }
  std::vector<IndexRelease> releases;
  for (auto& [version, release] : found) {
    std::sort(release.cuda.begin(), release.cuda.end());
    releases.push_back(std::move(release));
  }
  return releases;
}

std::string resolve_url(const std::string& page_url, const std::string& relative) {
  if (relative.find("://") != std::string::npos) return relative;
  size_t scheme = page_url.find("://");
  std::string origin = scheme == std::string::npos ? "" : page_url.substr(0, page_url.find('/', scheme + 3));
  if (starts_with(relative, "/")) return origin + relative;
  std::string folder = page_url.substr(0, page_url.rfind('/') + 1);
  std::string path = relative;
  while (starts_with(path, "../")) {  // above the root stays at the root, as in a browser
    path = path.substr(3);
    if (folder.size() <= origin.size() + 1) continue;
    folder.pop_back();
    folder = folder.substr(0, folder.rfind('/') + 1);
  }
  while (starts_with(path, "./")) path = path.substr(2);
  return folder + path;
}

namespace {

bool is_remote(std::string_view url) {
  auto has_prefix = [&](std::string_view prefix) {
    return url.size() >= prefix.size() && ascii_lower(url.substr(0, prefix.size())) == prefix;
  };
  return has_prefix("http://") || has_prefix("https://");
}

}  // namespace

bool may_follow(std::string_view page_url, std::string_view url) { return !is_remote(page_url) || is_remote(url); }

}  // namespace cudaenv
