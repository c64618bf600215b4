// SHA-256 (FIPS 180-4), for the source hash in grade records and the build stamp.
#pragma once
#include <string>
namespace judge {
std::string sha256_hex(const std::string& data);
}
