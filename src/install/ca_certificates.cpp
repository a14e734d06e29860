#include "install/ca_certificates.h"

#include "util/strings.h"

namespace cudaenv {

// Debian/Ubuntu (and Alpine, Arch, Gentoo), RHEL/Fedora (the file ca-certificates extracts, and
// the older link to it), SUSE (current and older), Alpine's own.
const std::vector<std::string> kCaBundles = {"/etc/ssl/certs/ca-certificates.crt",
                                             "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
                                             "/etc/pki/tls/certs/ca-bundle.crt",
                                             "/var/lib/ca-certificates/ca-bundle.pem",
                                             "/etc/ssl/ca-bundle.pem",
                                             "/etc/ssl/cert.pem"};
// Hashed folders (c_rehash): Debian's and SUSE's.
const std::vector<std::string> kCaFolders = {"/etc/ssl/certs", "/var/lib/ca-certificates/openssl"};

CaCertificates find_ca_certificates(const EnvMap& env, const FileSystemView& fs) {
  CaCertificates ca;
  auto file = env_get(env, "SSL_CERT_FILE");
  auto dirs = env_get(env, "SSL_CERT_DIR");
  if (file || dirs) {
    std::vector<std::string> named;
    if (file) named.push_back("SSL_CERT_FILE=" + (ca.file = *file));
    if (dirs) named.push_back("SSL_CERT_DIR=" + (ca.dirs = *dirs));
    ca.origin = join(named, " and ");
    return ca;
  }
  if (auto bundle = env_get(env, "CURL_CA_BUNDLE")) {
    ca.file = *bundle;
    ca.origin = "CURL_CA_BUNDLE=" + *bundle;
    return ca;
  }
  for (const std::string& bundle : kCaBundles) {
    if (fs.kind(bundle) == EntryKind::file) {
      ca.file = ca.origin = bundle;
      return ca;
    }
    ca.looked.push_back(bundle);
  }
  for (const std::string& folder : kCaFolders) {
    if (fs.kind(folder) == EntryKind::directory) {
      ca.dirs = ca.origin = folder;
      return ca;
    }
    ca.looked.push_back(folder);
  }
  return ca;
}

std::string ca_certificates_note(const CaCertificates& ca) {
  if (!ca.found()) {
    return "no CA certificates were found: SSL_CERT_FILE, SSL_CERT_DIR and CURL_CA_BUNDLE are not set, and none of " +
           join(ca.looked, ", ") +
           " exists; set SSL_CERT_FILE to your system's CA bundle (a PEM file), or install its ca-certificates package";
  }
  return "the certificates checked against were " + ca.origin +
         "; if that is missing or lacks this server's CA (a proxy that re-signs TLS), set SSL_CERT_FILE to a PEM "
         "bundle that has it";
}

}  // namespace cudaenv
