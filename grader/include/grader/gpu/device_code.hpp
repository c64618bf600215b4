// What the student's compiled device code calls beyond itself, read from the fatbin the judge's
// build made (uncompressed: nvcc -no-compress, grader/judge/build.cpp), before any of it is loaded.
//
// Why: one CUDA context serves every judged launch of a test process, and the device heap
// (malloc/free/new in device code) belongs to the context, not to a module: a block a kernel
// frees in one judged launch is handed back, contents and all, to the next launch on a freshly
// loaded module (measured on an H200: the same address three launches running, each reading the
// last one's mark; the heap's size cannot be made 0: the driver rounds a request of 0 up to 4 MiB).
// So the judge refuses device code that calls the heap: no judged launch can leave data there for
// the next. The rule reads the cubins' symbol tables (an undefined function the driver links in)
// and the PTX's `.extern .func` declarations (what a JIT compile would link), bounds-checked,
// since the image is the student's.
#pragma once

#include <cstdint>
#include <cctype>
#include <cstring>
#include <string>
#include <vector>

namespace grader::gpu {

/// The device-side entry points of the heap: a kernel that calls one keeps state in the context.
inline const std::vector<std::string>& device_heap_functions() {
  static const std::vector<std::string> names = {"malloc", "free", "__nv_aligned_device_malloc"};
  return names;
}

/// What scan_device_code() found.
struct DeviceCodeScan {
  bool readable = false;               ///< the image is a fatbin whose entries could all be read
  std::string why;                     ///< why not, when !readable
  int cubins = 0, ptx = 0;             ///< entries read
  std::vector<std::string> heap_calls; ///< device_heap_functions() the code calls, each once
};

namespace detail {

template <class T>
bool read_le(const std::string& b, std::uint64_t off, T* out) {
  if (off > b.size() || b.size() - off < sizeof(T)) return false;
  std::memcpy(out, b.data() + off, sizeof(T));  // the judge's hosts are little-endian, as the fatbin is
  return true;
}

inline void note_heap_call(DeviceCodeScan& s, const std::string& name) {
  for (const std::string& h : device_heap_functions())
    if (name == h) {
      for (const std::string& seen : s.heap_calls)
        if (seen == name) return;
      s.heap_calls.push_back(name);
    }
}

// A cubin (ELF64): every undefined function symbol of its symbol tables.
inline bool scan_elf(const std::string& e, DeviceCodeScan& s) {
  if (e.size() < 64 || e.compare(0, 4, "\x7f" "ELF") != 0 || e[4] != 2 /* ELFCLASS64 */) return false;
  std::uint64_t shoff = 0;
  std::uint16_t shentsize = 0, shnum = 0;
  if (!read_le(e, 0x28, &shoff) || !read_le(e, 0x3a, &shentsize) || !read_le(e, 0x3c, &shnum)) return false;
  if (shentsize < 64 || shnum == 0) return false;
  struct Section { std::uint32_t type = 0, link = 0; std::uint64_t off = 0, size = 0, entsize = 0; };
  std::vector<Section> sec(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + static_cast<std::uint64_t>(i) * shentsize;
    if (!read_le(e, h + 4, &sec[i].type) || !read_le(e, h + 0x18, &sec[i].off) || !read_le(e, h + 0x20, &sec[i].size) ||
        !read_le(e, h + 0x28, &sec[i].link) || !read_le(e, h + 0x38, &sec[i].entsize))
      return false;
    if (sec[i].type == 8 /* SHT_NOBITS: no bytes in the file */) continue;
    if (sec[i].off > e.size() || sec[i].size > e.size() - sec[i].off) return false;
  }
  for (const Section& t : sec) {
    if (t.type != 2 /* SHT_SYMTAB */) continue;
    if (t.link >= shnum || t.entsize < 24 || sec[t.link].type != 3 /* SHT_STRTAB */) return false;
    const Section& str = sec[t.link];
    for (std::uint64_t at = t.off; at + 24 <= t.off + t.size; at += t.entsize) {
      std::uint32_t name = 0;
      std::uint8_t info = 0;
      std::uint16_t shndx = 0;
      if (!read_le(e, at, &name) || !read_le(e, at + 4, &info) || !read_le(e, at + 6, &shndx)) return false;
      if (shndx != 0 /* SHN_UNDEF */ || (info & 0xf) != 2 /* STT_FUNC */ || name >= str.size) continue;
      const char* p = e.data() + str.off + name;
      note_heap_call(s, std::string(p, strnlen(p, static_cast<std::size_t>(str.size - name))));
    }
  }
  return true;
}

// PTX text: `.extern .func ... NAME` (with or without a return parameter), each declaration.
inline void scan_ptx(const std::string& p, DeviceCodeScan& s) {
  static const std::string decl = ".extern .func";
  for (std::size_t at = p.find(decl); at != std::string::npos; at = p.find(decl, at + decl.size())) {
    std::size_t i = at + decl.size();
    while (i < p.size() && (p[i] == ' ' || p[i] == '\t')) ++i;
    if (i < p.size() && p[i] == '(') {  // the return parameter
      const std::size_t close = p.find(')', i);
      if (close == std::string::npos) return;
      i = close + 1;
      while (i < p.size() && (p[i] == ' ' || p[i] == '\t')) ++i;
    }
    std::size_t j = i;
    while (j < p.size() && (std::isalnum(static_cast<unsigned char>(p[j])) || p[j] == '_' || p[j] == '$')) ++j;
    note_heap_call(s, p.substr(i, j - i));
  }
}

}  // namespace detail

/// Reads a fatbin (magic 0xBA55ED50, then entries: kind 1 PTX, kind 2 cubin), every entry
/// uncompressed as the judge's build makes them. Not readable (a compressed entry, a header that
/// runs past the image): the caller does not judge the code.
inline DeviceCodeScan scan_device_code(const std::string& image) {
  DeviceCodeScan s;
  std::uint32_t magic = 0;
  std::uint16_t header = 0;
  std::uint64_t size = 0;
  if (!detail::read_le(image, 0, &magic) || magic != 0xBA55ED50u || !detail::read_le(image, 6, &header) ||
      !detail::read_le(image, 8, &size) || header < 16 || size > image.size() - header) {
    s.why = "not a fatbin";
    return s;
  }
  const std::uint64_t end = header + size;
  for (std::uint64_t at = header; at < end;) {
    std::uint16_t kind = 0;
    std::uint32_t entry_header = 0;
    std::uint64_t payload = 0, flags = 0;
    if (!detail::read_le(image, at, &kind) || !detail::read_le(image, at + 4, &entry_header) ||
        !detail::read_le(image, at + 8, &payload) || entry_header < 48 || !detail::read_le(image, at + 40, &flags) ||
        entry_header > end - at || payload > end - at - entry_header) {
      s.why = "an entry's header runs past the image";
      return s;
    }
    if (flags & 0x8000u) {  // the fatbin's "compressed" flag
      s.why = "a compressed entry (the judge's build compiles with -no-compress)";
      return s;
    }
    const std::string body = image.substr(at + entry_header, payload);
    if (kind == 2) {
      if (!detail::scan_elf(body, s)) {
        s.why = "a cubin that is not a readable ELF64 image";
        return s;
      }
      ++s.cubins;
    } else if (kind == 1) {
      detail::scan_ptx(body, s);
      ++s.ptx;
    }
    at += entry_header + payload;
  }
  s.readable = s.cubins > 0;
  if (!s.readable) s.why = "no cubin in it";
  return s;
}

}  // namespace grader::gpu
