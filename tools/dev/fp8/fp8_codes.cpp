// fp8_codes IN OUT_CODES OUT_DECODED: tl's float8e4b15 codes of the float32 values in IN, and
// the float32 value of each of its 256 codes, for fp8_vs_triton.py to compare with Triton's.
#include <tl/tl.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 4) return std::fprintf(stderr, "usage: fp8_codes IN OUT_CODES OUT_DECODED\n"), 2;
  std::FILE* in = std::fopen(argv[1], "rb");
  if (!in) return std::perror(argv[1]), 1;
  std::vector<float> x;
  for (float v; std::fread(&v, sizeof v, 1, in) == 1;) x.push_back(v);
  std::fclose(in);
  std::vector<unsigned char> codes(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) codes[i] = tl::fp8e4b15(x[i]).bits;
  std::vector<float> decoded(256);
  for (int b = 0; b < 256; ++b) decoded[std::size_t(b)] = float(tl::fp8e4b15::from_bits(std::uint8_t(b)));
  std::FILE* out = std::fopen(argv[2], "wb");
  std::FILE* dec = std::fopen(argv[3], "wb");
  if (!out || !dec) return std::perror("fopen"), 1;
  std::fwrite(codes.data(), 1, codes.size(), out);
  std::fwrite(decoded.data(), sizeof(float), decoded.size(), dec);
  std::fclose(out);
  std::fclose(dec);
  return 0;
}
