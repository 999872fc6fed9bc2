// End-to-end tests of `powerzoo grid acpf|acopf`: MATPOWER-named JSON, exit 1 for a power flow
// that does not converge, exit 2 naming the case file, row and column for bad AC case data.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "test_util.hpp"

namespace {

const std::string kBin = PZ_BINARY;

std::string bundled_text(const std::string& name) {
  std::ifstream in(std::string(PZ_SOURCE_DIR) + "/data/cases/" + name + ".m");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// case5.m with the first occurrence of `from` replaced by `to`, written to a temporary file.
std::string edited_case5(const std::string& tag, const std::string& from, const std::string& to) {
  std::string text = bundled_text("case5");
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "case5.m has no '" << from << "'");
  text.replace(at, from.size(), to);
  const auto dir = pz::test::tmp_dir("pz_cli_ac", tag);
  return pz::test::write(dir / (tag + ".m"), text);
}

}  // namespace

TEST_SUITE("cli_grid_ac") {
  TEST_CASE("grid acpf --json carries MATPOWER's fields and values") {
    const auto r = pz::test::sh(kBin + " grid acpf case5 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["success"] == true);
    CHECK(j["iterations"] == 3);
    for (const char* f : {"bus_vm_pu", "bus_va_deg", "branch_pf_mw", "branch_qf_mvar",
                          "branch_pt_mw", "branch_qt_mvar", "gen_qg_mvar", "total_losses_mw"})
      CHECK_MESSAGE(j.contains(f), f);
    CHECK(j["total_losses_mw"].get<double>() == doctest::Approx(5.027180043254351).epsilon(1e-9));
    const auto q = pz::test::sh(kBin + " grid acpf case5 --enforce-q-lims --json");
    REQUIRE_MESSAGE(q.code == 0, q.out);
    CHECK(nlohmann::json::parse(q.out)["q_limited_gens"].size() >= 1);
  }

  TEST_CASE("grid acpf with load x5 does not converge: success = false and exit 1") {
    const auto r = pz::test::sh(kBin + " grid acpf case118 --load-scale 5 --json");
    CHECK(r.code == 1);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["success"] == false);
    CHECK(j["max_mismatch_pu"].get<double>() > 1e-8);
    CHECK(j["iterations"].get<int>() >= 1);
  }

  TEST_CASE("grid acopf --json: objective and LMPs") {
    const auto r = pz::test::sh(kBin + " grid acopf case5 --json");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["objective"].get<double>() == doctest::Approx(17551.89092175886).epsilon(1e-6));
    CHECK(j["bus_lam_p"].size() == 5);
    CHECK(j["bus_lam_q"].size() == 5);
    CHECK(pz::test::sh(kBin + " grid dcpf case5 --enforce-q-lims").code == 2);
  }

  TEST_CASE("bad AC case data exits 2 naming the file, the row and the column") {
    struct Bad {
      const char* tag;
      const char* from;
      const char* to;
      const char* row;
      const char* column;
    };
    const Bad bad[] = {
        {"zero_z", "1\t2\t0.00281\t0.0281", "1\t2\t0\t0", "mpc.branch row 1", "BR_X"},
        {"no_ref", "4\t3\t400", "4\t2\t400", "mpc.bus", "BUS_TYPE"},
        {"neg_rate", "4\t5\t0.00297\t0.0297\t0.00674\t240", "4\t5\t0.00297\t0.0297\t0.00674\t-240",
         "mpc.branch row 6", "RATE_A"},
        {"vmin_vmax", "2\t1\t300\t98.61\t0\t0\t1\t1\t0\t230\t1\t1.1\t0.9",
         "2\t1\t300\t98.61\t0\t0\t1\t1\t0\t230\t1\t0.9\t1.1", "mpc.bus row 2", "VMIN"},
    };
    for (const Bad& b : bad) {
      CAPTURE(b.tag);
      const std::string path = edited_case5(b.tag, b.from, b.to);
      for (const char* solver : {"acpf", "acopf"}) {
        const auto r = pz::test::sh(kBin + " grid " + solver + " " + path);
        CHECK(r.code == 2);
        CHECK_MESSAGE(r.out.find(path) != std::string::npos, r.out);
        CHECK_MESSAGE(r.out.find(b.row) != std::string::npos, r.out);
        CHECK_MESSAGE(r.out.find(b.column) != std::string::npos, r.out);
      }
    }
  }
}
