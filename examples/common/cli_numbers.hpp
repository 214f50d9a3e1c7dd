// Numeric command-line options, checked: a value must be a whole number (or, for floating-point
// options, a finite number) inside the option's range, or the program stops with one line that
// names the option, the value and the range. (CLI11's own conversions let `--seed -5` wrap to
// 18446744073709551611, saturate a seed beyond 64 bits, and print a range's bound as a 309-digit
// number.)
//   tl_cli::add_number(app, "--random", s.random, "Also check this many random sizes", 0, 1000000);
#pragma once

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include <CLI/CLI.hpp>

namespace tl_cli {

template <class T>
std::string number_text(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    std::string s = std::to_string(v);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  } else {
    return std::to_string(v);
  }
}

// What a value of an option must be, for its message: "a whole number from 0 to 100".
template <class T>
std::string range_text(T lo, T hi) {
  return std::string(std::is_floating_point_v<T> ? "a number" : "a whole number") + " from " + number_text(lo) +
         " to " + number_text(hi);
}

// text as a T in [lo, hi], or false.
template <class T>
bool parse_number(const std::string& text, T lo, T hi, T& out) {
  T v{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) return false;
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(v)) return false;
  if (v < lo || v > hi) return false;
  out = v;
  return true;
}

// The message for a value that is not one: "--seed: '-5' is not a whole number from 0 to ...".
template <class T>
std::string refusal(const std::string& option, const std::string& text, T lo, T hi) {
  return option + ": '" + text + "' is not " + range_text(lo, hi);
}

// An option whose value is checked when parsed (CLI11 prints the refusal and exits with its code).
template <class T>
CLI::Option* add_number(CLI::App& app, const std::string& name, T& value, const std::string& help, T lo, T hi) {
  auto* o = app.add_option_function<std::string>(
      name,
      [&value, name, lo, hi](const std::string& text) {
        const std::string option = name.substr(name.find_last_of(',') + 1);
        if (!parse_number(text, lo, hi, value)) throw CLI::ValidationError(refusal(option, text, lo, hi));
      },
      help + " (" + range_text(lo, hi) + ")");
  o->type_name(std::is_floating_point_v<T> ? "NUMBER" : "INT");
  return o;
}

// A list of numbers, each checked (CLI11 gives each separately: --sizes 256 512, or repeated).
template <class T>
CLI::Option* add_numbers(CLI::App& app, const std::string& name, std::vector<T>& values, const std::string& help, T lo,
                         T hi) {
  auto* o = app.add_option_function<std::vector<std::string>>(
      name,
      [&values, name, lo, hi](const std::vector<std::string>& texts) {
        values.clear();
        for (const std::string& text : texts) {
          T v{};
          if (!parse_number(text, lo, hi, v)) throw CLI::ValidationError(refusal(name, text, lo, hi));
          values.push_back(v);
        }
      },
      help + " (each " + range_text(lo, hi) + ")");
  o->type_name(std::is_floating_point_v<T> ? "NUMBER" : "INT");
  return o;
}

}  // namespace tl_cli
