// io::TbEventWriter and exp::TensorBoardLog: CRC-32C check values, the protobuf bytes of a scalar
// event built by hand from the wire format, TFRecord framing read back, and the rewrite of the
// events file from a checkpoint's history on resume.
#include <doctest/doctest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "powerzoo/exp/run/tensorboard_log.hpp"
#include "powerzoo/io/tb_events.hpp"
#include "test_util.hpp"

using namespace pz;
namespace fs = std::filesystem;

namespace {

// The records of an events file; CHECKs each frame's two masked CRCs.
std::vector<std::string> read_records(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  std::vector<std::string> out;
  size_t at = 0;
  while (at + 12 <= all.size()) {
    uint64_t len;
    uint32_t len_crc, data_crc;
    std::memcpy(&len, all.data() + at, 8);
    std::memcpy(&len_crc, all.data() + at + 8, 4);
    CHECK(len_crc == io::masked_crc32c(all.data() + at, 8));
    REQUIRE(at + 12 + len + 4 <= all.size());
    std::string rec = all.substr(at + 12, len);
    std::memcpy(&data_crc, all.data() + at + 12 + len, 4);
    CHECK(data_crc == io::masked_crc32c(rec.data(), rec.size()));
    out.push_back(rec);
    at += 12 + len + 4;
  }
  CHECK(at == all.size());
  return out;
}

fs::path events_file(const fs::path& dir) {
  std::vector<fs::path> found;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0)
      found.push_back(e.path());
  REQUIRE(found.size() == 1);
  return found[0];
}

}  // namespace

TEST_SUITE("io_tb_events") {
  TEST_CASE("crc32c: the CRC-32C check value of \"123456789\" and its TFRecord mask") {
    // RFC 3720 B.4 / the CRC catalogue: CRC-32C("123456789") = 0xE3069283.
    CHECK(io::crc32c("123456789", 9) == 0xE3069283u);
    // ((c >> 15) | (c << 17)) + 0xa282ead8, by hand: 0xc78ab0e5.
    CHECK(io::masked_crc32c("123456789", 9) == 0xc78ab0e5u);
    CHECK(io::crc32c("", 0) == 0u);
  }

  TEST_CASE("encode_scalar_event: the wire-format bytes built by hand") {
    const std::string got = io::encode_scalar_event(1.5, 300, {{"a", 2.0f}});
    const unsigned char want[] = {
        0x09, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F,  // field 1 (double) wall_time = 1.5
        0x10, 0xAC, 0x02,                    // field 2 (varint) step = 300
        0x2A, 0x0A,                          // field 5 (bytes) summary, 10 bytes
        0x0A, 0x08,                          //   Summary.value, 8 bytes
        0x0A, 0x01, 'a',                     //     Value.tag = "a"
        0x15, 0, 0, 0, 0x40};                //     Value.simple_value (float) = 2.0
    REQUIRE(got.size() == sizeof(want));
    CHECK(std::memcmp(got.data(), want, sizeof(want)) == 0);
  }

  TEST_CASE("TbEventWriter: file_version first, then framed scalar events") {
    const fs::path d = test::tmp_dir("tb", "writer");
    const fs::path f = d / "events.out.tfevents.1.test";
    {
      io::TbEventWriter w(f.string());
      w.write_scalars(7, 10.0, {{"x", 1.0f}, {"y", -3.5f}});
    }
    const auto recs = read_records(f);
    REQUIRE(recs.size() == 2);
    CHECK(recs[0].find("brain.Event:2") != std::string::npos);
    CHECK(recs[1] == io::encode_scalar_event(10.0, 7, {{"x", 1.0f}, {"y", -3.5f}}));
    io::TbEventWriter a(f.string(), io::TbEventWriter::kAppend);
    a.write_scalars(8, 11.0, {{"x", 2.0f}});
    CHECK(read_records(f).size() == 3);
  }

  TEST_CASE("TensorBoardLog: a resume rewrites the events from the history, in step order") {
    const fs::path d = test::tmp_dir("tb", "resume");
    exp::TensorBoardLog log;
    log.open(d.string(), nullptr, {"iid"});
    log.train_row({{"global_step", 100}, {"wall_time", 1}, {"loss", 9}});
    log.train_row({{"global_step", 200}, {"wall_time", 2}, {"loss", 8}});  // lost by the resume
    exp::MetricHistory h;
    h.eval = {{{"global_step", 0}, {"wall_time", 0}, {"return_mean", -5}}};  // main split bare
    h.train = {{{"global_step", 100}, {"wall_time", 1}, {"loss", 9}}};
    log.open(d.string(), &h, {"iid"});
    log.train_row({{"global_step", 200}, {"wall_time", 2.5}, {"loss", 7}});
    const auto recs = read_records(events_file(d));  // the old file is gone: exactly one
    REQUIRE(recs.size() == 4);
    // Wall times continue the run's clock: epoch0 + wall_time; compare the rest of the bytes.
    auto tail = [](const std::string& r) { return r.substr(9); };
    CHECK(tail(recs[1]) == tail(io::encode_scalar_event(0, 0, {{"eval/iid/return_mean", -5}})));
    CHECK(tail(recs[2]) == tail(io::encode_scalar_event(0, 100, {{"train/loss", 9}})));
    CHECK(tail(recs[3]) == tail(io::encode_scalar_event(0, 200, {{"train/loss", 7}})));
    double t1, t3;
    std::memcpy(&t1, recs[2].data() + 1, 8);
    std::memcpy(&t3, recs[3].data() + 1, 8);
    CHECK(t3 - t1 == doctest::Approx(1.5));
  }
}
