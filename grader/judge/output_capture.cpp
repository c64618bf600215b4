// output_capture.hpp: a test's output held in a memory file and let out cleaned.
#include "output_capture.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "clean_text.hpp"

namespace judge {
namespace {

void flush_both() {
  std::fflush(stdout);
  std::fflush(stderr);
}

void write_all(int fd, const std::string& s) {
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

// At most `keep` bytes from the start of fd (and whether there was more), read from offset 0.
std::string read_front(int fd, std::size_t keep, std::size_t& total) {
  total = static_cast<std::size_t>(lseek(fd, 0, SEEK_END));
  std::string s(total < keep ? total : keep, '\0');
  std::size_t got = 0;
  while (got < s.size()) {
    const ssize_t n = pread(fd, s.data() + got, s.size() - got, static_cast<off_t>(got));
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  s.resize(got);
  return s;
}

}  // namespace

OutputCapture::OutputCapture() : out_(dup(1)), err_(dup(2)) {}

OutputCapture::~OutputCapture() {
  release();
  if (out_ >= 0) close(out_);
  if (err_ >= 0) close(err_);
}

void OutputCapture::start(const std::string& log) {
  release();
  const int fd = memfd_create("banklab-test-output", MFD_CLOEXEC);
  if (fd < 0) return;
  flush_both();
  dup2(fd, 1);
  dup2(fd, 2);
  mem_ = fd;
  log_ = log;
}

void OutputCapture::release() {
  if (mem_ < 0) return;
  flush_both();
  if (out_ >= 0) dup2(out_, 1);
  if (err_ >= 0) dup2(err_, 2);
  std::size_t total = 0;
  // One byte more than kept, so clean_text sees that there was more and says the cut.
  std::string text = read_front(mem_, kKeptBytes + 1, total);
  close(mem_);
  mem_ = -1;
  std::string shown = clean_text(text, kKeptBytes);
  if (total > text.size()) shown += "\n[... " + std::to_string(total - text.size()) + " more bytes not kept]\n";
  if (log_.empty()) {
    write_all(1, shown);
    return;
  }
  const int fd = open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, shown);
  close(fd);
}

}  // namespace judge
