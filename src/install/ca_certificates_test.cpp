#include "install/ca_certificates.h"

#include <catch2/catch.hpp>

#include "support/memory_file_system.h"

using namespace cudaenv;
using cudaenv::testing::MemoryFileSystem;

TEST_CASE("CA certificates: the variables first, a set one even when its file is missing") {
  MemoryFileSystem fs;
  fs.file("/etc/ssl/certs/ca-certificates.crt", "pem");
  CaCertificates both = find_ca_certificates({{"SSL_CERT_FILE", "/my.pem"}, {"SSL_CERT_DIR", "/a:/b"}}, fs);
  CHECK(both.file == "/my.pem");
  CHECK(both.dirs == "/a:/b");
  CHECK(both.origin == "SSL_CERT_FILE=/my.pem and SSL_CERT_DIR=/a:/b");
  CaCertificates dir_only = find_ca_certificates({{"SSL_CERT_DIR", "/certs"}, {"CURL_CA_BUNDLE", "/curl.pem"}}, fs);
  CHECK(dir_only.file.empty());
  CHECK(dir_only.dirs == "/certs");
  CaCertificates curl = find_ca_certificates({{"CURL_CA_BUNDLE", "/curl.pem"}, {"SSL_CERT_FILE", ""}}, fs);
  CHECK(curl.file == "/curl.pem");
  CHECK(curl.origin == "CURL_CA_BUNDLE=/curl.pem");
  CHECK(ca_certificates_note(curl).find("checked against were CURL_CA_BUNDLE=/curl.pem") != std::string::npos);
}

TEST_CASE("CA certificates: each distribution's bundle, then its folder") {
  struct Case {
    const char* path;
    bool folder;
  };
  for (Case c : {Case{"/etc/ssl/certs/ca-certificates.crt", false},                 // Debian, Ubuntu
                 Case{"/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", false},  // RHEL, Fedora
                 Case{"/etc/pki/tls/certs/ca-bundle.crt", false},                   // older RHEL
                 Case{"/var/lib/ca-certificates/ca-bundle.pem", false},             // SUSE
                 Case{"/etc/ssl/ca-bundle.pem", false},                             // older SUSE
                 Case{"/etc/ssl/cert.pem", false},                                  // Alpine
                 Case{"/var/lib/ca-certificates/openssl", true}}) {
    MemoryFileSystem fs;
    c.folder ? (void)fs.dir(c.path) : (void)fs.file(c.path, "pem");
    CaCertificates ca = find_ca_certificates({{"HOME", "/h"}}, fs);
    CHECK((c.folder ? ca.dirs : ca.file) == c.path);
    CHECK(ca.origin == c.path);
  }
  MemoryFileSystem fs;
  fs.dir("/etc/ssl/certs");
  fs.file("/etc/ssl/cert.pem", "pem");
  CHECK(find_ca_certificates({}, fs).file == "/etc/ssl/cert.pem");  // a bundle before any folder
}

TEST_CASE("CA certificates: none found names every place looked and the variable to set") {
  MemoryFileSystem fs;
  fs.dir("/etc/ssl/cert.pem");  // not a file
  CaCertificates none = find_ca_certificates({}, fs);
  CHECK_FALSE(none.found());
  CHECK(none.looked.size() == kCaBundles.size() + kCaFolders.size());
  std::string note = ca_certificates_note(none);
  for (const std::string& place : kCaBundles) CHECK(note.find(place) != std::string::npos);
  for (const std::string& place : kCaFolders) CHECK(note.find(place) != std::string::npos);
  CHECK(note.find("SSL_CERT_FILE, SSL_CERT_DIR and CURL_CA_BUNDLE are not set") != std::string::npos);
  CHECK(note.find("set SSL_CERT_FILE to your system's CA bundle") != std::string::npos);
}
