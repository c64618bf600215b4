// The DWARF (version 2-4) line program of a cubin, tied to kernels by its relocations.
#include "banklab_trace/lines.hpp"

#include <cstring>
#include <unordered_map>

namespace banklab::trace {
namespace {

// ELF64 little-endian structures, read by memcpy (no alignment assumptions).
struct Elf64Shdr {
  std::uint32_t name, type;
  std::uint64_t flags, addr, offset, size;
  std::uint32_t link, info;
  std::uint64_t addralign, entsize;
};
struct Elf64Sym {
  std::uint32_t name;
  unsigned char info, other;
  std::uint16_t shndx;
  std::uint64_t value, size;
};
struct Elf64Rela {
  std::uint64_t offset, info;
  std::int64_t addend;
};
constexpr std::uint32_t kShtSymtab = 2, kShtRela = 4;

// The section headers of a little-endian ELF64 image, and the index of its section-name table;
// false when `p` is not one (or its headers lie outside it).
bool read_sections(const unsigned char* p, std::size_t size, std::vector<Elf64Shdr>& sh, std::uint16_t& shstrndx) {
  if (p == nullptr || size < 64 || std::memcmp(p, "\x7f" "ELF", 4) != 0 || p[4] != 2 || p[5] != 1) return false;
  std::uint64_t shoff;
  std::uint16_t shentsize, shnum;
  std::memcpy(&shoff, p + 0x28, 8);
  std::memcpy(&shentsize, p + 0x3a, 2);
  std::memcpy(&shnum, p + 0x3c, 2);
  std::memcpy(&shstrndx, p + 0x3e, 2);
  if (shentsize != sizeof(Elf64Shdr) || shoff > size || shnum > (size - shoff) / sizeof(Elf64Shdr) ||
      shstrndx >= shnum)
    return false;
  sh.resize(shnum);
  std::memcpy(sh.data(), p + shoff, shnum * sizeof(Elf64Shdr));
  return true;
}

class Reader {
 public:
  Reader(const unsigned char* p, std::size_t n) : p_(p), n_(n) {}
  bool ok() const { return ok_; }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { if (pos > n_) ok_ = false; else pos_ = pos; }
  bool at_end() const { return pos_ >= n_; }
  template <class T> T get() {
    T v{};
    if (pos_ + sizeof(T) > n_) { ok_ = false; pos_ = n_; return v; }
    std::memcpy(&v, p_ + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::uint64_t uleb() {
    std::uint64_t v = 0;
    int shift = 0;
    while (true) {
      const auto b = get<std::uint8_t>();
      if (!ok_) return 0;
      if (shift < 64) v |= std::uint64_t(b & 0x7f) << shift;
      shift += 7;
      if (!(b & 0x80)) return v;
    }
  }
  std::int64_t sleb() {
    std::int64_t v = 0;
    int shift = 0;
    std::uint8_t b = 0;
    do {
      b = get<std::uint8_t>();
      if (!ok_) return 0;
      if (shift < 64) v |= std::int64_t(b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -(std::int64_t(1) << shift);
    return v;
  }
  std::string cstr() {
    std::string s;
    while (true) {
      const auto c = get<char>();
      if (!ok_ || c == '\0') return s;
      s += c;
    }
  }

 private:
  const unsigned char* p_;
  std::size_t n_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

// Runs one DWARF line program unit starting at `r.pos()`; rows go to `table` under the
// function whose symbol the relocation at the set_address operand names.
void run_unit(Reader& r, const std::unordered_map<std::uint64_t, std::string>& reloc_fn,
              LineTable& table) {
  const std::size_t unit_start = r.pos();
  const std::uint32_t unit_length = r.get<std::uint32_t>();
  if (!r.ok() || unit_length == 0xffffffffu) { r.seek(SIZE_MAX); return; }  // 64-bit DWARF: not used by nvcc
  const std::size_t unit_end = unit_start + 4 + unit_length;
  const std::uint16_t version = r.get<std::uint16_t>();
  const std::uint32_t header_length = r.get<std::uint32_t>();
  const std::size_t program_start = r.pos() + header_length;
  const std::uint8_t min_inst = r.get<std::uint8_t>();
  if (version >= 4) (void)r.get<std::uint8_t>();  // maximum_operations_per_instruction
  (void)r.get<std::uint8_t>();                      // default_is_stmt
  const std::int8_t line_base = r.get<std::int8_t>();
  const std::uint8_t line_range = r.get<std::uint8_t>();
  const std::uint8_t opcode_base = r.get<std::uint8_t>();
  std::vector<std::uint8_t> std_lengths(opcode_base > 0 ? opcode_base - 1 : 0);
  for (auto& l : std_lengths) l = r.get<std::uint8_t>();
  if (!r.ok() || version < 2 || version > 4 || line_range == 0) { r.seek(unit_end); return; }
  std::vector<std::string> dirs{""};
  for (std::string d = r.cstr(); r.ok() && !d.empty(); d = r.cstr()) dirs.push_back(d);
  std::vector<std::string> files{""};
  for (std::string f = r.cstr(); r.ok() && !f.empty(); f = r.cstr()) {
    const auto dir = r.uleb();
    (void)r.uleb();
    (void)r.uleb();
    files.push_back(dir > 0 && dir < dirs.size() && f[0] != '/' ? dirs[dir] + "/" + f : f);
  }
  r.seek(program_start);

  std::uint64_t address = 0;
  std::uint64_t file = 1;
  std::int64_t line = 1;
  std::string function;
  auto emit = [&] {
    if (function.empty() || line <= 0) return;
    table.add(function, address, file < files.size() ? files[file] : std::string(), int(line));
  };
  while (r.ok() && r.pos() < unit_end) {
    const std::uint8_t op = r.get<std::uint8_t>();
    if (op >= opcode_base) {
      const int adj = op - opcode_base;
      address += std::uint64_t(adj / line_range) * min_inst;
      line += line_base + adj % line_range;
      emit();
    } else if (op == 0) {  // extended
      const std::uint64_t len = r.uleb();
      const std::size_t start = r.pos();
      if (len == 0) continue;
      const std::uint8_t sub = r.get<std::uint8_t>();
      if (sub == 1) {  // end_sequence
        address = 0; file = 1; line = 1; function.clear();
      } else if (sub == 2) {  // set_address (+ its relocation names the kernel)
        const std::size_t operand = r.pos();
        std::uint64_t a = 0;
        if (len - 1 == 8) a = r.get<std::uint64_t>();
        else if (len - 1 == 4) a = r.get<std::uint32_t>();
        const auto it = reloc_fn.find(operand);
        if (it != reloc_fn.end()) function = it->second;
        address = a;
      }
      r.seek(start + len);
    } else {
      switch (op) {
        case 1: emit(); break;                                          // copy
        case 2: address += r.uleb() * min_inst; break;                  // advance_pc
        case 3: line += r.sleb(); break;                                // advance_line
        case 4: file = r.uleb(); break;                                 // set_file
        case 5: (void)r.uleb(); break;                                  // set_column
        case 6: case 7: case 10: case 11: break;                        // flags
        case 8: address += std::uint64_t((255 - opcode_base) / line_range) * min_inst; break;
        case 9: address += r.get<std::uint16_t>(); break;               // fixed_advance_pc
        default:
          for (int i = 0; i < (op - 1 < int(std_lengths.size()) ? std_lengths[op - 1] : 0); ++i) (void)r.uleb();
      }
    }
  }
  r.seek(unit_end);
}

}  // namespace

void LineTable::add(const std::string& function, std::uint64_t offset, std::string file, int line) {
  rows_[function][offset] = Row{std::move(file), line};
}

SourceLine LineTable::lookup(const std::string& function, std::uint64_t offset) const {
  const auto f = rows_.find(function);
  if (f == rows_.end() || f->second.empty()) return {};
  auto it = f->second.upper_bound(offset);
  if (it == f->second.begin()) return {};
  --it;
  return SourceLine{it->second.file, it->second.line};
}

LineTable LineTable::from_cubin(const void* data, std::size_t size) {
  LineTable table;
  const auto* p = static_cast<const unsigned char*>(data);
  std::vector<Elf64Shdr> sh;
  std::uint16_t shstrndx = 0;
  if (!read_sections(p, size, sh, shstrndx)) return table;
  const std::uint16_t shnum = static_cast<std::uint16_t>(sh.size());
  auto inside = [&](const Elf64Shdr& s) { return s.offset <= size && s.size <= size - s.offset; };
  auto str_at = [&](const Elf64Shdr& strtab, std::uint32_t off) -> std::string {
    if (!inside(strtab) || off >= strtab.size) return {};
    const char* s = reinterpret_cast<const char*>(p + strtab.offset + off);
    return std::string(s, strnlen(s, strtab.size - off));
  };
  int debug_line = -1, rela_debug_line = -1;
  for (int i = 0; i < shnum; ++i) {
    const std::string name = str_at(sh[shstrndx], sh[i].name);
    if (name == ".debug_line") debug_line = i;
    if (name == ".rela.debug_line" && sh[i].type == kShtRela) rela_debug_line = i;
  }
  if (debug_line < 0 || !inside(sh[debug_line])) return table;

  std::unordered_map<std::uint64_t, std::string> reloc_fn;  // offset in .debug_line -> function
  if (rela_debug_line >= 0 && inside(sh[rela_debug_line]) && sh[rela_debug_line].link < shnum) {
    const Elf64Shdr& symtab = sh[sh[rela_debug_line].link];
    if (symtab.type == kShtSymtab && inside(symtab) && symtab.link < shnum) {
      const Elf64Shdr& strtab = sh[symtab.link];
      const std::size_t nsym = symtab.size / sizeof(Elf64Sym);
      const std::size_t nrel = sh[rela_debug_line].size / sizeof(Elf64Rela);
      for (std::size_t i = 0; i < nrel; ++i) {
        Elf64Rela rel;
        std::memcpy(&rel, p + sh[rela_debug_line].offset + i * sizeof(Elf64Rela), sizeof rel);
        const std::uint64_t sym_index = rel.info >> 32;
        if (sym_index >= nsym) continue;
        Elf64Sym sym;
        std::memcpy(&sym, p + symtab.offset + sym_index * sizeof(Elf64Sym), sizeof sym);
        std::string name = str_at(strtab, sym.name);
        if (name.empty() && sym.shndx < shnum) {  // a section symbol: .text.<function>
          name = str_at(sh[shstrndx], sh[sym.shndx].name);
          if (name.rfind(".text.", 0) == 0) name = name.substr(6);
        }
        reloc_fn[rel.offset] = name;
      }
    }
  }
  Reader r(p + sh[debug_line].offset, sh[debug_line].size);
  while (r.ok() && !r.at_end()) run_unit(r, reloc_fn, table);
  return table;
}

SassText SassText::from_cubin(const void* data, std::size_t size) {
  SassText t;
  const auto* p = static_cast<const unsigned char*>(data);
  std::vector<Elf64Shdr> sh;
  std::uint16_t shstrndx = 0;
  if (!read_sections(p, size, sh, shstrndx)) return t;
  const Elf64Shdr& names = sh[shstrndx];
  if (names.offset > size || names.size > size - names.offset) return t;
  for (const Elf64Shdr& s : sh) {
    if (s.name >= names.size || s.offset > size || s.size > size - s.offset) continue;
    const char* n = reinterpret_cast<const char*>(p + names.offset + s.name);
    const std::string name(n, strnlen(n, names.size - s.name));
    if (name.rfind(".text.", 0) == 0) t.text_[name.substr(6)] = {p + s.offset, static_cast<std::size_t>(s.size)};
  }
  return t;
}

std::optional<std::array<std::uint64_t, 2>> SassText::at(const std::string& function, std::uint64_t offset) const {
  const auto it = text_.find(function);
  if (it == text_.end() || offset % 16 != 0 || offset >= it->second.second || it->second.second - offset < 16)
    return std::nullopt;
  std::array<std::uint64_t, 2> w{};
  std::memcpy(w.data(), it->second.first + offset, 16);
  return w;
}

AtomsKind atoms_kind(const std::array<std::uint64_t, 2>& ins) {
  constexpr std::uint64_t kOpcodeMask = 0x1ff, kAtoms = 0x18c, kAtomsCas = 0x18d;
  const std::uint64_t field = (ins[1] >> 23) & 0xfu;
  switch (ins[0] & kOpcodeMask) {
    case kAtoms: return field == 0xbu ? AtomsKind::PopcInc : AtomsKind::Operation;
    case kAtomsCas: return field == 0x3u ? AtomsKind::CasSpin : field == 0x0u ? AtomsKind::Cas : AtomsKind::NotAtoms;
    default: return AtomsKind::NotAtoms;
  }
}

}  // namespace banklab::trace
