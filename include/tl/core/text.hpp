// tl/core/text.hpp: a small string builder for reports and prints, so that the kernel
// headers need no iostreams. Numbers are written as an ostream would by default (integers in
// full, floating-point values as printf's %g).
#pragma once

#include <cstdio>
#include <string>
#include <string_view>
#include <type_traits>

namespace tl::detail {

struct text {
  std::string s;
  text& operator<<(std::string_view v) {
    s.append(v);
    return *this;
  }
  text& operator<<(const char* v) { return *this << std::string_view(v ? v : ""); }
  text& operator<<(const std::string& v) { return *this << std::string_view(v); }
  text& operator<<(char c) {
    s.push_back(c);
    return *this;
  }
  template <class N>
    requires(std::is_arithmetic_v<N> && !std::is_same_v<N, char> && !std::is_same_v<N, bool>)
  text& operator<<(N v) {
    char buf[32];
    if constexpr (std::is_floating_point_v<N>) std::snprintf(buf, sizeof buf, "%g", double(v));
    else if constexpr (std::is_signed_v<N>) std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(v));
    return *this << std::string_view(buf);
  }
  const std::string& str() const { return s; }
};

}  // namespace tl::detail
