// The registry of a lab's variants' questions and the variant being graded (grader/variants.hpp).
#include "grader/variants.hpp"

#include <cstdlib>
#include <cstring>
#include <map>
#include <regex>
#include <stdexcept>
#include <vector>

#include "grader/context.hpp"

namespace grader {
namespace {

struct LabVariants {
  int count = 1;
  std::vector<VariantQuestions> variants;
};

std::map<std::string, LabVariants>& registry() {
  static std::map<std::string, LabVariants> r;
  return r;
}

const VariantQuestions* find(const std::string& lab, int k) {
  auto it = registry().find(lab);
  if (it == registry().end()) return nullptr;
  for (const VariantQuestions& v : it->second.variants)
    if (v.variant == k) return &v;
  return nullptr;
}

}  // namespace

bool register_variants(const char* lab, int count, const VariantQuestions* variants, std::size_t n) {
  LabVariants& l = registry()[lab];
  l.count = count;
  l.variants.assign(variants, variants + n);
  return true;
}

int variant_count(const std::string& lab) {
  auto it = registry().find(lab);
  return it == registry().end() ? 1 : it->second.count;
}

std::string variant_params(const std::string& lab, int k) {
  const VariantQuestions* v = find(lab, k);
  return v ? v->params : "";
}

int variant_named_in(const std::string& source, const std::string& lab) {
  static const std::regex marker(R"((^|\n)//[ \t]*banklab variant: lab ([0-9][0-9]) variant ([0-9]{1,4})\b)");
  std::smatch m;
  if (!std::regex_search(source, m, marker) || m[2].str() != lab) return -1;
  return std::atoi(m[3].str().c_str());
}

int graded_variant() {
  const char* env = std::getenv("BANKLAB_VARIANT");
  return env ? std::atoi(env) : 0;
}

const grader_desc::Question& variant_question(const grader_desc::Question& base) {
  const int k = graded_variant();
  if (k == 0) return base;
  const VariantQuestions* v = find(context().lab, k);
  if (!v) {
    // The judge refuses an unknown variant before any test runs; a variant without registered
    // questions is a tree without answers (the release): its questions are the lab's own, form only.
    return base;
  }
  for (std::size_t i = 0; i < v->size; ++i)
    if (std::strcmp(v->questions[i].name, base.name) == 0) return v->questions[i];
  throw std::logic_error(std::string("variant ") + std::to_string(k) + " of lab " + context().lab +
                         " has no question " + base.name + " (a generator bug)");
}

}  // namespace grader
