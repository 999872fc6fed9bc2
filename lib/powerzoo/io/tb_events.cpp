#include "powerzoo/io/tb_events.hpp"

#include <boost/crc.hpp>
#include <cstring>

#include "powerzoo/core/error.hpp"

namespace pz::io {
namespace {

// Protobuf wire format (protobuf.dev/programming-guides/encoding): a key is
// (field_number << 3) | wire_type; varint = 0, 64-bit = 1, length-delimited = 2, 32-bit = 5.
void put_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}

void put_fixed(std::string& out, const void* p, size_t n) {
  out.append(static_cast<const char*>(p), n);  // little endian: x86-64 and aarch64 alike
}

void put_bytes(std::string& out, int field, const std::string& bytes) {
  put_varint(out, (static_cast<uint64_t>(field) << 3) | 2);
  put_varint(out, bytes.size());
  out += bytes;
}

}  // namespace

uint32_t crc32c(const void* data, size_t n) {
  // CRC-32C: polynomial 0x1EDC6F41, reflected, initial and final XOR 0xFFFFFFFF (RFC 3720 B.4).
  boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
  crc.process_bytes(data, n);
  return crc.checksum();
}

uint32_t masked_crc32c(const void* data, size_t n) {
  const uint32_t c = crc32c(data, n);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

std::string encode_scalar_event(double wall_time, int64_t step,
                                const std::vector<std::pair<std::string, float>>& values) {
  std::string summary;
  for (const auto& [tag, v] : values) {
    std::string value;
    put_bytes(value, 1, tag);
    put_varint(value, (2u << 3) | 5);
    put_fixed(value, &v, 4);
    put_bytes(summary, 1, value);
  }
  std::string event;
  put_varint(event, (1u << 3) | 1);
  put_fixed(event, &wall_time, 8);
  put_varint(event, (2u << 3) | 0);
  put_varint(event, static_cast<uint64_t>(step));
  put_bytes(event, 5, summary);
  return event;
}

TbEventWriter::TbEventWriter(const std::string& path, Mode mode) : path_(path) {
  out_.open(path, std::ios::binary | (mode == kCreate ? std::ios::trunc : std::ios::app));
  if (!out_) throw core::RunError(path + ": cannot create the TensorBoard events file");
  if (mode == kAppend) return;
  std::string version;
  const double t = 0.0;
  put_varint(version, (1u << 3) | 1);
  put_fixed(version, &t, 8);
  put_bytes(version, 3, "brain.Event:2");  // Event.file_version: TensorBoard checks it first
  write_record(version);
  out_.flush();
}

void TbEventWriter::write_scalars(int64_t step, double wall_time,
                                  const std::vector<std::pair<std::string, float>>& values) {
  write_record(encode_scalar_event(wall_time, step, values));
  out_.flush();
  if (!out_) throw core::RunError(path_ + ": cannot write the TensorBoard events file");
}

void TbEventWriter::write_record(const std::string& bytes) {
  const uint64_t len = bytes.size();
  const uint32_t len_crc = masked_crc32c(&len, 8);
  const uint32_t data_crc = masked_crc32c(bytes.data(), bytes.size());
  out_.write(reinterpret_cast<const char*>(&len), 8);
  out_.write(reinterpret_cast<const char*>(&len_crc), 4);
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out_.write(reinterpret_cast<const char*>(&data_crc), 4);
}

}  // namespace pz::io
