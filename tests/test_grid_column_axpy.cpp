// Tests of pz::grid::add_columns (grid/dc/column_axpy.hpp): bitwise equal to the
// column-by-column loop it replaces, across row blocks, row tails, column chunks and zero entries.
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "powerzoo/grid/dc/column_axpy.hpp"

TEST_SUITE("grid_column_axpy") {
  TEST_CASE("add_columns equals the column-by-column loop bit for bit") {
    std::mt19937 g(3);
    std::uniform_real_distribution<double> U(-1, 1);
    // Row counts around the 16- and 4-row blocks (186: case118's branches), column counts around
    // the 64-column chunk (54: case118's units).
    for (int nl : {1, 3, 4, 15, 16, 17, 20, 186}) {
      for (int n : {0, 1, 54, 63, 64, 65, 130}) {
        CAPTURE(nl);
        CAPTURE(n);
        const size_t ld = static_cast<size_t>(nl) + 3;  // a stride wider than the rows
        std::vector<double> cols(ld * n), x(n), base(nl);
        for (double& v : cols) v = U(g) * 1e3;
        for (int j = 0; j < n; ++j) x[j] = j % 3 == 1 ? 0.0 : U(g) * 500;  // a third are off
        for (double& v : base) v = U(g) * 1e4;
        std::vector<double> ref = base, got = base;
        for (int j = 0; j < n; ++j) {
          if (x[j] == 0.0) continue;
          for (int l = 0; l < nl; ++l) ref[l] += cols[j * ld + l] * x[j];
        }
        pz::grid::add_columns(cols.data(), ld, x.data(), n, got.data(), nl);
        int same = 0;
        for (int l = 0; l < nl; ++l) same += got[l] == ref[l];
        CHECK(same == nl);
        if (n > 1) {
          // Not a no-op: the sums moved away from the base.
          int moved = 0;
          for (int l = 0; l < nl; ++l) moved += got[l] != base[l];
          CHECK(moved == nl);
        }
      }
    }
  }
}
