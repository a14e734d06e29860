#pragma once
// The CA certificates https transfers are checked against. The release's libcurl is linked in
// and has no built-in path (each distribution keeps them elsewhere), so cudaenv names them:
// SSL_CERT_FILE and SSL_CERT_DIR (as OpenSSL reads them), else CURL_CA_BUNDLE (as curl does),
// else the first bundle found among the well-known paths of Debian/Ubuntu, RHEL/Fedora, SUSE and
// Alpine, else a well-known folder of hashed certificates. `install --source pypi` uses pip's
// `cert` instead where pip has one.

#include <string>
#include <vector>

#include "util/environment.h"
#include "util/file_system.h"

namespace cudaenv {

struct CaCertificates {
  std::string file;                 // a PEM bundle (curl's CAINFO), or empty
  std::string dirs;                 // folders of hashed certificates, ':'-separated (curl's CAPATH), or empty
  std::string origin;               // what named them: "SSL_CERT_FILE=/x", "cert = /x in /etc/pip.conf", a well-known path
  std::vector<std::string> looked;  // the well-known paths tried, for the error when none was found

  bool found() const { return !file.empty() || !dirs.empty(); }
};

// The well-known bundles and folders, in the order they are tried.
extern const std::vector<std::string> kCaBundles;
extern const std::vector<std::string> kCaFolders;

// A variable that is set names the certificates even when its file is missing (curl then says
// so, and ca_certificates_note explains): a setting is never passed over in silence.
CaCertificates find_ca_certificates(const EnvMap& env, const FileSystemView& fs);

// What to add to a failed certificate check: the certificates used and how to name others, or
// every place looked and the variable to set.
std::string ca_certificates_note(const CaCertificates& ca);

}  // namespace cudaenv
