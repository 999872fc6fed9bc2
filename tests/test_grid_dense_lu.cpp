// Tests of the grid layer's one dense linear solver (pz::grid::DenseLu).
#include <doctest/doctest.h>

#include <vector>

#include "powerzoo/grid/linalg/dense_lu.hpp"

using pz::grid::DenseLu;

TEST_SUITE("grid_dense_lu") {
  TEST_CASE("3x3 system with a zero leading pivot, several right-hand sides") {
    // A x = b with x = (1, 2, 3): row 0 has a zero diagonal, so the solve needs row pivoting.
    const std::vector<double> a = {0, 2, 1,  //
                                   1, 1, 1,  //
                                   2, 1, 0};
    const DenseLu lu(a, 3);
    REQUIRE(lu.ok());
    CHECK(lu.size() == 3);
    std::vector<double> x = {7, 6, 4};
    lu.solve(x.data());
    CHECK(x[0] == doctest::Approx(1.0).epsilon(1e-14));
    CHECK(x[1] == doctest::Approx(2.0).epsilon(1e-14));
    CHECK(x[2] == doctest::Approx(3.0).epsilon(1e-14));
    // Columns of the inverse: A · A⁻¹ = I (the factors are reused across solves).
    for (int j = 0; j < 3; ++j) {
      std::vector<double> e(3, 0.0);
      e[j] = 1.0;
      lu.solve(e.data());
      for (int i = 0; i < 3; ++i) {
        double s = 0;
        for (int k = 0; k < 3; ++k) s += a[i * 3 + k] * e[k];
        CHECK(s == doctest::Approx(i == j ? 1.0 : 0.0).epsilon(1e-14).scale(1.0));
      }
    }
  }

  TEST_CASE("2x2 by hand: diag(2, 4) and a permutation") {
    const DenseLu d({2, 0, 0, 4}, 2);
    REQUIRE(d.ok());
    std::vector<double> x = {3, 3};
    d.solve(x.data());
    CHECK(x[0] == 1.5);
    CHECK(x[1] == 0.75);
    const DenseLu p({0, 1, 1, 0}, 2);  // swaps the two unknowns
    REQUIRE(p.ok());
    std::vector<double> y = {5, -2};
    p.solve(y.data());
    CHECK(y[0] == -2.0);
    CHECK(y[1] == 5.0);
  }

  TEST_CASE("singular and empty matrices") {
    CHECK_FALSE(DenseLu({1, 2, 2, 4}, 2).ok());          // rank 1
    CHECK_FALSE(DenseLu({0, 0, 0, 0}, 2).ok());          // zero
    CHECK_FALSE(DenseLu({1, 1, 1, 1 + 1e-15}, 2).ok());  // pivot below 1e-13 · max |a|
    CHECK(DenseLu({1, 1, 1, 1 + 1e-9}, 2).ok());
    const DenseLu empty({}, 0);
    CHECK(empty.ok());
    empty.solve(nullptr);  // nothing to do
  }

  TEST_CASE("transposed solves and refactoring in place") {
    // A = [[0, 2, 1], [1, 1, 0], [3, 0, 1]] (a zero leading pivot, so rows are swapped); Aᵀ x = b
    // for x = (1, −2, 3): b = (0·1 + 1·−2 + 3·3, 2·1 + 1·−2 + 0, 1·1 + 0 + 1·3) = (7, 0, 4).
    DenseLu lu;
    const std::vector<double> a = {0, 2, 1, 1, 1, 0, 3, 0, 1};
    REQUIRE(lu.factor(a.data(), 3));
    std::vector<double> x = {7, 0, 4};
    lu.solve_transposed(x.data());
    CHECK(x[0] == doctest::Approx(1).epsilon(1e-15));
    CHECK(x[1] == doctest::Approx(-2).epsilon(1e-15));
    CHECK(x[2] == doctest::Approx(3).epsilon(1e-15));
    // A x = (0 − 4 + 3, 1 − 2, 3 + 3) = (−1, −1, 6) for the same x.
    std::vector<double> y = {-1, -1, 6};
    lu.solve(y.data());
    CHECK(y[0] == doctest::Approx(1).epsilon(1e-15));
    CHECK(y[1] == doctest::Approx(-2).epsilon(1e-15));
    CHECK(y[2] == doctest::Approx(3).epsilon(1e-15));
    // Refactored as a smaller, then a singular matrix; the factors of a constructor are the same.
    const std::vector<double> b = {0, 1, 1, 0};
    REQUIRE(lu.factor(b.data(), 2));
    std::vector<double> z = {5, -2};
    lu.solve_transposed(z.data());
    CHECK(z == std::vector<double>{-2, 5});
    const std::vector<double> sing = {1, 2, 2, 4};
    CHECK_FALSE(lu.factor(sing.data(), 2));
    const DenseLu c(a, 3);
    std::vector<double> w = {-1, -1, 6};
    c.solve(w.data());
    CHECK(w == y);
  }
}
