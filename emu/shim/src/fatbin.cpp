// Reads the PTX out of a fatbin (fatbin.hpp).
#include "fatbin.hpp"

#include <cstdint>
#include <cstring>

namespace banklab::emu::shim {
namespace {

template <class T>
bool read_le(const unsigned char* b, std::size_t size, std::uint64_t off, T* out) {
  if (off > size || size - off < sizeof(T)) return false;
  std::memcpy(out, b + off, sizeof(T));
  return true;
}

}  // namespace

std::string ptx_of_fatbin(const void* image, std::size_t limit, std::string& why) {
  const auto* b = static_cast<const unsigned char*>(image);
  std::uint32_t magic = 0;
  std::uint16_t header = 0;
  std::uint64_t size = 0;
  if (!read_le(b, limit, 0, &magic) || magic != 0xBA55ED50u || !read_le(b, limit, 6, &header) ||
      !read_le(b, limit, 8, &size) || header < 16 || size > limit - header) {
    why = "not a fatbin";
    return "";
  }
  const std::uint64_t end = header + size;
  std::string best;
  std::uint32_t best_arch = 0;
  bool compressed = false;
  for (std::uint64_t at = header; at < end;) {
    std::uint16_t kind = 0;
    std::uint32_t entry_header = 0, arch = 0;
    std::uint64_t payload = 0, flags = 0;
    if (!read_le(b, limit, at, &kind) || !read_le(b, limit, at + 4, &entry_header) ||
        !read_le(b, limit, at + 8, &payload) || entry_header < 48 || !read_le(b, limit, at + 28, &arch) ||
        !read_le(b, limit, at + 40, &flags) || entry_header > end - at || payload > end - at - entry_header) {
      why = "an entry's header runs past the fatbin";
      return "";
    }
    if (kind == 1) {
      if (flags & 0x8000u) {  // the fatbin's "compressed" flag
        compressed = true;
      } else if (best.empty() || arch > best_arch) {
        const char* p = reinterpret_cast<const char*>(b + at + entry_header);
        best.assign(p, strnlen(p, static_cast<std::size_t>(payload)));  // the text, without its padding
        best_arch = arch;
      }
    }
    at += entry_header + payload;
  }
  if (best.empty())
    why = compressed ? "its PTX is compressed (the judge compiles with -no-compress)" : "it holds no PTX";
  return best;
}

std::string ptx_of_registered(const void* wrapper, std::string& why) {
  struct Wrapper {  // crt/fatbinary_section.h's __fatBinC_Wrapper_t
    int magic, version;
    const unsigned long long* data;
    void* filename_or_fatbins;
  };
  Wrapper w{};
  std::memcpy(&w, wrapper, sizeof w);
  if (static_cast<std::uint32_t>(w.magic) != 0x466243B1u || !w.data) {
    why = "not a registered fatbin";
    return "";
  }
  // The judge's own image (linked into this program): its header gives its size.
  std::uint16_t header = 0;
  std::uint64_t size = 0;
  std::memcpy(&header, reinterpret_cast<const unsigned char*>(w.data) + 6, sizeof header);
  std::memcpy(&size, reinterpret_cast<const unsigned char*>(w.data) + 8, sizeof size);
  return ptx_of_fatbin(w.data, static_cast<std::size_t>(header) + static_cast<std::size_t>(size), why);
}

}  // namespace banklab::emu::shim
