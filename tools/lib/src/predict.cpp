// `banklab predict`: a buffered line reader and the per-access answer, no allocation per line.
#include "banklab_cli/predict.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "banklab/pattern_io.hpp"

namespace banklab::cli {

LineReader::LineReader(std::FILE* in, std::string source) : in_(in), source_(std::move(source)) {
  cap_ = std::size_t{1} << 18;  // grows up to 2 * kMaxLineBytes for long lines
  buf_ = static_cast<char*>(std::malloc(cap_));
  if (!buf_) throw std::bad_alloc();
}

LineReader::~LineReader() { std::free(buf_); }

bool LineReader::next(std::string_view& line) {
  for (;;) {
    // A complete line in the buffer?
    if (scanned_ < end_) {
      const void* nl = std::memchr(buf_ + scanned_, '\n', end_ - scanned_);
      if (nl) {
        const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(nl) - buf_);
        std::size_t len = at - begin_;
        if (len > kMaxLineBytes)
          throw ParseError(source_, line_ + 1,
                           "line is longer than " + std::to_string(kMaxLineBytes) +
                               " bytes (an access line has a few hundred characters)");
        if (len > 0 && buf_[begin_ + len - 1] == '\r') --len;
        line = std::string_view(buf_ + begin_, len);
        begin_ = scanned_ = at + 1;
        ++line_;
        return true;
      }
      scanned_ = end_;
    }
    if (end_ - begin_ > kMaxLineBytes)
      throw ParseError(source_, line_ + 1,
                       "line is longer than " + std::to_string(kMaxLineBytes) +
                           " bytes (an access line has a few hundred characters)");
    if (eof_) {
      if (begin_ == end_) return false;
      std::size_t len = end_ - begin_;
      if (buf_[begin_ + len - 1] == '\r') --len;
      line = std::string_view(buf_ + begin_, len);
      begin_ = scanned_ = end_;
      ++line_;
      return true;
    }
    // Move the partial line to the front and read more after it.
    if (begin_ > 0) {
      std::memmove(buf_, buf_ + begin_, end_ - begin_);
      end_ -= begin_;
      scanned_ -= begin_;
      begin_ = 0;
    }
    if (end_ == cap_) {  // the partial line fills the buffer: make room (bounded above)
      const std::size_t bigger = cap_ * 2;
      char* p = static_cast<char*>(std::realloc(buf_, bigger));
      if (!p) throw std::bad_alloc();
      buf_ = p;
      cap_ = bigger;
    }
    const std::size_t want = cap_ - end_;
    const std::size_t got = std::fread(buf_ + end_, 1, want, in_);
    end_ += got;
    if (got < want) {
      if (std::ferror(in_)) {
        const int e = errno;
        throw ParseError(source_, line_ + 1,
                         std::string("cannot read: ") + (e ? std::strerror(e) : "read error"));
      }
      if (std::feof(in_)) eof_ = true;
    }
  }
}

namespace {

inline char* put_uint(char* p, unsigned v) {
  char tmp[12];
  int n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v);
  while (n) *p++ = tmp[--n];
  return p;
}

inline char* put_str(char* p, const char* s) {
  while (*s) *p++ = *s++;
  return p;
}

}  // namespace

char* format_prediction(const WarpAccess& a, char* p) noexcept {
  const Summary s = summarize(a);  // one pass: no second validation or grouping
  p = put_uint(p, static_cast<unsigned>(s.wavefronts));
  p = put_str(p, " min=");
  p = put_uint(p, static_cast<unsigned>(s.minimum));
  p = put_str(p, " conflicts=");
  p = put_uint(p, static_cast<unsigned>(s.conflicts()));
  p = put_str(p, " groups=");
  p = put_str(p, to_string(s.grouping));
  p = put_str(p, s.merged ? " merged=yes\n" : " merged=no\n");
  return p;
}

PredictStats predict_stream(std::FILE* in, const std::string& source, std::FILE* out, TmaSwizzle swizzle) {
  LineReader reader(in, source);
  constexpr std::size_t kOutBuf = 1u << 18;
  struct OutBuf {
    char* data = static_cast<char*>(std::malloc(kOutBuf));
    ~OutBuf() { std::free(data); }
  } ob;
  if (!ob.data) throw std::bad_alloc();
  char* p = ob.data;
  auto flush = [&] {
    if (p != ob.data) std::fwrite(ob.data, 1, static_cast<std::size_t>(p - ob.data), out);
    p = ob.data;
  };

  PredictStats st;
  WarpAccess a;
  std::string_view line;
  try {
    while (reader.next(line)) {
      if (is_blank_or_comment(line)) continue;
      if (auto err = parse_access_line(line, a)) throw ParseError(source, reader.line_number(), *err);
      if (swizzle != TmaSwizzle::None) a = with_tma_swizzle(a, swizzle);
      p = format_prediction(a, p);
      ++st.accesses;
      if (static_cast<std::size_t>(p - ob.data) > kOutBuf - kPredictionMax) flush();
    }
  } catch (...) {
    flush();  // what was predicted before the problem still comes out
    std::fflush(out);
    throw;
  }
  flush();
  st.lines = reader.line_number();
  if (st.accesses == 0)
    throw ParseError(source, st.lines == 0 ? 1 : st.lines,
                     st.lines == 0 ? "the input is empty: expected lines 'op width mask off0 ... off31'"
                                   : "no access in the input (only blank lines and comments)");
  return st;
}

}  // namespace banklab::cli
